"""k-NN among a base whose rows repeat: distances to each distinct row once, then its rows.

Rows with the same scaled values and codes are at bit-identical distances from any query (the
canonical arithmetic is elementwise), so a search need only measure the distinct rows of the
base. The law-school data have ~1,200 distinct (LSAT, UGPA) pairs among 21,790 rows: a query
block is then 1,200 columns wide instead of 18,000, and no tree is built (issue 22, the CST
law reproduction). The rows of the distinct rows nearest to each query are expanded back, in
row order, and ranked by (distance, base row): the brute-force answer, tie rule included.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .topk import topk_block

__all__ = ["BaseGroups", "base_groups", "grouped_topk"]


@dataclass(frozen=True)
class BaseGroups:
    """The base's rows grouped by distinct row.

    Attributes
    ----------
    first
        Position of each distinct row's first occurrence (the row the distances are
        measured to).
    start, size
        Distinct row ``g`` is repeated at the base rows ``rows[start[g] : start[g] + size[g]]``.
    rows
        Base rows ordered by distinct row, ascending within each.
    """

    first: np.ndarray
    start: np.ndarray
    size: np.ndarray
    rows: np.ndarray


def base_groups(first: np.ndarray, inverse: np.ndarray) -> BaseGroups:
    """:class:`BaseGroups` from the distinct rows' first positions and each row's group.

    Examples
    --------
    >>> g = base_groups(np.array([0, 1]), np.array([0, 1, 0, 1, 1]))
    >>> g.rows.tolist(), g.start.tolist(), g.size.tolist()
    ([0, 2, 1, 3, 4], [0, 2], [2, 3])
    """
    rows = np.argsort(inverse, kind="stable")
    size = np.bincount(inverse, minlength=len(first))
    return BaseGroups(first, np.cumsum(size) - size, size, rows)


def grouped_topk(d: np.ndarray, groups: BaseGroups, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest base rows of each query from its distances to the distinct rows.

    Parameters
    ----------
    d
        ``(m, g)`` finished distances of ``m`` queries to the ``g`` distinct rows.
    groups
        Where each distinct row repeats in the base.
    k
        Neighbours per query, at most the number of base rows.

    Returns
    -------
    tuple of numpy.ndarray
        ``(m, k)`` base rows and their distances, ordered by (distance, base row): what a
        blocked scan of every base row returns.

    Examples
    --------
    >>> g = base_groups(np.array([0, 1]), np.array([0, 1, 0, 1, 1]))
    >>> idx, dist = grouped_topk(np.array([[0.5, 0.25]]), g, 4)
    >>> idx.tolist(), dist.tolist()
    ([[1, 3, 4, 0]], [[0.25, 0.25, 0.25, 0.5]])
    """
    m, n = len(d), len(groups.rows)
    # ``limit``: the k-th row's distance. Rows nearer than it all belong to the answer (fewer
    # than k of them); the rest come from the distinct rows at exactly ``limit``, the earliest
    # rows first, so no such distinct row gives more than the ``need`` rows still missing.
    limit = _limits(d, groups.size, k)
    q, g = np.nonzero(d <= limit[:, None])
    dist = d[q, g]
    order = np.lexsort((dist, q))  # each query's distinct rows, nearest first
    q, g, dist = q[order], g[order], dist[order]
    less = dist < limit[q]
    need = k - np.bincount(q[less], weights=groups.size[g[less]], minlength=m).astype(np.int64)
    take = np.where(less, groups.size[g], np.minimum(groups.size[g], need[q]))
    # every (query, distinct row) pair expanded to its first ``take`` base rows, no loop
    starts = np.repeat(np.cumsum(take) - take, take)
    pos = np.arange(int(take.sum())) - starts + np.repeat(groups.start[g], take)
    rows = groups.rows[pos]
    # Order by (query, distance, base row): pairs are in (query, distance) order and each
    # pair's rows ascend, so only distinct rows at equal distances need merging by row.
    run = np.cumsum(np.r_[True, (q[1:] != q[:-1]) | (dist[1:] != dist[:-1])])
    key = np.repeat(run, take) * n + rows
    order = np.argsort(key) if len(key) > 1 and (key[1:] < key[:-1]).any() else slice(None)
    q, rows, dist = np.repeat(q, take)[order], rows[order], np.repeat(dist, take)[order]
    rank = np.arange(len(q)) - np.searchsorted(q, q)  # position within the query's list
    keep = rank < k
    out_i = np.full((m, k), -1, dtype=np.int64)
    out_d = np.full((m, k), np.inf)
    out_i[q[keep], rank[keep]] = rows[keep]
    out_d[q[keep], rank[keep]] = dist[keep]
    return out_i, out_d


def _limits(d: np.ndarray, size: np.ndarray, k: int) -> np.ndarray:
    """Per query, the distance of its k-th nearest base row: its distinct rows nearest first
    until their repeats hold k rows.

    A first pass looks among a few distinct rows per query (twice the mean share k needs,
    plus 8); the queries they do not fill look among ``min(k, distinct rows)``, which always
    hold k rows (each holds at least one; all of them hold every base row).
    """
    m, width = d.shape
    full = min(k, width)
    guess = min(full, 2 * -(-k * width // int(size.sum())) + 8)
    limit = np.empty(m)
    left = np.arange(m)
    for w in dict.fromkeys((guess, full)):  # two widths at most, never a loop over rows
        top, tdist = topk_block(d[left], w)
        held = np.cumsum(size[top], axis=1)
        done = held[:, -1] >= k
        cut = (held[done] < k).sum(axis=1)
        limit[left[done]] = tdist[done, cut]
        left = left[~done]
        if not len(left):
            break
    return limit
