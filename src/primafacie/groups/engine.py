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

from ..base import Engine
from ..data import AuditData
from ..errors import InputError
from ..groupcodes import SEP, combination_label, value_codes
from ..groupcodes import cross_codes as group_codes
from ..weights import check_weights, effective_counts
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

#: Label of the pooled reference row when a listed reference holds several values.
REFERENCE_POOLED = "reference (pooled)"


def _counts(
    group: np.ndarray,
    n_groups: int,
    yhat: np.ndarray,
    y: np.ndarray | None,
    w: np.ndarray | None = None,
) -> dict:
    """Per-group counts (int64 arrays of length ``n_groups``), one bincount each.

    With weights ``w`` each count ``c`` also has ``w_c`` (Σ w over its rows) and ``w2_c``
    (Σ w²), so every metric gets its weighted rate and Kish effective size.
    """

    def count(weights: np.ndarray | None = None) -> np.ndarray:
        return np.rint(np.bincount(group, weights=weights, minlength=n_groups)).astype(np.int64)

    def summed(weights: np.ndarray) -> np.ndarray:
        return np.bincount(group, weights=weights, minlength=n_groups)

    out = {"members": count(), "pred": count(yhat.astype(float))}
    scales = {}
    if w is not None:
        scales = {"w_": w, "w2_": w * w}
        for prefix, scale in scales.items():
            out[f"{prefix}members"] = summed(scale)
            out[f"{prefix}pred"] = summed(scale * yhat)
    if y is not None:
        for prefix, scale in {"": None, **scales}.items():
            if scale is None:
                pos, tp = count(y.astype(float)), count((yhat & y).astype(float))
            else:
                pos, tp = summed(scale * y), summed(scale * (yhat & y))
            members, pred = out[f"{prefix}members"], out[f"{prefix}pred"]
            out[f"{prefix}pos"], out[f"{prefix}tp"] = pos, tp
            out[f"{prefix}neg"] = members - pos
            out[f"{prefix}fp"] = pred - tp
            out[f"{prefix}fn"] = pos - tp
            out[f"{prefix}correct"] = tp + (members - pos) - (pred - tp)  # TP + TN
    return out


#: Role of a group that is neither protected nor reference (a listed reference leaves it out).
LEFT_OUT = "left out"


class GroupMetrics(Engine):
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
    thresholds, sweep
        With a ``score``: the thresholds at which every group's selection rate and impact
        ratio are measured, or ``sweep=True`` for every distinct score value (at most 101
        distinct percentiles); see :mod:`primafacie.groups.scores`.
    score, score_favorable, score_threshold
        The score column, its favourable side (``above``: score ≥ threshold; ``below``) and
        the audited threshold. With the true outcome, the AUC and a calibration table per
        group follow (:attr:`GroupMetricsResult.scores`).
    weights
        A column of sample weights (default: the AuditData's ``weights``): rates become
        ``Σ w·ŷ / Σ w`` and every interval uses the Kish effective size (see
        :mod:`primafacie.weights`); the counts ``k`` and ``n`` stay the unweighted row counts.

    A protected attribute's reference (``AuditData(protected={a: {"values": .., "reference":
    ..}})``) decides whom its groups are compared with: every other row (``rest``), the listed
    values, or the value with the highest selection rate; the groups in neither are kept in
    the table with the role ``left out`` and no comparison, and counted in
    :attr:`GroupMetricsResult.comparisons`.

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
    _where = WHERE

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
        thresholds: Sequence[float] | None = None,
        sweep: bool = False,
        score: str | None = None,
        score_favorable: str = "above",
        score_threshold: float | None = None,
        weights: str | None = None,
    ) -> None:
        self._store_params(locals())

    # ------------------------------------------------------------------ helpers
    def _audit_data(self, data: Any) -> tuple[AuditData, list[str]]:
        """The AuditData to measure (constructor roles applied) and the attributes to use."""
        audit = self._as_audit_data(data, require=("protected", "decision"))
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
        self._validate_params()
        if (self.thresholds is not None or self.sweep) and self.score is None:
            key = "thresholds" if self.thresholds is not None else "sweep"
            raise InputError(
                f"{key} ({WHERE[key]}) needs a score ({WHERE['score']}): set decision: "
                "{score: COLUMN, threshold: T} in audit.yaml"
            )
        audit, attrs = self._audit_data(data)
        yhat = audit.decision_array().astype(bool)
        y = audit.outcome_array().astype(bool) if audit.outcome is not None else None
        column = self.weights or audit.weights
        w = None
        if column is not None:
            audit._require_column(column, "weights")
            w = check_weights(audit.frame[column], column)
        codes, values, masks, refs = {}, {}, {}, {}
        for a in attrs:
            codes[a], values[a] = value_codes(audit.frame[a])
            masks[a] = audit.protected_mask(a)
            refs[a] = audit.reference_mask(a)
        frames, comparisons, scored = [], [], []
        for grouping in self._groupings(attrs):
            sizes = [len(values[a]) for a in grouping]
            group, parts = group_codes([codes[a] for a in grouping], sizes)
            n_groups = len(parts)
            counts = _counts(group, n_groups, yhat, y, w)
            # protected on any attribute of the grouping; reference on every one; in the
            # comparison when protected or reference on every one (else left out)
            prot = np.zeros(n_groups, dtype=bool)
            ref = np.ones(n_groups, dtype=bool)
            inside = np.ones(n_groups, dtype=bool)
            for a in grouping:
                prot |= np.bincount(group, weights=masks[a], minlength=n_groups) > 0
                ref &= np.bincount(group, weights=refs[a], minlength=n_groups) > 0
                inside &= np.bincount(group, weights=masks[a] | refs[a], minlength=n_groups) > 0
            most = len(grouping) > 1 and any(audit.reference.get(a) == "highest" for a in grouping)
            if most:
                ref, inside = _most_selected(audit, grouping, group, n_groups, masks, counts)
            prot &= inside
            labels = [combination_label(values[a][c] for a, c in zip(grouping, row, strict=True))
                      for row in parts]  # fmt: skip
            rest = all(a not in audit.reference for a in grouping)
            frame = self._grouping_frame(SEP.join(grouping), labels, prot, ref, counts, rest)
            frames.append(frame)
            # the score tables use the same groups and reference, intersections included
            scored.append((SEP.join(grouping), labels, group, prot[group],
                           None if rest else ref[group]))  # fmt: skip
            comparisons.append(_comparison(audit, grouping, frame, labels, ~inside, counts))
            if most:
                comparisons[-1]["reference_rule"] = "highest"
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
            scores=self._scores(audit, scored),
            weights=column,
            comparisons=tuple(comparisons),
        )

    def _scores(self, audit: AuditData, scored: list[tuple]) -> Any:
        """The score metrics (thresholds, AUC, calibration) of every attribute and
        intersection, each ``(name, labels, group codes, protected rows, reference rows)``
        as the rates were computed, or None without a score or anything to measure on it."""
        wanted = self.thresholds is not None or self.sweep or audit.outcome is not None
        if self.score is None or not wanted:
            return None
        from .scores import AttributeGroups, score_metrics

        coded = [AttributeGroups(name, labels, group, prot, ref)
                 for name, labels, group, prot, ref in scored]  # fmt: skip

        thresholds = self.thresholds
        if thresholds is not None and not isinstance(thresholds, (list, tuple)):
            thresholds = [thresholds]
        return score_metrics(
            audit, coded, self.score, self.score_favorable, thresholds, bool(self.sweep),
            self.score_threshold, float(self.alpha), int(self.min_group),
        )  # fmt: skip

    def _grouping_frame(
        self,
        attribute: str,
        labels: list[str],
        prot: np.ndarray,
        ref: np.ndarray,
        counts: dict[str, np.ndarray],
        rest: bool = True,
    ) -> pd.DataFrame:
        """Long table of one grouping: one row per (group, metric), reference row included."""
        n_ref = int(ref.sum())
        role = np.where(prot, PROTECTED, np.where(ref, REFERENCE if n_ref == 1 else IN_REFERENCE,
                                                  LEFT_OUT))  # fmt: skip
        labels = list(labels)
        if n_ref != 1:  # pooled (or empty) reference: its own row, counts added up
            labels.append(POOLED if rest else REFERENCE_POOLED)
            role = np.append(role, REFERENCE)
            counts = {k: np.append(v, v[ref].sum()) for k, v in counts.items()}
            prot = np.append(prot, False)
        ref_row = int(np.flatnonzero(role == REFERENCE)[0])
        metrics = [m for m in METRICS if METRICS[m][0] in counts]
        rows = []
        for metric in metrics:  # a handful of metrics, each vectorised over the groups
            rows.append(self._metric_frame(metric, counts, prot, ref_row))
            rows[-1].insert(0, "role", role)
            rows[-1].insert(0, "group", labels)
            rows[-1].insert(0, "attribute", attribute)
            rows[-1]["reference"] = labels[ref_row]
        frame = pd.concat(rows, ignore_index=True)
        order = ["attribute", "group", "role", "members", "small", "metric", "k", "n", "rate",
                 "ci_low", "ci_high", "reference", "diff", "diff_low", "diff_high", "ratio",
                 "ratio_low", "ratio_high"]  # fmt: skip
        return frame[order + [c for c in frame.columns if c not in order]]

    def _metric_frame(
        self, metric: str, counts: dict[str, np.ndarray], prot: np.ndarray, ref_row: int
    ) -> pd.DataFrame:
        """One metric of one grouping: rate, interval and comparison with the reference row.

        Unweighted: ``k`` of ``n`` rows. Weighted: the rate is ``Σw·k / Σw·n`` and the
        intervals use the effective counts of :func:`primafacie.weights.effective_counts`.
        """
        z = z_value(self.alpha, "two")
        kname, nname = METRICS[metric]
        k, n = counts[kname], counts[nname]
        weighted = f"w_{nname}" in counts
        if weighted:
            kw, nw = counts[f"w_{kname}"], counts[f"w_{nname}"]
            ke, ne = effective_counts(kw, nw, counts[f"w2_{nname}"])
        else:
            kw, nw, ke, ne = k, n, k, n
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.where(n > 0, kw / np.where(nw > 0, nw, 1), np.nan)
        low, high = wilson_interval(ke, ne, z)
        kr, nr = (
            np.full(len(k), ke[ref_row], dtype=float),
            np.full(len(k), ne[ref_row], dtype=float),
        )
        d_lo, d_hi = newcombe_interval(ke, ne, kr, nr, self.alpha, sided="two")
        # weighted: ke / ne is the weighted rate, so the ratio is that of the weighted rates
        ratio, r_lo, r_hi = katz_interval(ke, ne, kr, nr, z)
        compared = prot & (n > 0) & (n[ref_row] > 0)
        nan = np.full(len(k), np.nan)
        out = pd.DataFrame(
            {
                "members": counts["members"],
                "small": counts["members"] < int(self.min_group),
                "metric": metric,
                "k": k,
                "n": n,
                "rate": rate,
                "ci_low": np.where(n > 0, low, np.nan),
                "ci_high": np.where(n > 0, high, np.nan),
                "diff": np.where(compared, rate - rate[ref_row], nan),
                "diff_low": np.where(compared, d_lo, nan),
                "diff_high": np.where(compared, d_hi, nan),
                "ratio": np.where(prot, ratio, nan),
                "ratio_low": np.where(prot, r_lo, nan),
                "ratio_high": np.where(prot, r_hi, nan),
            }
        )
        if weighted:
            out["weighted_k"], out["weighted_n"], out["n_eff"] = kw, nw, ne
        return out


def _most_selected(
    audit: AuditData,
    grouping: tuple[str, ...],
    group: np.ndarray,
    n_groups: int,
    masks: dict[str, np.ndarray],
    counts: dict[str, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """The reference of an intersection when one of its attributes has ``reference: highest``:
    the intersectional group with the highest selection rate, as NYC Local Law 144 compares
    each intersectional category with the most selected one (6 RCNY § 5-301).

    The candidates are the groups non-protected on every ``highest`` (and ``rest``) attribute
    and in the listed reference of every other one; the rate is unweighted (favourable rows
    / rows), as :func:`~primafacie.reference.highest_value` chooses one value. Ties: more
    rows, then the first group in sorted order. The other candidates are left out, as the
    values ``highest`` did not choose are for one attribute.

    Returns
    -------
    (reference, inside)
        Boolean per group: the chosen group; the groups in the comparison.
    """
    eligible = counts["members"] > 0
    inside = np.ones(n_groups, dtype=bool)
    for a in grouping:
        listed = audit.reference.get(a) not in (None, "highest")
        rows = audit.reference_mask(a) if listed else ~masks[a]
        # a group is one value of each attribute: all its rows agree, so "any" is "every"
        eligible &= np.bincount(group, weights=rows, minlength=n_groups) > 0
        inside &= np.bincount(group, weights=rows | masks[a], minlength=n_groups) > 0
    if not eligible.any():
        raise InputError(
            f"reference: highest on {SEP.join(grouping)}: no intersectional group is "
            "non-protected on every attribute, so none can be the reference"
        )
    n = counts["members"].astype(float)
    rate = np.where(eligible, counts["pred"] / np.maximum(n, 1), -1.0)
    # lexsort: last key first; the highest rate, then more rows, then the sorted-order index
    chosen = int(np.lexsort((np.arange(n_groups), -n, -rate))[0])
    ref = np.zeros(n_groups, dtype=bool)
    ref[chosen] = True
    return ref, inside & ~(eligible & ~ref)


def _comparison(
    audit: AuditData,
    grouping: tuple[str, ...],
    frame: pd.DataFrame,
    labels: list[str],
    left: np.ndarray,
    counts: dict[str, np.ndarray],
) -> dict[str, Any]:
    """One grouping's comparison: whom its protected groups are compared with, by which rule,
    and the rows left out (count, share, the groups they form)."""
    rules = {a: audit.reference.get(a) for a in grouping}
    refs = {a: audit.reference_values(a) for a in grouping}
    members = counts["members"][: len(labels)]
    n_left = int(members[left].sum())
    total = int(members.sum())
    return {
        "attribute": SEP.join(grouping),
        "reference": str(frame["reference"].iloc[0]),
        "rules": {
            a: "rest" if r is None else ("highest" if r == "highest" else "listed")
            for a, r in rules.items()
        },  # fmt: skip
        "reference_values": {
            a: "rest" if v is None else [str(x) for x in v] for a, v in refs.items()
        },  # fmt: skip
        "left_out": n_left,
        "left_out_share": n_left / total if total else 0.0,
        "left_out_groups": [lab for lab, flag in zip(labels, left, strict=True) if flag],
    }
