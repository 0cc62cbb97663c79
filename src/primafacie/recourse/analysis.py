"""FACTS recourse fairness as an audit analysis: definition, run adapter, report section.

:func:`run` builds the engine through :meth:`RecourseSpec.build`, runs it
(:meth:`RecourseFairness.run`), draws the comparative subgroup counterfactuals and takes the
headline, scope and caveats from the :class:`~primafacie.recourse.FactsResult`. :func:`section`
reads only the results (rankings, CSCs, effectiveness curves), never the engine.
``primafacie recourse --config`` calls the same :func:`run`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context, table_path, table_stem
from ..report import blocks as rb
from ..report import plots
from ..report.html import rate_text, readable_bins
from .csc import CSCResult
from .engine import STAGES
from .metrics import METRICS
from .results import FactsResult, RankingResult, format_param
from .spec import RecourseSpec
from .stability import STABLE_SHARE, RankStabilityResult, rank_stability

__all__ = [
    "ANALYSIS",
    "LEAD",
    "CURVES",
    "run",
    "section",
    "tables",
    "shown_subgroups",
    "definition_name",
    "headline_number",
]

LEAD = (
    "Recourse fairness asks how hard it is for rejected applicants to obtain a favourable "
    "decision by changing what they can change. For subgroups of rejected people (e.g. "
    "'temporary job, secondary education') it compares the protected and non-protected "
    "members: the same actions may help one group far more than the other."
)

#: How many subgroups get an effectiveness-curve figure (and rows in the curves table).
CURVES = 3


def shown_subgroups(results: Mapping[str, Any], limit: int = CURVES) -> list[str]:
    """The first subgroup of each CSC, in definition order, without repeats (at most
    ``limit``): the subgroups whose effectiveness curves the report draws."""
    cscs = [v for k, v in results.items() if k.startswith("csc_")]
    labels = dict.fromkeys(rec.label for csc in cscs for rec in csc.records[:1])
    return list(labels)[:limit]


def definition_name(ranking: RankingResult) -> str:
    """A definition named in words with its code in brackets, for the report.

    Examples
    --------
    >>> t = pd.DataFrame()
    >>> definition_name(RankingResult("ECE", "micro", 0.7, "Mi.7", "", (), t))
    'Equal cost of effectiveness, micro, φ = 0.7 (Mi.7)'
    >>> definition_name(RankingResult("ECMR", "micro", None, "MR", "", (), t))
    'Equal (conditional) mean recourse (MR)'
    """
    spec = METRICS[ranking.metric]
    words = [spec.name.capitalize()]
    if ranking.viewpoint != spec.default_viewpoint:  # as the title names it
        words.append(ranking.viewpoint)
    if spec.param:
        symbol = "φ" if spec.param == "phi" else spec.param
        words.append(f"{symbol} = {format_param(ranking.param)}")
    return ", ".join(words) + f" ({ranking.label})"


def _against(run: AnalysisRun) -> tuple[int, int, list[str]]:
    """The definitions whose first-ranked subgroup is biased against the protected values,
    the definitions, and those values (none known: 0 against)."""
    facts = run.results["definitions"]
    pv = [str(v) for v in facts.audited.protected_values] if facts.audited else []
    against = int(facts.top_subgroups()["bias_against"].astype(str).isin(pv).sum())
    return against, len(facts.rankings), pv


def headline_number(run: AnalysisRun) -> str:
    """``6 of 12 definitions against female``: the definitions whose first-ranked subgroup
    is biased against the protected group."""
    against, n_def, pv = _against(run)
    if not pv:
        top = run.results["definitions"].top_subgroups()
        return f"{len(top)} of {n_def} definitions rank a biased subgroup first"
    return f"{against} of {n_def} definitions against {', '.join(pv)}"


GLOSSARY = (
    ("φ", "the share of a group's rejected members of a subgroup that an action must bring "
     "to the favourable decision (ECR, ECE)."),
    ("EE", "Equal Effectiveness: the share of the group that the best single action helps."),
    ("C.φ (e.g. C.3)", "Equal Choice for Recourse at φ: how many actions help at least φ."),
    ("B<budget> (e.g. B1.04)", "Equal Effectiveness within Budget: the share helped by "
     "actions costing at most the budget."),
    ("Ma.φ, Mi.φ (e.g. Ma.3, Mi.7)", "Equal Cost of Effectiveness, macro / micro viewpoint: "
     "the least cost at which actions help φ of the group; ∞ when no action reaches φ."),
    ("KS", "Fair Effectiveness-Cost Trade-Off: the largest gap between the groups' "
     "effectiveness-cost curves."),
    ("MR", "Equal (Conditional) Mean Recourse: the mean cost of recourse of those helped."),
)  # fmt: skip


def finding(run: AnalysisRun) -> dict[str, Any]:
    """Definitions whose first-ranked subgroup is against the protected group (a concern
    when any is), the definitions as the denominator."""
    against, n_def, pv = _against(run)
    text = (
        f"{against} of {n_def} recourse definitions rank first a subgroup where recourse is "
        f"harder for {', '.join(pv) or 'the protected group'}"
    )
    return rb.verdict(against, n_def, text, "recourse harder", "no evidence")


def curves_frame(facts: FactsResult, subgroups: list[str]) -> pd.DataFrame:
    """Effectiveness curves of ``subgroups``: ``subgroup, group, n, cost, effectiveness``."""
    parts = [facts.effectiveness_curves(s).assign(subgroup=s) for s in subgroups]
    cols = ["subgroup", "group", "n", "cost", "effectiveness"]
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)


def run(spec: RecourseSpec, ctx: Context, audit: Any = None, **run_kwargs: Any) -> AnalysisRun:
    """FACTS: subgroups where recourse is harder for the protected group, with CSC cards.

    ``audit`` is an engine already built by ``spec.build(ctx.data, ctx)`` (the CLI passes
    one with ``--legacy``/``--loose`` applied); by default it is built here. ``run_kwargs``
    replace arguments of :meth:`RecourseSpec.run_kwargs` (the CLI's ``--budget``).
    """
    audit = spec.build(ctx.data, ctx) if audit is None else audit
    kwargs = {**spec.run_kwargs(), **run_kwargs}
    facts = audit.run(ctx.data, **kwargs, progress=lambda st, d, t: ctx.tick(d, t, STAGES[st]))
    results: dict[str, Any] = {"definitions": facts}
    for n_done, (label, ranking) in enumerate(facts.rankings.items()):
        ctx.tick(n_done, len(facts.rankings), STAGES["csc"])
        results[f"rank_{label}"] = ranking
        if len(ranking.ranked()):
            results[f"csc_{label}"] = audit.csc(**ranking.definition(), top=spec.top)
    ctx.tick(len(facts.rankings), len(facts.rankings), STAGES["csc"])
    if spec.n_boot > 0 and facts.rankings:
        # re-weights the fitted flip matrices: no model call, no mining (see .stability)
        results["rank_stability"] = rank_stability(audit, facts, n_boot=spec.n_boot, seed=spec.seed)
    if spec.dossiers is not None:  # pages dossiers/subgroup_<label>.html, read from the CSCs
        from ..report.dossier import build_subgroup_dossiers

        results["dossiers"] = build_subgroup_dossiers(
            results, spec.dossiers.top, redact=spec.dossiers.redact
        )
    curves = curves_frame(facts, shown_subgroups(results))
    return AnalysisRun.of("recourse", results, tables={table_stem("recourse", "curves"): curves})


def _score(score: float) -> str:
    return "∞" if np.isinf(score) else f"{score:.3g}"


#: Actions a card lists per group.
_CARD_ACTIONS = 3


def _shown_actions(actions: Sequence[Any]) -> list[Any]:
    """The card's actions, in their order: the first ones and, when it is not among them, the
    most effective (the first of equals), which sets the group's number under EE and the
    cumulative definitions (a card without it did not support its own score: 19.6% vs 40.3%
    shown for a score of 0.336 = 61.0% − 27.5%)."""
    if len(actions) <= _CARD_ACTIONS:
        return list(actions)
    best = max(range(len(actions)), key=lambda i: (actions[i].effectiveness, -i))
    if best < _CARD_ACTIONS:
        return list(actions[:_CARD_ACTIONS])
    return [*actions[: _CARD_ACTIONS - 1], actions[best]]


def _csc_card(ranking: RankingResult, rec: Any) -> dict[str, Any]:
    lines = [("muted", f"Definition: {definition_name(ranking)}")]
    for g in rec.groups:
        cover = f"{100 * g.coverage:.1f}% of the group's rejected"
        lines.append(("group", f"{g.group}: {g.n} rejected in the subgroup ({cover})"))
        if not g.actions:
            lines.append(("action", "  no action gives recourse under this definition"))
        for a in _shown_actions(g.actions):
            change = readable_bins(", ".join(f"{k} = {v}" for k, v in a.changes.items()))
            cost = f", cost {a.cost:.2f}" if a.cumulative else ""
            helped = f"{rate_text(int(a.flipped), int(a.n))} obtain the favourable decision"
            lines.append(("action", f"  make {change}: {helped}{cost}"))
        if len(g.actions) > _CARD_ACTIONS:  # the card is cut: say so, and where the rest is
            lines.append(("muted", f"  {_CARD_ACTIONS} of {len(g.actions)} actions shown "
                                   f"(every one in csc_{ranking.label}.txt)"))  # fmt: skip
    bias = f"bias against {rec.bias_against} (score {_score(rec.score)})"
    lines.append(("verdict", "no bias" if rec.score == 0 else bias))
    return {"title": f"#{rec.rank}: {readable_bins(rec.label)}",
            "lines": [{"cls": cls, "text": text} for cls, text in lines]}  # fmt: skip


def _findings(facts: FactsResult) -> list[str]:
    return [f"{definition_name(facts.rankings[row.definition])}: most unfair subgroup "
            f"'{readable_bins(row.subgroup)}', bias against {row.bias_against} "
            f"(score {_score(row.score)})." for row in facts.top_subgroups().itertuples()]  # fmt: skip


def _curve_figures(facts: FactsResult, subgroups: list[str]) -> list[Any]:
    blocks = []
    for sub in subgroups:
        curves = facts.effectiveness_curves(sub)
        n = zip(curves["group"], curves["n"], strict=True)
        labelled = curves.assign(group=[f"{g} (n={k})" for g, k in n])
        name = readable_bins(sub)
        figure = rb.figure(
            plots.cumulative_effectiveness(labelled, name),
            f"Cumulative effectiveness: {name}",
            "For rejected members of this subgroup: the share of each group that would "
            "obtain the favourable decision with an action costing at most the value on "
            "the x-axis. A curve that stays lower means recourse is harder for that group.",
        )
        # one collapsible group per subgroup; the first one opens
        blocks.append(rb.group(f"Subgroup {name}", [figure], "cumulative effectiveness"))
    return blocks


def _cards(results: Mapping[str, Any]) -> list[Any]:
    cards = [
        _csc_card(results[key.replace("csc_", "rank_", 1)], rec)
        for key, csc in results.items()
        if isinstance(csc, CSCResult)
        for rec in csc.records[:1]
    ]
    if not cards:
        return []
    return [
        rb.heading("Comparative subgroup counterfactuals"),
        rb.text(
            "Each card is a subgroup of rejected applicants. For each group it shows the actions "
            "that change the decision and how many of the group's members they help (count of "
            "the group's members in the subgroup)."
        ),
        {"kind": "cards", "cards": cards},
    ]


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The report section: definitions, effectiveness curves, CSC cards, the first ranking."""
    facts: FactsResult = run.results["definitions"]
    blocks: list[Any] = [
        *tables(facts),
        *_curve_figures(facts, shown_subgroups(run.results)),
        *_cards(run.results),
    ]
    stab = run.results.get("rank_stability")
    if isinstance(stab, RankStabilityResult):
        blocks += _stability_blocks(stab)
    first = next(iter(facts.rankings.values()), None)
    if first is not None:
        ranking = first.to_frame()
        ranking = ranking.assign(subgroup=ranking["subgroup"].astype(str).map(readable_bins))
        blocks.append(
            rb.table(
                ranking,
                f"Subgroup ranking: {definition_name(first)}",
                "rank 0 = no difference (fair); n[g] = rejected members of group g in the "
                "subgroup; cov[g] = their share of all rejected members of g; d[g] = difficulty.",
                csv=table_path("recourse", f"rank_{first.label}"),
                max_rows=25,
            )
        )
    return rb.section(_findings(facts), blocks)


def tables(facts: FactsResult) -> list[dict[str, Any]]:
    """The section's table of the definitions (subgroups, Fair, rank-1 ties, top-10%
    tallies), which ``primafacie recourse`` prints too (:func:`~primafacie.terminal.print_table`)."""
    names = [definition_name(r) for r in facts.rankings.values()]  # in words, code in brackets
    return [
        rb.table(
            facts.summary().assign(definition=names).drop(columns="metric"),
            "Definitions of recourse unfairness",
            "subgroups = subgroups audited; fair = subgroups with no difference; rank1 = "
            "subgroups tied first; top10_against[g] = among the first 10% of the ranked (not "
            "Fair) subgroups, ⌊0.1 × (subgroups − fair)⌋ of them in rank order (ties cut in "
            "that order), how many are biased against group g.",
            csv=table_path("recourse", "definitions_summary"),
        )
    ]


def _stability_blocks(stab: RankStabilityResult) -> list[Any]:
    """How often each top subgroup stays in the top 10 over the bootstrap resamples."""
    frame = stab.to_frame()
    ranks = ["" if np.isnan(lo) else f"{lo:.0f}–{hi:.0f}"
             for lo, hi in zip(frame["rank_q05"], frame["rank_q95"], strict=True)]  # fmt: skip
    shown = rb.columns(frame, {
        "definition": "definition", "rank": "competition_rank",
        "subgroup": frame["subgroup"].astype(str).map(readable_bins), "against": "bias_against",
        f"in top {stab.top}": "in_top", "median rank": "median_rank", "rank 5–95%": ranks,
        "fair": "fair_share",
    })  # fmt: skip
    return [
        rb.heading("Rank stability"),
        rb.text(readable_bins(stab.headline() + ". " + stab.scope() + ".")),
        rb.figure(
            stab.plot(),
            f"How often each top subgroup stays in the top {stab.top}",
            f"Share of {stab.n_boot} bootstrap resamples of the {stab.n_rows} audited rows "
            f"(seed {stab.seed}) in which the subgroup ranks in the top {stab.top} under the "
            f"first definition; dashed line: {100 * STABLE_SHARE:.0f}%.",
        ),
        rb.table(
            shown,
            f"Rank stability over {stab.n_boot} resamples",
            f"rank = competition rank on the data (1 + subgroups scoring higher); in top "
            f"{stab.top} = share of resamples with rank ≤ {stab.top} (ties at the boundary count "
            "as in); median rank and 5–95% range over the resamples where it is ranked; fair = "
            "share where it scores 0. Subgroups and actions stay those mined on the data; only "
            "who is drawn changes.",
            csv=table_path("recourse", "rank_stability"),
            max_rows=40,
        ),
    ]


def seeds(spec: RecourseSpec) -> dict[str, int]:
    """The seed of the rank-stability bootstrap (none when it is off)."""
    return {"recourse_rank_stability": int(spec.seed)} if spec.n_boot > 0 else {}


def assumptions(spec: Mapping[str, Any], cfg: Mapping[str, Any]) -> list[str]:
    """Subgroups, immutable features and costs behind the rankings."""
    return [
        f"Recourse: subgroups are frequent itemsets (support ≥ {spec['support']}); actions "
        f"never change immutable features {spec['immutable'] or '(none declared)'}; costs "
        "follow the configured feature weights."
    ]


ANALYSIS = Analysis.define(
    globals(),
    name="recourse",
    reference_rows=True,
    title="Recourse fairness",
    spec=RecourseSpec,
    description="FACTS subgroup recourse fairness.",
)
