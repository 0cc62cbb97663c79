"""FACTS recourse fairness as an audit analysis: definition, run adapter, report section."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context, result_tables, table_path
from ..jsonsafe import json_safe
from ..report import blocks as rb
from ..report import plots
from ..report.html import rate_text
from .plots import ecd_steps
from .spec import RecourseSpec

__all__ = ["ANALYSIS", "LEAD", "EffectivenessCurves", "run", "section"]

LEAD = (
    "Recourse fairness asks how hard it is for rejected applicants to obtain a favourable "
    "decision by changing what they can change. For subgroups of rejected people (e.g. "
    "'temporary job, secondary education') it compares the protected and non-protected "
    "members: the same actions may help one group far more than the other."
)


@dataclass(frozen=True)
class EffectivenessCurves:
    """Cumulative effectiveness (micro ecd) per group of a few subgroups, as a table.

    ``frame`` has one row per (subgroup, group, cost step): ``subgroup``, ``group``, ``n``
    (rejected members of the group in the subgroup), ``cost`` and ``effectiveness`` (share of
    those members with recourse at cost ≤ ``cost``).
    """

    subgroups: tuple[str, ...]
    frame: pd.DataFrame

    @classmethod
    def of(cls, audit: Any, subgroups: list[str]) -> EffectivenessCurves:
        """The curves of ``subgroups`` from a fitted :class:`RecourseAudit`."""
        rows = []
        for sub in subgroups:
            s_idx = audit.subgroup_index(sub)
            for gi, g in enumerate(audit.groups_):
                x, y = ecd_steps(audit, s_idx, gi)
                n_g = int(audit.table_.n[s_idx, gi])
                rows.append(
                    pd.DataFrame(
                        {"subgroup": sub, "group": str(g), "n": n_g, "cost": x, "effectiveness": y}
                    )
                )
        cols = ["subgroup", "group", "n", "cost", "effectiveness"]
        frame = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=cols)
        return cls(tuple(subgroups), frame)

    def of_subgroup(self, subgroup: str) -> pd.DataFrame:
        """One subgroup's curves in the plot's layout (group labelled with its n)."""
        sel = self.frame[self.frame["subgroup"] == subgroup]
        return pd.DataFrame(
            {
                "group": [f"{g} (n={n})" for g, n in zip(sel["group"], sel["n"], strict=True)],
                "cost": sel["cost"].to_numpy(),
                "effectiveness": sel["effectiveness"].to_numpy(),
            }
        )

    def to_frame(self) -> pd.DataFrame:
        return self.frame

    def summary(self) -> None:
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"subgroups": list(self.subgroups), "curves": json_safe(self.frame)}


def run(spec: Any, ctx: Context) -> AnalysisRun:
    """FACTS: subgroups where recourse is harder for the protected group, with CSC cards."""
    data, tick = ctx.data, ctx.tick
    audit = spec.build(data, ctx.decider)
    attr = audit.protected
    tick(0, 3, "mining subgroups and actions")
    audit.fit(data)
    tick(1, 3, "scoring definitions")
    facts = audit.evaluate(phi=list(spec.phi), metrics=spec.metrics)
    tick(2, 3, "comparative counterfactuals")
    results: dict[str, Any] = {"definitions": facts}
    cards: dict[str, Any] = {}
    for label, ranking in facts.rankings.items():
        results[f"rank_{label}"] = ranking
        if len(ranking.ranked()):
            csc = audit.csc(
                ranking.metric, ranking.viewpoint,
                phi=ranking.param if ranking.metric in ("ECR", "ECE") else None,
                budget=ranking.param if ranking.metric == "EEWB" else None,
                top=min(spec.top, 3),
            )  # fmt: skip
            results[f"csc_{label}"] = csc
            cards[label] = csc
    shown = list(dict.fromkeys(rec.label for csc in cards.values() for rec in csc.records[:1]))
    results["curves"] = EffectivenessCurves.of(audit, shown[:3])
    protected_groups = [str(v) for v in data.protected[attr]]
    against = []
    for label, ranking in facts.rankings.items():
        ranked = ranking.ranked()
        if len(ranked):
            top = ranked.iloc[0]
            against.append((label, str(top["subgroup"]), top["bias_against"], top["score"]))
    n_against = sum(1 for a in against if a[2] in protected_groups)
    headline = (
        f"{n_against} of {len(facts.rankings)} recourse definitions rank first a subgroup biased "
        f"against the protected group ({', '.join(protected_groups)}) of {attr}; "
        f"{int(audit.stats_.get('subgroups', len(audit.subgroup_labels())))} subgroups audited"
    )
    if against:
        label, sub, bias, score = against[0]
        score_txt = (
            "score ∞: recourse is out of reach for that group"
            if math.isinf(float(score))
            else f"score {float(score):.3g}"
        )
        headline += f"; e.g. {label}: '{sub}' against {bias} ({score_txt})"
    numbers = {
        "protected": attr,
        "stats": json_safe(audit.stats_),
        "top_by_definition": [
            {"definition": a[0], "subgroup": a[1], "bias_against": a[2], "score": a[3]}
            for a in against
        ],
    }
    tables = result_tables("recourse", results)
    affected = ", ".join(
        f"{int(n)} {g}" for g, n in zip(audit.groups_, audit.n_affected_, strict=True)
    )
    scope = (
        f"rejected applicants by {attr}: {affected}; "
        f"{len(audit.subgroup_labels())} subgroups (support ≥ {spec.support}), "
        f"{len(facts.rankings)} definitions"
    )
    return AnalysisRun(
        "recourse",
        "ok",
        scope=scope,
        results=results,
        tables=tables,
        numbers=numbers,
        headline=headline,
    )


def _csc_card(label: str, title: str, rec: Any) -> dict[str, Any]:
    lines = [{"cls": "muted", "text": f"Definition {label}: {title}"}]
    for g in rec.groups:
        lines.append(
            {
                "cls": "group",
                "text": f"{g.group}: {g.n} rejected in the subgroup ({100 * g.coverage:.1f}% of "
                "the group's rejected)",
            }
        )
        if not g.actions:
            lines.append(
                {"cls": "action", "text": "  no action gives recourse under this definition"}
            )
        for a in g.actions[:3]:
            change = ", ".join(f"{k} = {v}" for k, v in a.changes.items())
            cost = f", cost {a.cost:.2f}" if a.cumulative else ""
            lines.append(
                {
                    "cls": "action",
                    "text": f"  make {change}: {rate_text(int(a.flipped), int(a.n))} obtain the "
                    f"favourable decision{cost}",
                }
            )
    score = "∞" if np.isinf(rec.score) else f"{rec.score:.3g}"
    verdict = "no bias" if rec.score == 0 else f"bias against {rec.bias_against} (score {score})"
    lines.append({"cls": "verdict", "text": verdict})
    return {"title": f"#{rec.rank}: {rec.label}", "lines": lines}


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The report section: definitions, effectiveness curves, CSC cards, the first ranking."""
    facts = run.results["definitions"]
    cards_by_def = {
        k.removeprefix("csc_"): v for k, v in run.results.items() if k.startswith("csc_")
    }
    findings = []
    for item in run.numbers.get("top_by_definition", []):
        score = item["score"]
        score_txt = "∞" if isinstance(score, float) and np.isinf(score) else f"{score:.3g}"
        findings.append(
            f"{item['definition']}: most unfair subgroup '{item['subgroup']}', bias against "
            f"{item['bias_against']} (score {score_txt})."
        )
    blocks: list[dict[str, Any]] = []
    summary = facts.summary()
    blocks.append(
        rb.table(
            summary,
            "Definitions of recourse unfairness",
            "subgroups = subgroups audited; fair = subgroups with no difference; rank1 = "
            "subgroups tied first; top10_against[g] = among the top 10% ranked subgroups, how "
            "many are biased against group g.",
            csv=table_path("recourse", "definitions_summary"),
        )
    )
    curves = run.results.get("curves")
    for sub in curves.subgroups if curves is not None else ():
        blocks.append(
            rb.figure(
                plots.cumulative_effectiveness(curves.of_subgroup(sub), sub),
                f"Cumulative effectiveness: {sub}",
                "For rejected members of this subgroup: the share of each group that would "
                "obtain the favourable decision with an action costing at most the value on "
                "the x-axis. A curve that stays lower means recourse is harder for that group.",
            )
        )
    cards = []
    for label, csc in cards_by_def.items():
        for rec in csc.records[:1]:
            cards.append(_csc_card(label, csc.title, rec))
    if cards:
        blocks.append(rb.heading("Comparative subgroup counterfactuals"))
        blocks.append(
            {
                "kind": "text",
                "text": "Each card is a subgroup of rejected applicants. For each group it shows "
                "the actions that change the decision and how many of the group's members they "
                "help (count of the group's members in the subgroup).",
            }
        )
        blocks.append({"kind": "cards", "cards": cards})
    first = next(iter(facts.rankings.values()), None)
    if first is not None:
        blocks.append(
            rb.table(
                first.to_frame(),
                f"Subgroup ranking: {first.title}",
                "rank 0 = no difference (fair); n[g] = rejected members of group g in the "
                "subgroup; cov[g] = their share of all rejected members of g; d[g] = difficulty.",
                csv=table_path("recourse", f"rank_{first.label}"),
                max_rows=25,
            )
        )
    return rb.section(findings, blocks)


def assumptions(spec: Mapping[str, Any], cfg: Mapping[str, Any]) -> list[str]:
    """Subgroups, immutable features and costs behind the rankings."""
    return [
        f"Recourse: subgroups are frequent itemsets (support ≥ {spec['support']}); actions "
        f"never change immutable features {spec['immutable'] or '(none declared)'}; costs "
        "follow the configured feature weights."
    ]


ANALYSIS = Analysis(
    name="recourse",
    title="Recourse fairness",
    lead=LEAD,
    spec=RecourseSpec,
    run=run,
    section=section,
    description="FACTS subgroup recourse fairness.",
    assumptions=assumptions,
)
