"""One situation-testing engine; ST, CST w/o, CST w/ and CF are settings of it.

For every complainant ``c`` (a protected row) the engine builds a control group (the k nearest
*protected* rows to ``x_c``, ``c`` itself excluded) and a test group (the k nearest
*non-protected* rows to a test centre), and compares their rejection rates
``Δp = p_c − p_t`` with a Newcombe (default) or Wald interval (CST spec §3–§4):

========================  ===========================  ================  ===================
method                    test centre                  centres counted   flag
========================  ===========================  ================  ===================
``"st"``                  factual ``x_c``              no                ``Δp > τ``
``"cst"`` (CST w/o)       counterfactual ``x_c^CF``    no                ``Δp > τ``
``"cst_centers"`` (w/)    counterfactual ``x_c^CF``    yes (k + 1)       ``Δp > τ``
``"cf"``                  —                            only the centres  ``ŷ_c=0, ŷ_c^CF=1``
========================  ===========================  ================  ===================

"significant" means the one-sided interval excludes τ; a CF case is significant when the same
complainant's CST w/ interval excludes τ. The positive direction flips every comparison.

Every neighbour search runs ONCE, at the largest k (+1), for all complainants in chunks; each k
of the grid is a prefix of those sorted lists, and the negative counts of every prefix come
from one cumulative sum, so there is no Python loop over complainants or candidates.

Two conventions are offered:

* **corrected** (default): Gower distance with ranges learned on the factual data and reused
  for the counterfactual centres; distances are compared after rounding to 12 decimals, so
  distances equal in exact arithmetic tie despite float noise, and ties go to the earlier row
  (``ties="first"``); the
  complainant is excluded by identity (w/o) or added exactly once (w/); neighbours' decisions
  are read from the factual data; flags compare ``Δp`` rounded to 9 decimals (float noise at
  ``Δp = τ``).
* **legacy** (``legacy=True``), the CST authors' code (spec §9 a–h): numeric features z-scored
  (population sd) and compared by raw absolute difference; the scaler RE-FITTED on the whole
  counterfactual table for the counterfactual centres (a bug, kept so that the published
  tables match); ties to the larger row index; the control group is the top k+1 protected
  rows with ``c`` removed when present (so it can keep k+1 members); for CST w/ the control
  group is the top k+1 protected rows and the test group the top k+1 of ``D_t ∪ {x_c^CF}``,
  with the test outcomes read from the counterfactual table; ``z`` rounded to 3 decimals; the
  flag is ``round(Δp, 3) > τ`` and significance ``round(Δp − w, 3) > τ``. Pass
  ``n_attributes`` to reproduce the authors' divisor (c); ordinal features use
  ``nunique − 1`` of the factual data (h, without the per-complainant change of CST w/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .._renamed import both_given, renamed_argument
from ..base import Engine, as_audit_data, deprecated_verb
from ..data import AuditData
from ..docstrings import AUDIT_DATA_RETURNS, fill_doc
from ..errors import InputError
from .params import DEFAULT_K, METHODS, _method_name  # declared once, with the parameters
from .params import PARAMETER_CONSTRAINTS as _CONSTRAINTS
from .params import WHERE as PARAMETER_SOURCES
from .planning import Plan, Planner
from .results import SituationResult
from .search import GroupSearch, Lists, Space, group_distances
from .statistics import Statistics

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SituationTest",
    "RunState",
    "METHODS",
    "METHOD_LABELS",
    "PARAMETER_SOURCES",
    "DEFAULT_K",
]

#: Short labels used in the paper's tables (CST w/o, CST w/).
METHOD_LABELS = {"st": "st", "cst": "cst_wo", "cst_centers": "cst_w", "cf": "cf"}
_S = TypeVar("_S", Planner, GroupSearch, Statistics)
#: The data roles ``SituationTest`` takes to build an AuditData from a table.
_ROLES = ("protected", "decision", "favorable", "features", "id_column")


@fill_doc(returns=AUDIT_DATA_RETURNS)
def audit_data(data: Any, roles: Mapping[str, Any]) -> AuditData:
    """The :class:`~primafacie.data.AuditData` a situation test runs on.

    Parameters
    ----------
    data
        An AuditData (the roles given, when any, replace its own), or a pandas / polars /
        pyarrow table (or a mapping of columns) with ``protected``, ``decision`` and
        ``features`` among the roles.
    roles
        ``{role: value}`` of the constructor (``protected``, ``decision``, ``favorable``,
        ``features``, ``id_column``); None means not given.

    {{returns}}
        A table without the roles a test needs (the message names the missing ones), or
        ``protected`` that is not a ``{column: protected value(s)}`` mapping.
    """
    given = {key: value for key, value in roles.items() if value is not None}
    protected = given.get("protected")
    if protected is not None and not isinstance(protected, Mapping):
        raise InputError(
            f"protected= declares {{column: protected value(s)}}, got {protected!r}; to pick "
            "one of the data's protected attributes pass attribute=NAME"
        )
    if isinstance(data, AuditData):
        return data.replace(**given) if given else data
    missing = [key for key in ("protected", "decision", "features") if key not in given]
    if missing:
        raise InputError(
            f"with a table, give the roles {', '.join(f'{m}=...' for m in missing)}: "
            "SituationTest(protected={column: protected value(s)}, decision=COLUMN, "
            "features={column: kind}), or pass an AuditData"
        )
    features = given.pop("features")
    return as_audit_data(data, owner="SituationTest", features=features, **given)


@dataclass(frozen=True)
class RunState:
    """What a run keeps to test other counterfactuals against the same factual data.

    The complainants, the search spaces (Gower coordinates of the factual rows), the control
    groups and the factual test groups do not depend on the SCM, so
    :meth:`SituationTest.rerun_counterfactual` reuses them and redoes only the counterfactual
    generation and the counterfactual test-group search. Kept as ``SituationTest.state_`` by
    ``run(..., keep_state=True)``.
    """

    data: AuditData
    plan: Plan
    space: Space
    lists: Lists


class SituationTest(Engine):
    """Situation testing (ST), counterfactual situation testing (CST) and counterfactual fairness.

    Parameters
    ----------
    methods
        ``"st"``, ``"cst"`` (CST without centres), ``"cst_centers"`` (CST with centres),
        ``"cf"`` (counterfactual fairness with CST w/ intervals), or a list of them (the
        ``analyses.situation.methods`` key). ``"cst_wo"``/``"cst_w"`` are accepted aliases.
    k
        Neighbourhood size, or a list (one search at the largest k serves them all);
        default :data:`DEFAULT_K` = (15, 30, 50), as in ``audit.yaml`` and on the CLI.
    alpha
        Significance level of the one-sided interval (two-sided intervals use α/2 per tail).
    tau
        Accepted deviation τ in [-1, 1].
    direction
        ``"negative"`` (discrimination against the protected group) or ``"positive"``.
    interval
        ``"newcombe"`` (default: Newcombe's hybrid score interval from two Wilson intervals;
        ``"wilson"`` is an alias) or ``"wald"`` (the paper's interval). Newcombe is the
        default because its p-values stay calibrated in the far tail, where an adjustment
        across complainants looks: in worlds without discrimination, Benjamini–Hochberg on
        Wald p-values made a discovery in 8–47% of runs, on Newcombe p-values in 2–6%, within
        the 5% an FDR of 0.05 allows (``docs/statistics.md``). ``legacy=True`` needs
        ``interval="wald"``.
    legacy
        Reproduce the CST authors' code conventions (see module docstring); default False.
    ties
        ``"first"`` (earlier row wins; corrected default) or ``"last"`` (later row wins;
        legacy default). In corrected mode distances are rounded to 12 decimals first, so
        distances that are equal in exact arithmetic (e.g. one LSAT point either side of
        the centre) are ties whatever the floating-point noise of the scaled values.
    max_distance
        Optional ε: neighbours farther than ε are dropped and the actual group sizes are used
        (an empty group gives NaN and no flag).
    complainants
        ``"all"`` protected rows (the paper) or ``"rejected"`` (only ``ŷ_c = 0``).
    reference
        Value the protected attribute is set to under ``do()``; defaults to the other value of
        a two-valued column.
    attribute
        Protected attribute to test when the data declare several.
    n_attributes
        Divisor ``|X|`` of the distance (default: the number of features).
    strict_k
        Raise :class:`InputError` when k exceeds a search space (default). ``False`` uses the
        actual, smaller group sizes instead.
    keep_neighbors
        Keep neighbour positions so that ``to_frame(neighbors=True)`` can list them.
    multiplicity
        Adjustment of the p-values across the complainants of each (method, k):
        ``"none"``, ``"bonferroni"``, ``"holm"``, ``"bh"`` (default; the false discovery
        rate at α) or ``"by"`` (see :mod:`primafacie.situation.multiplicity`). It adds the
        columns ``p_adjusted`` and ``significant_adjusted``; ``significant`` is unchanged.
    chunk_size, algorithm, backend
        Passed to :func:`primafacie.neighbors.knn`: complainants are searched in chunks of
        ``chunk_size`` mapped over the :mod:`primafacie.compute` backend (local threads or
        Dask); results are identical for every chunking and backend.

    protected, decision, favorable, features, id_column
        The data roles, keyword only, for :meth:`run` on a pandas / polars / pyarrow table
        (then ``protected={column: protected value(s)}``, ``decision`` and ``features`` are
        required; ``favorable`` defaults to 1); with an :class:`~primafacie.data.AuditData`
        the roles given replace its own.
    method
        Former name of ``methods``, keyword only: read for one release with a
        DeprecationWarning; giving both is an error naming both.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 1.1, 2.1, 3.1, 4.1],
    ...                    "a": [1, 1, 1, 1, 0, 0, 0, 0], "y": [0, 0, 1, 1, 1, 1, 1, 1]})
    >>> data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    >>> res = SituationTest(methods="st", k=2).run(data)
    >>> res.summary()[["method", "k", "cases", "denominator"]].values.tolist()
    [['st', 2, 4, 4]]
    """

    #: What every parameter accepts (checked at :meth:`run` by
    #: :func:`primafacie.validation.validate_params`; ``audit.yaml`` reuses the same entries).
    _parameter_constraints: dict[str, list] = {
        **_CONSTRAINTS,
        # the deprecated method= is checked as methods is, until it goes
        "method": [None, *_CONSTRAINTS["methods"]],
    }
    _where = {**PARAMETER_SOURCES, "method": f"deprecated: {PARAMETER_SOURCES['methods']}"}

    def __init__(
        self,
        methods: str | Sequence[str] = "cst",
        k: int | Sequence[int] = DEFAULT_K,
        alpha: float = 0.05,
        tau: float = 0.0,
        direction: str = "negative",
        interval: str = "newcombe",
        legacy: bool = False,
        ties: str | None = None,
        max_distance: float | None = None,
        complainants: str = "all",
        reference: Any = None,
        attribute: str | None = None,
        n_attributes: int | None = None,
        strict_k: bool = True,
        keep_neighbors: bool = True,
        chunk_size: int | None = None,
        algorithm: str = "auto",
        backend: Any = None,
        multiplicity: str = "bh",
        *,
        protected: Mapping[str, Any] | None = None,
        decision: str | None = None,
        favorable: Any = None,
        features: Mapping[str, Any] | Sequence[str] | None = None,
        id_column: str | None = None,
        method: str | Sequence[str] | None = None,
    ) -> None:
        self._store_params(locals())  # as given; checked at run
        if method is not None:
            renamed_argument(type(self).__name__, "method", "methods")

    # ------------------------------------------------------------------ the three stages
    def _stage(self, stage: type[_S]) -> _S:
        """One stage of the run (:class:`~.planning.Planner`, :class:`~.search.GroupSearch`
        or :class:`~.statistics.Statistics`), given this engine's parameters of its fields'
        names: each stage sees only the settings it uses."""
        settings = {f.name: getattr(self, f.name) for f in fields(stage)}
        if "methods" in settings and self.method is not None:
            settings["methods"] = self.method  # the deprecated name (_check_params: not both)
        return stage(**settings)

    # ------------------------------------------------------------------ validation
    def _audit_data(self, data: Any) -> AuditData:
        """``data`` as an AuditData, with the constructor's roles (:func:`audit_data`)."""
        return audit_data(data, {role: getattr(self, role) for role in _ROLES})

    def check(self, data: AuditData | Any) -> None:
        """Every requirement the data must meet (parameters, the protected attribute, k against
        both search spaces, the reference value do() sets), checked without searching or
        computing a counterfactual: the audit calls it before any analysis runs.

        Parameters
        ----------
        data
            As for :meth:`run`.

        Raises
        ------
        InputError
            With the fix in the message (as :meth:`run` would raise it, later).
        """
        data = self._audit_data(data)
        self._check_params()
        planner = self._stage(Planner)
        plan = planner.plan(data, None)
        if plan.need_cf:
            planner.reference_value(data, plan)

    def _check_params(self) -> None:
        """Validate every declared parameter (one message format), then the combinations."""
        self._validate_params({name: getattr(self, name) for name in self._parameter_constraints})
        if self.method is not None and not (
            isinstance(self.methods, str) and self.methods == "cst"
        ):
            raise InputError(both_given(type(self).__name__, "method", "methods", self.method,
                                        self.methods))  # fmt: skip
        if self.legacy and self.interval != "wald":
            # the default interval is Newcombe, so legacy users must ask for Wald by name
            raise InputError(
                "legacy=True reproduces the authors' Wald interval; use interval='wald' "
                f"with it (got interval={self.interval!r}; the default is 'newcombe') "
                "(--interval wald, analyses.situation.interval: wald)"
            )

    # ------------------------------------------------------------------ run
    def run(
        self,
        data: AuditData | Any,
        scm: Any = None,
        counterfactuals: Any = None,
        decider: Any = None,
        complainant_mask: np.ndarray | None = None,
        keep_state: bool = False,
    ) -> SituationResult:
        """Test every complainant with every requested method and k.

        The run has five stages in three parts: complainants and counterfactuals
        (:class:`~primafacie.situation.planning.Planner`) → search spaces, fitted once, and
        one search per centre set at the largest k
        (:class:`~primafacie.situation.search.GroupSearch`) → statistics for every k
        (:class:`~primafacie.situation.statistics.Statistics`).

        Parameters
        ----------
        data
            :class:`~primafacie.data.AuditData` with the decision column and the protected
            attribute, or a pandas / polars / pyarrow table when the constructor was given
            the roles (``protected``, ``decision``, ``features``).
        scm
            A (fitted) :class:`~primafacie.causal.SCM` giving the counterfactuals under
            ``do(attribute := reference)``; needed by every method except ``"st"`` unless
            ``counterfactuals`` is given.
        counterfactuals
            A precomputed counterfactual table (one row per data row, same order) holding
            the feature columns and optionally the decision column.
        decider
            b(): a :class:`~primafacie.decisions.Rule`, a fitted estimator or a callable,
            used to label the counterfactual centres (needed by ``"cst_centers"`` and
            ``"cf"`` unless the counterfactual table holds the decisions). When both are
            given the decider wins, except in legacy mode, which reads the table's decisions
            as the authors' code did.
        complainant_mask
            Optional boolean mask restricting the complainants (a subset of the protected
            rows); the search spaces are unchanged.
        keep_state
            Keep on the engine, as ``state_`` (a :class:`RunState`), what
            :meth:`rerun_counterfactual` reuses: the factual plan, search spaces and lists.
            Off by default: the Gower coordinates then stay in memory (~1.5 GB at 10^7 rows).

        Returns
        -------
        SituationResult
            Per-complainant rows for every (method, k) and a summary.

        Examples
        --------
        >>> from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data
        >>> from primafacie.causal import SCM
        >>> data = loan_world_data(n=400, seed=1)
        >>> engine = SituationTest(methods="cst", k=10)
        >>> res = engine.run(data, scm=SCM(LOAN_EDGES).fit(data), keep_state=True)
        >>> again = engine.rerun_counterfactual(scm=SCM(LOAN_EDGES).fit(data))
        >>> again.table.equals(res.table)
        True
        """
        result, state = self._run(data, scm, counterfactuals, decider, complainant_mask, keep_state)
        if keep_state:
            self.state_ = state
        return result

    def run_to_parts(self, data: Any, folder: str | Path, see: str, scm: Any = None,
                     decider: Any = None, searched: Any = None) -> SituationResult:  # fmt: skip
        """:meth:`run`, a table above ``partitioned.PARQUET_MIN_ROWS`` rows written as
        Parquet parts of ``folder`` one (method, k) at a time (``see``: the folder as
        ``results.json`` names it; :mod:`primafacie.situation.partitioned`). ``searched()``,
        when given, is called once the searches are done (the audit then starts its next
        test: :func:`primafacie.compute.overlapped`)."""
        parts = (Path(folder), see, searched)
        return self._run(data, scm, None, decider, None, False, parts)[0]

    def run_with_state(
        self, data: Any, *args: Any, **kwargs: Any
    ) -> tuple[SituationResult, RunState]:
        """Deprecated (one verb, ``run``): ``run(..., keep_state=True)``, then ``state_``;
        works for one release with a DeprecationWarning."""
        deprecated_verb(type(self).__name__, "run_with_state", "run(..., keep_state=True)")
        result = self.run(data, *args, **kwargs, keep_state=True)  # run's arguments
        return result, self.state_

    def _run(
        self,
        data: AuditData | Any,
        scm: Any,
        counterfactuals: Any,
        decider: Any,
        complainant_mask: np.ndarray | None,
        keep_state: bool,
        parts: tuple[Path, str, Any] | None = None,
    ) -> tuple[SituationResult, RunState | None]:
        """The five stages; without ``keep_state`` the counterfactual table and the Gower
        coordinates are released before the statistics (the table is then built in their
        memory: at 10^7 rows they are ~1.5 GB). ``parts``: (folder, see, searched) of
        :meth:`run_to_parts`."""
        data = self._audit_data(data)
        self._check_params()
        planner, searcher = self._stage(Planner), self._stage(GroupSearch)
        plan = planner.plan(data, complainant_mask)
        if parts is not None:  # the counterfactual table is released inside, after the search
            from . import partitioned  # only this path writes Parquet parts: not at start-up

            return partitioned.run_engine(self, data, plan, scm, decider, *parts), None
        cf, ycf = planner.counterfactual_stage(data, plan, scm, counterfactuals, decider)
        space = searcher.space(data, plan, cf)
        lists = searcher.search(data, plan, space, cf)
        del cf
        if not keep_state:
            space = replace(space, X=None, Xcf=None)
        # what the searches freed (their chunks' buffers, the trees, the coordinates), handed
        # back before the statistics allocate the table: glibc keeps it otherwise (240 MB at
        # 10^6 rows in benchmarks/scale.py, under the table's peak)
        from ..release import release_memory

        release_memory()
        table, neighbours = self._stage(Statistics).run(data, plan, lists, ycf)
        result = self._result(data, plan, space, table, neighbours, lists)
        if not keep_state:
            return result, None
        return result, RunState(data=data, plan=plan, space=space, lists=lists)

    def rerun_counterfactual(
        self,
        state: RunState | None = None,
        scm: Any = None,
        counterfactuals: Any = None,
        decider: Any = None,
        methods: Sequence[str] | None = None,
    ) -> SituationResult:
        """The same run with other counterfactuals: only stages 2 and 4 (counterfactual
        generation and the counterfactual test-group search) run again; the complainants,
        search spaces, control groups and factual test groups of ``state`` are reused.

        Parameters
        ----------
        state
            A :class:`RunState` of this engine (same settings); default ``state_``, kept by
            the last ``run(..., keep_state=True)``.
        scm, counterfactuals, decider
            As for :meth:`run`: the other SCM (fitted or not) or counterfactual table.
        methods
            Optional subset of the state's methods to compute (default: all of them).

        Returns
        -------
        SituationResult
            Rows for every (method, k), as :meth:`run` gives for that SCM.
        """
        state = self._state(state)
        plan = state.plan
        if methods is not None:
            chosen = [m for m in plan.methods if m in {_method_name(x) for x in methods}]
            if not chosen:
                raise InputError(
                    f"methods {list(methods)} were not run; the run has {plan.methods}"
                )
            plan = replace(plan, methods=chosen)
        data, space = state.data, state.space
        searcher = self._stage(GroupSearch)
        cf, ycf = self._stage(Planner).counterfactual_stage(
            data, plan, scm, counterfactuals, decider
        )
        if cf is not None:
            space = replace(space, Xcf=searcher.cf_coordinates(plan, space, cf))
        lists = replace(state.lists)
        if plan.need_cf:
            searcher.cf_search(data, plan, space, cf, lists)
        if not self.keep_neighbors:
            lists.cf_list = None
        table, neighbours = self._stage(Statistics).run(data, plan, lists, ycf)
        return self._result(data, plan, space, table, neighbours, lists)

    def _state(self, state: RunState | None) -> RunState:
        if state is not None:
            return state
        if not isinstance(getattr(self, "state_", None), RunState):
            raise InputError(
                "rerun_counterfactual reuses a run's state: run(data, ..., keep_state=True) first"
            )
        return self.state_

    def _result(self, *stages: Any) -> SituationResult:
        """The Result of a run (:func:`run_result`)."""
        return run_result(self, *stages)


def run_result(
    engine: SituationTest,
    data: AuditData,
    plan: Plan,
    space: Space,
    table: pd.DataFrame,
    neighbours: dict,
    lists: Lists,
) -> SituationResult:
    """The Result of a run of ``engine``: the table, the resolved parameters, the neighbours
    and their distances."""
    distances = {key: group_distances(groups, key[0], lists) for key, groups in neighbours.items()}
    params = {
        "methods": plan.methods,
        "k": plan.ks,
        "alpha": float(engine.alpha),
        "tau": float(engine.tau),
        "direction": engine.direction,
        "interval": engine.interval,
        "legacy": plan.legacy,
        "ties": plan.ties,
        "max_distance": engine.max_distance,
        "complainants": engine.complainants,
        "attribute": plan.attribute,
        "n_attributes": space.divisor,
        "features": space.features,
        "multiplicity": engine.multiplicity,
        # the value do() set, as asked (the dossier draws the same twin); absent when not
        # given, so the records of runs without it keep their bytes
        **({"reference": engine.reference} if engine.reference is not None else {}),
    }
    keep = engine.keep_neighbors
    return SituationResult(
        table=table,
        params=params,
        n_protected=int(plan.prot.sum()),
        n_complainants=len(plan.comp_rows),
        ids=np.asarray(data.ids),
        neighbors=neighbours if keep else {},
        neighbor_distances=distances if keep else {},
    )


def restricted_run(
    engine: SituationTest,
    state: RunState,
    complainant_mask: np.ndarray,
    counterfactuals: Any = None,
    decider: Any = None,
    scm: Any = None,
) -> SituationResult:
    """``engine.run(state.data, ..., complainant_mask=complainant_mask)`` without searching
    again: the kept lists of ``state`` (a run of the same data, attribute, search settings and
    counterfactuals over a superset of the complainants) are restricted to the new
    complainants. ``engine`` may differ from the state's engine in the statistics' settings
    (α, τ, interval, direction), not in the search's. Used by the multiple scenario of the CST
    law tables, whose complainants are a subset of the race and gender runs' (issue 22).
    """
    data = state.data
    planner = engine._stage(Planner)
    plan = planner.plan(data, complainant_mask)
    # both are sorted row positions; clipped so that a row past the last one fails the check
    keep = np.searchsorted(state.plan.comp_rows, plan.comp_rows)
    keep = np.minimum(keep, max(len(state.plan.comp_rows) - 1, 0))
    if not np.array_equal(state.plan.comp_rows[keep], plan.comp_rows):
        raise InputError("restricted_run: the complainants are not a subset of the state's")
    cf, ycf = planner.counterfactual_stage(data, plan, scm, counterfactuals, decider)
    del cf
    lists = state.lists.take(keep)
    table, neighbours = engine._stage(Statistics).run(data, plan, lists, ycf)
    return engine._result(data, plan, state.space, table, neighbours, lists)
