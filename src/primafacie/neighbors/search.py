"""Exact k-NN search under Gower's distance: blocked brute force, KD-tree and faiss backends.

See the package docstring (:mod:`primafacie.neighbors`) for the rule :func:`choose_algorithm`
applies and the benchmark behind it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import Any

import numpy as np

from ..errors import InputError
from .candidates import DEFAULT, EXTRAS, MIN_QUERIES, SAMPLE, certified_shares, choose_extra
from .gower import GowerMatrix, _pair_sums, as_gower_matrix, canonical_sums
from .grouped import BaseGroups, base_groups, grouped_topk
from .layout import z_sorted
from .levels import by_levels, level_column
from .ondemand import OnDemand
from .reuse import SpaceCache
from .topk import merge_ranked, select_pairs, topk_block

__all__ = ["knn", "KnnResult", "TIE_RULES", "ALGORITHMS", "choose_algorithm", "AutoRule"]

#: Search backends of :func:`knn`.
ALGORITHMS = ("auto", "brute", "tree", "faiss")

#: Tie rules: "first" keeps the earlier row of the search space, "last" the later one.
TIE_RULES = ("first", "last")

#: Upper bound on the number of float64 cells of one distance block (~32 MB).
_BLOCK_CELLS = 4_000_000

#: Extra candidates fetched beyond k, so that a query whose k-th distance is tied with a few
#: later rows is still certified by one k-NN call (no radius search). It sizes the groups
#: gathered whole and the chunks; each index's queries fetch the extra chosen from a sample of
#: them (:mod:`~primafacie.neighbors.candidates`), this one when it has too few queries.
_EXTRA = DEFAULT


#: A group of rows sharing a query's keys is fetched whole when it has at most this many
#: times k + 8 rows (cheaper than an index query).
_GATHER = 4


@dataclass(frozen=True)
class AutoRule:
    """Thresholds of ``algorithm="auto"`` (measured by ``benchmarks/scale.py --calibrate``).

    Attributes
    ----------
    min_rows
        Up to this many base rows brute force is cheapest (no index to build).
    max_brute_cells
        Up to this many query × base cells brute force is cheapest too: a flat scan of
        ~0.1 s, against a tree's build and the import of scipy.spatial (~0.1-0.3 s in a short
        process). With scikit-learn's KDTree (its import ~2.5 s) the bound was 10^7; SciPy's
        cKDTree builds and queries faster and imports lighter. One-thread CPU s of the
        searches of ``law_table``: 4.05 at 10^7, 2.93 at 6·10^6, 2.37 at 2·10^6; the CST loan
        searches (1,712 × 3,281 = 5.6·10^6 cells at k = 250) stay brute force, whose whole
        ``reproduce cst-loan`` took 2.62-2.92 CPU s against 2.72-3.07 on the tree.
    max_keyed
        The categorical columns with the most levels, up to this many, are searched by code
        equality (strata of rows sharing the query's codes, ``2**keyed`` of them, most pruned);
        the others enter the tree as one-hot blocks (one dimension per level).
    max_tree_dims
        Largest tree dimension (numeric columns + one-hot levels; keys excluded) for which a
        KD-tree beats a flat numpy scan (measured: 10 dims tree 30 s vs brute 79 s; 20 dims
        tree 562 s vs brute 413 s).
    max_tree_dims_faiss
        The same when faiss is installed (measured at 10^5 rows: 5 dims tree ≈ faiss, and the
        tree wins the whole situation test 10 s to 15 s of CPU; 7 dims faiss 4 s vs tree 9 s).
    """

    min_rows: int = 2_000
    max_brute_cells: int = 6_000_000
    max_keyed: int = 3
    max_tree_dims: int = 12
    max_tree_dims_faiss: int = 6


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


def choose_algorithm(
    n: int,
    n_numeric: int,
    levels: tuple[int, ...] = (),
    k: int = 1,
    faiss: bool | None = None,
    rule: AutoRule = AUTO_RULE,
    m: int | None = None,
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
    m
        Query rows (distinct ones), when known.

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
    >>> choose_algorithm(100_000, 10, (3, 3), k=50, faiss=True)
    'faiss'
    >>> choose_algorithm(100_000, 10, (3, 3), k=50, faiss=False)
    'tree'
    >>> choose_algorithm(100_000, 30, (), k=50, faiss=False)
    'brute'
    >>> choose_algorithm(3_281, 2, (), k=250, m=1_712)  # the CST loan searches
    'brute'
    """
    if n <= rule.min_rows or k >= n // 2:
        return "brute"
    if m is not None and m * n <= rule.max_brute_cells:
        return "brute"
    _, onehot = _plan(tuple(levels), rule)
    dims = n_numeric + sum(levels[j] for j in onehot)
    if faiss is None:
        faiss = _faiss_available()
    if dims <= (rule.max_tree_dims_faiss if faiss else rule.max_tree_dims):
        return "tree"
    return "faiss" if faiss else "brute"


def _faiss_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("faiss") is not None


def _cells(backend: Any) -> int:
    """Cells of one default chunk: :data:`_BLOCK_CELLS` shared by the local threads that run
    chunks at once, so the transient memory of a search does not grow with the cores (a
    Dask worker runs one chunk per thread of its own process)."""
    from ..compute import get_backend

    b = get_backend(backend)
    return _BLOCK_CELLS // (b.n_jobs if b.kind == "local" else 1)


def _finish(d: np.ndarray, divisor: float, decimals: int | None) -> np.ndarray:
    """Canonical sums to distances: divide last, then round (ties then follow the tie rule)."""
    if divisor != 1:
        d /= divisor
    if decimals is not None:
        np.round(d, decimals, out=d)
    return d


def _map_chunks(
    fn: Callable[[Any, slice], tuple[np.ndarray, np.ndarray]],
    shared: Any,
    m: int,
    rows: int,
    backend: Any,
    post: Callable[[np.ndarray, np.ndarray, slice], tuple] | None = None,
) -> tuple[np.ndarray, ...]:
    """Apply ``fn(shared, chunk)`` to contiguous query chunks on a compute backend; results in
    chunk order. ``shared`` (queries, base matrix, search index) and ``post`` are sent once per
    Dask worker; a chunk task carries only its slice. ``post(indices, distances, chunk)`` runs
    on the worker, so only what it returns travels back."""
    from ..compute import get_backend

    b = get_backend(backend)
    parts = b.map(_post_chunk, _even_chunks(m, rows, b), shared=(fn, shared, post))
    if not parts:
        return ()
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(len(parts[0])))


def _even_chunks(m: int, rows: int, backend: Any) -> list[slice]:
    """Contiguous query chunks of at most ``rows``; on local threads their number is a
    multiple of the threads and their sizes even, so no thread idles while another finishes
    (the CST loan's 1,712 queries in chunks of 609 kept one of two threads busy for 1,103 of
    them). Results do not depend on the chunking.

    Examples
    --------
    >>> from primafacie.compute import Backend
    >>> [(s.start, s.stop) for s in _even_chunks(1712, 609, Backend(n_jobs=2))]
    [(0, 428), (428, 856), (856, 1284), (1284, 1712)]
    >>> [(s.start, s.stop) for s in _even_chunks(1712, 609, Backend(n_jobs=1))]
    [(0, 571), (571, 1142), (1142, 1712)]
    """
    from ..compute import chunk_slices

    if m <= 0:
        return []
    n = -(-m // max(rows, 1))
    if backend.kind == "local" and backend.n_jobs > 1:
        n = min(m, -(-n // backend.n_jobs) * backend.n_jobs)
    return chunk_slices(m, -(-m // n))


def _post_chunk(shared: tuple, sl: slice) -> tuple[np.ndarray, ...]:
    """Dask task body of :func:`_map_chunks`: search one chunk, then post-process it."""
    fn, inner, post = shared
    idx, dist = fn(inner, sl)
    return (idx, dist) if post is None else post(idx, dist, sl)


@dataclass(frozen=True)
class _Post:
    """What :func:`knn` does to each chunk's lists after the search, on the worker: undo the
    reversal of ``ties="last"``, pad to ``k`` columns, drop neighbours beyond ``max_distance``,
    then hand the lists to the caller's ``reduce`` (when given)."""

    n: int
    k: int
    ties_last: bool
    max_distance: float | None
    reduce: Callable[[np.ndarray, np.ndarray, slice], tuple] | None

    def __call__(self, idx: np.ndarray, dist: np.ndarray, sl: slice) -> tuple[np.ndarray, ...]:
        if self.ties_last:
            idx = self.n - 1 - idx
        if idx.shape[1] < self.k:
            pad = self.k - idx.shape[1]
            idx = np.hstack([idx, np.full((len(idx), pad), -1, dtype=np.int64)])
            dist = np.hstack([dist, np.full((len(dist), pad), np.inf)])
        if self.max_distance is not None:
            far = dist > self.max_distance
            idx = np.where(far, -1, idx)
            dist = np.where(far, np.inf, dist)
        if self.reduce is not None:
            return tuple(self.reduce(idx, dist, sl))
        return idx, dist


def _brute(
    query: GowerMatrix,
    base: GowerMatrix,
    k: int,
    chunk_size: int | None,
    divisor: float,
    backend: Any = None,
    decimals: int | None = None,
    post: _Post | None = None,
    groups: BaseGroups | None = None,
) -> tuple[np.ndarray, ...]:
    """Blocked exact scan: codes compared for equality, partial sort of each block. With
    ``groups``, a scan of the base's distinct rows, each expanded to its rows
    (:mod:`primafacie.neighbors.grouped`): the brute-force answer at the cost of the distinct
    rows."""
    if groups is None:
        rows = chunk_size or max(1, _cells(backend) // max(len(base), 1))
        shared = (query, base, k, divisor, decimals)
        return _map_chunks(_brute_chunk, shared, len(query), rows, backend, post)
    width = len(groups.first) + 2 * k  # a block's distances, then its expanded candidates
    rows = chunk_size or max(1, _cells(backend) // width)
    shared = (query, base[groups.first], groups, k, divisor, decimals)
    return _map_chunks(_grouped_chunk, shared, len(query), rows, backend, post)


def _brute_chunk(shared: tuple, sl: slice) -> tuple[np.ndarray, np.ndarray]:
    """One block of :func:`_brute` (module level: a Dask task ships only the slice)."""
    query, base, k, divisor, decimals = shared
    return topk_block(_block(query, base, sl, divisor, decimals), k)


def _block(
    query: GowerMatrix, base: GowerMatrix, sl: slice, divisor: float, decimals: int | None
) -> np.ndarray:
    """Finished distances of the queries ``sl`` to every base row, one row per query (the
    block :func:`_brute` ranks, of the base's rows or of its distinct rows)."""
    qi = np.arange(sl.start, sl.stop)[:, None]
    cols = np.arange(len(base))[None, :]
    return _finish(canonical_sums(query, base, qi, cols), divisor, decimals)


def _grouped_chunk(shared: tuple, sl: slice) -> tuple[np.ndarray, np.ndarray]:
    """One block of :func:`_brute` with ``groups`` (module level: a Dask task ships only the
    slice)."""
    query, distinct, groups, k, divisor, decimals = shared
    return grouped_topk(_block(query, distinct, sl, divisor, decimals), groups, k)


def _grouped_search(
    query: GowerMatrix, base: GowerMatrix, k: int
) -> Callable[..., tuple[np.ndarray, ...]] | None:
    """``algorithm="auto"`` on a base whose rows repeat (at most half of them distinct) and
    whose distinct rows a flat scan suits (:func:`choose_algorithm` on their count): the
    grouped scan; else None (the base is searched row by row)."""
    found = _distinct_rows(base)
    if found is None:
        return None
    first, inverse = found
    shape = (len(first), base.num.shape[1], base.levels, k)
    if choose_algorithm(*shape, m=len(query)) != "brute":
        return None
    return partial(_brute, groups=base_groups(first, inverse))


def _plan(levels: tuple[int, ...], rule: AutoRule) -> tuple[list[int], list[int]]:
    """Categorical columns searched by code equality (``keyed``) and those one-hot encoded.

    The ``rule.max_keyed`` columns with the most levels are keyed (a 5,000-level postcode costs
    one key, not 5,000 dimensions); any others enter the embedding as one-hot blocks.
    """
    order = sorted(range(len(levels)), key=lambda j: (-levels[j], j))
    return sorted(order[: rule.max_keyed]), sorted(order[rule.max_keyed :])


def _embed(X: GowerMatrix, onehot: list[int], key: np.ndarray | None, weight: float) -> np.ndarray:
    """Numeric columns, ``onehot`` categoricals as 0.5 cells, and ``weight·key`` if given.

    Two rows that differ in a one-hot column differ by 0.5 in two cells: L1 adds exactly 1, the
    overlap. The key column adds 0 when the keys agree and at least ``weight`` (more than any
    other part of a distance) when they differ, so a query's nearest rows are those sharing its
    key, ranked by the rest of the distance.
    """
    n = len(X)
    blocks = [X.num]
    for j in onehot:
        block = np.zeros((n, X.levels[j]))
        block[np.arange(n), X.codes[:, j]] = 0.5
        blocks.append(block)
    if key is not None:
        blocks.append(weight * key[:, None].astype(float))
    if not any(b.shape[1] for b in blocks):
        blocks.append(np.zeros((n, 1)))  # only keyed columns and T = {}: every row ties at 0
    return np.ascontiguousarray(np.hstack(blocks))


def _key_multipliers(levels: tuple[int, ...], cols: tuple[int, ...]) -> np.ndarray | None:
    """The multipliers turning codes on ``cols`` into one integer per row (mixed radix: equal
    keys iff equal codes), or None when ``cols`` is empty or has 2^50 combinations or more.

    Examples
    --------
    >>> _key_multipliers((3, 4, 5), (0, 2)).tolist()
    [1, 3]
    """
    if not cols or float(np.prod([float(levels[j]) for j in cols])) >= 2.0**50:
        return None
    return np.cumprod([1] + [levels[j] for j in cols[:-1]]).astype(np.int64)


def _keys(q: GowerMatrix, b: GowerMatrix, cols: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """One integer per row naming its codes on ``cols`` (equal keys iff equal codes)."""
    if not cols:
        return np.zeros(len(q), dtype=np.int64), np.zeros(len(b), dtype=np.int64)
    mult = _key_multipliers(b.levels, cols)
    if mult is not None:
        return q.codes[:, list(cols)] @ mult, b.codes[:, list(cols)] @ mult
    return _joint_keys(q, b, cols)


def _joint_keys(
    q: GowerMatrix, b: GowerMatrix, cols: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_keys` numbered over the distinct code combinations of both sides (too many
    combinations for :func:`_key_multipliers`)."""
    both = np.vstack([q.codes[:, list(cols)], b.codes[:, list(cols)]])
    inv = np.unique(both, axis=0, return_inverse=True)[1].reshape(-1)
    return inv[: len(q)], inv[len(q) :]


@dataclass
class _Index:
    """A k-NN index over an embedding: ``search(e, kq)`` -> ascending (distances, indices),
    each distance within ``tol(distance)`` of the exact L1 sum; ``radius(e, r)`` (or ``None``)
    lists every row within ``r[i]`` of embedded query ``i``."""

    search: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]]
    radius: Callable[[np.ndarray, np.ndarray], Any] | None
    tol: Callable[[np.ndarray], np.ndarray]


def _tree_index(emb: np.ndarray, maxabs: float) -> _Index:
    """SciPy's cKDTree, Manhattan (p=1), float64 (error far below 1e-9 relative + D·eps·|x|).

    It replaced scikit-learn's KDTree, whose import alone (scikit-learn, scipy.stats) cost
    ~2.5 CPU s of ``reproduce cst-law``; scipy.spatial costs a third of that, and the tree
    builds and queries faster. Both only propose candidates: every candidate is re-ranked in
    the canonical arithmetic, so the answer is the same bit for bit (tests/neighbors).
    """
    from scipy.spatial import cKDTree

    tree = cKDTree(emb, leafsize=40, balanced_tree=False, compact_nodes=False)
    floor = 64 * np.finfo(float).eps * emb.shape[1] * (1 + maxabs)

    def search(e: np.ndarray, kq: int) -> tuple[np.ndarray, np.ndarray]:
        # k given as a list keeps the 2-D shape when kq is 1; kq never exceeds the rows.
        dist, idx = tree.query(e, k=list(range(1, kq + 1)), p=1)
        return dist, idx

    return _Index(
        search=search,
        radius=lambda e, r: tree.query_ball_point(e, r, p=1),
        tol=lambda rho: 1e-9 * (1 + np.abs(rho)) + floor,
    )


def _faiss_index(emb: np.ndarray, maxabs: float) -> _Index:
    """faiss exact flat L1 index, float32 (~6e-8 relative rounding per coordinate and sum)."""
    import faiss

    index = faiss.IndexFlat(emb.shape[1], faiss.METRIC_L1)
    index.add(np.ascontiguousarray(emb, dtype=np.float32))
    dims = emb.shape[1]
    return _Index(
        search=lambda e, kq: index.search(np.ascontiguousarray(e, dtype=np.float32), kq),
        radius=None,
        tol=lambda rho: 1e-6 * dims * (1 + maxabs + np.abs(rho)),
    )


@dataclass
class _Keyed:
    """The base side of a stratum: what is built from the search space alone (its rows' keys
    on a subset of the keyed columns, their order, group bounds and indexes), so that other
    queries searched in the same space reuse it (:class:`~primafacie.neighbors.reuse.SpaceCache`).

    ``mismatch`` = keyed columns outside the subset (``key_cols``): a row whose codes agree
    with the query on exactly the subset is at least that far. Without ``index``, every
    candidate agrees with its query on the subset's columns (``cols``). Groups of at most
    ``limit`` rows are fetched whole; a larger group is searched in its own index (``groups``:
    key -> (index, base rows), over :func:`_embed` without the key) or, when there are too
    many large groups, in one index over all rows with the key as a column (``index``).
    Indexes are :class:`~primafacie.neighbors.ondemand.OnDemand`: built by the first query
    that reaches them.

    Group bounds come from ``table`` (:func:`_first_positions`, one row per key below
    ``space`` and an empty one for every key at or above it) when it is small enough, else
    from a binary search of ``sorted_keys``. With ``skip`` (a keyed column outside the
    subset, of ``width`` levels) each group's rows are ordered by their code on it, and a
    gathered group leaves out the contiguous run of rows sharing the query's code there.
    ``mult`` turns a row's codes on ``key_cols`` into its key (``None``: the keys were
    numbered over the queries and the base together, ``joint_qkey``, and are not reusable).
    """

    mismatch: int
    key_cols: tuple[int, ...]
    mult: np.ndarray | None
    order: np.ndarray
    sorted_keys: np.ndarray | None
    limit: int
    outside: tuple[int, ...] = ()
    groups: dict[int, tuple[OnDemand, np.ndarray]] | None = None
    index: OnDemand | None = None
    cols: tuple[int, ...] = ()
    table: np.ndarray | None = None
    space: int = 0
    skip: int | None = None
    width: int = 1
    joint_qkey: np.ndarray | None = None


@dataclass
class _BaseStrata:
    """Every stratum's base side (fewest mismatches first) and what the queries' side needs:
    the keyed and one-hot columns, the key's weight, the largest coordinate, the base's first
    numeric column (contiguous) and whether it may serve other queries (``reusable``)."""

    strata: list[_Keyed]
    onehot: list[int]
    weight: float
    maxabs: float
    lead: np.ndarray | None
    reusable: bool


@dataclass
class _Stratum(_Keyed):
    """A stratum as one set of queries searches it: its base side (:class:`_Keyed`) with the
    queries' keys (``qkey``), their embedding (``embed(rows, keyed_col)``), their codes on
    ``skip`` (``qskip``), the first numeric column of both (``lead``) and ``tune(key, size)``,
    which tunes an index the first time these queries build it (:func:`_tune_kq`)."""

    qkey: np.ndarray | None = None
    embed: Callable[[np.ndarray, bool], np.ndarray] | None = None
    qskip: np.ndarray | None = None
    lead: tuple[np.ndarray, np.ndarray] | None = None
    tune: Callable[[int | None, int], Callable | None] | None = None


#: Up to this many large groups of a stratum get an index each (a smaller, lower-dimensional
#: tree per group is ~4x faster than one tree with the key as a coordinate; measured).
_MAX_GROUP_INDEXES = 256


def bounds_of(num: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each numeric column's smallest and largest value (empty arrays without rows).

    Examples
    --------
    >>> [b.tolist() for b in bounds_of(np.array([[0.0, 3.0], [2.0, -1.0]]))]
    [[0.0, -1.0], [2.0, 3.0]]
    """
    if not len(num):
        return np.empty(0), np.empty(0)
    return num.min(axis=0), num.max(axis=0)


def _strata(
    query: GowerMatrix,
    base: GowerMatrix,
    kq: int,
    make_index: Callable,
    rule: AutoRule,
    k: int | None = None,
    slack: float = 0.0,
    prepared: _BaseStrata | None = None,
) -> list[_Stratum]:
    """One stratum per subset of the keyed columns, fewest mismatches first: the base side
    ``prepared`` (:func:`_base_strata`; built here, for these queries alone, when None) with
    these queries' side.

    With ``k``, each index chooses how many neighbours its queries fetch when it is built
    (:func:`_tune_kq`); without, they fetch ``kq``.
    """
    if prepared is None:
        prepared = _base_strata(base, bounds_of(query.num), kq, make_index, rule, k, slack, query)
    onehot, weight = prepared.onehot, prepared.weight
    lead = None
    if prepared.lead is not None:
        lead = (np.ascontiguousarray(query.num[:, 0]), prepared.lead)
    out = []
    for ks in prepared.strata:
        if ks.joint_qkey is not None:
            qkey = ks.joint_qkey
        elif ks.mult is None:  # no keyed column
            qkey = np.zeros(len(query), dtype=np.int32)
        else:
            qkey = _narrow(query.codes[:, list(ks.key_cols)] @ ks.mult)[0]
            if ks.table is not None:
                # a key no base row has reads the table's empty row past the base's keys
                qkey = np.minimum(qkey, ks.space).astype(qkey.dtype, copy=False)

        def embed(rows: np.ndarray, keyed_col: bool, qk=qkey) -> np.ndarray:
            return _embed(query[rows], onehot, qk[rows] if keyed_col else None, weight)

        def tune(key: int | None, size: int, embed=embed, qk=qkey) -> Callable | None:
            if k is None:
                return None
            return partial(_tune_kq, queries=partial(_queries_of, qk, key), size=size,
                           embed=partial(embed, keyed_col=key is None), k=k, kq=kq,
                           slack=slack)  # fmt: skip

        qskip = None if ks.skip is None else query.codes[:, ks.skip]
        out.append(_Stratum(**vars(ks), qkey=qkey, embed=embed, qskip=qskip, lead=lead,
                            tune=tune))  # fmt: skip
    return out


def _base_strata(
    base: GowerMatrix,
    bounds: tuple[np.ndarray, np.ndarray],
    kq: int,
    make_index: Callable,
    rule: AutoRule,
    k: int | None = None,
    slack: float = 0.0,
    query: GowerMatrix | None = None,
) -> _BaseStrata:
    """The base side of every stratum, for queries whose numeric columns lie within
    ``bounds`` (:func:`bounds_of`): the key's weight must exceed any other part of a query's
    embedded distance to a row. ``query`` is read only when a subset of keyed columns has
    more than 2^50 code combinations (its keys are then numbered over both sides, and the
    result serves these queries alone)."""
    keyed, onehot = _plan(base.levels, rule)
    # A few-valued numeric column (an ordinal) splits each index by its levels (exact).
    make_index = by_levels(make_index, level_column(base.num))
    span, maxabs = _extent(bounds, base.num)
    weight = 2.0 * (span + len(onehot)) + 2.0  # more than any numeric + one-hot part
    # The first numeric column of the base, contiguous (8 B per row, once per search): a
    # pair's partial sum is read from it and the query's without gathering its rows.
    lead = np.ascontiguousarray(base.num[:, 0]) if base.num.shape[1] else None
    out, reusable = [], True
    for size in range(len(keyed), -1, -1):
        for cols in combinations(keyed, size):
            # Every stratum keeps its keys and row order for the whole search: int32 when
            # they fit (the credit world at 10^6: 4 strata x 16 B per row less).
            mult = _key_multipliers(base.levels, cols)
            joint_qkey = None
            if mult is not None:
                bkey = _narrow(base.codes[:, list(cols)] @ mult)[0]
            elif cols:
                if query is None:
                    raise ValueError("keys over 2^50 combinations are numbered with the queries")
                joint_qkey, bkey = _narrow(*_joint_keys(query, base, cols))
                reusable = False
            else:
                bkey = np.zeros(len(base), dtype=np.int32)
            order = _narrow(np.argsort(bkey, kind="stable"))[0]
            sorted_keys = bkey[order]
            bounds_ = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1], True])
            limit = _GATHER * kq
            bigs = np.flatnonzero(np.diff(bounds_) > limit)
            outside = tuple(j for j in keyed if j not in cols)
            # Only gathered groups leave a run out: with none (every group indexed), no skip.
            skip = outside[0] if outside and len(bigs) < len(bounds_) - 1 else None
            top = int(bkey.max(initial=0))
            if joint_qkey is not None:
                top = max(top, int(joint_qkey.max(initial=0)))
            space = 1 + top
            width = base.levels[skip] if skip is not None else 1
            table = None
            if space * width < _TABLE_CELLS + 2 * len(base):
                if skip is not None:
                    # each group by its code on ``skip``, rows ascending within a code
                    order = _narrow(np.lexsort((base.codes[:, skip], bkey)))[0]
                # one more key than the base's: the empty row every absent key reads
                table = _first_positions(
                    sorted_keys, None if skip is None else base.codes[:, skip].take(order),
                    width, space + 1,
                )  # fmt: skip
            else:
                skip, width = None, 1
            ks = _Keyed(
                len(keyed) - size, cols, mult, order,
                None if table is not None else sorted_keys, limit, outside, table=table,
                space=space, skip=skip, width=width, joint_qkey=joint_qkey,
            )  # fmt: skip
            if len(bigs) and len(bigs) <= _MAX_GROUP_INDEXES:
                ks.groups = {}
                for g in bigs:  # a loop over large groups (at most 256), never over rows
                    rows_g = order[bounds_[g] : bounds_[g + 1]]
                    if skip is not None:  # ascending, as the index of each group always had
                        rows_g = np.sort(rows_g)
                    # each group embeds its own rows when its index is built: no embedding
                    # of the whole base held for the search (40 B per row at 5 columns)
                    embed_g = partial(_embed_rows, base, rows_g, onehot, weight)
                    key = int(sorted_keys[bounds_[g]])
                    ks.groups[key] = (OnDemand(make_index, embed_g, maxabs), rows_g)
            elif len(bigs):
                ks.index = OnDemand(
                    make_index, lambda bk=bkey: _embed(base, onehot, bk, weight), maxabs
                )
            if ks.index is None:
                # Gathered groups and group indexes hold only rows of the query's codes on
                # ``cols``; one index with the key as a column may return other keys' rows
                # within the margin (its rounding slack), so its pairs compare every code.
                ks.cols = cols
            out.append(ks)
    return _BaseStrata(out, onehot, weight, maxabs, lead, reusable)


def _queries_of(qkey: np.ndarray, key: int | None) -> np.ndarray:
    """The queries a stratum's index serves: those of group ``key`` (all when ``None``)."""
    return np.arange(len(qkey)) if key is None else np.flatnonzero(qkey == key)


def _tune_kq(
    index: _Index,
    *,
    queries: Callable[[], np.ndarray],
    size: int,
    embed: Callable[[np.ndarray], np.ndarray],
    k: int,
    kq: int,
    slack: float,
) -> int:
    """Neighbours the queries of ``index`` (``size`` rows) fetch: ``k`` + the extra of least
    expected cost on an evenly spaced sample of its queries
    (:mod:`~primafacie.neighbors.candidates`); ``kq`` when it has fewer than ``MIN_QUERIES``
    queries or no radius search (its uncertified queries would go to brute force). The answer
    is the same whatever this returns; only its cost is not."""
    rows = queries()
    if index.radius is None or len(rows) < max(MIN_QUERIES, 1):
        return kq
    sample = rows[np.linspace(0, len(rows) - 1, SAMPLE).astype(np.int64)]
    dist, idx = index.search(embed(sample), min(k + max(EXTRAS), size))
    dist, idx = np.asarray(dist, dtype=float), np.asarray(idx, dtype=np.int64)
    margin = 4 * index.tol(dist[:, k - 1]) + slack
    return min(k + choose_extra(certified_shares(dist, idx, k, margin, size), k), size)


def _extent(bounds: tuple[np.ndarray, np.ndarray], bnum: np.ndarray) -> tuple[float, float]:
    """Sum over the numeric columns of their range, and the largest absolute value, over the
    queries (``bounds``: each column's least and greatest value, :func:`bounds_of`) and the
    base rows together (min and max select values, so the figures are those of the stacked
    rows, without stacking them; the largest absolute value is that of an extreme).

    Examples
    --------
    >>> _extent(bounds_of(np.array([[0.0, 1.0]])), np.array([[2.0, -3.0], [1.0, 0.5]]))
    (6.0, 3.0)
    """
    parts = [b for b in (bounds, bounds_of(bnum)) if b[0].size]
    if not parts:
        return 0.0, 0.0
    lo = np.min([b[0] for b in parts], axis=0)
    hi = np.max([b[1] for b in parts], axis=0)
    maxabs = max(float(np.abs(lo).max(initial=0.0)), float(np.abs(hi).max(initial=0.0)))
    return float((hi - lo).sum()), maxabs


def _narrow(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Integer arrays as int32 when every value fits (all or none: keys compared together).

    Examples
    --------
    >>> [a.dtype.name for a in _narrow(np.arange(3), np.array([7]))]
    ['int32', 'int32']
    >>> _narrow(np.array([2**40]))[0].dtype.name
    'int64'
    """
    small = all(
        not len(a) or (a.min() >= np.iinfo(np.int32).min and a.max() <= np.iinfo(np.int32).max)
        for a in arrays
    )
    return tuple(a.astype(np.int32) if small else a for a in arrays)


#: A stratum's group bounds are read from a table of first positions when it has fewer than
#: this many cells plus two per base row (int32 or int64 each: at most ~5 times its ``order``).
_TABLE_CELLS = 1 << 16


def _first_positions(
    sorted_keys: np.ndarray, sorted_codes: np.ndarray | None, width: int, space: int
) -> np.ndarray:
    """Position of the first row at or after each (key, code) cell, a row per cell + the end.

    Rows are sorted by key then code (``sorted_codes``, in ``range(width)``; ``None``: one
    code, width 1); cell ``key·width + code`` of the returned table is the first row whose
    (key, code) is not below it, and the last entry is the number of rows. Group ``key`` is
    rows ``table[key·width] : table[(key + 1)·width]`` and its rows of code ``c`` are
    ``table[key·width + c] : table[key·width + c + 1]``: one lookup per bound instead of a
    binary search of the sorted keys per query (the table of a 5,000-level postcode stratum
    has ~45,000 cells and stays in cache).

    Parameters
    ----------
    sorted_keys
        Group keys of the rows in sorted order, in ``range(space)``.
    sorted_codes
        The rows' codes in the same order (ascending within a key), or None.
    width
        Number of codes.
    space
        Number of keys (one more than the largest key of a query or a row).

    Returns
    -------
    numpy.ndarray
        ``space·width + 1`` positions, non-decreasing, int32 when they fit.

    Examples
    --------
    >>> _first_positions(np.array([0, 0, 2]), np.array([0, 1, 1]), 2, 3).tolist()
    [0, 1, 2, 2, 2, 2, 3]
    """
    cell = sorted_keys.astype(np.int64) * width
    if sorted_codes is not None:
        cell += sorted_codes
    # the first position of every cell: its count of rows in earlier cells
    table = np.zeros(space * width + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell, minlength=space * width), out=table[1:])
    return _narrow(table)[0]


def _embed_rows(
    base: GowerMatrix, rows: np.ndarray, onehot: list[int], weight: float
) -> np.ndarray:
    """:func:`_embed` of the base ``rows`` without a key (the rows of one group's index)."""
    return _embed(base[rows], onehot, None, weight)


class _LazyStrata:
    """The strata of one search, built where the chunks run, once per process.

    A Dask worker builds its own from the scattered query and base matrices instead of
    receiving the pickled indexes: at 10^7 rows they are ~2 GB, held by the client while
    pickled and twice on a worker while unpickled (measured worker peak 5.2 GB against 2.6 GB
    in use). Local threads share one build (the lock). Building is deterministic, so every
    process searches the same strata. With ``reuse`` (``reuse(query_num, build)``: a
    :meth:`SpaceCache.strata <primafacie.neighbors.reuse.SpaceCache.strata>` bound to the
    search's settings), the base side comes from the cache, built there once for every
    query set it covers; a cache stays in its process (it is not pickled).
    """

    def __init__(self, args: tuple, reuse: Callable | None = None) -> None:
        self._args = args
        self._reuse = reuse
        self._strata: list[_Stratum] | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        return {"args": self._args}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["args"])

    def get(self) -> list[_Stratum]:
        """The strata, built on first use."""
        with self._lock:
            if self._strata is None:
                query, base, kq, make_index, rule, *k_slack = self._args
                prepared = None
                if self._reuse is not None:

                    def build(bounds: tuple[np.ndarray, np.ndarray]) -> _BaseStrata:
                        return _base_strata(base, bounds, kq, make_index, rule, *k_slack,
                                            query=query)  # fmt: skip

                    prepared = self._reuse(query.num, build)
                self._strata = _strata(*self._args, prepared=prepared)
            return self._strata


def _gather(st: _Stratum, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query, base) pairs of whole small groups, without a loop (offsets from cumulative sizes).

    With ``st.skip``, a group's rows sharing the query's code on that column (a contiguous
    run of the group, :func:`_first_positions`) are left out: they belong to a stratum of
    fewer mismatches, visited before, so they are never a pair here (the run is skipped as a
    range instead of each of its pairs made then tested).

    Returns the pairs and the query rows whose group is too big to gather (searched instead).
    """
    if st.table is None:
        key = st.qkey[rows]
        lo = np.searchsorted(st.sorted_keys, key, "left")
        size = np.searchsorted(st.sorted_keys, key, "right") - lo
    else:
        at = st.qkey[rows].astype(np.int64) * st.width
        lo = st.table.take(at)
        size = st.table.take(at + st.width) - lo
    small = size <= st.limit
    if st.skip is None:
        size = np.where(small, size, 0)
        starts = np.repeat(np.cumsum(size) - size, size)
        pos = np.arange(int(size.sum())) - starts + np.repeat(lo, size)
        return np.repeat(rows, size), st.order[pos], rows[~small]
    # the run of the query's own code: rows [lo + before, lo + before + run) of its group
    at = at + st.qskip.take(rows)
    run_lo = st.table.take(at)
    run = st.table.take(at + 1) - run_lo
    count = np.where(small, size - run, 0)
    starts = np.repeat(np.cumsum(count) - count, count)
    off = np.arange(int(count.sum())) - starts  # a pair's rank among its query's pairs
    pos = off + np.repeat(lo, count)
    pos += np.where(off >= np.repeat(run_lo - lo, count), np.repeat(run, count), 0)
    return np.repeat(rows, count), st.order[pos], rows[~small]


def _z_order(e: np.ndarray) -> np.ndarray:
    """The rows of ``e`` in Z (Morton) order: coordinates cut into 2^b cells per column and
    their bits interleaved into one integer key (b = 63 // columns, at most 16), sorted stably.
    Rows close in space get close keys, so a tree walked in this order reuses its cache."""
    m, p = e.shape
    if m < 3 or p == 0:
        return np.arange(m)
    bits = max(1, min(16, 63 // p))
    lo, hi = e.min(axis=0), e.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    cells = ((e - lo) / span * (2**bits - 1)).astype(np.uint64)
    # Bit ``b`` of column ``j`` goes to bit ``b·p + p - 1 - j`` of the key. Each column's bits
    # are spread a byte at a time through a 256-entry table (bit i of a byte to bit i·p):
    # the same key as interleaving bit by bit, in ~4 numpy calls per byte instead of 4 per
    # bit and column (~15 % of a search's bookkeeping outside the tree at 10^6, many small
    # calls). Only a table's first ``bits`` bits are spread: a cell is below 2**bits.
    width = min(8, bits)
    byte = np.arange(256, dtype=np.uint64)
    table = np.zeros(256, dtype=np.uint64)
    for i in range(width):  # a loop over the bits of a byte, never over rows
        table |= ((byte >> np.uint64(i)) & np.uint64(1)) << np.uint64(i * p)
    code = np.zeros(m, dtype=np.uint64)
    for j in range(p):  # loops over columns and bytes, never over rows
        for lead in range(0, bits, 8):
            part = table.take((cells[:, j] >> np.uint64(lead)) & np.uint64(255))
            code |= part << np.uint64(lead * p + p - 1 - j)
    return np.argsort(code, kind="stable")


def _index_pairs(
    index: _Index,
    e: np.ndarray,
    rows: np.ndarray,
    rowmap: np.ndarray | None,
    k: int,
    kq: int,
    slack: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Certified candidates of the query ``rows`` (embedded ``e``); the rows left uncertified.

    With ``rho`` the k-th distance found, every indexed row within ``rho + margin`` (4 × the
    distance error + ``slack``) is fetched: by the ``kq`` nearest when the last of them is
    farther (or the index has only ``kq`` rows), else by a radius search; an index without
    one returns those rows as uncertified (searched by brute force). Of the ``kq`` nearest
    only those within ``rho + margin`` are candidates: a row beyond is where a row the
    search did not fetch is, out of the top k by the same certificate (and the rows within are
    those a radius search would return), so fewer pairs are ranked and the answer is the same.
    ``rowmap`` maps index positions to base rows.
    """
    n = len(rowmap) if rowmap is not None else None
    # Queries in Z order: consecutive queries walk the same part of the tree, which then
    # stays in the CPU cache (in data order each query misses it once the tree outgrows the
    # cache; measured by benchmarks/slope.py). Each query's answer does not depend on it.
    # The queries stay in that order (their pairs are ranked per query, in any order).
    order = _z_order(e)
    e, rows = e[order], rows[order]
    dist, idx = index.search(e, kq)
    dist = np.asarray(dist, dtype=float)
    idx = np.asarray(idx, dtype=np.int64)
    rho = dist[:, k - 1]
    margin = 4 * index.tol(rho) + slack
    ok = (dist[:, -1] > rho + margin) | (kq == n)
    ok &= (idx >= 0).all(axis=1) & np.isfinite(rho)
    good, bad = np.flatnonzero(ok), np.flatnonzero(~ok)
    # only the fetched rows within rho + margin (the first k always are: ascending lists)
    near = dist[good] <= (rho + margin)[good, None]
    qi, bi = [np.repeat(rows[good], near.sum(axis=1))], [idx[good][near]]
    unsure = rows[:0]
    if len(bad) and index.radius is None:
        unsure = rows[bad]
    elif len(bad):
        lists = index.radius(e[bad], rho[bad] + margin[bad])
        lens = np.fromiter((len(a) for a in lists), dtype=np.int64, count=len(lists))
        qi.append(np.repeat(rows[bad], lens))
        bi.append(np.concatenate(list(lists)).astype(np.int64))
    bi_all = np.concatenate(bi)
    return np.concatenate(qi), rowmap[bi_all] if rowmap is not None else bi_all, unsure


def _searched(
    st: _Stratum, rows: np.ndarray, k: int, kq: int, slack: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidates of query ``rows`` whose group is too large to gather, from the indexes
    (each fetching the neighbours it chose when built, ``kq`` if none)."""
    if st.groups is None:
        index, kq_i = st.index.tuned(st.tune(None, len(st.order)))
        return _index_pairs(index, st.embed(rows, True), rows, None, k, kq_i or kq, slack)
    keys = st.qkey[rows]
    o = np.argsort(keys, kind="stable")
    rows, keys = rows[o], keys[o]
    cuts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1], True])
    parts = []
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):  # one call per large group present
        lazy, rows_g = st.groups[int(keys[a])]
        index, kq_i = lazy.tuned(st.tune(int(keys[a]), len(rows_g)))
        r = rows[a:b]
        parts.append(_index_pairs(index, st.embed(r, False), r, rows_g, k, kq_i or kq, slack))
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))


def _stratified(
    query: GowerMatrix,
    base: GowerMatrix,
    k: int,
    chunk_size: int | None,
    divisor: float,
    make_index: Callable[[np.ndarray, float], _Index],
    backend: Any = None,
    decimals: int | None = None,
    rule: AutoRule = AUTO_RULE,
    post: _Post | None = None,
    reuse: Callable | None = None,
) -> tuple[np.ndarray, ...]:
    """Exact k-NN: candidates stratum by stratum, ranked in the canonical arithmetic.

    Strata are visited by increasing number of keyed mismatches; a query skips a stratum once
    its current k-th distance is below that stratum's mismatch count (minus float and rounding
    margins): no row there can enter its top k. The package docstring proves that the union of
    the candidates holds the exact top k; the ranking is :func:`canonical_sums` + the tie rule,
    so the result is the brute-force answer bit for bit.
    """
    n = len(base)
    kq = min(k + _EXTRA, n)
    step = 0.0 if decimals is None else 10.0**-decimals
    slack = 2 * divisor * step
    strata = _LazyStrata((query, base, kq, make_index, rule, k, slack), reuse)
    rows_per_chunk = chunk_size or max(1, _cells(backend) // (2 * kq + k))

    shared = (query, base, strata, k, kq, divisor, decimals, step, slack)
    return _map_chunks(_stratified_chunk, shared, len(query), rows_per_chunk, backend, post)


def _stratified_chunk(shared: tuple, sl: slice) -> tuple[np.ndarray, np.ndarray]:
    """One chunk of queries of :func:`_stratified`, stratum by stratum (module level: a Dask
    task ships only the slice; the strata and their indexes are scattered once)."""
    # 50 lines: the loop over strata, its pruning bounds and the merge read best in one place.
    query, base, lazy, k, kq, divisor, decimals, step, slack = shared
    strata = lazy.get()
    glob = np.arange(sl.start, sl.stop)
    m = len(glob)
    best_i = np.full((m, k), -1, dtype=np.int64)
    best_d = np.full((m, k), np.inf)
    fallback = np.zeros(m, dtype=bool)
    for st in strata:
        floor = (st.mismatch - 1e-9 * (1 + st.mismatch)) / divisor - 2 * step
        need = np.flatnonzero(~fallback & ~(floor > best_d[:, -1]))
        if not len(need):
            continue
        qi, bi, big = _gather(st, glob[need])
        # A row that also agrees on a keyed column outside this stratum's belongs to a
        # stratum of fewer mismatches, already visited by this query (its rows there
        # candidates, or certified out of its top k): not a candidate again. A gathered group
        # left out its rows of the query's code on ``st.skip`` already (a range); the rows an
        # index fetched are skipped too: in the postcode world the (employment, region)
        # trees return the rows of the query's postcode cell already in its list, each a
        # duplicate that ties with itself and sends the query's merge to the tie sort
        # (16.8 % of the merged queries at 10^6; the time saved was within the noise,
        # docs/scaling.md).
        qi, bi = _unseen(query, base, qi, bi, tuple(j for j in st.outside if j != st.skip))
        if len(big):
            qi2, bi2, unsure = _searched(st, big, k, kq, slack)
            qi2, bi2 = _unseen(query, base, qi2, bi2, st.outside)
            qi, bi = np.concatenate([qi, qi2]), np.concatenate([bi, bi2])
            fallback[unsure - sl.start] = True
        if not len(qi):
            continue
        # Every pair left differs from its query on each outside column (its sum starts from
        # their number) and agrees on ``st.cols``: neither is read again.
        # A pair farther than its query's current k-th distance never enters the top k (that
        # distance only falls): drop it, and merge only the queries with a pair left. Most
        # pairs of a stratum gathered after a nearer one go here (a 5,000-level postcode).
        kth = best_d[qi - sl.start, -1]
        if np.isfinite(kth).any():
            d, keep = _sums_within(
                query, base, qi, bi, kth, divisor, decimals, st.cols, st.outside, st.lead
            )
            qi, bi = qi[keep], bi[keep]
            keep = ~(d > kth[keep])
        else:
            sums = canonical_sums(query, base, qi, bi, st.cols, st.outside)
            d = _finish(sums, divisor, decimals)
            keep = np.ones(len(d), dtype=bool)
        if not keep.all():
            qi, bi, d = qi[keep], bi[keep], d[keep]
            hit = np.zeros(m, dtype=bool)
            hit[qi - sl.start] = True
            need = np.flatnonzero(hit)
            if not len(need):
                continue
        # Rank the stratum's pairs of the searched rows only (row r -> slot where[r]), then
        # merge them with the best so far as two ranked lists. An index's lists arrive grouped
        # and ranked, so neither step sorts them: with a many-level key (the postcode world)
        # the best so far holds a few gathered rows when they arrive, and the concatenated
        # lists were sorted by query and row by row (docs/scaling.md).
        where = np.full(m, -1, dtype=np.int64)
        where[need] = np.arange(len(need))
        new_i, new_d = select_pairs(where[qi - sl.start], bi, d, len(need), k)
        best_i[need], best_d[need] = merge_ranked(best_i[need], best_d[need], new_i, new_d)
    fb = np.flatnonzero(fallback)
    if len(fb):
        best_i[fb], best_d[fb] = _brute(query[glob[fb]], base, k, None, divisor, decimals=decimals)
    return best_i, best_d


def _unseen(
    query: GowerMatrix, base: GowerMatrix, qi: np.ndarray, bi: np.ndarray, cols: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(qi, bi)`` whose codes differ on every column of ``cols``."""
    if not cols or not len(qi):
        return qi, bi
    seen = np.zeros(len(qi), dtype=bool)
    for j in cols:  # a loop over keyed columns (at most 3), never over rows
        seen |= query.codes[:, j].take(qi) == base.codes[:, j].take(bi)
    return qi[~seen], bi[~seen]


def _sums_within(
    query: GowerMatrix,
    base: GowerMatrix,
    qi: np.ndarray,
    bi: np.ndarray,
    kth: np.ndarray,
    divisor: float,
    decimals: int | None,
    equal: tuple[int, ...] = (),
    differ: tuple[int, ...] = (),
    lead: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The finished distances of the pairs ``(qi, bi)`` that may be within their query's
    ``kth``, and the mask of those pairs among all (``equal``/``differ``: code columns every
    pair agrees/disagrees on, skipped as in :func:`~primafacie.neighbors.gower.canonical_sums`;
    ``lead``: the first numeric column of ``query`` and ``base``, contiguous).

    The sum runs as in :func:`~primafacie.neighbors.gower.canonical_sums` (the mismatching codes,
    then the numeric columns left to right; the same operations in the same order, so the same
    bits), but a pair whose sum after the codes and the first numeric column, finished, already
    exceeds ``kth`` is dropped, as it always was: adding non-negative terms never lowers
    a float sum, and dividing and rounding keep the order, so its distance would exceed it too.
    A 5,000-level postcode's gathered strata bring ~66 such pairs per query at 10^6.
    """
    # whole rows gathered a block of pairs at a time (``_pair_sums``): a column's ``take`` on
    # a row-major matrix copies the whole column first, a cost that grew with the base
    # (docs/scaling.md, "The k-NN search CPU, profiled at 2·10^6"). Every pair's sum is
    # finished: the pruned pairs' other columns cost less than the column copies they saved.
    # the sum starts from the known mismatches (an exact integer: the same bits)
    start = float(len(differ))
    codes = [j for j in range(query.codes.shape[1]) if j not in equal and j not in differ]
    if lead is not None and not codes:
        # No code left to compare: the partial sum is the start plus the first column's
        # term, the same operations as in ``_pair_sums`` (so the same bits), read from the
        # contiguous first columns; only the pairs it keeps gather their rows. In the
        # postcode world most gathered pairs stop here, and their rows' gathers were most
        # of the search's extra cost at 10^6.
        # Pairs whose query has no k-th yet (inf) are all kept: not read twice (an index's
        # pairs after the postcode cell of the query, mostly).
        bound = np.flatnonzero(np.isfinite(kth))
        every = len(bound) == len(qi)
        qb, bb, kb = (qi, bi, kth) if every else (qi[bound], bi[bound], kth[bound])
        first = np.full(len(qb), start)
        scratch = np.subtract(lead[0].take(qb), lead[1].take(bb))
        first += np.abs(scratch, out=scratch)
        near = ~(_finish(first, divisor, decimals) > kb)
        if every:
            keep = near
        else:
            keep = np.ones(len(qi), dtype=bool)
            keep[bound] = near
        out = np.full(int(np.count_nonzero(keep)), start)
        _pair_sums(query, base, qi[keep], bi[keep], codes, out)
        return _finish(out, divisor, decimals), keep
    out, first = np.full(len(qi), start), np.empty(len(qi))
    _pair_sums(query, base, qi, bi, codes, out, first)
    keep = ~(_finish(first, divisor, decimals) > kth)
    return _finish(out[keep], divisor, decimals), keep


def _stratum_index(algorithm: str) -> Callable[[np.ndarray, float], _Index]:
    """The index :func:`_stratified` builds per stratum of keyed columns for ``algorithm``:
    SciPy KD-trees (Manhattan, float64) for ``"tree"``, faiss flat L1 indexes (float32,
    candidates re-ranked exactly) for ``"faiss"``; both searches are exact."""
    if algorithm == "tree":
        # rows stored in Z order: a leaf's rows sit together in memory (neighbors.layout)
        return z_sorted(_tree_index, _z_order)
    try:
        import faiss  # noqa: F401
    except ImportError as exc:
        raise InputError(
            "algorithm='faiss' needs the [fast] extra: pip install 'primafacie[fast]'"
        ) from exc
    return _faiss_index


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
        levels = tuple(max(a, c) for a, c in zip(q.levels, b.levels, strict=True))
        q = GowerMatrix(q.num, q.codes, levels, q.layout)
        b = GowerMatrix(b.num, b.codes, levels, b.layout)
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    return q, b


def _unique_rows(q: GowerMatrix) -> tuple[np.ndarray, np.ndarray]:
    """First position of every distinct query row and the inverse map (rows in sorted order).

    Rows are equal when their values are (``-0.0`` equals ``0.0``: both are at the same
    distance from every row). One ``np.lexsort`` of the columns: ``np.unique(axis=0)``
    compares rows as structured records, ~10x slower (a third of the CST law searches).

    Examples
    --------
    >>> X = GowerMatrix(np.array([[1.0], [0.0], [1.0]]), np.zeros((3, 0)))
    >>> first, inverse = _unique_rows(X)
    >>> first.tolist(), inverse.tolist()
    ([1, 0], [1, 0, 1])
    """
    key = np.hstack([q.num, q.codes.astype(float)])
    n = len(key)
    if not key.shape[1] or n < 2:
        return np.arange(min(n, 1)), np.zeros(n, dtype=np.int64)
    order = np.lexsort(key.T[::-1])  # stable: equal rows keep their order, the first leads
    ranked = key[order]
    new = np.ones(n, dtype=bool)
    new[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return order[new], inverse


#: Distinct queries are searched alone when at most this share of the queries is distinct
#: (judged first on an evenly spaced sample of _SAMPLE rows, so that a table of distinct
#: continuous rows does not pay a full sort of its rows).
_DISTINCT_SHARE, _SAMPLE = 0.5, 4096


def _distinct_rows(q: GowerMatrix) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`_unique_rows` of the queries (or of a base) when few enough are distinct, else
    None."""
    m = len(q)
    sample = np.arange(0, m, max(1, m // _SAMPLE))
    if len(_unique_rows(q[sample])[0]) > _DISTINCT_SHARE * len(sample):
        return None
    first, inverse = _unique_rows(q)
    return (first, inverse) if len(first) <= _DISTINCT_SHARE * m else None


def _reduce_expanded(
    lists: tuple[np.ndarray, ...],
    inverse: np.ndarray,
    reduce: Callable[[np.ndarray, np.ndarray, slice], tuple],
    k: int,
    backend: Any,
) -> tuple[np.ndarray, ...]:
    """``reduce`` over chunks of the original queries, each fed the lists of its distinct
    query (``lists[j][inverse]``): what the chunks would have given searched one by one. A
    ``reduce`` with a ``reduce_repeated(idx, dist, inverse)`` method gives those outputs
    itself when it can (it returns None when it cannot).

    Runs in this process (threads of a local backend): the distinct lists are at most half
    the (m, k) lists, so on Dask they are not worth scattering.
    """
    from ..compute import Backend, chunk_slices, get_backend

    idx, dist = lists
    # a reducer that can work from the distinct lists (``reduce_repeated``) does so
    repeated = getattr(reduce, "reduce_repeated", None)
    found = repeated(idx, dist, inverse) if repeated is not None else None
    if found is not None:
        return tuple(found)
    local = get_backend(backend)
    local = local if local.kind == "local" else Backend(n_jobs=1)
    slices = chunk_slices(len(inverse), max(1, _BLOCK_CELLS // max(k, 1)))
    parts = local.map(lambda sl: tuple(reduce(idx[inverse[sl]], dist[inverse[sl]], sl)), slices)
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(len(parts[0])))


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
    reduce: Callable[[np.ndarray, np.ndarray, slice], tuple] | None = None,
    reuse: SpaceCache | None = None,
) -> KnnResult | tuple[np.ndarray, ...]:
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
        base's rows, numeric columns and categorical levels by measured cost; a base whose
        rows repeat is scanned by its distinct rows, :mod:`~primafacie.neighbors.grouped`).
        Every choice returns exactly the brute-force answer, tie rule included.
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
    reduce
        Optional ``reduce(indices, distances, rows)`` applied to each chunk's final lists
        (``rows`` is the chunk's slice of the queries) where the chunk ran, returning a tuple
        of arrays with one row per query. It must be picklable for Dask (a module-level
        function or a dataclass instance); large inputs it holds are sent once per worker.
        On a cluster only what it returns travels back, so a caller that needs counts, not
        the ``(m, k)`` lists, keeps them off the client. A ``reduce`` whose attribute
        ``rows_by_list`` is true promises that each output row depends only on that query's
        lists (not on ``rows``): equal queries then have one list reduced, its rows repeated.

    Returns
    -------
    KnnResult or tuple of numpy.ndarray
        Neighbour positions and distances, nearest first, with the documented tie rule; with
        ``reduce``, its outputs concatenated over the chunks in query order.

    Examples
    --------
    >>> base = np.array([[0.0], [1.0], [1.0], [3.0]])
    >>> knn(np.array([[0.9]]), base, 2).indices.tolist()
    [[1, 2]]
    >>> knn(np.array([[0.0]]), base, 2, ties="last").indices.tolist()
    [[0, 2]]
    >>> def nearest(idx, dist, rows):
    ...     return (idx[:, 0],)
    >>> knn(np.array([[0.9], [2.9]]), base, 2, reduce=nearest)[0].tolist()
    [1, 3]
    """
    query, base = _check(query, base, k, ties, decimals, algorithm)
    m, n = len(query), len(base)
    if max_distance is not None and not max_distance > 0:
        raise InputError(f"max_distance must be positive, got {max_distance}")
    if m == 0 or n == 0:
        idx = np.full((m, k), -1, dtype=np.int64)
        dist = np.full((m, k), np.inf)
        if reduce is not None:
            return tuple(reduce(idx, dist, slice(0, m)))
        return KnnResult(idx, dist, np.zeros(m, dtype=np.int64))
    # Identical centres have identical neighbour lists: search each distinct centre once
    # (the law-school data have ~1200 distinct (LSAT, UGPA) pairs among 21790 rows). With
    # ``reduce`` (which may read which query a row is, e.g. to drop the query's own row) the
    # distinct lists are expanded back to every query before it runs: skipping the distinct
    # search there tripled the CST law tables' time (issue 22).
    inverse = _distinct_rows(query)
    if inverse is not None:
        first, inverse = inverse
        query = query[first]
    kk = min(k, n)
    if ties == "last":
        # "later row wins" is "first row wins" on the reversed search space.
        base = base[::-1]
    search = _grouped_search(query, base, kk) if algorithm == "auto" else None
    if search is None:
        if algorithm == "auto":
            algorithm = choose_algorithm(n, base.num.shape[1], base.levels, kk, m=len(query))
        if algorithm == "brute":
            search = _brute
        else:
            # the settings a reused base side was built for (the cache serves one base)
            key = (algorithm, ties, kk, decimals, divisor, base.levels, len(base))
            search = partial(_stratified, make_index=_stratum_index(algorithm),
                             reuse=None if reuse is None else partial(reuse.strata, key))  # fmt: skip
    # A reducer whose rows depend only on the lists reduces each distinct query's list once.
    by_list = inverse is not None and getattr(reduce, "rows_by_list", False)
    late = reduce if inverse is None or by_list else None  # in the chunks, or after expanding
    post = _Post(n=n, k=k, ties_last=ties == "last", max_distance=max_distance, reduce=late)
    out = search(
        query, base, kk, chunk_size, divisor, backend=backend, decimals=decimals, post=post
    )
    if reduce is not None:
        if inverse is None or by_list:
            return out if inverse is None else tuple(part[inverse] for part in out)
        return _reduce_expanded(out, inverse, reduce, k, backend)
    idx, dist = out
    if inverse is not None:
        idx, dist = idx[inverse], dist[inverse]
    return KnnResult(idx, dist, (idx >= 0).sum(axis=1))
