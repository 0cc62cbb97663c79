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
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..data import AuditData, to_pandas
from ..decisions import predict_binary
from ..errors import InputError
from ..neighbors import GowerTransformer, knn
from ..validation import validate_params
from .lists import ListReducer, PrefixCounts, prefix_lengths
from .multiplicity import adjust_p
from .params import DEFAULT_K, METHODS, _method_name  # declared once, with the parameters
from .params import PARAMETER_CONSTRAINTS as _CONSTRAINTS
from .params import WHERE as PARAMETER_SOURCES
from .results import SituationResult
from .stats import (
    distinct_counts,
    newcombe_interval,
    test_p_values,
    z_value,
)

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
#: Columns :meth:`SituationTest._test` computes for each (method, k), in table order.
_TEST_COLUMNS = (
    "k_c", "k_t", "neg_c", "neg_t", "p_c", "p_t", "delta", "ci_low", "ci_high", "ci2_low",
    "ci2_high", "discriminated", "significant", "p_value", "p_value_two",
)  # fmt: skip
#: Corrected mode ranks distances rounded to this many decimals (see ``knn(decimals=...)``).
_DISTANCE_DECIMALS = 12


def _labels(codes: np.ndarray, labels: list[str]) -> Any:
    """``labels[codes]`` as a string column of pandas' default string dtype, built through
    Arrow: no Python string per row (6·10^7 of them in a 10^7-row run)."""
    import pyarrow as pa

    arr = pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(labels))
    return pd.array(arr.cast(pa.large_string()), dtype=pd.Series(labels).dtype)


def _as_list(value: Any) -> list:
    if isinstance(value, (list, tuple, np.ndarray)):
        return list(value)
    return [value]


@dataclass(frozen=True)
class _Plan:
    """Stage 1: the resolved settings and who is tested against whom (row positions)."""

    methods: list[str]
    ks: list[int]
    attribute: str
    legacy: bool
    ties: str
    y: np.ndarray  # decisions of every row, 1 = favourable
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
class _Space:
    """Stage 3: Gower coordinates of the rows and counterfactual centres, and knn options."""

    X: np.ndarray
    Xcf: np.ndarray | None
    features: list[str]
    divisor: float
    opts: dict
    # the factual transformer, kept so that another SCM's centres are scaled the same way
    transformer: Any = None


@dataclass
class _Lists:
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


@dataclass(frozen=True)
class RunState:
    """What a run keeps to test other counterfactuals against the same factual data.

    The complainants, the search spaces (Gower coordinates of the factual rows), the control
    groups and the factual test groups do not depend on the SCM, so
    :meth:`SituationTest.rerun_counterfactual` reuses them and redoes only the counterfactual
    generation and the counterfactual test-group search. Obtained from
    :meth:`SituationTest.run_with_state`.
    """

    data: AuditData
    plan: _Plan
    space: _Space
    lists: _Lists


class SituationTest:
    """Situation testing (ST), counterfactual situation testing (CST) and counterfactual fairness.

    Parameters
    ----------
    method
        ``"st"``, ``"cst"`` (CST without centres), ``"cst_centers"`` (CST with centres),
        ``"cf"`` (counterfactual fairness with CST w/ intervals), or a list of them.
        ``"cst_wo"``/``"cst_w"`` are accepted aliases.
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

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 1.1, 2.1, 3.1, 4.1],
    ...                    "a": [1, 1, 1, 1, 0, 0, 0, 0], "y": [0, 0, 1, 1, 1, 1, 1, 1]})
    >>> data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    >>> res = SituationTest(method="st", k=2).run(data)
    >>> res.summary()[["method", "k", "cases", "denominator"]].values.tolist()
    [['st', 2, 4, 4]]
    """

    #: What every parameter accepts (checked at :meth:`run` by
    #: :func:`primafacie.validation.validate_params`; ``audit.yaml`` reuses the same entries).
    _parameter_constraints: dict[str, list] = _CONSTRAINTS

    def __init__(
        self,
        method: str | Sequence[str] = "cst",
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
    ) -> None:
        self.multiplicity = multiplicity
        self.method = method
        self.k = k
        self.alpha = alpha
        self.tau = tau
        self.direction = direction
        self.interval = interval
        self.legacy = legacy
        self.ties = ties
        self.max_distance = max_distance
        self.complainants = complainants
        self.reference = reference
        self.attribute = attribute
        self.n_attributes = n_attributes
        self.strict_k = strict_k
        self.keep_neighbors = keep_neighbors
        self.chunk_size = chunk_size
        self.algorithm = algorithm
        self.backend = backend

    # ------------------------------------------------------------------ validation
    def check(self, data: AuditData) -> None:
        """Every requirement the data must meet (parameters, the protected attribute, k against
        both search spaces, the reference value do() sets), checked without searching or
        computing a counterfactual: the audit calls it before any analysis runs.

        Raises
        ------
        InputError
            With the fix in the message (as :meth:`run` would raise it, later).
        """
        if not isinstance(data, AuditData):
            raise InputError("data must be an AuditData (with features, protected and decision)")
        self._check_params()
        plan = self._plan(data, None)
        if any(m != "st" for m in plan.methods):
            self._reference(data, plan.attribute, plan.prot)

    def _check_params(self) -> None:
        """Validate every declared parameter (one message format), then the combinations."""
        validate_params(
            type(self).__name__,
            self._parameter_constraints,
            {name: getattr(self, name) for name in self._parameter_constraints},
            where=PARAMETER_SOURCES,
        )
        if self.legacy and self.interval != "wald":
            # the default interval is Newcombe, so legacy users must ask for Wald by name
            raise InputError(
                "legacy=True reproduces the authors' Wald interval; use interval='wald' "
                f"with it (got interval={self.interval!r}; the default is 'newcombe') "
                "(--interval wald, analyses.situation.interval: wald)"
            )

    def _methods(self) -> list[str]:
        """The requested methods, aliases resolved, in the order given, without repeats."""
        return list(dict.fromkeys(_method_name(m) for m in _as_list(self.method)))

    def _ks(self) -> list[int]:
        """The requested k, ascending, without repeats."""
        return sorted({int(k) for k in _as_list(self.k)})

    # ------------------------------------------------------------------ inputs
    def _attribute(self, data: AuditData) -> str:
        return data.protected_attribute(
            self.attribute,
            how="pass attribute=... (or use MultipleSituationTest / IntersectionalSituationTest)",
        )

    def _reference(self, data: AuditData, attribute: str, prot: np.ndarray) -> Any:
        ref = self.reference
        if isinstance(ref, Mapping):
            ref = ref.get(attribute)
        if ref is not None:
            col = data.frame[attribute]
            if not (col.isin([ref]).any() or col.astype(str).isin([str(ref)]).any()):
                raise InputError(
                    f"reference value {ref!r} of {attribute!r} never occurs in the data"
                )
            return ref
        others = pd.unique(data.frame.loc[~prot, attribute])
        if len(others) != 1:
            raise InputError(
                f"{attribute!r} has {len(others)} non-protected values "
                f"{sorted(map(str, others))[:5]}: say which one do() sets with reference=..."
            )
        value = others[0]
        return value.item() if hasattr(value, "item") else value

    @staticmethod
    def _check_scm(scm: Any, data: AuditData, attribute: str) -> None:
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

    def _counterfactuals(
        self,
        data: AuditData,
        attribute: str,
        prot: np.ndarray,
        scm: Any,
        counterfactuals: Any,
    ) -> pd.DataFrame:
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
        ref = self._reference(data, attribute, prot)
        self._check_scm(scm, data, attribute)
        if hasattr(scm, "is_fitted") and not scm.is_fitted:
            scm = scm.fit(data)
        cf = to_pandas(scm.counterfactual(data.frame, intervention={attribute: ref}, rows=prot))
        cf = cf.reset_index(drop=True)
        # The SCM copies the recorded decision unchanged; it is not b(x^CF), so drop it.
        if data.decision in cf.columns:
            cf = cf.drop(columns=data.decision)
        return cf

    def _cf_decisions(
        self, data: AuditData, cf: pd.DataFrame, rows: np.ndarray, decider: Any, method: str
    ) -> np.ndarray:
        """ŷ^CF of ``rows``: b(x^CF) from ``decider`` or the table's decision column."""
        col = data.decision
        from_table = col is not None and col in cf.columns
        if decider is not None and not (self.legacy and from_table):
            return predict_binary(decider, cf.iloc[rows].reset_index(drop=True))
        if from_table:
            tmp = data.replace(frame=data.frame.assign(**{col: cf[col].to_numpy()}))
            return tmp.decision_array()[rows]
        raise InputError(
            f"method {method!r} needs the counterfactual decision b(x^CF): pass decider=... "
            "(a Rule such as 'salary + 5 * balance > 225000', a fitted model or a callable), "
            f"or a counterfactual table that holds the decision column {col!r}"
        )

    # ------------------------------------------------------------------ run
    def run(
        self,
        data: AuditData,
        scm: Any = None,
        counterfactuals: Any = None,
        decider: Any = None,
        complainant_mask: np.ndarray | None = None,
    ) -> SituationResult:
        """Test every complainant with every requested method and k.

        The run has five stages: complainants (:meth:`_plan`) → counterfactuals
        (:meth:`_counterfactual_stage`) → search spaces, fitted once (:meth:`_search_space`)
        → one search per centre set at the largest k (:meth:`_search`, which calls the k-NN
        backend in one place, :meth:`_knn`) → statistics for every k (:meth:`_statistics`).

        Parameters
        ----------
        data
            :class:`~primafacie.data.AuditData` with the decision column and the protected
            attribute.
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

        Returns
        -------
        SituationResult
            Per-complainant rows for every (method, k) and a summary.
        """
        return self._run(data, scm, counterfactuals, decider, complainant_mask, False)[0]

    def run_with_state(
        self,
        data: AuditData,
        scm: Any = None,
        counterfactuals: Any = None,
        decider: Any = None,
        complainant_mask: np.ndarray | None = None,
    ) -> tuple[SituationResult, RunState]:
        """:meth:`run`, and the state that :meth:`rerun_counterfactual` reuses.

        Parameters
        ----------
        data, scm, counterfactuals, decider, complainant_mask
            As for :meth:`run`.

        Returns
        -------
        (SituationResult, RunState)
            The result of :meth:`run` and the factual plan, search spaces and lists.

        Examples
        --------
        >>> from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data
        >>> from primafacie.causal import SCM
        >>> data = loan_world_data(n=400, seed=1)
        >>> engine = SituationTest(method="cst", k=10)
        >>> res, state = engine.run_with_state(data, scm=SCM(LOAN_EDGES).fit(data))
        >>> again = engine.rerun_counterfactual(state, scm=SCM(LOAN_EDGES).fit(data))
        >>> again.table.equals(res.table)
        True
        """
        return self._run(data, scm, counterfactuals, decider, complainant_mask, True)

    def _run(
        self,
        data: AuditData,
        scm: Any,
        counterfactuals: Any,
        decider: Any,
        complainant_mask: np.ndarray | None,
        keep_state: bool,
    ) -> tuple[SituationResult, RunState | None]:
        """The five stages; without ``keep_state`` the counterfactual table and the Gower
        coordinates are released before the statistics (the table is then built in their
        memory: at 10^7 rows they are ~1.5 GB)."""
        if not isinstance(data, AuditData):
            raise InputError("data must be an AuditData (with features, protected and decision)")
        self._check_params()
        plan = self._plan(data, complainant_mask)
        cf, ycf = self._counterfactual_stage(data, plan, scm, counterfactuals, decider)
        space = self._search_space(data, plan, cf)
        lists = self._search(data, plan, space, cf)
        del cf
        if not keep_state:
            space = replace(space, X=None, Xcf=None)
        table, neighbours = self._statistics(data, plan, lists, ycf)
        result = self._result(data, plan, space, table, neighbours, lists)
        if not keep_state:
            return result, None
        return result, RunState(data=data, plan=plan, space=space, lists=lists)

    def rerun_counterfactual(
        self,
        state: RunState,
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
            From :meth:`run_with_state` of this engine (same settings).
        scm, counterfactuals, decider
            As for :meth:`run`: the other SCM (fitted or not) or counterfactual table.
        methods
            Optional subset of the state's methods to compute (default: all of them).

        Returns
        -------
        SituationResult
            Rows for every (method, k), as :meth:`run` gives for that SCM.
        """
        plan = state.plan
        if methods is not None:
            chosen = [m for m in plan.methods if m in {_method_name(x) for x in methods}]
            if not chosen:
                raise InputError(
                    f"methods {list(methods)} were not run; the run has {plan.methods}"
                )
            plan = replace(plan, methods=chosen)
        data, space = state.data, state.space
        cf, ycf = self._counterfactual_stage(data, plan, scm, counterfactuals, decider)
        if cf is not None:
            space = replace(space, Xcf=self._cf_coordinates(plan, space, cf))
        lists = replace(state.lists)
        if plan.need_cf:
            self._cf_search(data, plan, space, cf, lists)
        if not self.keep_neighbors:
            lists.cf_list = None
        table, neighbours = self._statistics(data, plan, lists, ycf)
        return self._result(data, plan, space, table, neighbours, lists)

    def _result(
        self,
        data: AuditData,
        plan: _Plan,
        space: _Space,
        table: pd.DataFrame,
        neighbours: dict,
        lists: _Lists,
    ) -> SituationResult:
        """The Result of a run: the table, the resolved parameters, the neighbours and their
        distances."""
        distances = {
            key: self._group_distances(groups, key[0], lists) for key, groups in neighbours.items()
        }
        params = {
            "methods": plan.methods,
            "k": plan.ks,
            "alpha": float(self.alpha),
            "tau": float(self.tau),
            "direction": self.direction,
            "interval": self.interval,
            "legacy": plan.legacy,
            "ties": plan.ties,
            "max_distance": self.max_distance,
            "complainants": self.complainants,
            "attribute": plan.attribute,
            "n_attributes": space.divisor,
            "features": space.features,
            "multiplicity": self.multiplicity,
        }
        return SituationResult(
            table=table,
            params=params,
            n_protected=int(plan.prot.sum()),
            n_complainants=len(plan.comp_rows),
            ids=np.asarray(data.ids),
            neighbors=neighbours if self.keep_neighbors else {},
            neighbor_distances=distances if self.keep_neighbors else {},
        )

    # ---- stage 1: complainants and search spaces' rows
    def _plan(self, data: AuditData, complainant_mask: np.ndarray | None) -> _Plan:
        """Resolve the settings and the complainant, control and test rows."""
        methods, ks = self._methods(), self._ks()
        attribute = self._attribute(data)
        legacy = bool(self.legacy)
        y = data.decision_array().astype(np.int64)
        prot = data.protected_mask(attribute)
        comp = prot.copy()
        if complainant_mask is not None:
            mask = np.asarray(complainant_mask, dtype=bool)
            if mask.shape != (data.n,):
                raise InputError(f"complainant_mask must have {data.n} booleans")
            comp &= mask
        if self.complainants == "rejected":
            comp &= y == 0
        plan = _Plan(
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
            self._check_k(plan)
        return plan

    @staticmethod
    def _check_k(plan: _Plan) -> None:
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

    # ---- stage 2: counterfactuals
    def _counterfactual_stage(
        self, data: AuditData, plan: _Plan, scm: Any, counterfactuals: Any, decider: Any
    ) -> tuple[pd.DataFrame | None, np.ndarray | None]:
        """The counterfactual table (None for ST alone) and ŷ^CF of the complainants (None
        unless a method counts the counterfactual centres)."""
        if not plan.need_cf:
            return None, None
        if scm is None and counterfactuals is None:
            raise InputError(
                f"method(s) {[m for m in plan.methods if m != 'st']} need counterfactuals: pass "
                "scm=... (a fitted SCM) or counterfactuals=... (a precomputed table); on the CLI "
                "--edge or --counterfactuals, in audit.yaml a causal: section"
            )
        cf = self._counterfactuals(data, plan.attribute, plan.prot, scm, counterfactuals)
        bad = cf.iloc[plan.comp_rows][list(data.features)].isna().any()
        if bad.any():
            raise InputError(
                f"the counterfactual table has missing values in {list(bad[bad].index)} "
                "for complainant rows"
            )
        if not plan.need_centres:
            return cf, None
        which = "cf" if "cf" in plan.methods else "cst_centers"
        if plan.legacy and data.decision in cf.columns:
            return cf, self._cf_decisions(data, cf, np.arange(data.n), None, which)[plan.comp_rows]
        return cf, self._cf_decisions(data, cf, plan.comp_rows, decider, which).astype(np.int64)

    # ---- stage 3: search spaces, fitted once per run
    def _search_space(self, data: AuditData, plan: _Plan, cf: pd.DataFrame | None) -> _Space:
        """Gower coordinates of the factual rows and of the complainants' counterfactuals."""
        features = dict(data.features)
        if plan.legacy:
            # The authors list nominal, then continuous, then ordinal attributes; the order
            # fixes the floating-point sums and therefore which distances tie.
            order = {"categorical": 0, "numeric": 1, "ordinal": 2}
            features = dict(sorted(features.items(), key=lambda kv: order[kv[1].kind]))
        scale = "zscore" if plan.legacy else "range"
        extra = [cf.iloc[plan.comp_rows]] if cf is not None else []
        tf = GowerTransformer(features, scale=scale, n_attributes=self.n_attributes)
        tf.fit(data.frame, extra_categories=extra)
        X = tf.transform(data.frame)
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
        space = _Space(
            X=X, Xcf=None, features=list(features), divisor=tf.divisor, opts=opts, transformer=tf
        )
        if cf is None:
            return space
        return replace(space, Xcf=self._cf_coordinates(plan, space, cf, data.frame))

    def _cf_coordinates(
        self, plan: _Plan, space: _Space, cf: pd.DataFrame, factual: pd.DataFrame | None = None
    ) -> np.ndarray:
        """Gower coordinates of the complainants' counterfactual centres."""
        if not plan.legacy:
            return space.transformer.transform(cf.iloc[plan.comp_rows])
        # Legacy (b): the scaler is re-fitted on the whole counterfactual table.
        tcf = GowerTransformer(
            space.transformer.features, scale="zscore", n_attributes=self.n_attributes
        )
        tcf.fit(cf, extra_categories=[] if factual is None else [factual])
        return tcf.transform(cf)[plan.comp_rows]

    # ---- stage 4: one search per centre set, at the largest k (+1)
    def _knn(
        self, centres: np.ndarray, rows: np.ndarray, k: int, space: _Space, reducer: ListReducer
    ) -> dict[str, np.ndarray]:
        """The one place that calls the k-NN backend: the k nearest of ``rows`` to each centre,
        reduced where the search ran to ``reducer``'s outputs (by name); kept lists come back
        as data-row positions (-1 pads)."""
        found = knn(centres, space.X[rows], k, **space.opts, reduce=reducer)
        out = dict(zip(reducer.names, found, strict=True))
        if "list" in out:
            idx = out["list"]
            out["list"] = np.where(idx >= 0, rows[np.maximum(idx, 0)], -1)
        return out

    def _reducer(self, plan: _Plan, rows: np.ndarray, width: int, **kw: Any) -> ListReducer:
        """A :class:`ListReducer` over the search space ``rows`` with lists ``width`` long."""
        # 0/1 per search-space row: int8 keeps what is sent to every worker small
        neg = (1 - plan.y[rows]).astype(np.int8)
        cols = prefix_lengths(plan.ks, width)
        return ListReducer(cols=cols, neg=neg, keep=bool(self.keep_neighbors), **kw)

    def _search(
        self, data: AuditData, plan: _Plan, space: _Space, cf: pd.DataFrame | None
    ) -> _Lists:
        """The prefix counts of the control and test groups at the largest k (and the lists,
        when kept)."""
        lists = self._control_search(plan, space)
        kmax, comp_rows = plan.kmax, plan.comp_rows
        if "st" in plan.methods:
            red = self._reducer(plan, plan.test_rows, kmax)
            out = self._knn(space.X[comp_rows], plan.test_rows, kmax, space, red)
            lists.st_counts = PrefixCounts(red.cols, out["neg"], out["size"])
            lists.st_list, lists.st_dist = out.get("list"), out.get("dist")
        if plan.need_cf:
            self._cf_search(data, plan, space, cf, lists)
        return lists

    def _cf_search(
        self, data: AuditData, plan: _Plan, space: _Space, cf: pd.DataFrame, lists: _Lists
    ) -> None:
        """The test groups of the counterfactual centres, set on ``lists``."""
        kmax, rows = plan.kmax, plan.test_rows
        legacy_w = {}
        if plan.legacy and plan.need_centres:
            # Legacy (e): CST w/ reads the test neighbours' outcomes from D^CF, and the
            # appended centre (distance 0) is ranked among the rows at distance 0.
            negf = 1 - plan.y
            if data.decision in cf.columns:
                negf = 1 - self._cf_decisions(data, cf, np.arange(data.n), None, "cst_w")
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

    def _control_search(self, plan: _Plan, space: _Space) -> _Lists:
        """The k+1 nearest protected rows of every complainant, and its own position there;
        corrected mode removes the complainant by identity (K members remain)."""
        kmax, comp_rows, rows = plan.kmax, plan.comp_rows, plan.ctrl_rows
        # complainants are protected rows: their own positions in the control search space
        own = np.searchsorted(rows, comp_rows)
        width = kmax + 1 if plan.legacy else kmax
        red = self._reducer(plan, rows, width, own=own, drop_own=not plan.legacy)
        out = self._knn(space.X[comp_rows], rows, kmax + 1, space, red)
        return _Lists(
            self_pos=out["self_pos"],
            ctrl_counts=PrefixCounts(red.cols, out["neg"], out["size"]),
            ctrl_list=out.get("list"),
            ctrl_dist=out.get("dist"),
        )

    # ---- stage 5: statistics for every k
    def _statistics(
        self, data: AuditData, plan: _Plan, lists: _Lists, ycf: np.ndarray | None
    ) -> tuple[pd.DataFrame, dict[tuple[str, int], tuple[np.ndarray, np.ndarray]]]:
        """Counts, Δp, intervals, flags and adjusted p-values of every (k, method): each k is
        a prefix of the sorted lists, so no search runs again."""
        blocks = []
        neighbours: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        negc = 1 - plan.y[plan.comp_rows]
        negcf = None if ycf is None else 1 - ycf
        cf_flag = None if ycf is None else self._cf_flag(plan.y[plan.comp_rows], ycf)
        cache_w: dict[int, dict[str, np.ndarray]] = {}
        for k in plan.ks:
            for method in plan.methods:
                if method in ("cf", "cst_centers"):
                    # CF reads the CST w/ counts of the same k: computed once, shared.
                    if k not in cache_w:
                        cache_w[k] = self._counts_w(k, plan.legacy, lists, negc, negcf)
                    counts = cache_w[k]
                else:
                    counts = self._counts_wo(k, plan.legacy, lists, negc, method)
                block = self._test(counts, plan.legacy)
                if method == "cf":
                    self._cf_verdict(block, cf_flag)
                self._adjust(block)
                blocks.append(block)
                if self.keep_neighbors:
                    neighbours[(method, k)] = self._groups(method, k, plan.legacy, lists)
        return self._table(data, plan, blocks, ycf, cf_flag), neighbours

    def _cf_flag(self, y_c: np.ndarray, ycf: np.ndarray) -> np.ndarray:
        """Counterfactual-fairness case: the decision flips with the protected attribute."""
        if self.direction == "negative":
            return (y_c == 0) & (ycf == 1)
        return (y_c == 1) & (ycf == 0)

    @staticmethod
    def _cf_verdict(block: dict[str, np.ndarray], cf_flag: np.ndarray) -> None:
        """A CF case is a flip; it is significant when its CST w/ test is (the p-value of that
        test for a flip, 1 otherwise)."""
        block["significant"] = cf_flag & block["significant"]
        block["discriminated"] = cf_flag
        p = block["p_value"]
        block["p_value"] = np.where(np.isnan(p) | cf_flag, p, 1.0)

    def _adjust(self, block: dict[str, np.ndarray]) -> None:
        """``p_adjusted`` and ``significant_adjusted`` of one (method, k): its complainants are
        one family (:func:`~primafacie.situation.multiplicity.adjust_p`)."""
        adjusted = adjust_p(block["p_value"], self.multiplicity)
        block["p_adjusted"] = adjusted
        with np.errstate(invalid="ignore"):
            block["significant_adjusted"] = adjusted <= float(self.alpha)

    @staticmethod
    def _table(
        data: AuditData,
        plan: _Plan,
        blocks: list[dict[str, np.ndarray]],
        ycf: np.ndarray | None,
        cf_flag: np.ndarray | None,
    ) -> pd.DataFrame:
        """One row per (k, method, complainant), blocks in that order.

        Built column by column, each block's array released as soon as its column is joined,
        and handed to pandas without a copy: at 10^7 rows (6·10^7 table rows) the table is the
        largest thing a run holds. Who was tested (row, id, decisions) repeats per block.
        """
        comp_rows, m, b = plan.comp_rows, len(plan.comp_rows), len(blocks)
        grid = [(k, method) for k in plan.ks for method in plan.methods]
        codes = np.array([plan.methods.index(method) for _, method in grid], dtype=np.int8)
        columns: dict[str, Any] = {
            "method": _labels(np.repeat(codes, m), plan.methods),
            "k": np.repeat(np.array([k for k, _ in grid], dtype=np.int64), m),
            "row": np.tile(comp_rows, b),
            "id": np.tile(np.asarray(data.ids)[comp_rows], b),
        }
        for name in _TEST_COLUMNS:
            columns[name] = np.concatenate([block.pop(name) for block in blocks])
        columns["decision"] = np.tile(plan.y[comp_rows].astype(np.int8), b)
        missing = np.ones(m * b, dtype=bool)
        if ycf is None:
            columns["cf_decision"] = pd.arrays.IntegerArray(np.zeros(m * b, np.int8), missing)
            columns["cf_flag"] = pd.arrays.BooleanArray(np.zeros(m * b, bool), missing)
        else:
            columns["cf_decision"] = pd.array(np.tile(ycf.astype(np.int8), b), dtype="Int8")
            columns["cf_flag"] = pd.array(np.tile(cf_flag, b), dtype="boolean")
        for name in ("p_adjusted", "significant_adjusted"):
            columns[name] = np.concatenate([block.pop(name) for block in blocks])
        return pd.DataFrame(columns, copy=False)

    # ------------------------------------------------------------------ counting
    @staticmethod
    def _counts_wo(
        k: int, legacy: bool, lists: _Lists, negc: np.ndarray, method: str
    ) -> dict[str, np.ndarray]:
        """(negatives, size) of both groups without the centres: ``x_c, n_c, x_t, n_t``."""
        ctrl = lists.ctrl_counts
        if legacy:
            # Legacy (e): top k+1 protected rows, the complainant removed when present.
            inside = lists.self_pos <= k
            x_c = ctrl.negatives(k + 1) - np.where(inside, negc, 0)
            n_c = ctrl.sizes(k + 1) - inside
        else:
            x_c, n_c = ctrl.negatives(k), ctrl.sizes(k)
        test = lists.st_counts if method == "st" else lists.cf_counts
        return {"x_c": x_c, "n_c": n_c, "x_t": test.negatives(k), "n_t": test.sizes(k)}

    @staticmethod
    def _counts_w(
        k: int, legacy: bool, lists: _Lists, negc: np.ndarray, negcf: np.ndarray
    ) -> dict[str, np.ndarray]:
        """(negatives, size) of both groups with the centres counted (CST w/ and CF)."""
        ctrl, test = lists.ctrl_counts, lists.cf_counts
        if legacy:
            x_c, n_c = ctrl.negatives(k + 1), ctrl.sizes(k + 1)
            first = lists.centre_rank <= k
            test_cf = lists.cf_counts_cfneg
            x_t = np.where(first, test_cf.negatives(k) + negcf, test_cf.negatives(k + 1))
            n_t = np.where(first, test.sizes(k) + 1, test.sizes(k + 1))
        else:
            x_c, n_c = ctrl.negatives(k) + negc, ctrl.sizes(k) + 1
            x_t, n_t = test.negatives(k) + negcf, test.sizes(k) + 1
        return {"x_c": x_c, "n_c": n_c, "x_t": x_t, "n_t": n_t}

    def _test(self, counts: dict, legacy: bool) -> dict[str, np.ndarray]:
        """The columns of one (method, k): counts, rates, Δp, intervals, flags, p-values.

        Every column is a function of the row's four counts and the run's settings, so it is
        computed once per distinct count tuple and broadcast (bit for bit the per-row value:
        every step is elementwise).
        """
        keys = ("x_c", "n_c", "x_t", "n_t")
        distinct = distinct_counts(*(counts[c] for c in keys))
        if distinct is None:
            return self._test_rows(counts, legacy)
        uniq, inverse = distinct
        cols = self._test_rows(
            {c: u.astype(np.int64) for c, u in zip(keys, uniq, strict=True)}, legacy
        )
        return {name: col[inverse] for name, col in cols.items()}

    def _test_rows(self, counts: dict, legacy: bool) -> dict[str, np.ndarray]:
        """:meth:`_test` row by row (vectorised over the rows given)."""
        x_c, n_c = counts["x_c"].astype(float), counts["n_c"].astype(float)
        x_t, n_t = counts["x_t"].astype(float), counts["n_t"].astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            p_c = np.where(n_c > 0, x_c / np.maximum(n_c, 1), np.nan)
            p_t = np.where(n_t > 0, x_t / np.maximum(n_t, 1), np.nan)
        delta = p_c - p_t
        alpha, tau = float(self.alpha), float(self.tau)
        z1 = z_value(alpha, "one", legacy)
        z2 = z_value(alpha, "two", legacy)
        with np.errstate(invalid="ignore", divide="ignore"):
            var = p_c * (1 - p_c) / n_c + p_t * (1 - p_t) / n_t
            w1, w2 = z1 * np.sqrt(var), z2 * np.sqrt(var)
        if self.interval in ("newcombe", "wilson"):
            lo1, hi1 = newcombe_interval(x_c, n_c, x_t, n_t, alpha, "one", "negative")
            _, hi1p = newcombe_interval(x_c, n_c, x_t, n_t, alpha, "one", "positive")
            lo2, hi2 = newcombe_interval(x_c, n_c, x_t, n_t, alpha, "two")
            lower, upper = lo1, hi1p
        else:
            lower, upper = delta - w1, delta + w1
            lo2, hi2 = delta - w2, delta + w2
        digits = 3 if legacy else 9
        d_r = np.round(delta, digits)
        with np.errstate(invalid="ignore"):
            if self.direction == "negative":
                flag = d_r > tau
                sig = flag & (np.round(lower, digits) > tau)
                ci_low, ci_high = lower, np.full_like(delta, np.inf)
            else:
                flag = d_r < tau
                sig = flag & (np.round(upper, digits) < tau)
                ci_low, ci_high = np.full_like(delta, -np.inf), upper
        undefined = np.isnan(delta)
        flag = np.where(undefined, False, flag)
        sig = np.where(undefined, False, sig)
        p_one, p_two = test_p_values(
            {"x_c": x_c, "n_c": n_c, "x_t": x_t, "n_t": n_t},
            tau,
            "wald" if self.interval == "wald" else "newcombe",
            self.direction,
            alpha,
            sig,
            (lo2, hi2),
        )
        # an untested complainant (empty control or test group) has no interval at all, not a
        # half-open one: both one-sided bounds are undefined
        ci_low = np.where(undefined, np.nan, ci_low)
        ci_high = np.where(undefined, np.nan, ci_high)
        return {
            "k_c": counts["n_c"].astype(np.int32),
            "k_t": counts["n_t"].astype(np.int32),
            "neg_c": counts["x_c"].astype(np.int32),
            "neg_t": counts["x_t"].astype(np.int32),
            "p_c": p_c,
            "p_t": p_t,
            "delta": delta,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "ci2_low": lo2,
            "ci2_high": hi2,
            "discriminated": flag.astype(bool),
            "significant": sig.astype(bool),
            "p_value": p_one,
            "p_value_two": p_two,
        }

    @staticmethod
    def _groups(method: str, k: int, legacy: bool, lists: _Lists) -> tuple[np.ndarray, np.ndarray]:
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

    @staticmethod
    def _group_distances(
        groups: tuple[np.ndarray, np.ndarray], method: str, lists: _Lists
    ) -> tuple[np.ndarray, np.ndarray]:
        """Gower distances (float32) of the members :meth:`_groups` lists, column for column
        (NaN where a position is a pad: no neighbour, or the complainant or a centre in
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
