r"""How many candidates beyond ``k`` an index's k-NN queries fetch, chosen from its data.

A query of an index asks for its ``kq = k + extra`` nearest rows. With ``rho`` the k-th
distance found, the answer is certified when the ``kq``-th distance exceeds ``rho`` plus the
index's error margin (no row left out can reach the top k); otherwise the query is fetched
again by a radius search (:func:`~primafacie.neighbors.search._index_pairs`). Either way every
row within ``rho`` + margin is a candidate and the final ranking is the canonical one, so the
answer does not depend on ``extra``: only the cost does. A larger ``extra`` makes every query
dearer (a KD-tree query's cost grows with the neighbours it keeps); a smaller one sends more
queries to the radius search when many rows tie at the k-th distance (numeric columns on a
lattice, rounded values).

So each index is tried once on a fixed sample of its queries (:data:`SAMPLE` of them, evenly
spaced in query order: deterministic, so every thread and Dask worker picks the same) with
``k + max(EXTRAS)`` neighbours, and the share of the sample each ``extra`` of :data:`EXTRAS`
would have certified gives the expected cost per query

    ``cost(extra) = FIXED + k + extra + (1 − share(extra)) · (FIXED + k + RADIUS)``

in units of one neighbour of a tree query (:func:`choose_extra`).

Calibration (SciPy's cKDTree, Manhattan, one (employment, region, education) tree of the
credit world at 10^6: 13,687 rows of 4 coordinates, 7,679 queries in Z order, one thread):
a query of ``kq`` neighbours costs ~7 + 0.2·kq µs (17.2 µs at 51, 18.7 at 59, 24 at 83), so
:data:`FIXED` = 35 neighbours; a radius search of the same queries at their 51st distance
costs 16 µs plus 2 µs to flatten its lists: about a k-NN query of k, plus :data:`RADIUS`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["EXTRAS", "DEFAULT", "SAMPLE", "MIN_QUERIES", "certified_shares", "choose_extra"]

#: The extras tried (0 is never tried: the k-th distance cannot certify itself).
EXTRAS = (1, 2, 4, 8, 16, 32)

#: The extra of an index with too few queries to sample (and of indexes without a radius
#: search, whose uncertified queries fall back to brute force).
DEFAULT = 8

#: Queries of the sample.
SAMPLE = 512

#: An index is sampled only when it has at least this many queries (the sample, at
#: ``k + 32`` neighbours, then costs at most ~1/6 of its queries' search).
MIN_QUERIES = 8 * SAMPLE

#: Fixed cost of a tree query, in neighbours kept (7 µs / 0.2 µs per neighbour, measured).
FIXED = 35.0

#: A radius search's cost above a k-NN query of k, in neighbours (its lists flattened, 2 µs,
#: and the rows tied past the k-th it returns).
RADIUS = 10.0


def certified_shares(
    dist: np.ndarray, idx: np.ndarray, k: int, margin: np.ndarray, rows: int, extras=EXTRAS
) -> np.ndarray:
    """Share of the sampled queries each ``extra`` would certify.

    Parameters
    ----------
    dist, idx
        ``(s, k + max(extras))`` ascending distances and row positions of the sample (fewer
        columns when the index has fewer rows; ``idx < 0`` pads).
    k
        Neighbours asked.
    margin
        ``(s,)`` error margin of each query's k-th distance (as in ``_index_pairs``).
    rows
        Rows of the index (``kq`` equal to it certifies: every row was fetched).
    extras
        The extras tried.

    Returns
    -------
    numpy.ndarray
        One share per extra, in ``extras``' order.

    Examples
    --------
    >>> d = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 2.0, 2.0]])
    >>> certified_shares(d, np.zeros((2, 4), int), 2, np.zeros(2), 100, (1, 2)).tolist()
    [0.5, 0.5]
    """
    rho = dist[:, k - 1]
    out = []
    for extra in extras:  # a loop over the extras (six), never over rows
        kq = min(k + extra, rows, dist.shape[1])
        ok = (dist[:, kq - 1] > rho + margin) | (kq == rows)
        ok &= (idx[:, :kq] >= 0).all(axis=1) & np.isfinite(rho)
        out.append(float(ok.mean()) if len(ok) else 1.0)
    return np.array(out)


def choose_extra(shares: np.ndarray, k: int, extras=EXTRAS) -> int:
    """The extra of least expected cost per query (the smaller on equal cost).

    Parameters
    ----------
    shares
        :func:`certified_shares` of ``extras``.
    k
        Neighbours asked.
    extras
        The extras tried.

    Returns
    -------
    int
        The chosen extra.

    Examples
    --------
    >>> choose_extra(np.array([0.999, 1.0, 1.0, 1.0, 1.0, 1.0]), 51)  # no ties: 1
    1
    >>> choose_extra(np.array([0.0, 0.1, 0.4, 0.9, 0.95, 1.0]), 51)  # many ties: more
    8
    """
    e = np.asarray(extras, dtype=float)
    cost = FIXED + k + e + (1.0 - np.asarray(shares)) * (FIXED + k + RADIUS)
    return int(extras[int(np.argmin(cost))])
