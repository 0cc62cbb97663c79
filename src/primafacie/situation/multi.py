"""Multidimensional discrimination: multiple (one run per attribute) and intersectional (A*).

* **Multiple** (Def. 4.6, spec §5): one full single-attribute test per protected attribute
  ``A_i`` (its own search spaces and its own ``do(A_i := reference)``), each at the
  Bonferroni level ``α / q``. The complainants are the rows protected on EVERY attribute; a
  complainant is flagged when every run flags it, significant when every run's interval
  excludes τ, a CF case when it is a CF case in every run. The reported Δp is the mean of the
  q deltas.
* **Intersectional** (Def. 4.7): ``A* = 1{A_1 protected ∧ … ∧ A_q protected}``; the SCM's
  A-nodes are merged into one node ``A*`` (:meth:`SCM.merge_nodes`) and refitted, and one
  single-attribute test runs with ``D_c = {A* = 1}``, ``D_t = {A* = 0}`` at level α.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._renamed import renamed_argument
from ..data import AuditData
from ..errors import InputError
from ..validation import InstanceOf, Options, validate_params
from .engine import SituationTest
from .multiplicity import adjust_table
from .results import SituationResult, _SituationResultBase
from .stats import bonferroni, consistent_p

__all__ = [
    "MultipleSituationTest",
    "IntersectionalSituationTest",
    "MultipleResult",
    "combine_multiple",
]


@dataclass(frozen=True)
class MultipleResult(_SituationResultBase):
    """Multiple-discrimination results: the combined table and the per-attribute runs.

    Attributes
    ----------
    table
        One row per complainant and (method, k): method, k, row, id, decision (ŷ_c), and for
        every run ``<column>_<attr>`` with column in delta, discriminated, significant,
        cf_flag, k_c, k_t, neg_c, neg_t, p_c, p_t, ci_low, ci_high, ci2_low, ci2_high (the
        run's intervals, at level α/q) and cf_decision; then delta (mean of the deltas),
        discriminated (every run flags), significant (every run significant at α/q) and
        cf_flag (CF in every run; NA when a run has no counterfactual decisions).
    runs
        ``{attribute: SituationResult}`` (each restricted to the complainants).
    params
        Settings (attributes, alpha, per-test alpha, ...).
    n_protected
        The rows protected on every attribute (whatever complainant filter was applied);
        every share's denominator is this minus the complainants not tested on every
        attribute (``summary()`` columns ``untested`` and ``denominator``).
    n_complainants
        Number of complainants (tested or not: see ``summary()["tested"]``).
    """

    table: pd.DataFrame
    runs: dict
    params: dict
    n_protected: int
    n_complainants: int = field(default=0)

    def to_frame(self, neighbors: bool = False) -> pd.DataFrame:
        """Combined per-complainant table.

        ``neighbors=True`` adds ``control_ids_<attr>`` and ``test_ids_<attr>`` (the
        neighbour ids of every run) when the runs kept their neighbours.
        """
        out = self.table.copy(deep=False)  # copy-on-write: changes never reach self.table
        if not neighbors:
            return out
        keys = ["method", "k", "row"]
        for attr, res in self.runs.items():
            if not getattr(res, "neighbors", None):
                continue
            ids = res.to_frame(neighbors=True)[keys + ["control_ids", "test_ids"]].rename(
                columns={"control_ids": f"control_ids_{attr}", "test_ids": f"test_ids_{attr}"}
            )
            out = out.merge(ids, on=keys, how="left")
        return out

    def plot(self, ax: Any = None) -> Any:
        """Flagged and significant counts against k (matplotlib Figure)."""
        proxy = SituationResult(
            table=self.table,
            params=self.params,
            n_protected=self.n_protected,
            n_complainants=self.n_complainants,
            ids=np.array([]),
        )
        return proxy.plot(ax=ax)


#: Per-run columns copied into the multiple-discrimination table as ``<column>_<attr>``.
_RUN_COLUMNS = (
    "delta",
    "discriminated",
    "significant",
    "cf_flag",
    "k_c",
    "k_t",
    "neg_c",
    "neg_t",
    "p_c",
    "p_t",
    "ci_low",
    "ci_high",
    "ci2_low",
    "ci2_high",
    "cf_decision",
    "p_value",
)


def combine_multiple(
    runs: Mapping[str, SituationResult],
    params: dict | None = None,
    n_protected: int | None = None,
) -> MultipleResult:
    """Combine single-attribute runs on the same complainants into multiple discrimination.

    Parameters
    ----------
    runs
        ``{attribute: SituationResult}``, every run over the same complainants, methods and k
        (run them with ``complainant_mask`` = protected on every attribute and α/q).
    params
        Extra settings to record.
    n_protected
        Denominator of the shares: the number of rows protected on every attribute. Defaults
        to the number of complainants, which is the same unless a complainant filter (e.g.
        ``complainants="rejected"``) was applied.

    Returns
    -------
    MultipleResult
    """
    if len(runs) < 2:
        raise InputError("multiple discrimination needs at least two protected attributes")
    keys = ["method", "k", "row"]
    merged = None
    for attr, res in runs.items():
        cols = [c for c in _RUN_COLUMNS if c in res.table.columns]
        t = res.table[keys + ["id", "decision"] + cols].rename(
            columns={c: f"{c}_{attr}" for c in cols}
        )
        if merged is not None:
            t = t.drop(columns=["id", "decision"])
        merged = t if merged is None else merged.merge(t, on=keys, how="inner")
    attrs = list(runs)
    n_rows = {len(r.table) for r in runs.values()}
    if len(n_rows) != 1 or len(merged) != n_rows.pop():
        raise InputError("the runs do not cover the same complainants, methods and k")
    # a complainant not tested on one attribute is not tested: its Δp is undefined (NaN), not
    # the mean of the attributes that could be tested
    merged["delta"] = merged[[f"delta_{a}" for a in attrs]].mean(axis=1, skipna=False)
    merged["discriminated"] = np.logical_and.reduce(
        [merged[f"discriminated_{a}"].to_numpy(dtype=bool) for a in attrs]
    )
    merged["significant"] = np.logical_and.reduce(
        [merged[f"significant_{a}"].to_numpy(dtype=bool) for a in attrs]
    )
    cf_cols = [merged[f"cf_flag_{a}"] for a in attrs]
    if all(c.notna().all() for c in cf_cols):
        merged["cf_flag"] = np.logical_and.reduce([c.to_numpy(dtype=bool) for c in cf_cols])
    else:
        merged["cf_flag"] = pd.array([pd.NA] * len(merged), dtype="boolean")
    first = next(iter(runs.values()))
    p = {"dimension": "multiple", "attributes": attrs, **first.params, **(params or {})}
    merged = _combined_p(merged, attrs, p)
    return MultipleResult(
        table=merged,
        runs=dict(runs),
        params=p,
        n_protected=first.n_complainants if n_protected is None else int(n_protected),
        n_complainants=first.n_complainants,
    )


def _combined_p(merged: pd.DataFrame, attrs: list[str], params: dict) -> pd.DataFrame:
    """The multiple test's p-value, then the adjustment across complainants (issue 15).

    A complainant is significant when every run's p-value is ≤ α/q (the runs' level), i.e.
    when ``q · max_i p_i ≤ α``: the intersection-union test with the Bonferroni factor, so
    ``p_value = min(1, q · max_i p_i)`` is ≤ α exactly when ``significant``. The family of
    the adjustment is then the complainants of each (method, k), as for a single test.
    """
    alpha = float(params["alpha"])
    factor = alpha / float(params.get("alpha_per_test", alpha))
    if not all(f"p_value_{a}" in merged.columns for a in attrs):
        return merged
    worst = merged[[f"p_value_{a}" for a in attrs]].to_numpy(dtype=float).max(axis=1)
    p = np.minimum(1.0, factor * worst)
    nan = np.isnan(p)
    merged["p_value"] = np.where(
        nan, np.nan, consistent_p(p, merged["significant"].to_numpy(dtype=bool), alpha)
    )
    return adjust_table(merged, params.get("multiplicity", "bh"), alpha)


def _check_settings(
    owner: str, constraints: Mapping[str, list], settings: Mapping[str, Any], **own: Any
) -> None:
    """Validate a multidimensional test's own parameters and the SituationTest settings it
    passes on, with the engine's constraints (one message format, named after ``owner``)."""
    unknown = sorted(set(settings) - set(SituationTest._parameter_constraints) - _PASSED_ON)
    if unknown:
        raise InputError(
            f"{owner}: unknown setting(s) {unknown}; SituationTest accepts "
            f"{', '.join(sorted(set(SituationTest._parameter_constraints) | _PASSED_ON))}"
        )
    validate_params(owner, constraints, {**settings, **own}, where=SituationTest._where)


def _settings(owner: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The SituationTest settings of a multidimensional test, the deprecated ``method``
    renamed ``methods`` (with its warning, pointing at the caller of the constructor); given
    with ``methods`` both are kept, and each SituationTest refuses them."""
    if "method" not in settings:
        return settings
    renamed_argument(owner, "method", "methods", stacklevel=4)
    if "methods" in settings:
        return settings
    return {("methods" if key == "method" else key): v for key, v in settings.items()}


#: SituationTest settings without a constraint (any value is passed on as it is).
_PASSED_ON = {"reference", "attribute", "algorithm", "backend"}


def _attributes(data: AuditData, attributes: Sequence[str] | None) -> list[str]:
    attrs = list(attributes) if attributes is not None else list(data.protected)
    for a in attrs:
        if a not in data.protected:
            raise InputError(
                f"{a!r} is not a protected attribute; protected: {list(data.protected)}"
            )
    if len(attrs) < 2:
        raise InputError(
            f"multidimensional discrimination needs at least two protected attributes, got {attrs}"
        )
    return attrs


class MultipleSituationTest:
    """Multiple discrimination: one single-attribute test per attribute, Bonferroni α/q.

    Its own parameters and every setting passed on are checked at :meth:`run` against
    ``_parameter_constraints`` (the engine's, plus ``correction``).

    Parameters
    ----------
    attributes
        Protected attributes (default: every protected attribute of the data).
    correction
        ``"bonferroni"`` (α/q per run, the paper) or ``None`` (α per run).
    **settings
        Any :class:`SituationTest` setting (methods, k, alpha, tau, direction, legacy, ...).

    Examples
    --------
    >>> # MultipleSituationTest(methods="cst", k=[15, 30]).run(data, scm=scm, decider=rule)
    """

    def __init__(
        self,
        attributes: Sequence[str] | None = None,
        correction: str | None = "bonferroni",
        **settings: Any,
    ) -> None:
        self.attributes = attributes
        self.correction = correction
        self.settings = _settings(type(self).__name__, settings)

    #: What every parameter accepts: SituationTest's settings plus ``correction``.
    _parameter_constraints = {
        **SituationTest._parameter_constraints,
        "correction": [Options("bonferroni"), None],
    }

    def run(
        self,
        data: AuditData,
        scm: Any = None,
        counterfactuals: Mapping[str, Any] | None = None,
        decider: Any = None,
    ) -> MultipleResult:
        """Run one test per attribute on the rows protected on every attribute.

        Parameters
        ----------
        data
            AuditData declaring every protected attribute.
        scm
            Fitted SCM; each run intervenes on its own attribute.
        counterfactuals
            ``{attribute: table}`` of precomputed counterfactuals (instead of ``scm``).
        decider
            b() for the counterfactual decisions.

        Returns
        -------
        MultipleResult
        """
        _check_settings(
            type(self).__name__,
            self._parameter_constraints,
            self.settings,
            correction=self.correction,
        )
        attrs = _attributes(data, self.attributes)
        alpha = float(self.settings.get("alpha", 0.05))
        level = bonferroni(alpha, len(attrs)) if self.correction == "bonferroni" else alpha
        mask = data.protected_mask(attrs)
        runs = {}
        for a in attrs:
            settings = {**self.settings, "alpha": level, "attribute": a}
            cf = None
            if counterfactuals is not None:
                if a not in counterfactuals:
                    raise InputError(f"no counterfactual table for attribute {a!r}")
                cf = counterfactuals[a]
            runs[a] = SituationTest(**settings).run(
                data, scm=scm, counterfactuals=cf, decider=decider, complainant_mask=mask
            )
        return combine_multiple(
            runs, {"alpha": alpha, "alpha_per_test": level}, n_protected=int(mask.sum())
        )


class IntersectionalSituationTest:
    """Intersectional discrimination: one test on ``A* = 1{protected on every attribute}``.

    Parameters
    ----------
    attributes
        Protected attributes to intersect (default: all of the data's).
    name
        Name of the merged column/node (default ``"*".join(attributes)``).
    **settings
        Any :class:`SituationTest` setting.
    """

    def __init__(
        self, attributes: Sequence[str] | None = None, name: str | None = None, **settings: Any
    ) -> None:
        self.attributes = attributes
        self.name = name
        self.settings = _settings(type(self).__name__, settings)

    #: What every parameter accepts: SituationTest's settings plus ``name``.
    _parameter_constraints = {
        **SituationTest._parameter_constraints,
        "name": [None, InstanceOf(str, name="a string")],
    }

    def merged_data(self, data: AuditData) -> AuditData:
        """The data with the ``A*`` column (1 = protected on every attribute) as protected."""
        attrs = _attributes(data, self.attributes)
        name = self.name or "*".join(attrs)
        if name in data.frame.columns:
            raise InputError(f"the merged attribute name {name!r} is already a column")
        frame = data.frame.assign(**{name: data.protected_mask(attrs).astype(np.int64)})
        return data.replace(frame, protected={name: 1})  # every other role kept

    def run(
        self,
        data: AuditData,
        scm: Any = None,
        counterfactuals: Any = None,
        decider: Any = None,
    ) -> SituationResult:
        """Build A*, merge the SCM's A-nodes into it (refitted) and run one test.

        Parameters
        ----------
        data
            AuditData declaring the protected attributes.
        scm
            SCM over the original attributes; ``scm.merge_nodes(attributes, A*)`` is refitted
            on the data with the A* column and intervened with ``do(A* := 0)``.
        counterfactuals
            Precomputed counterfactual table under ``do(A* := 0)`` instead of ``scm``.
        decider
            b().

        Returns
        -------
        SituationResult
            With ``params["dimension"] == "intersectional"``.
        """
        _check_settings(
            type(self).__name__, self._parameter_constraints, self.settings, name=self.name
        )
        attrs = _attributes(data, self.attributes)
        merged = self.merged_data(data)
        name = next(iter(merged.protected))
        fitted = None
        if counterfactuals is None and scm is not None:
            if not hasattr(scm, "merge_nodes"):
                raise InputError("the SCM has no merge_nodes(); pass counterfactuals=... instead")
            fitted = scm.merge_nodes(attrs, name).fit(merged)
        settings = {**self.settings, "reference": 0}
        res = SituationTest(**settings).run(
            merged, scm=fitted, counterfactuals=counterfactuals, decider=decider
        )
        res.params.update({"dimension": "intersectional", "attributes": attrs})
        return res
