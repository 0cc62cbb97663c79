"""Certainty of fairness as an audit analysis: its definition, run adapter and report section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..analysis import Analysis, AnalysisRun, Context, table_path
from ..report import blocks as rb
from ..report import plots
from ..report.html import rate_text
from .spec import CertaintySpec
from .trend import trend

__all__ = ["ANALYSIS", "LEAD", "run", "section", "tables"]

LEAD = (
    "Several decision-makers (models, rules, people) are compared on the gap in "
    "favourable-decision rates between groups (the disparity) and on how sure we can be "
    "of that gap given the number of decisions behind it (the uncertainty). The preferred "
    "decision-maker is the one that is most certainly fair."
)


def check_data(spec: Any, data: Any, cfg: Any) -> None:
    """Protected columns within max_levels and every recorded or rule decision-maker readable,
    before any analysis runs."""
    spec.build(data).check(data, decision_makers=spec.decision_makers_of(cfg, data))


#: Utility levels whose indifference curves the report's plane draws.
PLANE_LEVELS = (-0.6, -0.3, 0.0, 0.3, 0.6)


def plane_curves(levels: tuple[float, ...] = PLANE_LEVELS) -> list[tuple[float, Any, Any]]:
    """``(level, disparity, uncertainty)`` of each u_topsis indifference curve in the unit
    square, computed here (:func:`~.utility.indifference_curve`) for the report to draw."""
    from .utility import indifference_curve

    return [(c, *indifference_curve(c)) for c in levels]


def run(spec: Any, ctx: Context) -> AnalysisRun:
    """Rank the decision-makers by how certainly fair they are.

    The engine and the decision-makers come from the spec (as ``primafacie certainty
    --config`` does); headline, scope and caveats are the Result's own.
    """
    dms = spec.decision_makers_of(ctx.config, ctx.data)
    res = spec.build(ctx.data, ctx).run(ctx.data, decision_makers=dms)
    return AnalysisRun.of("certainty", {"ranking": res})


#: Under the ranking table: what P(most fair) is (see :mod:`.probability`).
_P_MOST_FAIR_NOTE = (
    "P(most fair) = posterior probability that the decision-maker's disparity (max − min of "
    "its groups' true rates) is the smallest of those compared: share of {n:,} draws from the "
    "groups' Beta posteriors (seed {seed}; Monte Carlo standard error at most 0.5/√draws). It measures "
    "how sure the data make us of the smallest gap; the utility ranks by the point estimate "
    "and its uncertainty."
)


#: The ranking table as shown: ``{heading: column}``, a pair of columns is ``k of n``.
_RANKING_COLUMNS = {
    "rank": "rank", "decision-maker": "decision_maker",
    "most privileged": "most_privileged", "rate (most privileged)": ("k_i", "n_i"),
    "least privileged": "least_privileged", "rate (least privileged)": ("k_j", "n_j"),
    "disparity": "disparity", "uncertainty": "uncertainty", "utility": "utility",
    "accuracy": "accuracy", "selected": "selected", "P(most fair)": "p_most_fair",
}  # fmt: skip


def _ranking_columns(frame: Any) -> dict[str, Any]:
    """:data:`_RANKING_COLUMNS`, the accuracy as ``k of n`` correct decisions when every
    decision-maker has one (it was a bare 0.633 with no count)."""
    if frame["accuracy_n"].isna().any():  # no outcome, or a decision-maker without one
        return _RANKING_COLUMNS
    return {**_RANKING_COLUMNS, "accuracy": ("accuracy_k", "accuracy_n")}


def seeds(spec: CertaintySpec) -> dict[str, int]:
    """The seed of the posterior draws behind ``p_most_fair``."""
    return {} if spec.n_draws is None else {"certainty_posterior_draws": int(spec.seed)}


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The report section: the ranking, the (disparity, uncertainty) plane, group rates."""
    res = run.results["ranking"]
    table = res.to_frame()
    chosen = table[table["selected"].astype(bool)].head(1)
    findings = [
        f"The selection is relative to the {len(table)} decision-makers compared: "
        f"{r.decision_maker} is the most certainly fair of them, yet its favourable rate "
        f"still differs by {100 * r.disparity:.1f} percentage points between "
        f"{r.most_privileged} and {r.least_privileged}."
        for r in chosen.itertuples()
        if r.disparity > 0.1
    ] + [
        f"{r.decision_maker} (rank {r.rank}): favourable rate "
        f"{rate_text(int(r.k_i), int(r.n_i))} for {r.most_privileged} vs "
        f"{rate_text(int(r.k_j), int(r.n_j))} for {r.least_privileged}; disparity "
        f"{r.disparity:.3f}, uncertainty {r.uncertainty:.4f}, utility {r.utility:.3f}"
        + ("." if np.isnan(r.p_most_fair) else f"; P(most fair) {r.p_most_fair:.2f}.")
        for r in table.itertuples()
    ]
    plane = table.rename(columns={"decision_maker": "name"})
    blocks = [
        rb.figure(
            plots.certainty_plane(plane, res.selected, plane_curves()),
            "Decision-makers in the (disparity, uncertainty) plane",
            f"Selected: {', '.join(res.selected)} (ringed). The grey lines are indifference "
            "curves of the TOPSIS utility: points on one line are equally preferred; the "
            "dashed line δ = 0.5 separates fair-leaning from unfair-leaning decision-makers.",
        ),
        *tables(res),
        rb.table(
            res.counts_frame()[["decision_maker", "group", "n", "k", "rate", "ci_low", "ci_high"]],
            "Favourable decisions per group",
            f"k favourable decisions of n in the group; ci = {100 * res.ci_level:g}% credible "
            f"interval of the rate (Beta({res.prior[0]:g}, {res.prior[1]:g}) prior).",
            csv=table_path("certainty", "group_counts"),
            max_rows=60,
        ),
    ]
    return rb.section(findings, blocks + _trend_blocks(run))


def tables(res: Any) -> list[dict[str, Any]]:
    """The section's ranking of the decision-makers, which ``primafacie certainty`` prints
    too (:func:`primafacie.terminal.print_table`)."""
    return [
        rb.table(
            rb.columns(frame := res.to_frame(), _ranking_columns(frame)),
            "Ranking of the decision-makers",
            "" if res.n_draws is None else _P_MOST_FAIR_NOTE.format(n=res.n_draws, seed=res.seed),
            csv=table_path("certainty", "ranking"),
        )
    ]


def _trend_blocks(run: AnalysisRun) -> list[Any]:
    """The ranking over time windows (``time:`` in audit.yaml): figure and table, or nothing."""
    cols = ["window", "window_n", "window_small", "status", "decision_maker", "rank", "selected",
            "disparity", "disparity_low", "disparity_high", "uncertainty"]  # fmt: skip
    return rb.trend(
        run.results.get("trend"), lambda tr: tr.to_frame()[cols],
        "Each point is a decision-maker's disparity in one window, each bar its 95% Newcombe "
        "interval; hollow points and '(small)' mark windows with fewer decisions than the "
        "minimum.",
        "Ranking per time window",
        "Every window is shown; small windows are flagged and windows where the ranking could "
        "not be made keep their status.",
        table_path("certainty", "trend"),
    )  # fmt: skip


def headline_number(run: AnalysisRun) -> str:
    """``fairest of 4: scorecard, disparity 0.12``: the selected decision-maker."""
    table = run.results["ranking"].to_frame()
    chosen = table[table["selected"].astype(bool)]
    if chosen.empty:
        return f"{len(table)} decision-makers compared"
    r = chosen.iloc[0]
    return f"fairest of {len(table)}: {r['decision_maker']}, disparity {r['disparity']:.3f}"


def finding(run: AnalysisRun) -> dict[str, Any]:
    """A comparison of decision-makers, not a test: a neutral badge."""
    return {"level": "neutral", "badge": "comparison", "sentence": headline_number(run),
            "strength": 0.0}  # fmt: skip


def assumptions(spec: Mapping[str, Any], cfg: Mapping[str, Any]) -> list[str]:
    """The prior and the utility behind the ranking."""
    utility = "TOPSIS" if spec.get("utility", "topsis") == "topsis" else "u_norm"
    return [
        "Certainty of fairness: each group's favourable rate has a uniform Beta(1, 1) prior; "
        f"the utility is {utility} (certainly fair ≻ uncertainly fair ≻ uncertainly unfair ≻ "
        "certainly unfair)."
    ]


ANALYSIS = Analysis.define(
    globals(),
    trend=trend,  # imported from .trend, not defined here
    name="certainty",
    weights=True,
    reference_rows=True,
    title="Certainty of fairness",
    spec=CertaintySpec,
    description="Ranking of decision-makers by certainty of fairness.",
)
