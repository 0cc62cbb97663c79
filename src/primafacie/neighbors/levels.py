r"""Indexes split by the levels of a few-valued numeric column (exact: same neighbours).

A numeric or ordinal column with a handful of distinct values (the credit world's education:
4 levels) is a lattice a KD-tree cannot split once a query's neighbourhood is narrower than one
step, so every query walks the rows of every level near it, and the tree's cost per query grew
as ~m^0.5 with its rows m (``docs/scaling.md``, "The slope"). Split instead: the rows of one
level form a *partition* indexed without that column. Every row of partition ``v`` contributes
exactly ``|q_c - v|`` through the column, so its distance to a query is

    ``d(q, x) = |q_c - v| + d_rest(q, x)``,   ``d_rest ≥ 0``,

and ``|q_c - v|`` is an exact lower bound on the distance of every row of the partition (and
the rows of a partition rank among themselves by ``d_rest``). A query searches its nearest
level first, then each other level in order of ``|q_c - v|`` unless that bound already exceeds
its current ``kq``-th distance (plus the index's error bound): no row there can be among its
``kq`` nearest. The merged lists are the ``kq`` nearest of the whole index, distances within
the index's tolerance of the L1 sums, which is all :func:`~primafacie.neighbors.search.
_index_pairs` needs to certify them; the final ranking stays the canonical one, so the search
returns the brute-force answer bit for bit (``tests/neighbors/test_levels.py``).

Thresholds: a column qualifies with at most :data:`MAX_LEVELS` distinct values among at least
:data:`MIN_ROWS` base rows (smaller indexes fit the cache and gain nothing), and an index is
split only when it has at least :data:`MIN_ROWS` rows and another column to search on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["MAX_LEVELS", "MIN_ROWS", "level_column", "by_levels"]

#: A numeric column with at most this many distinct values splits the indexes.
MAX_LEVELS = 8

#: Base rows (and index rows) from which the split pays off (measured: ``benchmarks/slope.py``).
MIN_ROWS = 10_000

#: Rows of the evenly spaced sample that rules out a many-valued column before a full scan.
_SAMPLE = 4096


def level_column(num: np.ndarray) -> int | None:
    """The numeric column with the fewest distinct values when it has at most
    :data:`MAX_LEVELS` of them and there are at least :data:`MIN_ROWS` rows, else ``None``.

    Examples
    --------
    >>> import primafacie.neighbors.levels as L
    >>> x = np.column_stack([np.arange(20_000) / 7.0, np.arange(20_000) % 3, np.zeros(20_000)])
    >>> L.level_column(x)  # column 2 is constant: one level is no split
    1
    >>> L.level_column(x[:100]) is None
    True
    """
    n, p = num.shape
    if n < MIN_ROWS or p == 0:
        return None
    sample = num[:: max(1, n // _SAMPLE)]
    best, fewest = None, MAX_LEVELS + 1
    for j in range(p):  # a loop over columns, never over rows
        if 2 <= len(np.unique(sample[:, j])) <= MAX_LEVELS:
            distinct = len(np.unique(num[:, j]))
            if 2 <= distinct < fewest:
                best, fewest = j, distinct
    return best


def by_levels(make_index: Callable[[np.ndarray, float], Any], col: int | None) -> Callable:
    """``make_index`` whose indexes of at least :data:`MIN_ROWS` rows are split by the levels of
    embedding column ``col`` (the identity when ``col`` is ``None``)."""
    if col is None:
        return make_index

    def make(emb: np.ndarray, maxabs: float) -> Any:
        if len(emb) < MIN_ROWS or emb.shape[1] < 2:
            return make_index(emb, maxabs)
        values, part = np.unique(emb[:, col], return_inverse=True)
        if not 2 <= len(values) <= MAX_LEVELS:
            return make_index(emb, maxabs)
        return _Levels(emb, col, values, part.reshape(-1), make_index, maxabs).index()

    return make


class _Levels:
    """One index per level of column ``col`` over the other columns (see the module docstring)."""

    def __init__(
        self,
        emb: np.ndarray,
        col: int,
        values: np.ndarray,
        part: np.ndarray,
        make_index: Callable,
        maxabs: float,
    ) -> None:
        self.col, self.values = col, values
        rest = np.delete(emb, col, axis=1)
        # rows of each level in their original order: ties among equal distances then come
        # out as the unsplit index would see them (the caller ranks them canonically anyway)
        # (int32 when they fit: held as long as the index)
        small = np.int32 if len(emb) < 2**31 else np.int64
        self.members = [np.flatnonzero(part == v).astype(small) for v in range(len(values))]
        self.parts = [make_index(np.ascontiguousarray(rest[r]), maxabs) for r in self.members]
        self.radius_ok = all(ix.radius is not None for ix in self.parts)
        eps = np.finfo(float).eps
        inner = self.parts[0].tol
        # the offset is added in float64 after the index's sum: one more rounding
        self.tol = lambda rho: inner(rho) + 4 * eps * (1 + np.abs(rho))

    def index(self) -> Any:
        """This split as an :class:`~primafacie.neighbors.search._Index`."""
        # the parts' own class (search._Index): no import of the search module
        return type(self.parts[0])(
            search=self.search, radius=self.radius if self.radius_ok else None, tol=self.tol
        )

    def _offsets(self, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per query the exact distance through the column to each level, and the rest."""
        off = np.abs(e[:, self.col][:, None] - self.values[None, :])
        return off, np.ascontiguousarray(np.delete(e, self.col, axis=1))

    def search(self, e: np.ndarray, kq: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``kq`` nearest rows of the whole index: nearest level first, then the others
        while their offset can still beat the current ``kq``-th distance."""
        m, levels = len(e), len(self.values)
        off, rest = self._offsets(e)
        ranked = np.argsort(off, axis=1, kind="stable")
        best_d = np.full((m, kq), np.inf)
        best_i = np.full((m, kq), -1, dtype=np.int64)
        for r in range(levels):  # loops over levels (at most MAX_LEVELS), never over rows
            far = best_d[:, -1] + 4 * self.tol(best_d[:, -1])
            for v in range(levels):
                rows = np.flatnonzero((ranked[:, r] == v) & ~(off[:, v] > far))
                if not len(rows):
                    continue
                d, i = self._part(v, rest[rows], kq, off[rows, v])
                if r == 0:
                    # Each query's first level: its lists are still empty (inf), and the
                    # level's are ascending (the tree's sorted distances plus one offset per
                    # query), so the merge would return them as they are.
                    best_d[rows, : d.shape[1]], best_i[rows, : d.shape[1]] = d, i
                else:
                    best_d[rows], best_i[rows] = _merge(best_d[rows], best_i[rows], d, i, kq)
        return best_d, best_i

    def _part(
        self, v: int, rest: np.ndarray, kq: int, off: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The nearest ``kq`` rows of level ``v`` (fewer if it has fewer), as index rows."""
        size = len(self.members[v])
        d, i = self.parts[v].search(rest, min(kq, size))
        d = np.asarray(d, dtype=float) + off[:, None]
        i = self.members[v][np.asarray(i, dtype=np.int64)]
        return d, i

    def radius(self, e: np.ndarray, r: np.ndarray) -> list[np.ndarray]:
        """Every row within ``r[i]`` of query ``i`` (one array per query)."""
        off, rest = self._offsets(e)
        qs, found = [], []
        for v in range(len(self.values)):
            rows = np.flatnonzero(off[:, v] <= r)
            if not len(rows):
                continue
            lists = self.parts[v].radius(rest[rows], np.maximum(r[rows] - off[rows, v], 0.0))
            lens = np.fromiter((len(a) for a in lists), dtype=np.int64, count=len(lists))
            qs.append(np.repeat(rows, lens))
            # an index may answer with plain lists (SciPy's cKDTree), whose empty ones make
            # a float array: the row numbers are cast back to integers
            hits = np.concatenate([*lists, np.zeros(0, np.int64)]).astype(np.int64)
            found.append(self.members[v][hits])
        q = np.concatenate([*qs, np.zeros(0, np.int64)])
        i = np.concatenate([*found, np.zeros(0, np.int64)])
        order = np.argsort(q, kind="stable")
        return np.split(i[order], np.cumsum(np.bincount(q, minlength=len(e)))[:-1])


def _merge(
    d1: np.ndarray, i1: np.ndarray, d2: np.ndarray, i2: np.ndarray, kq: int
) -> tuple[np.ndarray, np.ndarray]:
    """The ``kq`` smallest of two candidate lists per row, ascending (pads are ``inf``)."""
    d, i = np.hstack([d1, d2]), np.hstack([i1, i2])
    o = np.argsort(d, axis=1, kind="stable")[:, :kq]
    return np.take_along_axis(d, o, axis=1), np.take_along_axis(i, o, axis=1)
