"""Exact top-k selection kernels shared by the k-NN backends: ties go to the earlier row.

:func:`topk_block` takes a dense block of distances (one row per query, one column per base
row); :func:`select_pairs` takes candidate (query, base row, distance) pairs, as the index
backends and the grouped search of duplicated base rows produce them; :func:`merge_ranked`
merges two such ranked lists per query (a stratum's lists into the best found so far). All
order each query's neighbours by (distance, base row), the tie rule every backend reproduces.
"""

from __future__ import annotations

import numpy as np

__all__ = ["merge_ranked", "select_pairs", "topk_block"]


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

    Candidates are laid out as one padded row per query. A row whose candidates already come
    in strictly ascending distance (all finite) is in (distance, base row) order as it stands:
    95 % of the rows of a credit-world search, whose index lists arrive ranked by the tree's
    distances, and which skip any sort. The others are sorted by distance alone (many small
    sorts, much cheaper than one global three-key sort), and only those where two candidates
    tie (or one is not finite) are sorted again by (distance, base row), which is where the
    tie rule and duplicates matter (1.4 % of the rows of a credit-world search: the two-key
    sort of every row was ~60 % of this function). A query with far more candidates than the
    others (ties fetched by a radius search) would make the padding big, so that case is
    sorted globally instead. The pairs are grouped by query first, by a stable sort unless
    each query's pairs already sit together (an index's lists do).
    """
    out_i = np.full((m, k), -1, dtype=np.int64)
    out_d = np.full((m, k), np.inf)
    if not len(qi):
        return out_i, out_d
    counts = np.bincount(qi, minlength=m)
    new = np.ones(len(qi), dtype=bool)
    np.not_equal(qi[1:], qi[:-1], out=new[1:])
    if np.count_nonzero(new) != np.count_nonzero(counts):  # some query's pairs are apart
        order = np.argsort(qi, kind="stable")
        qi, bi, d = qi[order], bi[order], d[order]
        np.not_equal(qi[1:], qi[:-1], out=new[1:])
    width = int(counts.max())
    if m * width > 4 * len(qi) + 1024:
        order = np.lexsort((bi, d, qi))
        _first_k(qi[order], bi[order], d[order], k, out_i, out_d)
        return out_i, out_d
    pos = np.arange(len(qi))
    col = pos - np.maximum.accumulate(np.where(new, pos, 0))  # rank of a pair in its query
    D = np.full((m, width), np.inf)
    B = np.full((m, width), _PAD)
    D[qi, col], B[qi, col] = d, bi
    real = np.arange(1, width)[None, :] < counts[:, None]
    last = D[np.arange(m), np.maximum(counts - 1, 0)]
    ranked = ((D[:, 1:] > D[:, :-1]) | ~real).all(axis=1) & (np.isfinite(last) | (counts == 0))
    w = min(k, width)
    _put(np.flatnonzero(ranked), D, B, w, out_i, out_d)
    rows = np.flatnonzero(~ranked)
    if not len(rows):
        return out_i, out_d
    D, B, counts = D[rows], B[rows], counts[rows]
    # stable: a row from an index comes nearly sorted (its distances within the index's
    # error of the canonical ones), which a stable sort passes through ~2-4x faster
    o = np.argsort(D, axis=1, kind="stable")
    D, B = np.take_along_axis(D, o, axis=1), np.take_along_axis(B, o, axis=1)
    # A row's order by distance alone is its order by (distance, row) when no two of its
    # candidates tie; padding (inf) sorts after its real candidates when they are finite.
    tie = np.zeros(D.shape, dtype=bool)
    np.equal(D[:, 1:], D[:, :-1], out=tie[:, 1:])
    tie &= np.arange(width)[None, :] < counts[:, None]
    last = D[np.arange(len(rows)), np.maximum(counts - 1, 0)]
    slow = tie.any(axis=1) | ((counts > 0) & ~np.isfinite(last))
    fast = np.flatnonzero(~slow)
    out_d[rows[fast], :w] = D[fast, :w]
    out_i[rows[fast], :w] = np.where(B[fast, :w] == _PAD, -1, B[fast, :w])
    slow = np.flatnonzero(slow)
    if len(slow):
        D, B = D[slow], B[slow]
        o = np.lexsort((B, D), axis=-1)
        D, B = np.take_along_axis(D, o, axis=1), np.take_along_axis(B, o, axis=1)
        mask = (np.isfinite(D) | (B < _PAD)).ravel()
        qr = np.repeat(rows[slow], width)[mask]
        _first_k(qr, B.ravel()[mask], D.ravel()[mask], k, out_i, out_d)
    return out_i, out_d


def _put(
    rows: np.ndarray, D: np.ndarray, B: np.ndarray, w: int, out_i: np.ndarray, out_d: np.ndarray
) -> None:
    """Write the first ``w`` cells of the ranked padded ``rows`` as those queries' lists."""
    out_d[rows, :w] = D[rows, :w]
    out_i[rows, :w] = np.where(B[rows, :w] == _PAD, -1, B[rows, :w])


#: Base row of a padding cell (after every real row in the tie rule's order).
_PAD = np.iinfo(np.int64).max


def _first_k(
    qi: np.ndarray, bi: np.ndarray, d: np.ndarray, k: int, out_i: np.ndarray, out_d: np.ndarray
) -> None:
    """Write each query's first ``k`` distinct pairs into ``out_i``/``out_d``; the pairs come
    grouped by query, each group in (distance, base row) order."""
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


def merge_ranked(
    a_i: np.ndarray, a_d: np.ndarray, b_i: np.ndarray, b_d: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the first ``k`` distinct pairs of two lists that are each already in
    (distance, base row) order: what :func:`select_pairs` gives on their pairs, without a sort.

    Parameters
    ----------
    a_i, a_d
        ``(m, k)`` base rows and distances of each query, ranked, ``-1``/``inf`` padding last
        (an output of :func:`select_pairs` or of this function).
    b_i, b_d
        The same for a second list of each query (another stratum's candidates).

    Returns
    -------
    tuple of numpy.ndarray
        ``(m, k)`` base rows and distances of the merged lists, ``-1``/``inf`` padded; a pair in
        both lists (the same base row at the same distance) is kept once.

    Each cell of the list with fewer cells is placed by a binary search in the other list of
    its query (a loop over the ~log2(k) halvings, vectorised over the cells): its rank there
    under (distance, base row) plus its own rank gives its place, and every cell of the other
    list moves down by the number of cells placed before it. In a stratified search the best
    list of a query holds a few rows of its postcode cell when an index's ranked list of k + 1
    arrives; concatenating them and sorting each row cost ~3 CPU s of a 10^6 search
    (docs/scaling.md).

    Examples
    --------
    >>> a_i, a_d = np.array([[4, 2, -1]]), np.array([[0.1, 0.3, np.inf]])
    >>> b_i, b_d = np.array([[1, 3, 2]]), np.array([[0.2, 0.3, 0.3]])
    >>> i, d = merge_ranked(a_i, a_d, b_i, b_d)
    >>> i.tolist(), d.tolist()
    ([[4, 1, 2]], [[0.1, 0.2, 0.3]])
    """
    m, k = a_i.shape
    # x: the list whose longest row is shorter (its pairs placed by a search in y's rows)
    wa, wb = int((a_i.max(axis=0) >= 0).sum()), int((b_i.max(axis=0) >= 0).sum())
    if wa > wb:
        a_i, a_d, b_i, b_d, wa = b_i, b_d, a_i, a_d, wb
    r, c = np.nonzero(a_i[:, :wa] >= 0)  # row-major: each row's pairs in rank order
    if not len(r):
        return b_i.copy(), b_d.copy()
    xb, xd = a_i[r, c], a_d[r, c]
    if not np.isfinite(xd).all():  # an infinite or NaN distance: sorted as before
        keep = np.r_["1", a_i, b_i] >= 0
        qi = np.nonzero(keep)[0]
        return select_pairs(qi, np.r_["1", a_i, b_i][keep], np.r_["1", a_d, b_d][keep], m, k)
    y_i, y_d, row = b_i.ravel(), b_d.ravel(), r * k
    # p: the number of y's pairs before each x pair in (distance, base row) order, by a
    # branchless binary search over the whole row (y's padding, inf, is never before a finite
    # distance); most x pairs are before y's first pair (a query's own postcode cell before
    # the index's rows that differ from it on the postcode), so only the others are searched
    p = np.zeros(len(r), dtype=np.int64)
    first = y_d.take(row)
    go = np.flatnonzero((first < xd) | ((first == xd) & (y_i.take(row) < xb)))
    if len(go):
        at, gd, gb, q = row[go], xd[go], xb[go], np.zeros(len(go), dtype=np.int64)
        step = 1 << (k.bit_length() - 1)
        while step:  # a loop over halvings, never over rows
            j = np.minimum(q + step, k) - 1  # the last pair of the next step, if in the row
            yd, yb = y_d.take(at + j), y_i.take(at + j)
            q += np.where((q + step <= k) & ((yd < gd) | ((yd == gd) & (yb < gb))), step, 0)
            step >>= 1
        p[go] = q
    # the same pair in both lists (same row, same distance) is y's pair at p: keep it once
    at = row + np.minimum(p, k - 1)
    dup = (p < k) & (y_i.take(at) == xb) & (y_d.take(at) == xd)
    if dup.any():
        r, xb, xd, p = r[~dup], xb[~dup], xd[~dup], p[~dup]
    start = np.searchsorted(r, np.arange(m))
    pos = np.arange(len(r)) - start[r] + p  # own rank among the kept + y's pairs before
    fit = pos < k
    flat = r[fit] * k + pos[fit]
    # output place t holds x's pair placed there, else y's pair t - (x pairs placed before t)
    # (y's padding once its pairs run out)
    placed = np.zeros(m * k, dtype=np.int64)
    placed[flat] = 1
    before = np.cumsum(placed)
    before -= placed
    before = before.reshape(m, k) - before[::k][:, None]
    src = np.arange(0, m * k, k)[:, None] + np.arange(k)[None, :] - before
    out_i, out_d = y_i.take(src), y_d.take(src)
    out_i.ravel()[flat], out_d.ravel()[flat] = xb[fit], xd[fit]
    return out_i, out_d
