"""Stages 1 and 2 of a situation test: who is tested against whom, and their counterfactuals.

:class:`Planner` resolves the settings (methods, k grid, attribute, conventions), picks the
complainants and the two search spaces (:class:`Plan`, row positions), checks that the largest
k fits them, and computes the counterfactual table and the complainants' counterfactual
decisions ŷ^CF. Nothing here searches neighbours or computes a statistic.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..data import AuditData, to_pandas
from ..decisions import predict_binary
from ..errors import InputError
from .params import _method_name
from .reference import reference_value

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Plan", "Planner", "cf_decisions", "complainant_rows"]


def _as_list(value: Any) -> list:
    if isinstance(value, (list, tuple, np.ndarray)):
        return list(value)
    return [value]


@dataclass(frozen=True)
class Plan:
    """Stage 1: the resolved settings and who is tested against whom (row positions)."""

    methods: list[str]
    ks: list[int]
    attribute: str
    legacy: bool
    ties: str
    y: np.ndarray  # decisions of every row (int8), 1 = favourable
    prot: np.ndarray  # protected mask
    comp_rows: np.ndarray  # complainants
    ctrl_rows: np.ndarray  # control search space: the protected rows
    test_rows: np.ndarray  # test search space: the non-protected rows

    @property
    def kmax(self) -> int:
        return self.ks[-1]

    @property
    def need_cf(self) -> bool:
        return any(m != "st" for m in self.methods)

    @property
    def need_centres(self) -> bool:
        return any(m in ("cst_centers", "cf") for m in self.methods)


@dataclass(frozen=True)
class Planner:
    """The complainants, search spaces and counterfactuals of a run (stages 1 and 2).

    Parameters
    ----------
    methods, k, attribute, legacy, ties, complainants, strict_k, reference
        As given to :class:`~primafacie.situation.engine.SituationTest` (validated there).
    """

    methods: Any
    k: Any
    attribute: str | None
    legacy: bool
    ties: str | None
    complainants: str
    strict_k: bool
    reference: Any

    def method_names(self) -> list[str]:
        """The requested methods, aliases resolved, in the order given, without repeats."""
        return list(dict.fromkeys(_method_name(m) for m in _as_list(self.methods)))

    def ks(self) -> list[int]:
        """The requested k, ascending, without repeats."""
        return sorted({int(k) for k in _as_list(self.k)})

    def reference_value(self, data: AuditData, plan: Plan) -> Any:
        """The value do() sets the plan's attribute to (:func:`.reference.reference_value`)."""
        return reference_value(data, plan.attribute, self.reference, plan.prot)

    # ---- stage 1: complainants and search spaces' rows
    def plan(self, data: AuditData, complainant_mask: np.ndarray | None) -> Plan:
        """Resolve the settings and the complainant, control and test rows."""
        methods, ks = self.method_names(), self.ks()
        attribute = data.protected_attribute(
            self.attribute,
            how="pass attribute=... (or use MultipleSituationTest / IntersectionalSituationTest)",
        )
        legacy = bool(self.legacy)
        # 0/1 decisions in one byte (not eight) per row: the plan lives through the whole
        # test; what computes with them widens (:meth:`.statistics.Statistics.blocks`)
        y = data.decision_array().astype(np.int8)
        prot = data.protected_mask(attribute)
        comp = prot.copy()
        if complainant_mask is not None:
            mask = np.asarray(complainant_mask, dtype=bool)
            if mask.shape != (data.n,):
                raise InputError(f"complainant_mask must have {data.n} booleans")
            comp &= mask
        if self.complainants == "rejected":
            comp &= y == 0
        plan = Plan(
            methods=methods,
            ks=ks,
            attribute=attribute,
            legacy=legacy,
            ties=self.ties or ("last" if legacy else "first"),
            y=y,
            prot=prot,
            comp_rows=np.flatnonzero(comp),
            ctrl_rows=np.flatnonzero(prot),
            test_rows=np.flatnonzero(~prot),
        )
        if self.strict_k:
            _check_k(plan)
        return plan

    # ---- stage 2: counterfactuals
    def counterfactual_stage(
        self,
        data: AuditData,
        plan: Plan,
        scm: Any,
        counterfactuals: Any,
        decider: Any,
        complainants_only: bool = False,
    ) -> tuple[pd.DataFrame | None, np.ndarray | None]:
        """The counterfactual table (None for ST alone) and ŷ^CF of the complainants (None
        unless a method counts the counterfactual centres).

        With ``complainants_only`` (corrected mode and an SCM only; ignored otherwise) the
        table holds the complainants' rows alone, indexed by their positions: all that the
        corrected mode reads of it (:func:`complainant_rows`), and a fraction of a whole copy
        of the data. Each row's counterfactual is computed from that row alone, so the rows
        are the whole table's (tested)."""
        if not plan.need_cf:
            return None, None
        if scm is None and counterfactuals is None:
            raise InputError(
                f"method(s) {[m for m in plan.methods if m != 'st']} need counterfactuals: pass "
                "scm=... (a fitted SCM) or counterfactuals=... (a precomputed table); on the CLI "
                "--edge or --counterfactuals, in audit.yaml a causal: section"
            )
        compact = complainants_only and counterfactuals is None and not plan.legacy
        which = "cf" if "cf" in plan.methods else "cst_centers"
        if compact:
            return self._compact_stage(data, plan, scm, decider, which)
        cf = self._counterfactuals(data, plan, scm, counterfactuals)
        _check_missing(cf[list(data.features)].iloc[plan.comp_rows])
        if not plan.need_centres:
            return cf, None
        if plan.legacy and data.decision in cf.columns:  # never compact: legacy keeps it whole
            every = cf_decisions(data, cf, np.arange(data.n), None, which, plan.legacy)
            return cf, every[plan.comp_rows]
        ycf = cf_decisions(data, cf, plan.comp_rows, decider, which, plan.legacy)
        return cf, ycf.astype(np.int64)

    def _compact_stage(
        self,
        data: AuditData,
        plan: Plan,
        scm: Any,
        decider: Any,
        which: str,
        chunk: int = 0,
    ) -> tuple[pd.DataFrame, np.ndarray | None]:
        """:meth:`counterfactual_stage` of the complainants' rows alone, computed
        :data:`COUNTERFACTUAL_CHUNK` complainants at a time and stacked.

        Each row's counterfactual and centre decision is computed from that row alone (the
        SCM's equations and the decider work row by row), so the stacked rows are the
        one-shot table's bit for bit (tested); what a chunk's equations allocate (designs,
        class probabilities, decoded text: ~500 B per complainant, measured at 2·10^6
        rows) is then bounded by the chunk instead of growing with the data. The chunks'
        tables must agree on their dtypes to be stacked; should they not (a column whose
        decoded values fit its dtype in one chunk only), the table is computed in one go,
        as before. ``chunk``: complainants per chunk (default :data:`COUNTERFACTUAL_CHUNK`).
        """
        import pandas as pd

        rows = plan.comp_rows
        chunk = chunk or COUNTERFACTUAL_CHUNK
        slices = [slice(s, s + chunk) for s in range(0, len(rows), chunk)]
        tables, decisions = [], []
        for s in slices or [slice(0, 0)]:
            cf = self._counterfactuals(data, plan, scm, None, rows[s])
            _check_missing(cf[list(data.features)])
            tables.append(cf)
            if plan.need_centres:
                decisions.append(cf_decisions(data, cf, np.arange(len(cf)), decider, which, False))
        if len(tables) > 1 and any(not t.dtypes.equals(tables[0].dtypes) for t in tables):
            del tables, decisions
            return self._compact_stage(data, plan, scm, decider, which, chunk=len(rows))
        cf = tables[0] if len(tables) == 1 else pd.concat(tables)
        del tables
        if not plan.need_centres:
            return cf, None
        ycf = decisions[0] if len(decisions) == 1 else np.concatenate(decisions)
        return cf, ycf.astype(np.int64)

    def counterfactual_space(
        self, data: AuditData, plan: Plan, scm: Any, decider: Any, searcher: Any, backend: Any
    ) -> tuple[pd.DataFrame | None, Any, np.ndarray | None]:
        """Stages 2 and 3 of a run whose counterfactual table only the corrected mode reads:
        the complainants' counterfactuals and ŷ^CF, and the search space (``searcher``'s
        :meth:`~primafacie.situation.search.GroupSearch.space`) with their Gower coordinates.

        With a fitted SCM in corrected mode, the :data:`COUNTERFACTUAL_CHUNK` chunks of
        :meth:`_compact_stage` run as tasks of ``backend`` (:func:`_cf_chunk`: on Dask each
        task is sent its chunk's data rows and the SCM once per worker; locally the
        backend's threads): a task keeps its counterfactual table where it ran and sends back
        ŷ^CF and the rows holding each categorical value's first occurrence, from which the
        space is fitted (the same categories, in the same order, as from the whole table);
        a second task per chunk then sends back its rows' coordinates (:func:`_cf_coordinates`).
        The client never holds the counterfactual table nor the SCM's transients, and its
        outputs are the serial stage's bit for bit (each row's counterfactual, decision and
        coordinates depend on that row alone; tested against the serial stage on a 2-worker
        cluster). Should the chunks disagree on dtypes, or a coordinate transform stop on a
        value, the table is computed here as before (so that the same error names the same
        rows). Otherwise (legacy mode, a precomputed table, ST alone, an SCM not yet fitted)
        this is :meth:`counterfactual_stage` then the search space.

        Returns
        -------
        tuple
            ``(cf, space, ycf)``: the counterfactual table (None when it stayed on the
            backend), the :class:`~primafacie.situation.search.Space` and ŷ^CF (int64; None
            unless a method counts the counterfactual centres).
        """
        fitted = not (hasattr(scm, "is_fitted") and not scm.is_fitted)
        if not (plan.need_cf and scm is not None and not plan.legacy and fitted):
            from .coordinates import holds

            cf, ycf = self.counterfactual_stage(
                data, plan, scm, None, decider, complainants_only=True
            )
            hold = backend if holds(backend, plan) else None
            return cf, searcher.space(data, plan, cf, hold=hold), ycf
        try:
            return self._on_backend(data, plan, scm, decider, searcher, backend)
        except InputError:
            raise
        except Exception:  # noqa: BLE001 - computed again below, where it raises again
            # a worker lost with the chunks scattered to it (data the client sent have no
            # task to recompute them from): the serial stage here, the same bits; an error
            # of the SCM or the decider is raised again by it
            which = "cf" if "cf" in plan.methods else "cst_centers"
            cf, ycf = self._compact_stage(data, plan, scm, decider, which)
            return cf, searcher.space(data, plan, cf), ycf

    def _on_backend(
        self, data: AuditData, plan: Plan, scm: Any, decider: Any, searcher: Any, backend: Any
    ) -> tuple[pd.DataFrame | None, Any, np.ndarray | None]:
        """:meth:`counterfactual_space` with a fitted SCM in corrected mode: the chunks as
        tasks of ``backend``, then the space and the chunks' coordinates."""
        from ..compute import chunk_slices, get_backend, keep_each

        ref = self.reference_value(data, plan)
        _check_scm(scm, data, plan.attribute)
        rows, frame, run = plan.comp_rows, data.frame, get_backend(backend)
        which = "cf" if "cf" in plan.methods else "cst_centers"
        categorical = tuple(n for n, f in data.features.items() if f.kind == "categorical")
        job = _CfJob(scm, plan.attribute, ref, data.decision, tuple(data.features), categorical,
                     decider if plan.need_centres else None)  # fmt: skip

        def chunk_rows(s: slice) -> pd.DataFrame:
            return frame.iloc[rows[s]].set_axis(rows[s], axis=0)

        slices = chunk_slices(len(rows), COUNTERFACTUAL_CHUNK) or [slice(0, 0)]
        held = keep_each(run, _cf_chunk, chunk_rows, slices, shared=job)
        done = run.map(_cf_summary, held)
        for missing, _, first, ycf in done:  # in chunk order, as the serial stage stops
            _stop_missing(missing)
            if plan.need_centres and ycf is None:  # no decider: cf_decisions says so
                cf_decisions(data, first.iloc[:0], np.arange(0), None, which, False)
        if any(not d.equals(done[0][1]) for _, d, _, _ in done):
            del held
            cf, ycf = self._compact_stage(data, plan, scm, decider, which, chunk=len(rows))
            return cf, searcher.space(data, plan, cf), ycf
        ycf = np.concatenate([d[3] for d in done]).astype(np.int64) if plan.need_centres else None
        firsts = _firsts([d[2] for d in done], data.n)
        del done
        from .coordinates import holds

        hold = run if holds(run, plan) else None
        try:
            space = searcher.space(data, plan, firsts, hold=hold)
            if hold is not None:
                # the centres' coordinates stay on the workers that computed them
                xcf = _held_coordinates(run, held, space, slices)
            else:
                xcf = _stack_coordinates(run.map(_cf_coordinates, held, shared=space.transformer))
        except InputError:
            # a value the coordinates refuse: the whole table here, whose transform names it
            # as the serial stage's does
            cf = _stacked(run.map(_cf_table, held))
            del held
            return cf, searcher.space(data, plan, cf), ycf
        del held
        return None, replace(space, Xcf=xcf), ycf

    def _counterfactuals(
        self,
        data: AuditData,
        plan: Plan,
        scm: Any,
        counterfactuals: Any,
        compact: np.ndarray | None = None,
    ) -> pd.DataFrame:
        """The given counterfactual table (checked), or the SCM's under do(reference) (with
        ``compact``: of those complainants' rows alone, positions of the data, indexed by
        them)."""
        if counterfactuals is not None:
            cf = to_pandas(counterfactuals).reset_index(drop=True)
            if len(cf) != data.n:
                raise InputError(
                    f"the counterfactual table has {len(cf)} rows but the data have {data.n}; "
                    "give one row per data row, in the same order"
                )
            missing = [c for c in data.features if c not in cf.columns]
            if missing:
                raise InputError(f"the counterfactual table lacks feature column(s) {missing}")
            return cf
        attribute = plan.attribute
        ref = self.reference_value(data, plan)
        _check_scm(scm, data, attribute)
        if hasattr(scm, "is_fitted") and not scm.is_fitted:
            scm = scm.fit(data)
        if compact is not None:
            # every complainant is a protected row, so each is changed as in the whole table;
            # the other rows (copied unchanged there) are never read in corrected mode
            rows = data.frame.iloc[compact].set_axis(compact, axis=0)
            return _scm_rows(scm, rows, attribute, ref, data.decision)
        cf = to_pandas(
            scm.counterfactual(data.frame, intervention={attribute: ref}, rows=plan.prot)
        )
        cf = cf.reset_index(drop=True)
        # The SCM copies the recorded decision unchanged; it is not b(x^CF), so drop it.
        if data.decision in cf.columns:
            cf = cf.drop(columns=data.decision)
        return cf


@dataclass(frozen=True)
class _CfJob:
    """What every counterfactual task shares (sent once per worker): the fitted SCM, the
    intervention, the decision column the SCM copies, the features (the categorical ones
    apart) and the decider of ŷ^CF (None when no method counts the centres)."""

    scm: Any
    attribute: str
    reference: Any
    decision: Any
    features: tuple[str, ...]
    categorical: tuple[str, ...]
    decider: Any


def _cf_chunk(job: _CfJob, rows: pd.DataFrame) -> tuple[tuple, pd.DataFrame]:
    """Task of :meth:`Planner.counterfactual_space` on one chunk's data rows: its
    counterfactual table (kept where the task ran) and what the client reads of it: the
    feature columns with a missing value, the dtypes, the rows holding the first occurrence
    of a categorical value (:func:`_firsts`) and ŷ^CF (None when the missing values stop the
    run, or without a decider)."""
    cf = _scm_rows(job.scm, rows, job.attribute, job.reference, job.decision)
    missing = _missing_columns(cf[list(job.features)])
    ycf = None
    if job.decider is not None and not missing:
        # cf_decisions(data, cf, np.arange(len(cf)), decider, ...) of the serial stage: the
        # decision column is dropped, so it is the decider's b(x^CF) of the rows
        ycf = predict_binary(job.decider, cf.reset_index(drop=True))
    first = np.zeros(len(cf), dtype=bool)
    for name in job.categorical:  # a loop over columns, not rows
        first |= ~cf[name].duplicated().to_numpy()
    return (missing, cf.dtypes, cf[first], ycf), cf


def _cf_summary(done: tuple[tuple, pd.DataFrame]) -> tuple:
    """What :func:`_cf_chunk` sends the client: not its table."""
    return done[0]


def _cf_table(done: tuple[tuple, pd.DataFrame]) -> pd.DataFrame:
    """A chunk's counterfactual table (the fallback of :meth:`Planner.counterfactual_space`)."""
    return done[1]


def _cf_coordinates(transformer: Any, done: tuple[tuple, pd.DataFrame]) -> Any:
    """Task of the second pass: the Gower coordinates of a chunk's counterfactual rows."""
    return transformer.transform(done[1])


def _held_coordinates(run: Any, held: list[Any], space: Any, slices: list[slice]) -> Any:
    """The Gower coordinates of the chunks' counterfactual rows, computed and kept on the
    workers holding the chunks (a :class:`~.coordinates.HeldMatrix`: the client never holds
    them); a value the transform refuses raises its ``InputError`` here, as
    ``run.map(_cf_coordinates, ...)`` does."""
    from .coordinates import HeldMatrix

    futures = run.keep(_cf_coordinates, held, shared=space.transformer)
    for f in futures:  # a loop over chunks (2^17 complainants each), never over rows
        failed = f.exception()  # waits for the task; None when it succeeded
        if failed is not None:
            raise failed
    lengths = tuple(s.stop - s.start for s in slices)
    return HeldMatrix(tuple(futures), lengths, space.X.levels, space.X.layout)


def _firsts(pieces: list[pd.DataFrame], n: int) -> pd.DataFrame:
    """The chunks' first-occurrence rows, stacked in chunk order: each categorical value's
    first occurrence in the whole table is among them and they keep the table's order, so
    the categories a space learns from them (``pd.unique``, then sorted) are those it learns
    from the table. A stack of exactly ``n`` rows (the data's) would be read as a whole
    table (:func:`complainant_rows`): its first row is repeated, which adds no category."""
    import pandas as pd

    out = pd.concat(pieces) if len(pieces) > 1 else pieces[0]
    return pd.concat([out, out.iloc[:1]]) if len(out) == n else out


def _stacked(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """The chunks' tables as one (in chunk order)."""
    import pandas as pd

    return pd.concat(tables) if len(tables) > 1 else tables[0]


def _stack_coordinates(pieces: list[Any]) -> Any:
    """The chunks' Gower coordinates as one matrix: the rows the transform of the whole
    table gives (it works row by row), with the same levels and layout."""
    from ..neighbors import GowerMatrix

    if len(pieces) == 1:
        return pieces[0]
    num = np.concatenate([p.num for p in pieces])
    codes = np.concatenate([p.codes for p in pieces])
    return GowerMatrix(num, codes, pieces[0].levels, pieces[0].layout)


#: Complainants whose counterfactual rows a compact stage computes at a time
#: (:meth:`Planner._compact_stage`): 2^17 complainants' transient designs and probabilities
#: are ~65 MB, whatever the size of the data.
COUNTERFACTUAL_CHUNK = 2**17


def _check_missing(features: pd.DataFrame) -> None:
    """Stop on a missing value in the complainants' counterfactual features (naming the
    columns)."""
    _stop_missing(_missing_columns(features))


def _missing_columns(features: pd.DataFrame) -> list:
    """The columns of ``features`` holding a missing value."""
    bad = features.isna().any()
    return list(bad[bad].index)


def _stop_missing(columns: list) -> None:
    """:func:`_check_missing`'s error, when ``columns`` (those with a missing value) are any."""
    if columns:
        raise InputError(
            f"the counterfactual table has missing values in {columns} for complainant rows"
        )


def _scm_rows(
    scm: Any, rows: pd.DataFrame, attribute: str, ref: Any, decision: Any
) -> pd.DataFrame:
    """The SCM's counterfactual of ``rows`` (complainants' data rows, indexed by their
    positions) under do(``attribute`` = ``ref``), without the ``decision`` column (the SCM
    copies the recorded decision unchanged; it is not b(x^CF)). The one computation of a
    compact stage's chunk, in this process or in a task (:func:`_cf_chunk`)."""
    cf = to_pandas(scm.counterfactual(rows, intervention={attribute: ref}))
    if decision in cf.columns:
        cf = cf.drop(columns=decision)
    return cf


def complainant_rows(cf: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """The complainants' rows of a counterfactual table: ``cf`` itself when it holds only
    them (:meth:`Planner.counterfactual_stage` with ``complainants_only``), else its rows at
    ``plan.comp_rows`` (a whole table has one row per data row; when every row is a
    complainant the two are the same rows).

    Examples
    --------
    >>> import pandas as pd
    >>> plan = Plan(["cst"], [1], "a", False, "first", np.zeros(3, int),
    ...             np.array([True, False, True]), np.array([0, 2]), np.array([0, 2]),
    ...             np.array([1]))
    >>> complainant_rows(pd.DataFrame({"x": [1.0, 2.0, 3.0]}), plan)["x"].tolist()
    [1.0, 3.0]
    >>> complainant_rows(pd.DataFrame({"x": [1.0, 3.0]}, index=[0, 2]), plan)["x"].tolist()
    [1.0, 3.0]
    """
    return cf if len(cf) != len(plan.y) else cf.iloc[plan.comp_rows]


def _check_k(plan: Plan) -> None:
    """strict_k: the largest k must fit both search spaces (the complainant excluded)."""
    kmax, attribute = plan.kmax, plan.attribute
    hint = "lower k (from Python, strict_k=False runs with the smaller groups)"
    if kmax > len(plan.ctrl_rows) - 1:
        raise InputError(
            f"k={kmax} is larger than the control search space: only "
            f"{len(plan.ctrl_rows) - 1} other protected rows ({attribute!r}) besides the "
            f"complainant; {hint}"
        )
    if kmax > len(plan.test_rows):
        raise InputError(
            f"k={kmax} is larger than the test search space: only {len(plan.test_rows)} "
            f"non-protected rows ({attribute!r}); {hint}"
        )


def _check_scm(scm: Any, data: AuditData, attribute: str) -> None:
    """The SCM's nodes are columns, no edge points into a protected attribute, and the
    attribute intervened on is a node."""
    edges = [tuple(map(str, e)) for e in getattr(scm, "edges", [])]
    nodes = {v for e in edges for v in e}
    missing = sorted(v for v in nodes if v not in data.frame.columns)
    if missing:
        raise InputError(
            f"SCM node(s) {missing} are not columns of the data; columns: "
            f"{', '.join(map(str, data.frame.columns))}"
        )
    for a, b in edges:
        if b in data.protected:
            raise InputError(
                f"SCM edge {a!r} -> {b!r} points into the protected attribute {b!r}; a "
                "protected attribute must have no parents"
            )
    if edges and attribute not in nodes:
        raise InputError(f"the protected attribute {attribute!r} is not a node of the SCM")


def cf_decisions(
    data: AuditData,
    cf: pd.DataFrame,
    rows: np.ndarray,
    decider: Any,
    method: str,
    legacy: bool,
) -> np.ndarray:
    """ŷ^CF of ``rows``: b(x^CF) from ``decider`` or the table's decision column (which
    legacy mode prefers, as the authors' code read it)."""
    col = data.decision
    from_table = col is not None and col in cf.columns
    if decider is not None and not (legacy and from_table):
        return predict_binary(decider, cf.iloc[rows].reset_index(drop=True))
    if from_table:
        tmp = data.replace(frame=data.frame.assign(**{col: cf[col].to_numpy()}))
        return tmp.decision_array()[rows]
    raise InputError(
        f"method {method!r} needs the counterfactual decision b(x^CF): pass decider=... "
        "(a Rule such as 'salary + 5 * balance > 225000', a fitted model or a callable), "
        f"or a counterfactual table that holds the decision column {col!r}"
    )
