"""Exact top-k selection kernels shared by the k-NN backends: ties go to the earlier row.

:func:`topk_block` takes a dense block of distances (one row per query, one column per base
row); :func:`select_pairs` takes candidate (query, base row, distance) pairs, as the index
backends and the grouped search of duplicated base rows produce them. Both order each query's
neighbours by (distance, base row), the tie rule every backend reproduces.
"""

from __future__ import annotations

import numpy as np

__all__ = ["select_pairs", "topk_block"]


def topk_block(d: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact k smallest per row, ties to the smaller column, sorted by (distance, column)."""
    m, n = d.shape
    if k >= n:
        order = np.argsort(d, axis=1, kind="stable")
        return order, np.take_along_axis(d, order, axis=1)
    kth = np.partition(d, k - 1, axis=1)[:, k - 1]
    rows, cols = np.nonzero(d <= kth[:, None])
    dv = d[rows, cols]
    less = dv < kth[rows]
    need = k - np.bincount(rows[less], minlength=m)
    # Among the cells equal to the k-th value keep the first `need` in column order
    # (np.nonzero lists them row by row, columns ascending).
    eq = (~less).astype(np.int64)
    csum = np.cumsum(eq)
    starts = np.searchsorted(rows, np.arange(m))
    before = np.concatenate([[0], csum])[starts]
    keep = less | ((csum - before[rows]) <= need[rows])
    cols = cols[keep].reshape(m, k)
    dist = dv[keep].reshape(m, k)
    order = np.lexsort((cols, dist))
    return np.take_along_axis(cols, order, axis=1), np.take_along_axis(dist, order, axis=1)


def select_pairs(
    qi: np.ndarray, bi: np.ndarray, d: np.ndarray, m: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the k candidate pairs with the smallest (distance, base row); duplicates once.

    Candidates are laid out as one padded row per query (``np.lexsort`` along rows: many small
    sorts, much cheaper than one global three-key sort); a query with far more candidates than
    the others (ties fetched by a radius search) would make the padding big, so that case is
    sorted globally instead.
    """
    out_i = np.full((m, k), -1, dtype=np.int64)
    out_d = np.full((m, k), np.inf)
    if not len(qi):
        return out_i, out_d
    order = np.argsort(qi, kind="stable")
    qi, bi, d = qi[order], bi[order], d[order]
    counts = np.bincount(qi, minlength=m)
    width = int(counts.max())
    if m * width > 4 * len(qi) + 1024:
        order = np.lexsort((bi, d, qi))
        qi, bi, d = qi[order], bi[order], d[order]
        width = 0
    starts = np.cumsum(counts) - counts
    col = np.arange(len(qi)) - starts[qi]
    if width:
        D = np.full((m, width), np.inf)
        B = np.full((m, width), np.iinfo(np.int64).max)
        D[qi, col], B[qi, col] = d, bi
        o = np.lexsort((B, D), axis=-1)
        D, B = np.take_along_axis(D, o, axis=1), np.take_along_axis(B, o, axis=1)
        real = np.isfinite(D) | (B < np.iinfo(np.int64).max)
        mask = real.ravel()
        qi = np.repeat(np.arange(m), width)[mask]
        d, bi = D.ravel()[mask], B.ravel()[mask]
    # The same pair found twice has bit-identical distances: it now sits next to itself.
    dup = np.zeros(len(qi), dtype=bool)
    dup[1:] = (qi[1:] == qi[:-1]) & (bi[1:] == bi[:-1])
    qi, bi, d = qi[~dup], bi[~dup], d[~dup]
    first = np.ones(len(qi), dtype=bool)
    first[1:] = qi[1:] != qi[:-1]
    pos = np.arange(len(qi))
    rank = pos - np.maximum.accumulate(np.where(first, pos, 0))
    keep = rank < k
    out_i[qi[keep], rank[keep]] = bi[keep]
    out_d[qi[keep], rank[keep]] = d[keep]
    return out_i, out_d
