"""Stages 3 and 4 of a situation test: the search spaces and the neighbour searches.

:class:`GroupSearch` fits the Gower coordinates of the factual rows once per run
(:class:`Space`), places the complainants' counterfactual centres in them, and runs one k-NN
search per centre set at the largest k (+1): the control groups, the factual test groups (ST)
and the counterfactual test groups (CST, CF). Each search is reduced where it ran to the prefix
counts every k of the grid reads (:class:`Lists`), so nothing searches again per k.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..data import AuditData
from ..neighbors import GowerTransformer, knn
from ..neighbors.reuse import forget, process_cache
from ..neighbors.search import bounds_of
from .coordinates import (
    HeldMatrix,
    HeldSplit,
    held_coordinates,
    rows_of,
    split_coordinates,
    stack_pieces,
)
from .lists import ListReducer, PrefixCounts, prefix_lengths
from .planning import Plan, cf_decisions, complainant_rows

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["GroupSearch", "Lists", "Space", "group_distances", "group_members"]

#: Corrected mode ranks distances rounded to this many decimals (see ``knn(decimals=...)``).
_DISTANCE_DECIMALS = 12


@dataclass(frozen=True)
class Space:
    """Stage 3: Gower coordinates of the rows and counterfactual centres, and knn options."""

    # the rows' coordinates: SplitCoordinates (one matrix per search space), a GowerMatrix, or
    # on Dask a HeldSplit (the matrices held on the workers, never on the client)
    X: Any
    Xcf: Any  # the counterfactual centres' GowerMatrix (or on Dask a HeldMatrix), or None
    features: list[str]
    divisor: float
    opts: dict
    # the factual transformer, kept so that another SCM's centres are scaled the same way
    transformer: Any = None


@dataclass
class Lists:
    """Stage 4: what the searches at the largest k keep: the negatives and sizes of the
    prefixes of every list (:class:`~primafacie.situation.lists.PrefixCounts`, one column per
    prefix length the grid reads) and, with ``keep_neighbors``, the lists themselves (data-row
    positions, -1 pads) and their distances. ``ctrl_*`` is the control group (legacy: the top
    k+1 protected rows, complainant included; corrected: the complainant removed), ``st_*`` the
    factual test group, ``cf_*`` the test group of the counterfactual centres."""

    self_pos: np.ndarray  # the complainant's position in the k+1 control list (k+2 if absent)
    ctrl_counts: PrefixCounts
    ctrl_list: np.ndarray | None = None
    st_counts: PrefixCounts | None = None
    st_list: np.ndarray | None = None
    cf_counts: PrefixCounts | None = None
    cf_list: np.ndarray | None = None
    cf_counts_cfneg: PrefixCounts | None = None  # legacy CST w/: negatives read from D^CF
    centre_rank: np.ndarray | None = None  # legacy CST w/: rank of the appended centre
    # Gower distances of the lists above (kept with them, for the dossiers' member tables)
    ctrl_dist: np.ndarray | None = None
    st_dist: np.ndarray | None = None
    cf_dist: np.ndarray | None = None

    def take(self, keep: np.ndarray) -> Lists:
        """The lists of the complainants ``keep`` (positions among this run's complainants):
        every list and count is per complainant, so a run restricted to a subset of the same
        complainants, search spaces and centres finds exactly these rows."""
        out = {}
        for name, value in vars(self).items():
            if isinstance(value, PrefixCounts):
                value = replace(value, neg=value.neg[keep], size=value.size[keep])
            elif isinstance(value, np.ndarray):
                value = value[keep]
            out[name] = value
        return Lists(**out)


@dataclass(frozen=True)
class GroupSearch:
    """The search spaces and the control and test groups of a run (stages 3 and 4).

    Parameters
    ----------
    keep_neighbors, n_attributes, max_distance, chunk_size, algorithm, backend
        As given to :class:`~primafacie.situation.engine.SituationTest` (validated there).
    """

    keep_neighbors: bool
    n_attributes: int | None
    max_distance: float | None
    chunk_size: int | None
    algorithm: str
    backend: Any

    # ---- stage 3: search spaces, fitted once per run
    def space(
        self, data: AuditData, plan: Plan, cf: pd.DataFrame | None, hold: Any = None
    ) -> Space:
        """Gower coordinates of the factual rows and of the complainants' counterfactuals.

        With ``hold``, a Dask backend (corrected mode: :func:`.coordinates.holds`), the
        factual rows' coordinates are built on its workers and stay there
        (:class:`.coordinates.HeldSplit`): the searches read them there, and the client never
        holds them, nor the copy Dask makes of what it sends (measured in
        ``docs/scaling.md``)."""
        features = dict(data.features)
        if plan.legacy:
            # The authors list nominal, then continuous, then ordinal attributes; the order
            # fixes the floating-point sums and therefore which distances tie.
            order = {"categorical": 0, "numeric": 1, "ordinal": 2}
            features = dict(sorted(features.items(), key=lambda kv: order[kv[1].kind]))
        scale = "zscore" if plan.legacy else "range"
        extra = [complainant_rows(cf, plan)] if cf is not None else []
        tf = GowerTransformer(features, scale=scale, n_attributes=self.n_attributes)
        tf.fit(data.frame, extra_categories=extra)
        X = _coordinates(tf, data.frame, plan, hold)
        opts = dict(
            ties=plan.ties,
            # Corrected mode: distances equal up to float noise are ties, so the tie rule (not
            # the rounding of x / range) decides them. Legacy keeps the authors' raw sums.
            decimals=None if plan.legacy else _DISTANCE_DECIMALS,
            max_distance=self.max_distance,
            chunk_size=self.chunk_size,
            algorithm=self.algorithm,
            divisor=tf.divisor,
            backend=self.backend,
        )
        space = Space(
            X=X, Xcf=None, features=list(features), divisor=tf.divisor, opts=opts, transformer=tf
        )
        if cf is None:
            return space
        return replace(space, Xcf=self.cf_coordinates(plan, space, cf, data.frame))

    def cf_coordinates(
        self, plan: Plan, space: Space, cf: pd.DataFrame, factual: pd.DataFrame | None = None
    ) -> np.ndarray:
        """Gower coordinates of the complainants' counterfactual centres."""
        if not plan.legacy:
            return space.transformer.transform(complainant_rows(cf, plan))
        # Legacy (b): the scaler is re-fitted on the whole counterfactual table.
        tcf = GowerTransformer(
            space.transformer.features, scale="zscore", n_attributes=self.n_attributes
        )
        tcf.fit(cf, extra_categories=[] if factual is None else [factual])
        return tcf.transform(cf)[plan.comp_rows]

    # ---- stage 4: one search per centre set, at the largest k (+1)
    def search(self, data: AuditData, plan: Plan, space: Space, cf: pd.DataFrame | None) -> Lists:
        """The prefix counts of the control and test groups at the largest k (and the lists,
        when kept)."""
        lists = self._control_search(plan, space)
        kmax, comp_rows = plan.kmax, plan.comp_rows
        if "st" in plan.methods:
            red = self._reducer(plan, plan.test_rows, kmax)
            out = self._knn(_queries(space.X, comp_rows), plan.test_rows, kmax, space, red)
            lists.st_counts = PrefixCounts(red.cols, out["neg"], out["size"])
            lists.st_list, lists.st_dist = out.get("list"), out.get("dist")
        if plan.need_cf:
            self.cf_search(data, plan, space, cf, lists)
        return lists

    def cf_search(
        self, data: AuditData, plan: Plan, space: Space, cf: pd.DataFrame, lists: Lists
    ) -> None:
        """The test groups of the counterfactual centres, set on ``lists``."""
        kmax, rows = plan.kmax, plan.test_rows
        legacy_w = {}
        if plan.legacy and plan.need_centres:
            # Legacy (e): CST w/ reads the test neighbours' outcomes from D^CF, and the
            # appended centre (distance 0) is ranked among the rows at distance 0.
            negf = 1 - plan.y
            if data.decision in cf.columns:
                negf = 1 - cf_decisions(data, cf, np.arange(data.n), None, "cst_w", plan.legacy)
            legacy_w = dict(
                neg_cf=negf[rows].astype(np.int8),
                centre_rows=plan.comp_rows,
                space_rows=rows,
                ties_last=plan.ties == "last",
            )
        red = self._reducer(plan, rows, kmax + 1, **legacy_w)
        out = self._knn(space.Xcf, rows, kmax + 1, space, red)
        lists.cf_counts = PrefixCounts(red.cols, out["neg"], out["size"])
        lists.cf_list, lists.cf_dist = out.get("list"), out.get("dist")
        if legacy_w:
            lists.cf_counts_cfneg = PrefixCounts(red.cols, out["neg_cf"], out["size"])
            lists.centre_rank = out["centre_rank"]

    def _control_search(self, plan: Plan, space: Space) -> Lists:
        """The k+1 nearest protected rows of every complainant, and its own position there;
        corrected mode removes the complainant by identity (K members remain)."""
        kmax, comp_rows, rows = plan.kmax, plan.comp_rows, plan.ctrl_rows
        # complainants are protected rows: their own positions in the control search space
        own = np.searchsorted(rows, comp_rows)
        width = kmax + 1 if plan.legacy else kmax
        red = self._reducer(plan, rows, width, own=own, drop_own=not plan.legacy)
        query = _queries(space.X, comp_rows)
        # every protected row a complainant (the default): the queries are the search space,
        # one matrix, copied, held and sent to the workers once instead of twice
        same = len(comp_rows) == len(rows) and np.array_equal(comp_rows, rows)
        same = same and not isinstance(space.X, HeldSplit)  # held: nothing is copied
        out = self._knn(query, rows, kmax + 1, space, red, base=query if same else None)
        return Lists(
            self_pos=out["self_pos"],
            ctrl_counts=PrefixCounts(red.cols, out["neg"], out["size"]),
            ctrl_list=out.get("list"),
            ctrl_dist=out.get("dist"),
        )

    @staticmethod
    def _knn(
        centres: np.ndarray,
        rows: np.ndarray,
        k: int,
        space: Space,
        reducer: ListReducer,
        base: Any = None,
    ) -> dict[str, np.ndarray]:
        """The one place that calls the k-NN backend: the k nearest of ``rows`` to each centre,
        reduced where the search ran to ``reducer``'s outputs (by name); kept lists come back
        as data-row positions (-1 pads). ``base``: ``space.X[rows]`` when the caller holds it
        already."""
        if isinstance(space.X, HeldSplit):
            found = _held_knn(centres, space.X.locate(rows)[0], k, space.opts, reducer)
            out = dict(zip(reducer.names, found, strict=True))
            if "list" in out:
                idx = out["list"]
                out["list"] = np.where(idx >= 0, rows[np.maximum(idx, 0)], -1)
            return out
        if isinstance(centres, HeldMatrix):  # held centres, a space of the client: fetched
            centres = stack_pieces(*centres.pieces[0].client.gather(list(centres.pieces)))
        base = space.X[rows] if base is None else base
        found = knn(centres, base, k, **space.opts, reduce=reducer)
        # the copies made here (``space.X[rows]``, gathered centres) go with the search's
        # trees, chunks and distance buffers; all are handed back before the next search or
        # stage allocates, else glibc and pyarrow keep them (issue 22: the client's peak at
        # 10^6 grew by what every earlier search once held)
        del centres, base
        from ..release import release_memory

        release_memory()
        out = dict(zip(reducer.names, found, strict=True))
        if "list" in out:
            idx = out["list"]
            out["list"] = np.where(idx >= 0, rows[np.maximum(idx, 0)], -1)
        return out

    def _reducer(self, plan: Plan, rows: np.ndarray, width: int, **kw: Any) -> ListReducer:
        """A :class:`ListReducer` over the search space ``rows`` with lists ``width`` long."""
        # 0/1 per search-space row: int8 keeps what is sent to every worker small
        neg = (1 - plan.y[rows]).astype(np.int8)
        cols = prefix_lengths(plan.ks, width)
        return ListReducer(cols=cols, neg=neg, keep=bool(self.keep_neighbors), **kw)


def _client(backend: Any) -> Any:
    """The ``distributed.Client`` of a Dask backend."""
    from ..compute import _dask_client, get_backend

    b = get_backend(backend)
    return _dask_client(b.address, b.n_jobs, b.timeout)


def _queries(X: Any, rows: np.ndarray) -> Any:
    """The coordinates of the data rows ``rows`` as a search's queries: ``X[rows]``, or on
    held coordinates the held matrix and the rows' positions in it (``(matrix, None)``:
    all of its rows)."""
    return X.locate(rows) if isinstance(X, HeldSplit) else X[rows]


#: Queries of one task of a search on held coordinates (:func:`_held_knn`), at most: a search
#: of more than a slice per worker thread is cut into a multiple of the threads, and each
#: thread takes the next slice when it finishes one, so a slower worker holds up no other.
#: A worker builds a search's space (strata, trees) once for all its slices (``neighbors.reuse``,
#: eleventh session); before that each slice rebuilt it, and the slices still paid: at 10^7 on
#: two idle workers the audit took 886.1 s with these slices against 943.8 s with one per
#: thread (docs/scaling.md, tenth session; the ninth's 4.6x slower worker was reading an
#: unaligned copy of the space, see ``neighbors.gower.aligned``).
HELD_SLICE = 1 << 19


def held_slices(m: int, threads: int, size: int | None = None) -> list[slice]:
    """The query slices of a held search of ``m`` queries on ``threads`` worker threads: one
    per thread, or ``threads`` × r slices of equal length (the last shorter), r the fewest
    rounds that keep each at most ``size`` (:data:`HELD_SLICE`); fewer when ``m`` is small.

    Examples
    --------
    >>> [(s.start, s.stop) for s in held_slices(10, 2, size=4)]
    [(0, 3), (3, 6), (6, 9), (9, 10)]
    >>> len(held_slices(2_500_000 * 2, 2)), len(held_slices(1_000_000, 2))
    (10, 2)
    """
    from ..compute import chunk_slices

    if not m:
        return [slice(0, 0)]
    threads = max(threads, 1)
    rounds = max(1, -(-m // (threads * (size or HELD_SLICE))))
    return chunk_slices(m, -(-m // (threads * rounds)))


def _held_knn(
    query: Any, base: HeldMatrix, k: int, opts: dict, reducer: ListReducer
) -> tuple[np.ndarray, ...]:
    """:func:`knn` of queries and a search space held on the Dask workers, run there.

    The queries are cut into contiguous slices (:func:`held_slices`); each task reads its
    slice (from the held pieces that hold it) and the whole space, and runs the exact search
    there with local threads (one: a worker runs one task at a time), reduced by ``reducer``
    (its complainants' part of it). Every worker thread starts with a slice and takes the
    next one when it finishes, so a slow worker holds up no other. Each query's list depends
    on that query and the space alone (``knn`` returns the brute-force answer whatever the
    chunks, backend or index), so the slices' outputs stacked in order are those of one
    search of every query; only the reduced counts come back.

    Parameters
    ----------
    query
        ``(HeldMatrix, positions or None)`` (:func:`_queries` of held coordinates), a
        :class:`HeldMatrix`, or a matrix on the client (sent once, as one piece).
    base, k, opts, reducer
        The held search space, the list length, ``knn``'s options and the reducer.

    Returns
    -------
    tuple of numpy.ndarray
        ``reducer``'s outputs, one row per query.
    """
    from dataclasses import replace as _replace

    from distributed import as_completed

    from ..compute import Backend, _trim_workers

    client = base.pieces[0].client  # the cluster holding the space
    held, positions = query if isinstance(query, tuple) else (query, None)
    if not isinstance(held, HeldMatrix):  # a matrix of the client (a fallback's centres)
        held = HeldMatrix((client.scatter([held], hash=False)[0],), (len(held),), held.levels,
                          held.layout)  # fmt: skip
    m = len(held) if positions is None else len(positions)
    workers = [w for w, threads in sorted(client.nthreads().items()) for _ in range(threads)]
    slices = held_slices(m, len(workers))
    # Each worker builds the space's strata and trees once for all its slices (a cache named
    # by this search, for queries within the numeric range of all the held pieces').
    name = f"held-search-{next(_SEARCHES)}-{base.pieces[0].key}"
    bounds = _bounds(client.gather(client.map(_piece_bounds, list(held.pieces), pure=False)))
    # each worker searches with its own thread (the worker's one), never the cluster again
    local = {**opts, "backend": Backend(n_jobs=1)}

    def submit(i: int, worker: str | None) -> Any:
        sl = slices[i]
        if positions is None:
            lo, hi, sel = sl.start, sl.stop, None
        else:
            sel = positions[sl]
            lo, hi = (int(sel[0]), int(sel[-1]) + 1) if len(sel) else (0, 0)
        first, stop, offset = held.covering(lo, hi)
        part = reducer if reducer.own is None else _replace(reducer, own=reducer.own[sl])
        # one future for the task's small inputs (a list: Dask scatters a tuple's items apart)
        job = client.scatter([(k, local, part, offset, lo, hi, sel, name, bounds)], hash=False)[0]
        return client.submit(
            _held_search, job, base.pieces[0], *held.pieces[first:stop], pure=False,
            workers=[worker] if worker else None, allow_other_workers=True,
        )  # fmt: skip

    # the first slice of every thread, then the next slice to whichever thread is free; the
    # outputs are placed by slice, never by arrival
    start = min(len(slices), max(len(workers), 1))
    running = {}  # future -> (its slice, the worker thread it was given to)
    for i in range(start):
        worker = workers[i] if workers else None
        running[submit(i, worker)] = (i, worker)
    parts: list[Any] = [None] * len(slices)
    following = iter(range(start, len(slices)))
    pending = as_completed(list(running), loop=client.loop)
    try:
        for done in pending:
            i, worker = running.pop(done)
            parts[i] = done.result()
            nxt = next(following, None)
            if nxt is not None:
                future = submit(nxt, worker)
                running[future] = (nxt, worker)
                pending.add(future)
    finally:  # a failed slice too: the workers let the search's strata and trees go
        client.run(forget, name)
    _trim_workers(client)
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(len(parts[0])))


def _held_search(job: tuple, base: Any, *pieces: Any) -> tuple[np.ndarray, ...]:
    """Task of :func:`_held_knn` on a worker: one slice of the queries searched in the whole
    held space."""
    k, opts, reducer, offset, lo, hi, sel, name, bounds = job
    query = rows_of(pieces, offset, lo, hi, sel)
    return tuple(knn(query, base, k, **opts, reduce=reducer, reuse=process_cache(name, bounds)))


#: Numbers the held searches of this process (the name of each one's caches on the workers).
_SEARCHES = itertools.count()


def _piece_bounds(piece: Any) -> tuple[np.ndarray, np.ndarray]:
    """Task: :func:`~primafacie.neighbors.search.bounds_of` a held piece's numeric columns."""
    return bounds_of(piece.num)


def _bounds(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The least and greatest value of each column over pieces' :func:`_piece_bounds`.

    Examples
    --------
    >>> lo, hi = _bounds([(np.array([0.0]), np.array([2.0])), (np.empty(0), np.empty(0)),
    ...                   (np.array([-1.0]), np.array([1.0]))])
    >>> lo.tolist(), hi.tolist()
    ([-1.0], [2.0])
    """
    parts = [p for p in parts if p[0].size] or parts[:1]
    return np.min([p[0] for p in parts], axis=0), np.max([p[1] for p in parts], axis=0)


def _coordinates(tf: GowerTransformer, frame: pd.DataFrame, plan: Plan, hold: Any = None) -> Any:
    """The rows' Gower coordinates, built per chunk into the control and test spaces'
    matrices (:mod:`~primafacie.situation.coordinates`) when those spaces partition the rows
    (every plan :class:`~primafacie.situation.planning.Planner` makes); else one matrix.
    ``hold``: a Dask backend on whose workers those matrices are built and held
    (:func:`~primafacie.situation.coordinates.held_coordinates`)."""
    spaces = (plan.ctrl_rows, plan.test_rows)
    n = len(frame)
    sorted_inside = all(
        len(r) == 0 or (r[0] >= 0 and r[-1] < n and bool((np.diff(r) > 0).all())) for r in spaces
    )
    if not sorted_inside or sum(map(len, spaces)) != n:
        return tf.transform(frame)
    seen = np.zeros(n, dtype=bool)
    for rows in spaces:
        seen[rows] = True
    if not seen.all():
        return tf.transform(frame)
    if hold is not None:
        return held_coordinates(tf, frame, spaces, _client(hold))
    return split_coordinates(tf, frame, spaces)


# ---- the members of each (method, k) group, read from the lists at the largest k
def group_members(method: str, k: int, legacy: bool, lists: Lists) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of the control and test neighbours (-1 pads; centres not listed)."""
    if legacy:
        # Legacy (e): top k+1 protected rows; the complainant itself is not a neighbour.
        inside = np.arange(k + 1)[None, :] == lists.self_pos[:, None]
        ctrl = np.where(inside, -1, lists.ctrl_list[:, : k + 1])
    else:
        ctrl = lists.ctrl_list[:, :k]
    if method == "st":
        return ctrl, lists.st_list[:, :k]
    U = lists.cf_list
    if legacy and method in ("cst_centers", "cf"):
        # The appended counterfactual centre took one of the k+1 places unless rows at
        # distance 0 pushed it out.
        test = U[:, : k + 1].copy()
        test[:, k] = np.where(lists.centre_rank <= k, -1, test[:, k])
        return ctrl, test
    return ctrl, U[:, :k]


def group_distances(
    groups: tuple[np.ndarray, np.ndarray], method: str, lists: Lists
) -> tuple[np.ndarray, np.ndarray]:
    """Gower distances (float32) of the members :func:`group_members` lists, column for
    column (NaN where a position is a pad: no neighbour, or the complainant or a centre in
    legacy mode)."""
    out = []
    for pos, dist in zip(
        groups, (lists.ctrl_dist, lists.st_dist if method == "st" else lists.cf_dist),
        strict=True,
    ):  # fmt: skip
        # float32: distances lie in [0, 1] and are shown to 3 decimals; it halves the
        # memory they add to the kept neighbour lists (+24 MB at n = 50,000, k = 50)
        d = np.asarray(dist, dtype=np.float32)[:, : pos.shape[1]]
        out.append(np.where(pos >= 0, d, np.float32(np.nan)))
    return out[0], out[1]
