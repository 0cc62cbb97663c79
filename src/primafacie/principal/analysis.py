"""Principal-stratum fairness as an audit analysis: definition, run adapter, report section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context, table_path
from ..report import blocks as rb
from ..report import plots
from .spec import PrincipalSpec

__all__ = ["ANALYSIS", "LEAD", "run", "section", "tables"]

LEAD = (
    "Principal-stratum fairness uses the true outcome (here: whether the loan is repaid). "
    "It asks whether the decision treats protected and non-protected people differently "
    "among those whose outcome would be the same whatever their group. These strata are "
    "never observed, so the analysis gives bounds: an interval that excludes 0 proves "
    "unfairness; one that contains 0 means no violation can be shown. The bounds are "
    "identification bounds computed on the audited rows, without sampling uncertainty (the "
    "bootstrap share, when n_boot > 0, says how often a resample refutes too)."
)


def check_data(spec: Any, data: Any, cfg: Any) -> None:
    """The protected attribute is binary and the covariates hold no role, before any analysis
    runs (a 6-valued race column fails here, naming the setting to change, not after the
    other analyses have run)."""
    spec.build(data).check(data)


def run(spec: Any, ctx: Context) -> AnalysisRun:
    """Principal-stratum counterfactual fairness (Definitions 1 and 2) and the minimal repair.

    The engine is built by :meth:`PrincipalSpec.build` (as ``primafacie principal --config``
    does); headline, scope and caveats are the Results' own.
    """
    pf = spec.build(ctx.data, ctx)
    res = pf.run(ctx.data)
    repair = pf.repair(ctx.data, seed=spec.seed)
    caveats = [*res.caveats(), *(c for c in repair.caveats() if c not in res.caveats())]
    return AnalysisRun.of("principal", {"evaluation": res, "repair": repair}, caveats=caveats)


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The report section: verdicts per cell and definition, bounds, the minimal repair."""
    res = run.results["evaluation"]
    summary = res.summary()
    frame = res.to_frame()
    coding = f"A=1: {res.protected} = {res.a1}; A=0: {res.protected} = {res.a0}"
    findings = [f"Coding of the protected attribute: {coding}."] + [
        f"Definition {r.definition}, cell {r.cell} ({r.n_a1} with A=1 = {res.a1}, {r.n_a0} with "
        f"A=0 = {res.a0}): {r.verdict}; {r.evidence}"
        + ("" if pd.isna(r.eps_sum) else f"; minimal repair ε = {r.eps_sum:.4f}")
        for r in summary[summary["definition"].isin(list(res.definitions))].itertuples()
    ]
    iv = frame[frame["quantity"].str.startswith(("prop1", "lp_")) & frame["lower"].notna()]
    labels = zip(iv["definition"], iv["quantity"], iv["cell"], strict=True)
    iv = iv.assign(
        label=[f"Def {d} · {q} · {c}" for d, q, c in labels],
        kind=np.where(iv["quantity"].str.startswith("prop1"), "sharp bounds (Prop. 1)", "LP range"),
    )
    eps = frame[frame["quantity"] == "eps_sum"][["cell", "definition", "estimate"]]
    repair = run.results["repair"]
    n_cell = summary.drop_duplicates("cell").set_index("cell")["n"]
    rep = repair.summary()
    changed = zip(rep["cell"], rep["n_changed"], strict=True)
    cells = [(f"{int(c)} of {int(n_cell.get(cell, 0))}", int(c)) for cell, c in changed]
    rep = rep.assign(n_changed=cells).drop(columns="note", errors="ignore")
    blocks = [
        rb.figure(
            plots.principal_intervals(iv.head(24)),
            "Bounds and LP intervals per definition and cell",
            "Each bar is the set of values the stratum-level difference can take given the data. "
            "Definition 1 needs both τ1 (always-repay stratum) and τ0 (never-repay stratum) to "
            "be 0; Definition 2 pools the two strata.",
        ),
        *tables(res),
        rb.table(
            eps.rename(columns={"estimate": "ε (total repair probability)"}),
            "Minimal repair ε",
            "The smallest total probability of flipping decisions that makes the decision fair "
            "in the sense of the definition (0 = no repair needed).",
        ),
        rb.table(
            rep.rename(columns={"n_changed": "decisions changed", "eps_sum": "ε"}),
            f"The minimal randomised repair (Definition {repair.definition})",
            "Flip decisions with the listed probabilities to make the decision fair in "
            "distribution; 'decisions changed' counts the flips drawn with the audit seed.",
            csv=table_path("principal", "repair_summary"),
        ),
        rb.figure(res.plot(), "LP ranges and repair probabilities",
                  "The analysis' own view: red intervals exclude 0."),
    ]  # fmt: skip
    return rb.section(findings, blocks)


def tables(res: Any) -> list[dict[str, Any]]:
    """The section's verdict per cell and definition, which ``primafacie principal`` prints
    too (:func:`primafacie.terminal.print_table`)."""
    return [
        rb.table(
            res.summary().drop(columns="note", errors="ignore"),
            "Verdict per cell and definition",
            f"n_a1 / n_a0 = people with A=1 ({res.a1}) / A=0 ({res.a0}) in the cell; a direction "
            "names the group a violation favours; Definitions 3 and 4 are shown for comparison "
            "only, and their 'violated' is a plug-in point estimate away from 0 (no test, no "
            "interval).",
            csv=table_path("principal", "evaluation_summary"),
        )
    ]


def headline_number(run: AnalysisRun) -> str:
    """``0 of 2 checks refuted; other definitions 1 of 2 violated``: the definition-cell
    checks whose bounds refute fairness, then the table's other definitions (issue 23: a
    violated row is never left out of the words)."""
    n = run.numbers
    text = f"{n['violations']} of {n['checks']} checks refuted"
    if n.get("other_checks"):
        text += f"; other definitions {n['other_violations']} of {n['other_checks']} violated"
    return text


GLOSSARY = (
    ("Definition 1, 2", "principal-stratum fairness (Definition 1: within the strata of the "
     "true outcome; Definition 2: over them); refuted when the sharp bounds exclude 0."),
    ("Definition 3, 4", "comparisons from other papers (3: Kusner et al.'s counterfactual "
     "fairness, plug-in; 4: Coston et al.), not principal-stratum fairness."),
    ("prop1_tau1, prop1_tau0", "the normalised τ₁ and τ₀ of Proposition 1: the bounds on the "
     "effect of the protected attribute on the decision among those whose outcome is 1 / 0."),
    ("ε", "the minimal repair: the least total change of decision probabilities that makes "
     "the decisions satisfy the definition."),
)  # fmt: skip


def finding(run: AnalysisRun) -> dict[str, Any]:
    """Refuted (a concern) or not, the definition-cell checks as the denominator."""
    n = run.numbers
    text = f"{n['violations']} of {n['checks']} principal-stratum checks refute fairness"
    return rb.verdict(n["violations"], n["checks"], text, "refuted", "not refuted")


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


ANALYSIS = Analysis.define(
    globals(),
    name="principal",
    reference_rows=True,
    title="Principal-stratum fairness",
    spec=PrincipalSpec,
    description="Counterfactual fairness on principal strata.",
    needs_outcome=True,
)
