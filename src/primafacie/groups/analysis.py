"""Group metrics as an audit analysis: its definition, run adapter and report section.

Registered first, so the numbers every regulator asks for (selection rates, the four-fifths
ratio, error-rate gaps) open the executive summary. On by default (``default_on``): an
``audit.yaml`` without ``analyses.groups`` runs it with the spec's defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context, table_path
from ..errors import InputError
from ..formats import interval_text, listing, rate_text
from ..report import blocks as rb
from ..weights import METHOD as WEIGHTS_METHOD
from .params import FOUR_FIFTHS
from .results import METRIC_LABELS
from .score_section import score_blocks, score_check
from .spec import GroupsSpec
from .trend import trend

__all__ = ["ANALYSIS", "LEAD", "run", "section", "tables"]

#: Label of the engine's Result in ``AnalysisRun.results`` (and of its CSV tables).
LABEL = "metrics"

LEAD = (
    "The numbers regulators ask for first: for each protected attribute and their "
    "intersections, the share of each group that gets the favourable decision (selection "
    "rate), its difference from and ratio to the non-protected (reference) group, and the "
    "four-fifths rule (a ratio below 0.8 suggests adverse impact). When the true outcome is "
    "known, error rates per group follow: equal opportunity compares true positive rates, "
    "equalized odds also false positive rates. Every rate is k of n with its interval."
)


def run(spec: Any, ctx: Context) -> AnalysisRun:
    """Measure every group of the audited data with the engine built by the spec."""
    res = spec.build(ctx.data, ctx).run(ctx.data)
    caveats = res.caveats() + (res.scores.caveats() if res.scores is not None else [])
    return AnalysisRun.of("groups", {LABEL: res}, caveats=caveats)


def _ci(s: pd.DataFrame, est: str, stem: str | None = None, digits: int = 3) -> list[Any]:
    """``0.123 [0.045, 0.201]`` cells of column ``est`` with ``<stem>_low`` / ``<stem>_high``
    (stem: est), sorted by the estimate (blank when undefined)."""
    low, high = s[f"{stem or est}_low"], s[f"{stem or est}_high"]
    return [(interval_text(e, digits, lo, hi), float(e))
            for e, lo, hi in zip(s[est].astype(float), low, high, strict=True)]  # fmt: skip


def _comparison_table(res: Any) -> pd.DataFrame:
    """One row per protected group: rates, difference, ratio, four-fifths, error gaps."""
    s = res.summary()
    fifths = s["four_fifths"].astype(object).where(s["four_fifths"].notna(), "undefined")
    adverse = list(map(_adverse_cell, s["adverse_impact"], s["fisher_p"], s["shortfall"]))
    columns = {
        "attribute": "attribute", "group": s["group"] + np.where(s["small"], " (small)", ""),
        "selection rate": _summary_rates(res, s, "selection"), "reference": "reference",
        "reference rate": _summary_rates(res, s, "reference"),
        "difference [CI]": _ci(s, "selection_diff"), "ratio [CI]": _ci(s, "selection_ratio", digits=2),
        f"below {FOUR_FIFTHS:g}": fifths, "adverse impact (UGESP)": adverse,
    }  # fmt: skip
    if res.has_outcome:
        columns |= {
            "equal opportunity (TPR gap) [CI]": _ci(s, "equal_opportunity_diff"),
            "FPR gap [CI]": _ci(s, "fpr_diff"),
            "equalized odds [CI]": _ci(s, "equalized_odds_diff", "equalized_odds"),
        }
    return rb.columns(s, columns)


def _summary_rates(res: Any, s: pd.DataFrame, prefix: str) -> list[tuple[str, float]]:
    """The selection or reference rate cells of the comparison table: ``k of n``, or the
    weighted rate with its rows and Kish effective size."""
    if res.weights is None:
        return rb.rates(s[f"{prefix}_k"], s[f"{prefix}_n"])
    return [(res.rate_words(row, prefix), float(row[f"{prefix}_rate"])) for _, row in s.iterrows()]


def _adverse_cell(criteria: str, p: float, short: float) -> str:
    """``practical and statistical (Fisher p < 0.001; shortfall 41.3)``: the p-value with
    three decimals, or the bound below 0.001."""
    if criteria == "undefined" or pd.isna(p):
        return "undefined"
    text = f"{criteria} (Fisher {'p < 0.001' if p < 0.001 else f'p = {p:.3f}'}"
    return text + (f"; shortfall {short:.1f})" if short > 0 else ")")


def _rates_table(res: Any) -> pd.DataFrame:
    """One row per group: members, role and each metric as ``rate (k of n) [interval]``
    (``25.0% (1 of 4; 95% CI 4.6–69.9%)``, sorted by the rate, blank when n = 0)."""
    frame = res.to_frame()
    first = frame[frame["metric"] == "selection_rate"]
    cols = ("attribute", "group", "role", "members", "small")
    table = pd.DataFrame({c: first[c].to_numpy() for c in cols})
    level = f"{100 * (1 - res.alpha):g}%"
    for metric, rows in frame.groupby("metric", sort=False):
        if res.weights is None:
            cells = zip(rows["k"], rows["n"], rows["ci_low"], rows["ci_high"], strict=True)
            table[METRIC_LABELS[metric]] = [
                (rate_text(k, n, ci=(lo, hi), level=level), rb.rate_cell(k, n)[1])
                for k, n, lo, hi in cells
            ]
            continue
        table[METRIC_LABELS[metric]] = [
            (f"{100 * r:.1f}% weighted ({int(n):,} rows, n_eff {ne:,.1f}; CI {100 * lo:.1f}–"
             f"{100 * hi:.1f}%)", float(r)) if n else ("—", float("nan"))
            for r, n, ne, lo, hi in zip(rows["rate"], rows["n"], rows["n_eff"], rows["ci_low"],
                                        rows["ci_high"], strict=True)
        ]  # fmt: skip
    return table


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The report section: rates with intervals, the comparisons, every group's rates."""
    res = run.results[LABEL]
    level = f"{100 * (1 - res.alpha):g}%"
    s = res.summary()
    findings = [run.headline, *(f"Compared: {c}." for c in _reference_sentences(res))] + [
        f"{r.attribute} = {r.group}: selection rate {res.rate_words(r, 'selection')} vs "
        f"{res.rate_words(r, 'reference')} for {r.reference}; ratio "
        f"{r.selection_ratio:.2f} ({level} CI {r.selection_ratio_low:.2f}–"
        f"{r.selection_ratio_high:.2f}), difference {r.selection_diff:+.3f}."
        for _, r in s[s["four_fifths"].fillna(False).astype(bool)].head(10).iterrows()
    ]
    blocks = [
        rb.figure(
            res.plot(),
            "Rates per group with their intervals",
            f"Each point is a group's rate, each bar its {level} Wilson interval; the dashed line "
            "is the reference (non-protected) group's selection rate. Groups marked (small) "
            f"have fewer than {res.min_group} members.",
        ),
        *tables(res),
        rb.table(
            _rates_table(res),
            "Rates of every group",
            f"rate (k of n) [{level} Wilson interval]; ‘non-protected’ groups are pooled into "
            "the reference; ‘left out’ groups are in neither group of a comparison with a "
            "listed reference."
            + (f" Weighted by {res.weights}: {WEIGHTS_METHOD}." if res.weights else ""),
            csv=table_path("groups", LABEL),
            max_rows=80,
        ),
    ]
    score_findings, score_part = score_blocks(res.scores)
    return rb.section(findings + score_findings, blocks + score_part + _trend_blocks(run))


def tables(res: Any) -> list[dict[str, Any]]:
    """The section's table of each protected group against its reference group, which
    ``primafacie groups`` prints too (:func:`primafacie.terminal.print_table`)."""
    level = f"{100 * (1 - res.alpha):g}%"
    eq_odds = (" Equalized odds = max(|TPR gap|, |FPR gap|), its interval from the two gaps' "
               "intervals at half the level each (Bonferroni)." if res.has_outcome else "")  # fmt: skip
    return [
        rb.table(
            _comparison_table(res),
            "Each protected group against the reference group",
            f"Difference = group rate − reference rate ({level} Newcombe interval); ratio = "
            f"group rate / reference rate ({level} Katz log interval); below "
            f"{FOUR_FIFTHS:g} = the four-fifths rule flags adverse impact. Adverse impact "
            "(Uniform Guidelines, 29 CFR 1607.4(D)): which of the practical criterion (below "
            f"four-fifths) and the statistical one (Fisher's exact test, two-sided, p < "
            f"{res.alpha:g}) hold; shortfall = favourable decisions the group would need to "
            "reach the reference rate." + eq_odds,
            csv=table_path("groups", f"{LABEL}_summary"),
        )
    ]


def _reference_sentences(res: Any) -> list[str]:
    """Each comparison with a listed or ``highest`` reference, and the rows it left out."""
    from ..reference import TIE_RULE

    out = []
    for c in res.comparisons if res.referenced else ():
        text = f"{c['attribute']}: protected groups vs {c['reference']}"
        highest = [a for a, rule in c["rules"].items() if rule == "highest"]
        if highest:
            text += f" (for {', '.join(highest)}: the highest selection rate; {TIE_RULE})"
        if c["left_out"]:
            text += (f" ({c['left_out']:,} rows, {100 * c['left_out_share']:.1f}%, of other "
                     f"groups left out: {listing(c['left_out_groups'], 8)})")  # fmt: skip
        out.append(text)
    return out


def _trend_blocks(run: AnalysisRun) -> list[Any]:
    """The trend over time windows (``time:`` in audit.yaml): figure and table, or nothing."""
    return rb.trend(
        run.results.get("trend"), _trend_table,
        "Each point is a protected group's selection ratio to its reference group in one "
        "window, each bar its Katz log interval; hollow points and '(small)' mark windows "
        "with fewer decisions than the minimum; the dashed line is four-fifths.",
        "Group metrics per time window",
        "Every window is shown; small windows are flagged and windows that could not be "
        "measured keep their status.",
        table_path("groups", "trend"),
    )  # fmt: skip


def _trend_table(tr: Any) -> pd.DataFrame:
    """Every window's counts and the selection ratio with its interval."""
    table = tr.to_frame()[["window", "window_n", "window_small", "status", "attribute", "group",
                           "selection_k", "selection_n", "reference_k", "reference_n"]].copy()  # fmt: skip
    return table.assign(**{"selection ratio [CI]": _ci(tr.frame, "selection_ratio", digits=2)})


def check(spec: Any, config: Any) -> None:
    """``analyses.groups.protected`` names protected attributes and ``thresholds``/``sweep``
    have a score (checked before any data)."""
    unknown = [a for a in spec.protected or () if a not in config.protected]
    if unknown:
        raise InputError(
            f"analyses.groups.protected: {unknown} are not protected attributes; "
            f"protected: {list(config.protected)}"
        )
    score_check(spec, config)


def headline_number(run: AnalysisRun) -> str:
    """``1 of 3 groups below four-fifths``: the protected groups whose selection-rate ratio
    to their reference group is under 0.8."""
    n = run.numbers
    return f"{n['below_four_fifths']} of {n['protected_groups']} groups below four-fifths"


def finding(run: AnalysisRun) -> dict[str, Any]:
    """Below four-fifths (a concern) or not, with the groups as the denominator."""
    below, groups = int(run.numbers["below_four_fifths"]), int(run.numbers["protected_groups"])
    text = (
        f"{below} of {groups} protected groups have a selection rate below four-fifths of "
        "their reference group's"
    )
    return rb.verdict(below, groups, text, "below four-fifths", "none below four-fifths")


def overview(run: AnalysisRun) -> Any:
    """The rates figure, for :meth:`AuditResult.plot`."""
    return run.results[LABEL].plot()


ANALYSIS = Analysis.define(
    globals(),
    trend=trend,  # imported from .trend, not defined here
    name="groups",
    weights=True,
    title="Group metrics",
    spec=GroupsSpec,
    description="Selection rates, four-fifths ratios and error-rate gaps per group "
    "(on by default; groups: null turns it off).",
    default_on=True,
    client_only=True,  # pandas group counts in this process: beside the next analysis on Dask
    reads_features=False,
)
