"""Neighbour lists reduced to what the tests read: negatives and sizes of their prefixes.

A test at size k reads only how many of the first k (or k + 1) neighbours were rejected and
how many there were, so a search hands each chunk of lists to a :class:`ListReducer` where the
chunk ran (a Dask worker, or this process) and keeps, per complainant, the counts at the few
prefix lengths the grid of k needs: ``(m, len(cols))`` small integers instead of the
``(m, k_max + 1)`` positions and distances. On a cluster the lists never travel to the client;
at 10^7 rows (5·10^6 complainants, k_max = 50) that is 12 MB of counts per search instead of
4 GB of lists. The lists themselves come back only when the caller keeps them
(``keep_neighbors``, the dossiers).

Examples
--------
>>> neg = np.array([1, 0, 1])
>>> groups = np.array([[2, 0, 1], [1, -1, -1]])
>>> counts = prefix_counts(groups, neg, (1, 3))
>>> counts.negatives(3).tolist(), counts.sizes(3).tolist()
([2, 0], [3, 1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PrefixCounts", "ListReducer", "count_dtype", "prefix_counts", "prefix_lengths"]


def count_dtype(largest: int) -> np.dtype:
    """The smallest unsigned integer dtype holding every value in ``[0, largest]``.

    A complainant's counts are held on the client from its search to its partition's task (at
    10^7 rows, 5·10^6 complainants × three searches): counts of a list of at most 254
    members (k ≤ 253, or k_max + 1 ≤ 254) fit one byte, not the four of ``int32``. The
    statistics widen them again where they compute (:meth:`PrefixCounts.negatives`).

    Examples
    --------
    >>> count_dtype(51), count_dtype(255), count_dtype(256), count_dtype(70_000)
    (dtype('uint8'), dtype('uint8'), dtype('uint16'), dtype('uint32'))
    """
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.uint64)


def prefix_lengths(ks: list[int], width: int) -> tuple[int, ...]:
    """The prefix lengths a grid of k reads: every k and k + 1 (legacy lists hold k + 1
    members), at most the list width."""
    return tuple(sorted({j for k in ks for j in (k, k + 1) if 1 <= j <= width}))


@dataclass(frozen=True)
class PrefixCounts:
    """Negatives and sizes of the first j neighbours of every list, for j in ``cols``.

    ``neg[:, i]`` and ``size[:, i]`` belong to the prefix of length ``cols[i]``. They are held
    in the smallest dtype that fits (:func:`count_dtype`); :meth:`negatives` and :meth:`sizes`
    hand out ``int32`` columns, so the statistics compute on the same types as ever.
    """

    cols: tuple[int, ...]
    neg: np.ndarray
    size: np.ndarray

    def _col(self, j: int) -> int:
        try:
            return self.cols.index(j)
        except ValueError:
            raise KeyError(f"prefix length {j} was not kept; kept {self.cols}") from None

    def negatives(self, j: int) -> np.ndarray:
        """Rejected members among the first ``j`` neighbours (``int32``)."""
        return self.neg[:, self._col(j)].astype(np.int32)

    def sizes(self, j: int) -> np.ndarray:
        """Real members (pads excluded) among the first ``j`` neighbours (``int32``)."""
        return self.size[:, self._col(j)].astype(np.int32)


def prefix_counts(
    groups: np.ndarray, neg: np.ndarray, cols: tuple[int, ...], dtype: Any = None
) -> PrefixCounts:
    """Cumulative negatives and sizes of sorted neighbour lists at the prefix lengths ``cols``.

    Parameters
    ----------
    groups
        ``(m, width)`` positions into ``neg``, nearest first; ``-1`` pads.
    neg
        1 for a rejected row, 0 otherwise, by position.
    cols
        Prefix lengths to keep, each in ``[1, width]``.
    dtype
        The counts' dtype (default :func:`count_dtype` of the width).

    Returns
    -------
    PrefixCounts
        Counts in :func:`count_dtype` of the width (a count never exceeds it).
    """
    valid = groups >= 0
    vals = np.where(valid, neg[np.where(valid, groups, 0)], 0)
    at = np.asarray(cols, dtype=np.int64) - 1
    small = count_dtype(groups.shape[1]) if dtype is None else dtype
    cneg = np.cumsum(vals, axis=1, dtype=np.int32)[:, at].astype(small)
    csize = np.cumsum(valid, axis=1, dtype=np.int32)[:, at].astype(small)
    return PrefixCounts(tuple(cols), cneg, csize)


@dataclass(frozen=True)
class ListReducer:
    """What a search keeps of each chunk of neighbour lists (``knn(reduce=...)``).

    Positions are those of the search space (``neg`` and ``space_rows`` are indexed by them).
    The outputs, in :attr:`names` order: ``self_pos`` (with ``own``), ``neg`` and ``size``
    (:func:`prefix_counts` at ``cols``), ``neg_cf`` (with ``neg_cf``), ``centre_rank`` (with
    ``centre_rows``), then ``list`` and ``dist`` (with ``keep``).

    Attributes
    ----------
    cols
        Prefix lengths to count.
    neg
        1 for a rejected search-space row.
    own
        Control search: each query's own position in the search space (the complainant is a
        protected row); its position in the list is reported as ``self_pos`` (width + 1 when
        absent).
    drop_own
        Corrected control group: remove the complainant by identity (or the last member when
        it is absent), leaving width − 1 members.
    neg_cf
        Legacy CST w/: negatives read from the counterfactual table, counted as well.
    centre_rows, space_rows, ties_last
        Legacy CST w/: the complainants' data rows and the search space's data rows, to rank
        the appended counterfactual centre among the members at distance 0.
    keep
        Also return the lists and distances (after ``drop_own``).
    """

    cols: tuple[int, ...]
    neg: np.ndarray
    own: np.ndarray | None = None
    drop_own: bool = False
    neg_cf: np.ndarray | None = None
    centre_rows: np.ndarray | None = None
    space_rows: np.ndarray | None = None
    ties_last: bool = False
    keep: bool = False

    @property
    def rows_by_list(self) -> bool:
        """Whether each output row depends only on its list (no query's own row or centre is
        read): ``knn`` then reduces the list of each distinct query once."""
        return self.own is None and self.centre_rows is None

    def reduce_repeated(
        self, idx: np.ndarray, dist: np.ndarray, inverse: np.ndarray
    ) -> tuple[np.ndarray, ...] | None:
        """The outputs of every query when queries repeat: query ``i`` has the list
        ``idx[inverse[i]]``. From each distinct list's prefix counts and the position of the
        query's own row in it (one sorted look-up per query), without expanding the
        ``(queries, width)`` lists (a fifth of ``law_table``'s profile); ``None`` when an
        output needs them (kept lists, the legacy centre, negatives from the counterfactuals)
        or no query has an own row: the caller expands.

        Examples
        --------
        >>> red = ListReducer(cols=(1, 2), neg=np.array([1, 0, 1]), own=np.array([0, 2]),
        ...                   drop_own=True)
        >>> lists = np.array([[0, 2, 1]])  # one distinct list for both queries
        >>> [a.tolist() for a in red.reduce_repeated(lists, lists * 0.0, np.array([0, 0]))]
        [[0, 1], [[1, 1], [1, 1]], [[1, 2], [1, 2]]]
        """
        if self.own is None or self.keep or self.neg_cf is not None:
            return None
        if self.centre_rows is not None:
            return None
        g, width = idx.shape
        valid = idx >= 0
        vals = np.where(valid, self.neg[np.where(valid, idx, 0)], 0)
        # column j: negatives (members) among the first j of each distinct list, j = 0..width
        first = np.zeros((g, 1), dtype=np.int32)
        cneg = np.hstack([first, np.cumsum(vals, axis=1, dtype=np.int32)])
        csize = np.hstack([first, np.cumsum(valid, axis=1, dtype=np.int32)])
        # each query's own row in its list: (list, row) keys sorted once, one look-up each
        rows_space = int(max(idx.max(initial=0), self.own.max(initial=0))) + 1
        key = (np.arange(g)[:, None] * rows_space + idx)[valid]
        where = np.broadcast_to(np.arange(width), idx.shape)[valid]
        order = np.argsort(key)
        key, where = key[order], where[order]
        wanted = inverse * rows_space + self.own
        at = np.minimum(np.searchsorted(key, wanted), max(len(key) - 1, 0))
        found = key[at] == wanted if len(key) else np.zeros(len(inverse), dtype=bool)
        self_pos = np.where(found, where[at] if len(key) else 0, width + 1)
        cols = np.asarray(self.cols, dtype=np.int64)
        neg, size = cneg[:, cols][inverse], csize[:, cols][inverse]
        if self.drop_own:
            # Without its own row (at p), the first j members of a list are its first j + 1
            # less that row when p < j; else its first j (an absent row drops the last one,
            # beyond every prefix counted).
            inside = found[:, None] & (self_pos[:, None] < cols[None, :])
            own_neg = self.neg[self.own].astype(np.int32)[:, None]
            neg = np.where(inside, cneg[:, cols + 1][inverse] - own_neg, neg)
            size = np.where(inside, csize[:, cols + 1][inverse] - 1, size)
        small = self.out_dtype(width)
        return self_pos.astype(small), neg.astype(small), size.astype(small)

    @property
    def names(self) -> tuple[str, ...]:
        """Names of the outputs of :meth:`__call__`, in order."""
        names = ("self_pos",) if self.own is not None else ()
        names += ("neg", "size")
        names += ("neg_cf",) if self.neg_cf is not None else ()
        names += ("centre_rank",) if self.centre_rows is not None else ()
        return names + (("list", "dist") if self.keep else ())

    @staticmethod
    def out_dtype(width: int) -> np.dtype:
        """The dtype of every count output for lists ``width`` long (before ``drop_own``):
        ``self_pos`` reaches width + 1, the counts and ``centre_rank`` at most the width, so
        one small dtype (:func:`count_dtype`) holds them all, whichever path reduced them."""
        return count_dtype(width + 1)

    def __call__(self, idx: np.ndarray, dist: np.ndarray, rows: slice) -> tuple[np.ndarray, ...]:
        out: list[np.ndarray] = []
        small = self.out_dtype(idx.shape[1])
        if self.own is not None:
            is_self = idx == self.own[rows][:, None]
            has_self = is_self.any(axis=1)
            self_pos = np.where(has_self, is_self.argmax(axis=1), idx.shape[1] + 1)
            out.append(self_pos.astype(small))
            if self.drop_own:
                keep = ~is_self
                keep[~has_self, -1] = False
                width = idx.shape[1] - 1
                idx = idx[keep].reshape(len(idx), width)
                dist = dist[keep].reshape(len(dist), width)
        counts = prefix_counts(idx, self.neg, self.cols, small)
        out += [counts.neg, counts.size]
        if self.neg_cf is not None:
            out.append(prefix_counts(idx, self.neg_cf, self.cols, small).neg)
        if self.centre_rows is not None:
            # Rank of the appended centre (label c, distance 0) among the rows at distance 0:
            # they win over it unless the tie rule prefers the centre's (earlier) row.
            zero = (dist == 0) & (idx >= 0)
            if self.ties_last:
                data_rows = self.space_rows[np.maximum(idx, 0)]
                zero &= data_rows > self.centre_rows[rows][:, None]
            out.append(zero.sum(axis=1).astype(small))
        if self.keep:
            out += [idx, dist]
        return tuple(out)
