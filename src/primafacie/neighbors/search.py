"""Exact k-NN search under Gower's distance: blocked brute force, KD-tree and faiss backends.

See the package docstring (:mod:`primafacie.neighbors`) for the rule :func:`choose_algorithm`
applies and the benchmark behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from ..errors import InputError
from .gower import GowerMatrix, as_gower_matrix, canonical_sums

__all__ = ["knn", "KnnResult", "TIE_RULES", "ALGORITHMS", "choose_algorithm", "AutoRule"]

#: Search backends of :func:`knn`.
ALGORITHMS = ("auto", "brute", "tree", "faiss")

#: Tie rules: "first" keeps the earlier row of the search space, "last" the later one.
TIE_RULES = ("first", "last")

#: Upper bound on the number of float64 cells of one distance block (~32 MB).
_BLOCK_CELLS = 4_000_000

#: Extra candidates fetched beyond k, so that a query whose k-th distance is tied with a few
#: later rows is still certified by one k-NN call (no radius search).
_EXTRA = 8


@dataclass(frozen=True)
class AutoRule:
    """Thresholds of ``algorithm="auto"`` (measured by ``benchmarks/scale.py --calibrate``).

    Attributes
    ----------
    min_rows
        Below this many base rows brute force is cheapest (no index to build).
    narrow_levels
        A categorical column with at most this many levels enters the tree as a one-hot block
        (each level a dimension); a wider one is searched by code equality (one dimension,
        one extra tree per subset of wide columns).
    max_tree_dims
        Largest tree dimension (numeric columns + narrow levels + 1) for which the KD-tree
        beats a flat scan.
    max_wide
        At most this many wide categorical columns for the tree (it runs ``2**wide`` searches).
    """

    min_rows: int = 2_000
    narrow_levels: int = 4
    max_tree_dims: int = 16
    max_wide: int = 2


AUTO_RULE = AutoRule()


@dataclass(frozen=True)
class KnnResult:
    """Neighbours of every query, nearest first.

    ``indices`` are positions in the base matrix (``-1`` pads rows with fewer than ``k``
    neighbours, e.g. a small search space or a maximum distance); ``distances`` are the Gower
    distances (``inf`` for padding); ``counts`` the number of real neighbours of each row.
    """

    indices: np.ndarray
    distances: np.ndarray
    counts: np.ndarray


def _split_levels(levels: tuple[int, ...], rule: AutoRule) -> tuple[list[int], list[int]]:
    narrow = [j for j, v in enumerate(levels) if v <= rule.narrow_levels]
    wide = [j for j, v in enumerate(levels) if v > rule.narrow_levels]
    return narrow, wide


def choose_algorithm(
    n: int,
    n_numeric: int,
    levels: tuple[int, ...] = (),
    k: int = 1,
    faiss: bool | None = None,
    rule: AutoRule = AUTO_RULE,
) -> str:
    """The backend ``algorithm="auto"`` uses for a base of this shape.

    Parameters
    ----------
    n
        Base rows.
    n_numeric
        Numeric/ordinal columns.
    levels
        Number of levels of each categorical column.
    k
        Neighbours per query.
    faiss
        Whether faiss is installed (``None``: look).
    rule
        Thresholds (see :class:`AutoRule`).

    Returns
    -------
    str
        ``"brute"``, ``"tree"`` or ``"faiss"``.

    Examples
    --------
    >>> choose_algorithm(100_000, 5, (3, 3), k=50)
    'tree'
    >>> choose_algorithm(100_000, 5, (3, 3, 5000), k=50)
    'tree'
    >>> choose_algorithm(500, 5, (3, 3), k=50)
    'brute'
    >>> choose_algorithm(100_000, 30, (), k=50, faiss=False)
    'brute'
    """
    if n <= rule.min_rows or k >= n // 2:
        return "brute"
    narrow, wide = _split_levels(tuple(levels), rule)
    dims = n_numeric + sum(levels[j] for j in narrow) + 1
    if len(wide) <= rule.max_wide and dims <= rule.max_tree_dims:
        return "tree"
    if faiss is None:
        faiss = _faiss_available()
    # faiss scans a dense float32 matrix: a wide column would need one column per level.
    if faiss and not wide:
        return "faiss"
    return "brute"


def _topk_block(d: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
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


def _faiss_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("faiss") is not None


def _finish(d: np.ndarray, divisor: float, decimals: int | None) -> np.ndarray:
    """Canonical sums to distances: divide last, then round (ties then follow the tie rule)."""
    if divisor != 1:
        d /= divisor
    if decimals is not None:
        np.round(d, decimals, out=d)
    return d


def _map_chunks(
    fn: Callable[[slice], tuple[np.ndarray, np.ndarray]], m: int, rows: int, backend: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``fn`` to contiguous query chunks on a compute backend; results in chunk order."""
    from ..compute import chunk_slices, get_backend

    parts = get_backend(backend).map(fn, chunk_slices(m, rows))
    return np.vstack([p[0] for p in parts]), np.vstack([p[1] for p in parts])


def _brute(
    query: GowerMatrix,
    base: GowerMatrix,
    k: int,
    chunk_size: int | None,
    divisor: float,
    backend: Any = None,
    decimals: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Blocked exact scan: codes compared for equality, partial sort of each block."""
    rows = chunk_size or max(1, _BLOCK_CELLS // max(len(base), 1))
    cols = np.arange(len(base))[None, :]

    def one(sl: slice) -> tuple[np.ndarray, np.ndarray]:
        qi = np.arange(sl.start, sl.stop)[:, None]
        return _topk_block(_finish(canonical_sums(query, base, qi, cols), divisor, decimals), k)

    return _map_chunks(one, len(query), rows, backend)


@dataclass(frozen=True)
class _Searcher:
    """One candidate index over an embedding of the rows whose L1 distance bounds Gower's.

    ``query(e, kq)`` returns ``(distances, indices)`` of the ``kq`` nearest base rows of the
    embedded queries ``e``, ascending, each distance within ``tol(distance)`` of the exact L1
    sum. ``radius(e, r)`` (or ``None``) lists every base row within ``r[i]`` of query ``i``.
    """

    embed: Callable[[GowerMatrix], np.ndarray]
    query: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]]
    radius: Callable[[np.ndarray, np.ndarray], Any] | None
    tol: Callable[[np.ndarray], np.ndarray]


def _embed(
    X: GowerMatrix, narrow: list[int], coded: tuple[int, ...], weight: float, dtype: Any
) -> np.ndarray:
    """Numeric columns, narrow categoricals one-hot (0.5 a cell), ``coded`` ones as weight·code.

    Two rows that differ in a narrow column differ by 0.5 in two cells: L1 adds exactly 1, the
    overlap. A coded column adds ``weight·|Δcode|``: 0 when the codes agree and at least
    ``weight`` (more than any other part of the distance) when they differ, so the nearest rows
    of a query are those sharing its codes, ranked by the rest of the distance.
    """
    blocks = [X.num]
    n = len(X)
    for j in narrow:
        onehot = np.zeros((n, X.levels[j]))
        onehot[np.arange(n), X.codes[:, j]] = 0.5
        blocks.append(onehot)
    blocks += [weight * X.codes[:, [j]].astype(float) for j in coded]
    if not any(b.shape[1] for b in blocks):
        blocks.append(np.zeros((n, 1)))  # only wide columns: the tree of T = {} sees no part
    return np.ascontiguousarray(np.hstack(blocks), dtype=dtype)


def _select(
    qi: np.ndarray, bi: np.ndarray, d: np.ndarray, m: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the k candidate pairs with the smallest (distance, base row); duplicates once."""
    order = np.lexsort((bi, d, qi))
    qi, bi, d = qi[order], bi[order], d[order]
    # The same pair found by two searches has bit-identical distances: it sorts next to itself.
    dup = np.zeros(len(qi), dtype=bool)
    dup[1:] = (qi[1:] == qi[:-1]) & (bi[1:] == bi[:-1])
    qi, bi, d = qi[~dup], bi[~dup], d[~dup]
    first = np.ones(len(qi), dtype=bool)
    first[1:] = qi[1:] != qi[:-1]
    pos = np.arange(len(qi))
    rank = pos - np.maximum.accumulate(np.where(first, pos, 0))
    keep = rank < k
    out_i = np.full((m, k), -1, dtype=np.int64)
    out_d = np.full((m, k), np.inf)
    out_i[qi[keep], rank[keep]] = bi[keep]
    out_d[qi[keep], rank[keep]] = d[keep]
    return out_i, out_d


# 62 lines: one chunk's candidate loop, certificate and fallback read best in one place.
def _certified(
    query: GowerMatrix,
    base: GowerMatrix,
    k: int,
    chunk_size: int | None,
    divisor: float,
    searchers: list[_Searcher],
    backend: Any = None,
    decimals: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Candidates from every searcher, certified complete, then ranked in canonical arithmetic.

    For each searcher, ``rho`` is the k-th candidate distance. Every base row that one of the
    searchers proves could enter the exact top k lies within ``rho + margin`` of the query in
    that searcher (``margin`` = 4 × the distance error + 2 rounding steps of ``decimals``): when
    the last of the ``k + 8`` candidates is farther, all of them are already fetched, otherwise
    a radius search fetches them (queries of a searcher without one fall back to brute force).
    The candidates are then ranked by :func:`canonical_sums` and the tie rule, so the result is
    the brute-force answer bit for bit. See the package docstring for why the union of the
    searchers' candidates contains the exact top k.
    """
    n = len(base)
    kq = min(k + _EXTRA, n)
    slack = 0.0 if decimals is None else 2 * divisor * 10.0**-decimals
    rows = chunk_size or max(1, _BLOCK_CELLS // (kq * len(searchers)))

    def one(sl: slice) -> tuple[np.ndarray, np.ndarray]:
        q = query[sl]
        m = len(q)
        qs: list[np.ndarray] = []
        bs: list[np.ndarray] = []
        fallback = np.zeros(m, dtype=bool)
        for s in searchers:
            e = s.embed(q)
            dist, idx = s.query(e, kq)
            dist = np.asarray(dist, dtype=float)
            idx = np.asarray(idx, dtype=np.int64)
            rho = dist[:, k - 1]
            margin = 4 * s.tol(rho) + slack
            ok = (dist[:, -1] > rho + margin) | (kq >= n)
            ok &= (idx >= 0).all(axis=1) & np.isfinite(rho)
            good = np.flatnonzero(ok)
            qs.append(np.repeat(good, kq))
            bs.append(idx[good].ravel())
            bad = np.flatnonzero(~ok)
            if len(bad) and s.radius is None:
                fallback[bad] = True
            elif len(bad):
                lists = s.radius(e[bad], rho[bad] + margin[bad])
                lens = np.fromiter((len(a) for a in lists), dtype=np.int64, count=len(lists))
                qs.append(np.repeat(bad, lens))
                bs.append(np.concatenate(list(lists)).astype(np.int64))
        qi, bi = np.concatenate(qs), np.concatenate(bs)
        live = ~fallback[qi]
        qi, bi = qi[live], bi[live]
        d = _finish(canonical_sums(q, base, qi, bi), divisor, decimals)
        out_i, out_d = _select(qi, bi, d, m, k)
        fb = np.flatnonzero(fallback)
        if len(fb):
            out_i[fb], out_d[fb] = _brute(q[fb], base, k, None, divisor, decimals=decimals)
        return out_i, out_d

    return _map_chunks(one, len(query), rows, backend)


def _code_weight(query: GowerMatrix, base: GowerMatrix, narrow: list[int]) -> float:
    """A weight larger than any numeric + narrow part of a query-base distance."""
    both = np.vstack([query.num, base.num]) if query.num.shape[1] else np.zeros((1, 0))
    span = float((both.max(axis=0) - both.min(axis=0)).sum()) if len(both) else 0.0
    return 2.0 * (span + len(narrow)) + 2.0


def _subsets(wide: list[int]) -> list[tuple[int, ...]]:
    return [c for r in range(len(wide) + 1) for c in combinations(wide, r)]


def _knn_tree(
    query: GowerMatrix,
    base: GowerMatrix,
    k: int,
    chunk_size: int | None,
    divisor: float,
    backend: Any = None,
    decimals: int | None = None,
    rule: AutoRule = AUTO_RULE,
) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn KD-trees (Manhattan, float64), one per subset of wide columns; exact."""
    from sklearn.neighbors import KDTree

    narrow, wide = _split_levels(base.levels, rule)
    weight = _code_weight(query, base, narrow)
    maxabs = float(max(np.abs(query.num).max(initial=0), np.abs(base.num).max(initial=0)))
    searchers = []
    for coded in _subsets(wide):
        emb = _embed(base, narrow, coded, weight, float)
        tree = KDTree(emb, metric="manhattan")
        # float64 sums of D terms: error far below 1e-9 relative plus D·eps of the magnitudes.
        base_tol = 64 * np.finfo(float).eps * emb.shape[1] * (1 + maxabs)
        searchers.append(
            _Searcher(
                embed=lambda X, c=coded: _embed(X, narrow, c, weight, float),
                query=lambda e, kq, t=tree: t.query(e, k=kq),
                radius=lambda e, r, t=tree: t.query_radius(e, r),
                tol=lambda rho, b=base_tol: 1e-9 * (1 + np.abs(rho)) + b,
            )
        )
    return _certified(query, base, k, chunk_size, divisor, searchers, backend, decimals)


def _knn_faiss(
    query: GowerMatrix,
    base: GowerMatrix,
    k: int,
    chunk_size: int | None,
    divisor: float,
    backend: Any = None,
    decimals: int | None = None,
    rule: AutoRule = AUTO_RULE,
) -> tuple[np.ndarray, np.ndarray]:
    """faiss exact flat L1 indexes (float32) per subset of wide columns; re-ranked exactly."""
    try:
        import faiss
    except ImportError as exc:
        raise InputError(
            "algorithm='faiss' needs the [fast] extra: pip install 'primafacie[fast]'"
        ) from exc
    narrow, wide = _split_levels(base.levels, rule)
    weight = _code_weight(query, base, narrow)
    maxabs = float(max(np.abs(query.num).max(initial=0), np.abs(base.num).max(initial=0)))
    searchers = []
    for coded in _subsets(wide):
        emb = _embed(base, narrow, coded, weight, np.float32)
        index = faiss.IndexFlat(emb.shape[1], faiss.METRIC_L1)
        index.add(emb)
        dims = emb.shape[1]
        searchers.append(
            _Searcher(
                embed=lambda X, c=coded: _embed(X, narrow, c, weight, np.float32),
                query=lambda e, kq, ix=index: ix.search(e, kq),
                radius=None,
                # float32 rounding of every coordinate and of the sum: ~6e-8 relative each.
                tol=lambda rho, d=dims: 1e-6 * d * (1 + maxabs + np.abs(rho)),
            )
        )
    return _certified(query, base, k, chunk_size, divisor, searchers, backend, decimals)


def _check(
    query: Any, base: Any, k: int, ties: str, decimals: int | None, algorithm: str
) -> tuple[GowerMatrix, GowerMatrix]:
    """Validate the arguments of :func:`knn`; the query and base as :class:`GowerMatrix`."""
    if ties not in TIE_RULES:
        raise InputError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    if decimals is not None and (isinstance(decimals, bool) or not 0 <= int(decimals) <= 15):
        raise InputError(f"decimals must be an integer in [0, 15] or None, got {decimals!r}")
    if algorithm not in ALGORITHMS:
        raise InputError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
    q, b = as_gower_matrix(query), as_gower_matrix(base)
    if q.num.shape[1] != b.num.shape[1] or q.codes.shape[1] != b.codes.shape[1]:
        raise InputError(
            f"query {q.shape} and base {b.shape} must have the same numeric and categorical "
            "columns (transform both with the same fitted GowerTransformer)"
        )
    if q.levels != b.levels:
        # Queries and base may come from transformers fitted on different tables (legacy CST
        # refits on the counterfactuals); codes only need a common range.
        levels = tuple(max(a, c) for a, c in zip(q.levels, b.levels))
        q = GowerMatrix(q.num, q.codes, levels, q.layout)
        b = GowerMatrix(b.num, b.codes, levels, b.layout)
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    return q, b


def _unique_rows(q: GowerMatrix) -> tuple[np.ndarray, np.ndarray]:
    """First position of every distinct query row and the inverse map (rows in sorted order)."""
    key = np.hstack([q.num, q.codes.astype(float)])
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


# 81 lines, most of them the parameter documentation.
def knn(
    query: Any,
    base: Any,
    k: int,
    *,
    ties: str = "first",
    max_distance: float | None = None,
    chunk_size: int | None = None,
    algorithm: str = "auto",
    divisor: float = 1.0,
    backend: Any = None,
    decimals: int | None = None,
) -> KnnResult:
    """Exact k nearest base rows of every query row under Gower's distance.

    Parameters
    ----------
    query
        ``(m, p)`` transformed search centres: a :class:`~primafacie.neighbors.GowerMatrix`
        (``GowerTransformer.transform``) or a float matrix of numeric columns.
    base
        ``(n, p)`` transformed search space, of the same kind.
    k
        Number of neighbours (at most ``n``; fewer are returned, padded, when ``n < k``).
    ties
        ``"first"`` (default): among equal distances the base row that comes first wins;
        ``"last"``: the later row wins (the CST authors' code).
    max_distance
        Optional ε: neighbours farther than this are dropped (``counts`` says how many remain).
    chunk_size
        Query rows per block; default keeps a block under ~32 MB.
    algorithm
        ``"brute"`` (blocked exact scan), ``"tree"`` (KD-trees), ``"faiss"`` (faiss flat L1;
        needs the ``[fast]`` extra) or ``"auto"`` (:func:`choose_algorithm`: chosen from the
        base's rows, numeric columns and categorical levels by measured cost). Every choice
        returns exactly the brute-force answer, tie rule included.
    divisor
        ``|X|`` (``GowerTransformer.divisor``); distances are sums divided by it.
    backend
        :mod:`primafacie.compute` backend (``None``/"local", a ``Backend(n_jobs=2)``, or
        ``"dask"``) the query chunks are mapped over; results are identical on every backend.
    decimals
        Round every distance to this many decimals before ranking, so that distances that
        are equal in exact arithmetic but differ by floating-point noise (``|3 - 2.5| / 3.5``
        and ``|3 - 3.5| / 3.5`` computed on the scaled matrix) are ties and ``ties`` decides
        them. ``None`` (default) ranks the raw float64 sums, as the CST authors' code does.

    Returns
    -------
    KnnResult
        Neighbour positions and distances, nearest first, with the documented tie rule.

    Examples
    --------
    >>> base = np.array([[0.0], [1.0], [1.0], [3.0]])
    >>> knn(np.array([[0.9]]), base, 2).indices.tolist()
    [[1, 2]]
    >>> knn(np.array([[0.0]]), base, 2, ties="last").indices.tolist()
    [[0, 2]]
    """
    query, base = _check(query, base, k, ties, decimals, algorithm)
    m, n = len(query), len(base)
    if m == 0 or n == 0:
        idx = np.full((m, k), -1, dtype=np.int64)
        return KnnResult(idx, np.full((m, k), np.inf), np.zeros(m, dtype=np.int64))
    if max_distance is not None and not max_distance > 0:
        raise InputError(f"max_distance must be positive, got {max_distance}")
    # Identical centres have identical neighbour lists: search each distinct centre once
    # (the law-school data have ~1200 distinct (LSAT, UGPA) pairs among 21790 rows).
    first, inverse = _unique_rows(query)
    if len(first) < 0.9 * m:
        query = query[first]
    else:
        inverse = None
    kk = min(k, n)
    if ties == "last":
        # "later row wins" is "first row wins" on the reversed search space.
        base = base[::-1]
    if algorithm == "auto":
        algorithm = choose_algorithm(n, base.num.shape[1], base.levels, kk)
    search = {"brute": _brute, "tree": _knn_tree, "faiss": _knn_faiss}[algorithm]
    idx, dist = search(query, base, kk, chunk_size, divisor, backend, decimals=decimals)
    if ties == "last":
        idx = n - 1 - idx
    if inverse is not None:
        idx, dist = idx[inverse], dist[inverse]
    if kk < k:
        idx = np.hstack([idx, np.full((m, k - kk), -1, dtype=np.int64)])
        dist = np.hstack([dist, np.full((m, k - kk), np.inf)])
    if max_distance is not None:
        far = dist > max_distance
        idx = np.where(far, -1, idx)
        dist = np.where(far, np.inf, dist)
    return KnnResult(idx, dist, (idx >= 0).sum(axis=1))
