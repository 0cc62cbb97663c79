"""Group metrics: selection rates, the four-fifths ratio and error-rate gaps per group.

For each protected attribute, and for their intersections, every group (each observed value,
or combination of values) gets its selection rate and, when the true outcome is known, its
TPR, FPR, FNR, PPV and accuracy, each as ``k of n`` with a Wilson interval. Each protected
group is compared with the *reference group*: the rows that are non-protected on the
attribute(s) of the grouping, pooled when they hold several values. The comparison gives the
difference of rates with Newcombe's hybrid score interval (method 10), the ratio with Katz's
log interval, the four-fifths flag (selection-rate ratio < 0.8), the equal-opportunity
difference (TPR gap) and the equalized-odds difference (larger of the TPR and FPR gaps).

Everything is counted with one ``np.bincount`` per count over integer group codes, so the cost
is linear in the rows (about 0.5 s for 10^6 rows, two attributes, their intersection and the
outcome metrics, on one core; see ``benchmarks/groups.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data import AuditData, constructor_roles, to_pandas
from ..errors import InputError
from ..groupcodes import SEP, combination_label, value_codes
from ..groupcodes import cross_codes as group_codes
from ..validation import validate_params
from .params import DEFAULT_ALPHA, DEFAULT_MIN_GROUP, PARAMETER_CONSTRAINTS, WHERE
from .results import GroupMetricsResult
from .stats import katz_interval, newcombe_interval, wilson_interval, z_value

__all__ = [
    "GroupMetrics",
    "METRICS",
    "OUTCOME_METRICS",
    "group_codes",
]

#: Metric -> (count k, denominator n), both named after the per-group counts of
#: :func:`_counts`: ``pred`` favourable decisions, ``pos``/``neg`` favourable/unfavourable
#: outcomes, ``tp`` favourable decision and outcome, ``fp``, ``fn``, ``correct`` (ŷ = y).
METRICS: dict[str, tuple[str, str]] = {
    "selection_rate": ("pred", "members"),
    "tpr": ("tp", "pos"),
    "fpr": ("fp", "neg"),
    "fnr": ("fn", "pos"),
    "ppv": ("tp", "pred"),
    "accuracy": ("correct", "members"),
}

#: The metrics that need the true outcome.
OUTCOME_METRICS = ("tpr", "fpr", "fnr", "ppv", "accuracy")

#: Role of a group in its grouping.
PROTECTED, REFERENCE, IN_REFERENCE = "protected", "reference", "non-protected"

#: Label of the pooled reference row when the non-protected rows hold several values.
POOLED = "non-protected (pooled)"


def _counts(group: np.ndarray, n_groups: int, yhat: np.ndarray, y: np.ndarray | None) -> dict:
    """Per-group counts (int64 arrays of length ``n_groups``), one bincount each."""

    def count(weights: np.ndarray | None = None) -> np.ndarray:
        return np.rint(np.bincount(group, weights=weights, minlength=n_groups)).astype(np.int64)

    out = {"members": count(), "pred": count(yhat.astype(float))}
    if y is not None:
        out["pos"] = count(y.astype(float))
        out["tp"] = count((yhat & y).astype(float))
        out["neg"] = out["members"] - out["pos"]
        out["fp"] = out["pred"] - out["tp"]
        out["fn"] = out["pos"] - out["tp"]
        out["correct"] = out["tp"] + out["neg"] - out["fp"]  # TP + TN
    return out


class GroupMetrics:
    """Selection rates, four-fifths ratios and error-rate gaps per protected group.

    Parameters
    ----------
    min_group
        Groups with fewer members are flagged (``small`` column, caveats); they are kept,
        never dropped. Default 30.
    alpha
        Every interval is two-sided at level ``1 - alpha`` (Wilson for a rate, Newcombe for a
        difference, Katz for a ratio). The equalized-odds interval combines the TPR and FPR
        intervals at ``alpha / 2`` each (Bonferroni), so it covers with ``≥ 1 - alpha``.
    intersections
        ``"all"``: every combination of two or more protected attributes; ``"full"``: only
        all of them crossed; ``"none"``: each attribute alone. With one protected attribute
        there is no intersection.
    protected
        With an :class:`~primafacie.data.AuditData`: the attribute(s) to measure (default:
        all of its protected attributes). With a table: ``{column: protected value(s)}``.
    decision, outcome, favorable, outcome_favorable
        The roles when ``run`` gets a table (an AuditData carries its own).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["f", "f", "f", "m", "m", "m"], "d": [1, 0, 0, 1, 1, 0]})
    >>> res = GroupMetrics(min_group=2, protected={"sex": "f"}, decision="d").run(df)
    >>> res.summary()[["group", "selection_rate", "reference_rate", "selection_ratio"]]
      group  selection_rate  reference_rate  selection_ratio
    0     f        0.333333        0.666667              0.5
    """

    _parameter_constraints: dict[str, list[Any]] = PARAMETER_CONSTRAINTS

    def __init__(
        self,
        min_group: int = DEFAULT_MIN_GROUP,
        alpha: float = DEFAULT_ALPHA,
        intersections: str = "all",
        *,
        protected: str | Sequence[str] | Mapping[str, Any] | None = None,
        decision: str | None = None,
        outcome: str | None = None,
        favorable: Any = None,
        outcome_favorable: Any = None,
    ) -> None:
        self.min_group = min_group
        self.alpha = alpha
        self.intersections = intersections
        self.protected = protected
        self.decision = decision
        self.outcome = outcome
        self.favorable = favorable
        self.outcome_favorable = outcome_favorable

    # ------------------------------------------------------------------ helpers
    def _audit_data(self, data: Any) -> tuple[AuditData, list[str]]:
        """The AuditData to measure (constructor roles applied) and the attributes to use."""
        roles = constructor_roles(self)
        if isinstance(data, AuditData):
            audit = data.replace(**roles) if roles else data
        else:
            if not isinstance(roles.get("protected"), Mapping) or "decision" not in roles:
                raise InputError(
                    "with a table, give the roles: GroupMetrics(protected={column: protected "
                    "value(s)}, decision=COLUMN[, outcome=COLUMN]), or pass an AuditData"
                )
            audit = AuditData(to_pandas(data), features={}, **roles)
        if audit.decision is None:
            raise InputError("GroupMetrics needs the decision: AuditData(decision=COLUMN)")
        if not audit.protected:
            raise InputError(
                "GroupMetrics needs a protected attribute: AuditData(protected={column: value})"
            )
        attrs = list(audit.protected)
        if isinstance(self.protected, str):
            attrs = [audit.protected_attribute(self.protected)]
        elif self.protected is not None and not isinstance(self.protected, Mapping):
            attrs = [audit.protected_attribute(a) for a in self.protected]
            if not attrs:
                raise InputError("GroupMetrics: protected lists no attribute")
        return audit, attrs

    def _groupings(self, attrs: list[str]) -> list[tuple[str, ...]]:
        """Each attribute alone, then the intersections asked for (attributes in data order)."""
        out = [(a,) for a in attrs]
        if self.intersections == "full" and len(attrs) > 1:
            out.append(tuple(attrs))
        elif self.intersections == "all":
            for size in range(2, len(attrs) + 1):
                out += list(itertools.combinations(attrs, size))
        return out

    # ------------------------------------------------------------------ API
    def run(self, data: AuditData | pd.DataFrame | Any) -> GroupMetricsResult:
        """Rates per group, and each protected group against its reference group.

        Parameters
        ----------
        data
            An :class:`~primafacie.data.AuditData` (protected attributes, decision, favourable
            values and optional outcome are taken from it) or a DataFrame / polars / pyarrow
            table with the roles given to the constructor.

        Returns
        -------
        GroupMetricsResult

        Raises
        ------
        InputError
            A parameter outside its constraints (the message names it, what it accepts and
            the ``audit.yaml`` key), a missing role or a non-binary decision / outcome.
        """
        params = {name: getattr(self, name) for name in self._parameter_constraints}
        validate_params("GroupMetrics", self._parameter_constraints, params, WHERE)
        audit, attrs = self._audit_data(data)
        yhat = audit.decision_array().astype(bool)
        y = audit.outcome_array().astype(bool) if audit.outcome is not None else None
        codes, values, masks = {}, {}, {}
        for a in attrs:
            codes[a], values[a] = value_codes(audit.frame[a])
            masks[a] = audit.protected_mask(a)
        frames = []
        for grouping in self._groupings(attrs):
            sizes = [len(values[a]) for a in grouping]
            group, parts = group_codes([codes[a] for a in grouping], sizes)
            n_groups = len(parts)
            counts = _counts(group, n_groups, yhat, y)
            # a group is protected when it is protected on any attribute of the grouping
            prot = np.zeros(n_groups, dtype=bool)
            for a in grouping:
                prot |= np.bincount(group, weights=masks[a], minlength=n_groups) > 0
            labels = [combination_label(values[a][c] for a, c in zip(grouping, row, strict=True))
                      for row in parts]  # fmt: skip
            frames.append(self._grouping_frame(SEP.join(grouping), labels, prot, counts))
        return GroupMetricsResult(
            table=pd.concat(frames, ignore_index=True),
            attributes=tuple(attrs),
            protected_values={a: tuple(map(str, audit.protected[a])) for a in attrs},
            n=audit.n,
            has_outcome=y is not None,
            min_group=int(self.min_group),
            alpha=float(self.alpha),
            intersections=self.intersections,
            decision=str(audit.decision),
            outcome=audit.outcome,
        )

    def _grouping_frame(
        self, attribute: str, labels: list[str], prot: np.ndarray, counts: dict[str, np.ndarray]
    ) -> pd.DataFrame:
        """Long table of one grouping: one row per (group, metric), reference row included."""
        ref = ~prot
        n_ref = int(ref.sum())
        role = np.where(prot, PROTECTED, REFERENCE if n_ref == 1 else IN_REFERENCE)
        labels = list(labels)
        if n_ref != 1:  # pooled (or empty) reference: its own row, counts added up
            labels.append(POOLED)
            role = np.append(role, REFERENCE)
            counts = {k: np.append(v, v[ref].sum()) for k, v in counts.items()}
            prot = np.append(prot, False)
        ref_row = int(np.flatnonzero(role == REFERENCE)[0])
        z = z_value(self.alpha, "two")
        metrics = [m for m in METRICS if METRICS[m][0] in counts]
        rows = []
        for metric in metrics:  # a handful of metrics, each vectorised over the groups
            kname, nname = METRICS[metric]
            k, n = counts[kname], counts[nname]
            with np.errstate(divide="ignore", invalid="ignore"):
                rate = np.where(n > 0, k / np.maximum(n, 1), np.nan)
            low, high = wilson_interval(k, n, z)
            kr, nr = np.full_like(k, k[ref_row]), np.full_like(n, n[ref_row])
            d_lo, d_hi = newcombe_interval(k, n, kr, nr, self.alpha, sided="two")
            ratio, r_lo, r_hi = katz_interval(k, n, kr, nr, z)
            compared = prot & (n > 0) & (nr > 0)
            nan = np.full(len(k), np.nan)
            rows.append(
                pd.DataFrame(
                    {
                        "attribute": attribute,
                        "group": labels,
                        "role": role,
                        "members": counts["members"],
                        "small": counts["members"] < int(self.min_group),
                        "metric": metric,
                        "k": k,
                        "n": n,
                        "rate": rate,
                        "ci_low": np.where(n > 0, low, np.nan),
                        "ci_high": np.where(n > 0, high, np.nan),
                        "reference": labels[ref_row],
                        "diff": np.where(compared, rate - rate[ref_row], nan),
                        "diff_low": np.where(compared, d_lo, nan),
                        "diff_high": np.where(compared, d_hi, nan),
                        "ratio": np.where(prot, ratio, nan),
                        "ratio_low": np.where(prot, r_lo, nan),
                        "ratio_high": np.where(prot, r_hi, nan),
                    }
                )
            )
        return pd.concat(rows, ignore_index=True)

    def __repr__(self) -> str:
        return (
            f"GroupMetrics(min_group={self.min_group!r}, alpha={self.alpha!r}, "
            f"intersections={self.intersections!r})"
        )
