"""One situation-testing engine; ST, CST w/o, CST w/ and CF are settings of it.

For every complainant ``c`` (a protected row) the engine builds a control group (the k nearest
*protected* rows to ``x_c``, ``c`` itself excluded) and a test group (the k nearest
*non-protected* rows to a test centre), and compares their rejection rates
``Δp = p_c − p_t`` with a Wald (or Newcombe) interval (CST spec §3–§4):

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
from typing import Any

import numpy as np
import pandas as pd

from ..data import AuditData, to_pandas
from ..decisions import predict_binary
from ..errors import InputError
from ..neighbors import TIE_RULES, GowerTransformer, knn
from .results import SituationResult
from .stats import INTERVALS, newcombe_interval, z_value

__all__ = ["SituationTest", "METHODS", "METHOD_LABELS"]

#: Methods in display order.
METHODS = ("st", "cst", "cst_centers", "cf")
#: Short labels used in the paper's tables (CST w/o, CST w/).
METHOD_LABELS = {"st": "st", "cst": "cst_wo", "cst_centers": "cst_w", "cf": "cf"}
#: Corrected mode ranks distances rounded to this many decimals (see ``knn(decimals=...)``).
_DISTANCE_DECIMALS = 12
_ALIASES = {"cst_wo": "cst", "cst_w": "cst_centers", "cstwo": "cst", "cstwi": "cst_centers"}


def _as_list(value: Any) -> list:
    if isinstance(value, (list, tuple, np.ndarray)):
        return list(value)
    return [value]


def _neg_counts(groups: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative negatives and cumulative sizes of sorted neighbour lists (column 0 = empty)."""
    valid = groups >= 0
    vals = np.where(valid, neg[np.where(valid, groups, 0)], 0)
    m, width = groups.shape
    # counts never exceed the list width: int32 halves the memory of these (m, k+2) tables
    dtype = np.int32 if width < np.iinfo(np.int32).max else np.int64
    cneg = np.zeros((m, width + 1), dtype=dtype)
    np.cumsum(vals, axis=1, dtype=dtype, out=cneg[:, 1:])
    csize = np.zeros((m, width + 1), dtype=dtype)
    np.cumsum(valid, axis=1, dtype=dtype, out=csize[:, 1:])
    return cneg, csize


class SituationTest:
    """Situation testing (ST), counterfactual situation testing (CST) and counterfactual fairness.

    Parameters
    ----------
    method
        ``"st"``, ``"cst"`` (CST without centres), ``"cst_centers"`` (CST with centres),
        ``"cf"`` (counterfactual fairness with CST w/ intervals), or a list of them.
        ``"cst_wo"``/``"cst_w"`` are accepted aliases.
    k
        Neighbourhood size, or a list (one search at the largest k serves them all).
    alpha
        Significance level of the one-sided interval (two-sided intervals use α/2 per tail).
    tau
        Accepted deviation τ in [-1, 1].
    direction
        ``"negative"`` (discrimination against the protected group) or ``"positive"``.
    interval
        ``"wald"`` (the paper) or ``"newcombe"`` (Newcombe's hybrid score interval from two
        Wilson intervals; better coverage for small k; ``"wilson"`` is an alias).
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

    def __init__(
        self,
        method: str | Sequence[str] = "cst",
        k: int | Sequence[int] = 30,
        alpha: float = 0.05,
        tau: float = 0.0,
        direction: str = "negative",
        interval: str = "wald",
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
    ) -> None:
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
    def _methods(self) -> list[str]:
        out = []
        for m in _as_list(self.method):
            name = _ALIASES.get(str(m).lower(), str(m).lower())
            if name not in METHODS:
                raise InputError(
                    f"unknown method {m!r}; expected one of {', '.join(METHODS)} (aliases "
                    "cst_wo, cst_w)"
                )
            if name not in out:
                out.append(name)
        return out

    def _ks(self) -> list[int]:
        ks = []
        for k in _as_list(self.k):
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
                raise InputError(f"k must be a positive integer, got {k!r}")
            if int(k) not in ks:
                ks.append(int(k))
        return sorted(ks)

    def _validate(self) -> None:
        for name in ("alpha", "tau", "max_distance"):
            value = getattr(self, name)
            if name == "max_distance" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise InputError(f"{name} must be a number, got {value!r}")
        if not 0 < float(self.alpha) < 1:
            raise InputError(f"alpha must be in (0, 1), got {self.alpha}")
        if not -1 <= float(self.tau) <= 1:
            raise InputError(f"tau must be in [-1, 1], got {self.tau}")
        if self.direction not in ("negative", "positive"):
            raise InputError(f"direction must be 'negative' or 'positive', got {self.direction!r}")
        if self.interval not in INTERVALS:
            raise InputError(f"interval must be one of {INTERVALS}, got {self.interval!r}")
        if self.ties is not None and self.ties not in TIE_RULES:
            raise InputError(f"ties must be one of {TIE_RULES}, got {self.ties!r}")
        if self.complainants not in ("all", "rejected"):
            raise InputError(f"complainants must be 'all' or 'rejected', got {self.complainants!r}")
        if self.max_distance is not None and not float(self.max_distance) > 0:
            raise InputError(f"max_distance must be positive, got {self.max_distance}")
        if self.legacy and self.interval != "wald":
            raise InputError(
                "legacy=True reproduces the authors' Wald interval; use interval='wald'"
            )

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
        if not isinstance(data, AuditData):
            raise InputError("data must be an AuditData (with features, protected and decision)")
        self._validate()
        methods, ks = self._methods(), self._ks()
        attribute = self._attribute(data)
        legacy = bool(self.legacy)
        ties = self.ties or ("last" if legacy else "first")
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
        comp_rows = np.flatnonzero(comp)
        ctrl_rows = np.flatnonzero(prot)
        test_rows = np.flatnonzero(~prot)
        kmax = ks[-1]
        if self.strict_k:
            if kmax > len(ctrl_rows) - 1:
                raise InputError(
                    f"k={kmax} is larger than the control search space: only "
                    f"{len(ctrl_rows) - 1} other protected rows ({attribute!r}) besides the "
                    "complainant; lower k (from Python, strict_k=False runs with the smaller groups)"
                )
            if kmax > len(test_rows):
                raise InputError(
                    f"k={kmax} is larger than the test search space: only {len(test_rows)} "
                    f"non-protected rows ({attribute!r}); lower k (from Python, strict_k=False runs with the smaller groups)"
                )

        need_cf = any(m != "st" for m in methods)
        cf = None
        if need_cf:
            if scm is None and counterfactuals is None:
                raise InputError(
                    f"method(s) {[m for m in methods if m != 'st']} need counterfactuals: pass "
                    "scm=... (a fitted SCM) or counterfactuals=... (a precomputed table); on the CLI "
                    "--edge or --counterfactuals, in audit.yaml a causal: section"
                )
            cf = self._counterfactuals(data, attribute, prot, scm, counterfactuals)
            bad = cf.iloc[comp_rows][list(data.features)].isna().any()
            if bad.any():
                raise InputError(
                    f"the counterfactual table has missing values in {list(bad[bad].index)} "
                    "for complainant rows"
                )
        need_centres = any(m in ("cst_centers", "cf") for m in methods)
        ycf = None
        if need_centres:
            which = "cf" if "cf" in methods else "cst_centers"
            ycf_all = None
            if legacy and data.decision in cf.columns:
                ycf_all = self._cf_decisions(data, cf, np.arange(data.n), None, which)
            ycf = (
                ycf_all[comp_rows]
                if ycf_all is not None
                else self._cf_decisions(data, cf, comp_rows, decider, which).astype(np.int64)
            )

        # ---- distance space
        features = dict(data.features)
        if legacy:
            # The authors list nominal, then continuous, then ordinal attributes; the order
            # fixes the floating-point sums and therefore which distances tie.
            order = {"categorical": 0, "numeric": 1, "ordinal": 2}
            features = dict(sorted(features.items(), key=lambda kv: order[kv[1].kind]))
        scale = "zscore" if legacy else "range"
        extra = [cf.iloc[comp_rows]] if cf is not None else []
        tf = GowerTransformer(features, scale=scale, n_attributes=self.n_attributes)
        tf.fit(data.frame, extra_categories=extra)
        X = tf.transform(data.frame)
        Xcf = None
        if cf is not None:
            if legacy:
                # Legacy (b): the scaler is re-fitted on the whole counterfactual table.
                tcf = GowerTransformer(features, scale=scale, n_attributes=self.n_attributes)
                tcf.fit(cf, extra_categories=[data.frame])
                Xcf = tcf.transform(cf)[comp_rows]
            else:
                Xcf = tf.transform(cf.iloc[comp_rows])
        div = tf.divisor
        opts = dict(
            ties=ties,
            # Corrected mode: distances equal up to float noise are ties, so the tie rule (not
            # the rounding of x / range) decides them. Legacy keeps the authors' raw sums.
            decimals=None if legacy else _DISTANCE_DECIMALS,
            max_distance=self.max_distance,
            chunk_size=self.chunk_size,
            algorithm=self.algorithm,
            divisor=div,
            backend=self.backend,
        )

        m = len(comp_rows)
        negf = 1 - y
        # ---- searches (one per centre set, at the largest k + 1)
        ctrl = knn(X[comp_rows], X[ctrl_rows], kmax + 1, **opts)
        L = np.where(ctrl.indices >= 0, ctrl_rows[np.maximum(ctrl.indices, 0)], -1)
        del ctrl  # the (m, k+1) distances are not needed: free them before the next search
        is_self = L == comp_rows[:, None]
        has_self = is_self.any(axis=1)
        self_pos = np.where(has_self, is_self.argmax(axis=1), kmax + 2)
        E = cE = sE = cL = sL = None
        if legacy:
            cL, sL = _neg_counts(L, negf)
        else:
            # Corrected control list: the complainant removed by identity, K columns.
            keep = ~is_self
            keep[~has_self, -1] = False
            E = L[keep].reshape(m, kmax)
            del keep, is_self
            L = None  # the corrected lists use E only
            cE, sE = _neg_counts(E, negf)
        T = U = None
        cT = sT = cU = sU = cU2 = centre_rank = None
        if "st" in methods:
            res = knn(X[comp_rows], X[test_rows], kmax, **opts)
            T = np.where(res.indices >= 0, test_rows[np.maximum(res.indices, 0)], -1)
            del res
            cT, sT = _neg_counts(T, negf)
        if need_cf:
            res = knn(Xcf, X[test_rows], kmax + 1, **opts)
            U = np.where(res.indices >= 0, test_rows[np.maximum(res.indices, 0)], -1)
            Ud = res.distances if legacy and need_centres else None
            del res
            cU, sU = _neg_counts(U, negf)
            if legacy and need_centres:
                # Legacy (e): CST w/ reads the test neighbours' outcomes from D^CF.
                if data.decision in cf.columns:
                    negcf_all = 1 - self._cf_decisions(data, cf, np.arange(data.n), None, "cst_w")
                else:
                    negcf_all = negf
                cU2, _ = _neg_counts(U, negcf_all.astype(np.int64))
                # Rank of the appended centre (label c, distance 0) among D_t rows: rows at
                # distance 0 win over it when the tie rule prefers them.
                zero = (Ud == 0) & (U >= 0)
                beats = zero & ((U > comp_rows[:, None]) if ties == "last" else True)
                centre_rank = beats.sum(axis=1)

        Ud = None
        if not self.keep_neighbors:
            L = E = T = U = None  # only the cumulative counts are needed from here on
        rows_out = []
        neighbours: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        y_c = y[comp_rows]
        negc = negf[comp_rows]
        negcf = None if ycf is None else 1 - ycf
        cache_w: dict[int, dict[str, np.ndarray]] = {}
        for k in ks:
            for method in methods:
                if method in ("cf", "cst_centers"):
                    # CF reads the CST w/ counts of the same k: computed once, shared.
                    if k not in cache_w:
                        cache_w[k] = self._counts_w(
                            k,
                            legacy,
                            cE,
                            sE,
                            cL,
                            sL,
                            cU,
                            sU,
                            negc,
                            negcf,
                            cU2 if legacy else None,
                            centre_rank if legacy else None,
                        )
                    counts = cache_w[k]
                else:
                    counts = self._counts_wo(
                        k,
                        legacy,
                        cE,
                        sE,
                        cL,
                        sL,
                        negc,
                        self_pos,
                        *((cT, sT) if method == "st" else (cU, sU)),
                    )
                frame = self._test(counts, legacy)
                if method == "cf":
                    if self.direction == "negative":
                        cf_flag = (y_c == 0) & (ycf == 1)
                    else:
                        cf_flag = (y_c == 1) & (ycf == 0)
                    frame["significant"] = cf_flag & frame["significant"].to_numpy()
                    frame["discriminated"] = cf_flag
                frame.insert(0, "method", method)
                frame.insert(1, "k", k)
                frame.insert(2, "row", comp_rows)
                frame.insert(3, "id", data.ids[comp_rows])
                frame["decision"] = y_c
                frame["cf_decision"] = (
                    pd.array(ycf, dtype="Int64")
                    if ycf is not None
                    else pd.array([pd.NA] * m, dtype="Int64")
                )
                frame["cf_flag"] = (
                    pd.array(
                        ((y_c == 0) & (ycf == 1))
                        if self.direction == "negative"
                        else ((y_c == 1) & (ycf == 0)),
                        dtype="boolean",
                    )
                    if ycf is not None
                    else pd.array([pd.NA] * m, dtype="boolean")
                )
                rows_out.append(frame)
                if self.keep_neighbors:
                    neighbours[(method, k)] = self._groups(
                        method,
                        k,
                        legacy,
                        L,
                        E,
                        T,
                        U,
                        self_pos,
                        centre_rank if (legacy and need_centres) else None,
                    )
        table = pd.concat(rows_out, ignore_index=True)
        params = {
            "methods": methods,
            "k": ks,
            "alpha": float(self.alpha),
            "tau": float(self.tau),
            "direction": self.direction,
            "interval": self.interval,
            "legacy": legacy,
            "ties": ties,
            "max_distance": self.max_distance,
            "complainants": self.complainants,
            "attribute": attribute,
            "n_attributes": div,
            "features": list(features),
        }
        return SituationResult(
            table=table,
            params=params,
            n_protected=int(prot.sum()),
            n_complainants=m,
            ids=np.asarray(data.ids),
            neighbors=neighbours if self.keep_neighbors else {},
        )

    # ------------------------------------------------------------------ counting
    def _counts_wo(self, k, legacy, cE, sE, cL, sL, negc, self_pos, cTe, sTe) -> dict:
        if legacy:
            # Legacy (e): top k+1 protected rows, the complainant removed when present.
            inside = self_pos <= k
            x_c = cL[:, k + 1] - np.where(inside, negc, 0)
            n_c = sL[:, k + 1] - inside
        else:
            x_c, n_c = cE[:, k], sE[:, k]
        return {"x_c": x_c, "n_c": n_c, "x_t": cTe[:, k], "n_t": sTe[:, k]}

    def _counts_w(self, k, legacy, cE, sE, cL, sL, cU, sU, negc, negcf, cU2, centre_rank) -> dict:
        if legacy:
            x_c, n_c = cL[:, k + 1], sL[:, k + 1]
            first = centre_rank <= k
            x_t = np.where(first, cU2[:, k] + negcf, cU2[:, k + 1])
            n_t = np.where(first, sU[:, k] + 1, sU[:, k + 1])
        else:
            x_c, n_c = cE[:, k] + negc, sE[:, k] + 1
            x_t, n_t = cU[:, k] + negcf, sU[:, k] + 1
        return {"x_c": x_c, "n_c": n_c, "x_t": x_t, "n_t": n_t}

    def _test(self, counts: dict, legacy: bool) -> pd.DataFrame:
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
        # an untested complainant (empty control or test group) has no interval at all, not a
        # half-open one: both one-sided bounds are undefined
        ci_low = np.where(undefined, np.nan, ci_low)
        ci_high = np.where(undefined, np.nan, ci_high)
        return pd.DataFrame(
            {
                "k_c": counts["n_c"].astype(np.int64),
                "k_t": counts["n_t"].astype(np.int64),
                "neg_c": counts["x_c"].astype(np.int64),
                "neg_t": counts["x_t"].astype(np.int64),
                "p_c": p_c,
                "p_t": p_t,
                "delta": delta,
                "ci_low": ci_low,
                "ci_high": ci_high,
                "ci2_low": lo2,
                "ci2_high": hi2,
                "discriminated": flag.astype(bool),
                "significant": sig.astype(bool),
            }
        )

    @staticmethod
    def _groups(
        method, k, legacy, L, E, T, U, self_pos, centre_rank
    ) -> tuple[np.ndarray, np.ndarray]:
        """Row positions of the control and test neighbours (-1 pads; centres not listed)."""
        if legacy:
            # Legacy (e): top k+1 protected rows; the complainant itself is not a neighbour.
            inside = np.arange(k + 1)[None, :] == self_pos[:, None]
            ctrl = np.where(inside, -1, L[:, : k + 1])
        else:
            ctrl = E[:, :k]
        if method == "st":
            return ctrl, T[:, :k]
        if legacy and method in ("cst_centers", "cf"):
            # The appended counterfactual centre took one of the k+1 places unless rows at
            # distance 0 pushed it out.
            test = U[:, : k + 1].copy()
            test[:, k] = np.where(centre_rank <= k, -1, test[:, k])
            return ctrl, test
        return ctrl, U[:, :k]
