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

from ..data import AuditData
from ..errors import InputError
from .engine import SituationTest
from .results import SituationResult, json_safe, summarize
from .stats import bonferroni

__all__ = [
    "MultipleSituationTest",
    "IntersectionalSituationTest",
    "MultipleResult",
    "combine_multiple",
]


@dataclass(frozen=True)
class MultipleResult:
    """Multiple-discrimination results: the combined table and the per-attribute runs.

    Attributes
    ----------
    table
        One row per complainant and (method, k): method, k, row, id, ``delta_<attr>`` and
        ``significant_<attr>`` of every run, delta (mean of the deltas), discriminated (every
        run flags), significant (every run significant at α/q), cf_flag (CF in every run).
    runs
        ``{attribute: SituationResult}`` (each restricted to the complainants).
    params
        Settings (attributes, alpha, per-test alpha, ...).
    n_protected
        Denominator: rows protected on every attribute.
    """

    table: pd.DataFrame
    runs: dict
    params: dict
    n_protected: int
    n_complainants: int = field(default=0)

    def to_frame(self) -> pd.DataFrame:
        """Combined per-complainant table."""
        return self.table.copy()

    def summary(self) -> pd.DataFrame:
        """Counts and shares (of ``n_protected``) by method and k."""
        return summarize(self.table, self.n_protected)

    def to_dict(self) -> dict:
        """JSON-safe dict (NaN→None, inf→"inf")."""
        return json_safe(
            {
                "params": self.params,
                "n_protected": self.n_protected,
                "summary": self.summary().to_dict(orient="records"),
                "complainants": self.table.astype(object).to_dict(orient="records"),
            }
        )

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


def combine_multiple(
    runs: Mapping[str, SituationResult], params: dict | None = None
) -> MultipleResult:
    """Combine single-attribute runs on the same complainants into multiple discrimination.

    Parameters
    ----------
    runs
        ``{attribute: SituationResult}``, every run over the same complainants, methods and k
        (run them with ``complainant_mask`` = protected on every attribute and α/q).
    params
        Extra settings to record.

    Returns
    -------
    MultipleResult
    """
    if len(runs) < 2:
        raise InputError("multiple discrimination needs at least two protected attributes")
    keys = ["method", "k", "row"]
    merged = None
    for attr, res in runs.items():
        t = res.table[keys + ["id", "delta", "discriminated", "significant", "cf_flag"]].rename(
            columns={
                "delta": f"delta_{attr}",
                "discriminated": f"discriminated_{attr}",
                "significant": f"significant_{attr}",
                "cf_flag": f"cf_flag_{attr}",
            }
        )
        merged = t if merged is None else merged.merge(t.drop(columns="id"), on=keys, how="inner")
    attrs = list(runs)
    n_rows = {len(r.table) for r in runs.values()}
    if len(n_rows) != 1 or len(merged) != n_rows.pop():
        raise InputError("the runs do not cover the same complainants, methods and k")
    merged["delta"] = merged[[f"delta_{a}" for a in attrs]].mean(axis=1)
    merged["discriminated"] = np.logical_and.reduce(
        [merged[f"discriminated_{a}"].to_numpy(dtype=bool) for a in attrs]
    )
    merged["significant"] = np.logical_and.reduce(
        [merged[f"significant_{a}"].to_numpy(dtype=bool) for a in attrs]
    )
    cf_cols = [merged[f"cf_flag_{a}"] for a in attrs]
    if all(c.notna().all() for c in cf_cols):
        merged["cf_flag"] = np.logical_and.reduce([c.to_numpy(dtype=bool) for c in cf_cols])
    first = next(iter(runs.values()))
    p = {"dimension": "multiple", "attributes": attrs, **first.params, **(params or {})}
    return MultipleResult(
        table=merged,
        runs=dict(runs),
        params=p,
        n_protected=first.n_complainants,
        n_complainants=first.n_complainants,
    )


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

    Parameters
    ----------
    attributes
        Protected attributes (default: every protected attribute of the data).
    correction
        ``"bonferroni"`` (α/q per run, the paper) or ``None`` (α per run).
    **settings
        Any :class:`SituationTest` setting (method, k, alpha, tau, direction, legacy, ...).

    Examples
    --------
    >>> # MultipleSituationTest(method="cst", k=[15, 30]).run(data, scm=scm, decider=rule)
    """

    def __init__(
        self,
        attributes: Sequence[str] | None = None,
        correction: str | None = "bonferroni",
        **settings: Any,
    ) -> None:
        self.attributes = attributes
        self.correction = correction
        self.settings = settings

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
        attrs = _attributes(data, self.attributes)
        if self.correction not in ("bonferroni", None):
            raise InputError(f"correction must be 'bonferroni' or None, got {self.correction!r}")
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
        return combine_multiple(runs, {"alpha": alpha, "alpha_per_test": level})


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
        self.settings = settings

    def merged_data(self, data: AuditData) -> AuditData:
        """The data with the ``A*`` column (1 = protected on every attribute) as protected."""
        attrs = _attributes(data, self.attributes)
        name = self.name or "*".join(attrs)
        if name in data.frame.columns:
            raise InputError(f"the merged attribute name {name!r} is already a column")
        frame = data.frame.assign(**{name: data.protected_mask(attrs).astype(np.int64)})
        return AuditData(
            frame,
            features=data.features,
            protected={name: 1},
            decision=data.decision,
            favorable=data.favorable,
            outcome=data.outcome,
            outcome_favorable=data.outcome_favorable,
            id_column=data.id_column,
        )

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
