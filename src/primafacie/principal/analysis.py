"""Principal-stratum fairness as an audit analysis: definition, run adapter, report section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context, result_tables, table_path
from ..jsonsafe import json_safe
from ..report import blocks as rb
from ..report import plots
from .spec import PrincipalSpec

__all__ = ["ANALYSIS", "LEAD", "run", "section"]

LEAD = (
    "Principal-stratum fairness uses the true outcome (here: whether the loan is repaid). "
    "It asks whether the decision treats protected and non-protected people differently "
    "among those whose outcome would be the same whatever their group. These strata are "
    "never observed, so the analysis gives bounds: an interval that excludes 0 proves "
    "unfairness; one that contains 0 means no violation can be shown."
)


def run(spec: Any, ctx: Context) -> AnalysisRun:
    """Principal-stratum counterfactual fairness (Definitions 1 and 2) and the minimal repair."""
    data = ctx.data
    pf = spec.build(data)
    attr = pf.protected
    res = pf.evaluate(data)
    results: dict[str, Any] = {"evaluation": res, "repair": pf.repair(data, seed=spec.seed)}
    summ = res.summary()
    main = summ[summ["definition"].isin(list(spec.definitions))]
    viol = main[main["verdict"].astype(str).str.lower().str.startswith("violat")]
    parts = []
    for r in main.itertuples():
        eps = "" if pd.isna(r.eps_sum) else f", minimal repair ε = {r.eps_sum:.4f}"
        parts.append(f"Definition {r.definition} ({r.cell}): {r.verdict}{eps}")
    headline = (
        f"{len(viol)} of {len(main)} checks refute principal-stratum fairness for {attr} "
        f"({int(main['n'].iloc[0]) if len(main) else 0} people) — " + "; ".join(parts)
    )
    n_prot = int(data.protected_mask(attr).sum())
    scope = (
        f"{attr}: {n_prot} protected and {data.n - n_prot} other people, true outcome "
        f"{data.outcome!r}, definitions {', '.join(map(str, spec.definitions))}, "
        f"{res.n_cells} covariate cell(s)"
    )
    return AnalysisRun(
        "principal",
        "ok",
        scope=scope,
        results=results,
        tables=result_tables("principal", results),
        numbers={
            "protected": attr,
            "violations": int(len(viol)),
            "checks": int(len(main)),
            "verdicts": json_safe(main.to_dict(orient="records")),
        },
        headline=headline,
    )


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The report section: verdicts per cell and definition, bounds, the minimal repair."""
    res = run.results["evaluation"]
    summary = res.summary()
    frame = res.to_frame()
    defs = [int(d) for d in cfg["analyses"]["principal"]["definitions"]]
    coding = f"A=1: {res.protected} = {res.a1}; A=0: {res.protected} = {res.a0}"
    findings = [f"Coding of the protected attribute: {coding}."]
    for r in summary[summary["definition"].isin(defs)].itertuples():
        findings.append(
            f"Definition {r.definition}, cell {r.cell} ({r.n_a1} with A=1 = {res.a1}, "
            f"{r.n_a0} with A=0 = {res.a0}): "
            f"{r.verdict}; {r.evidence}"
            + (f"; minimal repair ε = {r.eps_sum:.4f}" if not pd.isna(r.eps_sum) else "")
        )
    iv = frame[frame["quantity"].str.startswith(("prop1", "lp_")) & frame["lower"].notna()]
    iv = iv.assign(
        label=[
            f"Def {d} · {q} · {c}"
            for d, q, c in zip(iv["definition"], iv["quantity"], iv["cell"], strict=True)
        ],
        kind=np.where(iv["quantity"].str.startswith("prop1"), "sharp bounds (Prop. 1)", "LP range"),
    )
    eps = frame[frame["quantity"] == "eps_sum"][["cell", "definition", "estimate"]]
    blocks = [
        rb.figure(
            plots.principal_intervals(iv.head(24)),
            "Bounds and LP intervals per definition and cell",
            "Each bar is the set of values the stratum-level difference can take given the data. "
            "Definition 1 needs both τ1 (always-repay stratum) and τ0 (never-repay stratum) to "
            "be 0; Definition 2 pools the two strata.",
        ),
        rb.table(
            summary.drop(columns=[c for c in ("note",) if c in summary.columns]),
            "Verdict per cell and definition",
            f"n_a1 / n_a0 = people with A=1 ({res.a1}) / A=0 ({res.a0}) in the cell; a direction "
            "names the group a violation favours; Definitions 3 and 4 are shown for comparison "
            "only.",
            csv=table_path("principal", "evaluation_summary"),
        ),
        rb.table(
            eps.rename(columns={"estimate": "ε (total repair probability)"}),
            "Minimal repair ε",
            "The smallest total probability of flipping decisions that makes the decision fair "
            "in the sense of the definition (0 = no repair needed).",
        ),
    ]
    repair = run.results.get("repair")
    if repair is not None:
        rep = repair.summary()
        n_cell = summary.drop_duplicates("cell").set_index("cell")["n"]
        rep = rep.assign(
            n_changed=[
                (f"{int(c)} of {int(n_cell.get(cell, 0))}", int(c))
                for cell, c in zip(rep["cell"], rep["n_changed"], strict=True)
            ]
        ).rename(columns={"n_changed": "decisions changed", "eps_sum": "ε"})
        blocks.append(
            rb.table(
                rep.drop(columns=[c for c in ("note",) if c in rep.columns]),
                f"The minimal randomised repair (Definition {repair.definition})",
                "Flip decisions with the listed probabilities to make the decision fair in "
                "distribution; 'decisions changed' counts the flips drawn with the audit seed.",
                csv=table_path("principal", "repair_summary"),
            )
        )
    if hasattr(res, "plot"):
        blocks.append(rb.figure(res.plot(), "LP ranges and repair probabilities",
                              "The analysis' own view: red intervals exclude 0."))  # fmt: skip
    return rb.section(findings, blocks)


def assumptions(spec: Mapping[str, Any], cfg: Mapping[str, Any]) -> list[str]:
    """Unconfoundedness and a true outcome measured without error."""
    return [
        "Principal strata: the protected attribute is independent of the potential outcomes "
        "and decisions given the covariates (unconfoundedness); the true outcome column is "
        "measured without error."
    ]


def seeds(spec: PrincipalSpec) -> dict[str, int]:
    """The seed of the bootstrap and of the randomised repair."""
    return {"principal_bootstrap": int(spec.seed)}


ANALYSIS = Analysis(
    name="principal",
    title="Principal-stratum fairness",
    lead=LEAD,
    spec=PrincipalSpec,
    run=run,
    section=section,
    description="Counterfactual fairness on principal strata.",
    needs_outcome=True,
    seeds=seeds,
    assumptions=assumptions,
)
