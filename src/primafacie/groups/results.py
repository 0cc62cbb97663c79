"""Result of :class:`~primafacie.groups.GroupMetrics`: rates per group and the comparisons."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base import BaseResult
from ..errors import InputError
from ..formats import listing, rate_text
from ..jsonsafe import json_safe
from ..weights import METHOD as WEIGHTS_METHOD
from .comparisons import adverse_impact, error_gaps
from .params import FOUR_FIFTHS

__all__ = ["GroupMetricsResult", "METRIC_LABELS"]

#: How each metric is named in words (report, plots, headline).
METRIC_LABELS = {
    "selection_rate": "selection rate",
    "tpr": "true positive rate",
    "fpr": "false positive rate",
    "fnr": "false negative rate",
    "ppv": "positive predictive value",
    "accuracy": "accuracy",
}


#: The columns of each comparison in ``results.json`` (``groups.comparisons``); the first six
#: (the group and its counts) also name the smallest ratio of :func:`min_ratio`.
_COMPARISON_KEYS = [
    "attribute", "group", "selection_k", "selection_n", "reference_k", "reference_n",
    "selection_diff", "selection_ratio", "four_fifths", "fisher_p", "z_pooled", "shortfall",
    "adverse_impact",
]  # fmt: skip


def min_ratio(summ: pd.DataFrame) -> dict[str, Any]:
    """The smallest selection ratio among groups that are not small, with its interval and
    counts (a derived number for release gates and diffs: ``groups.min_selection_ratio``)."""
    rows = summ[~summ["small"].astype(bool) & summ["selection_ratio"].notna()]
    if rows.empty:
        return {"value": None}
    r = rows.loc[rows["selection_ratio"].astype(float).idxmin()]
    return json_safe({
        "value": r["selection_ratio"], "value_low": r["selection_ratio_low"],
        "value_high": r["selection_ratio_high"], **{k: r[k] for k in _COMPARISON_KEYS[:6]},
    })  # fmt: skip


@dataclass(frozen=True)
class GroupMetricsResult(BaseResult):
    """Rates per group and each protected group against its reference group.

    Attributes
    ----------
    table
        Long table, one row per (grouping, group, metric): ``attribute`` (an attribute, or
        ``"a × b"`` for an intersection), ``group`` (its value(s), ``"non-protected
        (pooled)"`` for a pooled reference), ``role`` (``protected``, ``reference`` or
        ``non-protected``: a value pooled into the reference), ``members`` (rows in the
        group), ``small`` (members < ``min_group``), ``metric``, ``k`` of ``n`` (count and
        denominator), ``rate`` (k/n, NaN when n = 0) with its Wilson interval ``ci_low,
        ci_high``, ``reference`` (label of the reference group), ``diff`` (rate − reference
        rate) with Newcombe's interval ``diff_low, diff_high``, ``ratio`` (rate / reference
        rate) with Katz's log interval ``ratio_low, ratio_high``. Comparisons are NaN for
        non-protected rows and when a denominator is 0.
    attributes
        The protected attributes measured.
    protected_values
        ``{attribute: protected values}``.
    n
        Rows measured (every row of the data).
    has_outcome
        Whether the error-rate metrics were computed.
    min_group, alpha, intersections
        The engine's settings.
    scores
        With a score: its thresholds, AUC and calibration per group
        (:class:`~primafacie.groups.score_results.ScoreMetricsResult`), else ``None``.
    weights
        The column of sample weights, or None. Weighted, ``rate`` is ``weighted_k /
        weighted_n`` (Σ w), the intervals use the Kish effective size ``n_eff`` (columns
        ``weighted_k, weighted_n, n_eff``), and ``k``, ``n`` stay the unweighted row counts.
    comparisons
        Per grouping: ``attribute``, ``reference`` (the reference row's label), ``rules`` and
        ``reference_values`` per attribute (``rest``, ``listed`` or ``highest``), and the rows
        ``left_out`` (in neither group: count, ``left_out_share``, ``left_out_groups``);
        ``reference_rule: highest`` on an intersection whose reference is its most selected
        group (an attribute with ``reference: highest``).
    """

    table: pd.DataFrame
    attributes: tuple[str, ...]
    protected_values: dict[str, tuple[str, ...]]
    n: int
    has_outcome: bool
    min_group: int = 30
    alpha: float = 0.05
    intersections: str = "all"
    decision: str = ""
    outcome: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    scores: Any = None
    weights: str | None = None
    comparisons: tuple[dict[str, Any], ...] = ()

    #: :meth:`to_dict`: settings, the comparisons and every rate (NaN → ``None``).
    dict_keys: ClassVar[tuple[str, ...]] = (
        "analysis", "attributes", "protected_values", "n", "has_outcome", "min_group", "alpha",
        "intersections", "four_fifths_threshold", "comparisons=summary", "rates=table",
        "warnings", "scores?", "references=_references?", "weights?",
        "weights_method=_weights_method?",
    )  # fmt: skip
    analysis: ClassVar[str] = "groups"
    four_fifths_threshold: ClassVar[float] = FOUR_FIFTHS

    @property
    def _references(self) -> tuple[dict[str, Any], ...] | None:
        return self.comparisons if self.referenced else None

    @property
    def _weights_method(self) -> str | None:
        tests = ("; Fisher's test on the effective counts rounded, the pooled z on the effective "
                 "counts, the shortfall in weight units (Σ w)")  # fmt: skip
        return None if self.weights is None else WEIGHTS_METHOD + tests

    @property
    def referenced(self) -> bool:
        """Whether some comparison has a listed (or ``highest``) reference, not ``rest``."""
        return any(set(c["rules"].values()) != {"rest"} for c in self.comparisons)

    # ------------------------------------------------------------------ tables
    def rates(self, metric: str = "selection_rate") -> pd.DataFrame:
        """The rows of one metric (a copy), e.g. ``rates("tpr")``."""
        if metric not in set(self.table["metric"]):
            raise InputError(
                f"metric {metric!r} was not computed; computed: "
                f"{', '.join(dict.fromkeys(self.table['metric']))}"
            )
        return self.table[self.table["metric"] == metric].reset_index(drop=True)

    def summary(self) -> pd.DataFrame:
        """One row per protected group: selection-rate difference, ratio, four-fifths flag and,
        with an outcome, the equal-opportunity and equalized-odds differences.

        Columns: ``attribute, group, reference, members, reference_members, small``;
        ``selection_k, selection_n, selection_rate`` and ``reference_k, reference_n,
        reference_rate``; ``selection_diff[_low, _high]`` (Newcombe), ``selection_ratio[_low,
        _high]`` (Katz), ``four_fifths`` (ratio < 0.8; ``<NA>`` when the ratio is undefined).
        The adverse-impact reading of the Uniform Guidelines: ``fisher_p`` (Fisher's exact
        test, two-sided), ``z_pooled`` and ``two_sd`` (|z| > 2), ``shortfall`` (favourable
        decisions short of the reference rate), ``statistical`` (``fisher_p < alpha``) and
        ``adverse_impact`` (``practical and statistical``, ``practical only``, ``statistical
        only``, ``neither`` or ``undefined``).
        With an outcome: ``tpr, reference_tpr, equal_opportunity_diff[_low, _high]`` (TPR
        gap, Newcombe at ``alpha``); ``fpr, reference_fpr, fpr_diff[_low, _high]``;
        ``equalized_odds_diff[_low, _high]``: max(|TPR gap|, |FPR gap|), its interval the
        max of the two gaps' absolute-value intervals at ``alpha / 2`` each (Bonferroni:
        both cover together with probability ≥ 1 − alpha, and then so does the max).
        """
        return super().summary()  # built once (:meth:`_summary`), a copy each call

    def _summary(self) -> pd.DataFrame:
        """Build :meth:`summary` (called once per Result)."""
        sel = self.rates("selection_rate")
        prot = (sel["role"] == "protected").to_numpy()
        ref = sel[sel["role"] == "reference"].set_index("attribute")
        out = sel.loc[prot, ["attribute", "group", "reference", "members", "small"]].copy()
        at = out["attribute"]
        own, its_ref = sel.loc[prot], ref.loc[at]
        out.insert(4, "reference_members", its_ref["members"].to_numpy())
        for side, rows in (("selection", own), ("reference", its_ref)):
            for col in ("k", "n", "rate"):
                out[f"{side}_{col}"] = rows[col].to_numpy()
        for col in ("diff", "diff_low", "diff_high", "ratio", "ratio_low", "ratio_high"):
            out[f"selection_{col}"] = own[col].to_numpy()
        for col in ("weighted_k", "weighted_n", "n_eff") if self.weights is not None else ():
            out[f"selection_{col}"] = own[col].to_numpy()
            out[f"reference_{col}"] = its_ref[col].to_numpy()
        left = {c["attribute"]: c for c in self.comparisons}
        for key in ("left_out", "left_out_share") if self.referenced else ():
            out[key] = [left[a][key] for a in at]
        ratio = out["selection_ratio"].to_numpy(dtype=float)
        out["four_fifths"] = pd.array(np.where(np.isnan(ratio), None, ratio < FOUR_FIFTHS),
                                      dtype="boolean")  # fmt: skip
        adverse_impact(out, weighted=self.weights is not None, alpha=self.alpha)
        if self.has_outcome:
            error_gaps(out, self.rates, weighted=self.weights is not None, alpha=self.alpha)
        return out.reset_index(drop=True)

    # ------------------------------------------------------------------ words
    def _extreme(self, column: str, lowest: bool = True) -> pd.Series | None:
        """The protected group with the lowest (or largest) ``column`` (groups of at least
        min_group first; the first in table order among ties), None when none is defined."""
        s = self.summary().dropna(subset=[column])
        big = s[~s["small"].astype(bool)]
        s = big if len(big) else s
        if s.empty:
            return None
        return s.sort_values(column, kind="stable").iloc[0] if lowest else s.loc[s[column].idxmax()]

    def rate_words(self, row: Any, prefix: str) -> str:
        """A summary row's selection (``prefix="selection"``) or reference rate in words:
        ``25.0% (1 of 4)``, or weighted ``25.3% weighted (4 rows, n_eff 3.2)``."""
        k, n = row[f"{prefix}_k"], row[f"{prefix}_n"]
        if self.weights is None:
            return rate_text(k, n)
        if pd.isna(rate := row[f"{prefix}_rate"]):
            return f"undefined weighted rate ({int(n):,} rows)"
        return f"{100 * rate:.1f}% weighted ({int(n):,} rows, n_eff {row[f'{prefix}_n_eff']:,.1f})"

    def headline(self) -> str:
        """One sentence: how many protected groups fall below four-fifths, and the lowest ratio.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.groups import GroupMetrics
        >>> df = pd.DataFrame({"sex": list("ffffmmmm"), "d": [1, 0, 0, 0, 1, 1, 0, 1]})
        >>> GroupMetrics(protected={"sex": "f"}, decision="d").run(df).headline()
        'Four-fifths rule: 1 of 1 protected group(s) below 0.8; lowest selection-rate ratio 0.33 for sex = f: 25.0% (1 of 4) vs 75.0% (3 of 4) for m'
        """
        s = self.summary()
        below = int(s["four_fifths"].fillna(False).sum())
        worst = self._extreme("selection_ratio")
        text = f"Four-fifths rule: {below} of {len(s)} protected group(s) below {FOUR_FIFTHS:g}"
        if worst is None:
            return text + "; no selection-rate ratio is defined"
        text += (
            f"; lowest selection-rate ratio {worst['selection_ratio']:.2f} for "
            f"{worst['attribute']} = {worst['group']}: "
            f"{self.rate_words(worst, 'selection')} vs "
            f"{self.rate_words(worst, 'reference')} for {worst['reference']}"
        )
        e = self._extreme("equalized_odds_diff", lowest=False) if self.has_outcome else None
        if e is not None:
            text += (
                f"; largest equalized-odds difference {e['equalized_odds_diff']:.3f} "
                f"({e['attribute']} = {e['group']})"
            )
        return text

    def scope(self) -> str:
        """Who was measured: rows, attributes, groupings, groups and the denominators.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.groups import GroupMetrics
        >>> df = pd.DataFrame({"sex": list("ffffmmmm"), "d": [1, 0, 0, 0, 1, 1, 0, 1]})
        >>> GroupMetrics(protected={"sex": "f"}, decision="d").run(df).scope()
        'all 8 rows on 1 protected attribute(s) (sex) and 0 intersection(s): 2 groups; a selection rate is the favourable decisions (d) among the group’s members'
        """
        sel = self.rates("selection_rate")
        groups = int((sel["group"] != "non-protected (pooled)").sum())
        n_int = sel["attribute"].nunique() - len(self.attributes)
        # a model's or rule's decisions live in an internal column (__decision__): not named
        internal = self.decision.startswith("__") and self.decision.endswith("__")
        decision = "" if internal or not self.decision else f" ({self.decision})"
        text = (
            f"all {self.n} rows on {len(self.attributes)} protected attribute(s) "
            f"({', '.join(self.attributes)}) and {n_int} intersection(s): {groups} groups; "
            f"a selection rate is the favourable decisions{decision} among the group’s members"
        )
        if self.weights is not None:
            text += f"; weighted by {self.weights}: {WEIGHTS_METHOD}"
        said = [c for c in self.comparisons if set(c["rules"].values()) != {"rest"}]
        for c in said:
            text += f"; {c['attribute']} compared with {c['reference']}"
            if c.get("reference_rule") == "highest":
                text += " (the intersectional group with the highest selection rate)"
            else:
                text += "".join(
                    f" ({a}: the highest selection rate, {v[0]})"
                    for a, v in c["reference_values"].items()
                    if c["rules"][a] == "highest"
                )
            text += (
                f", {c['left_out']:,} rows ({100 * c['left_out_share']:.1f}%) of other groups "
                f"left out ({listing(c['left_out_groups'], 6)})"
                if c["left_out"]
                else ", no row left out"
            )
        if self.has_outcome:
            text += (
                f"; TPR and FNR are over the group’s rows with a favourable outcome "
                f"({self.outcome}), FPR over those with an unfavourable one, PPV over its "
                "favourable decisions, accuracy over all its members"
            )
        return text

    def caveats(self) -> list[str]:
        """Small groups, undefined comparisons, and what the intervals do not correct for."""
        out = list(self.warnings)
        sel = self.rates("selection_rate")
        small = sel[sel["small"] & (sel["members"] > 0)]
        if len(small):
            names = (f"{r.attribute} = {r.group} ({r.members})" for r in small.itertuples())
            out.append(
                f"{len(small)} group(s) have fewer than {self.min_group} members and are flagged "
                f"‘small’ (kept, not dropped); their rates are imprecise: {listing(names, 8, '; ')}"
            )
        thin = self.table[~self.table["small"] & (self.table["n"] > 0)
                          & (self.table["n"] < self.min_group)]  # fmt: skip
        if len(thin):
            r = thin.iloc[0]
            out.append(
                f"{len(thin)} rate(s) of groups that are not small rest on fewer than "
                f"{self.min_group} rows in their denominator (e.g. {r['metric']} of "
                f"{r['attribute']} = {r['group']}: {r['k']} of {r['n']}); read their intervals"
            )
        empty_ref = sel[(sel["role"] == "reference") & (sel["members"] == 0)]
        out += [f"{r.attribute}: no row is non-protected on every attribute, so its groups have "
                "no reference group and no comparison" for r in empty_ref.itertuples()]  # fmt: skip
        empty = self.table[(self.table["n"] == 0) & (self.table["members"] > 0)]
        if len(empty):
            out.append(
                f"{len(empty)} rate(s) have an empty denominator (e.g. no favourable outcome in "
                "the group); they are left blank, as are the comparisons that need them"
            )
        undefined = self.summary()["four_fifths"].isna().sum()
        if undefined:
            out.append(
                f"{undefined} selection-rate ratio(s) are undefined (the reference group has no "
                "favourable decision, or the group is empty)"
            )
        out.append(
            f"intervals are {100 * (1 - self.alpha):g}% per comparison (Wilson for a rate, "
            "Newcombe for a difference, Katz for a ratio), not corrected for the number of "
            "groups compared, and neither are Fisher's p-values; the four-fifths rule is a rule "
            "of thumb on the point ratio, which the Uniform Guidelines read together with "
            "statistical significance (29 CFR 1607.4(D))"
        )
        return out

    # ------------------------------------------------------------------ export
    def numbers(self) -> dict[str, Any]:
        """The numbers of ``results.json``.

        Counts of the protected groups below four-fifths, statistically significant, both, and
        small; every comparison (:data:`_COMPARISON_KEYS`); the smallest selection ratio
        (:func:`min_ratio`); and ``scores`` when a score was audited.
        """
        summ = self.summary()
        return {
            "protected_groups": int(len(summ)),
            "below_four_fifths": int(summ["four_fifths"].fillna(False).sum()),
            "statistically_significant": int(summ["statistical"].fillna(False).sum()),
            "practical_and_statistical": int(
                (summ["adverse_impact"] == "practical and statistical").sum()
            ),
            "small_groups": int(self.rates()["small"].sum()),
            "comparisons": json_safe(summ[_COMPARISON_KEYS].to_dict(orient="records")),
            "min_selection_ratio": min_ratio(summ),
            **({} if self.scores is None else {"scores": self.scores.to_dict()}),
        }

    def extra_tables(self) -> dict[str, pd.DataFrame]:
        """The score tables computed (``thresholds``, ``auc``, ``calibration``), if any."""
        names = ("thresholds", "auc", "calibration") if self.scores is not None else ()
        return {k: getattr(self.scores, k) for k in names if getattr(self.scores, k) is not None}

    def plot(self, metric: str | None = None, ax: Any = None) -> Any:
        """Rates with their intervals per group (selection rate, plus TPR and FPR when the
        outcome is known); the reference group's rate is the dashed line. Returns the Figure.
        """
        from ..report.plots import group_rates

        metrics = [metric] if metric else ["selection_rate"] + ["tpr", "fpr"] * self.has_outcome
        frame = self.table[self.table["metric"].isin(metrics)]
        return group_rates(
            frame.assign(metric=frame["metric"].map(METRIC_LABELS)), ax=ax, level=1 - self.alpha
        )

    def __str__(self) -> str:
        return (
            f"GroupMetricsResult({len(self.attributes)} attribute(s), {self.n} rows)\n"
            + self.summary().to_string(index=False)
        )
