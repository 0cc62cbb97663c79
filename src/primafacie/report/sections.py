"""Build the report context from an :class:`~primafacie.audit.AuditResult`.

One builder per analysis turns its results into plain-language findings, figures (inline SVG)
and sortable tables; the executive summary, the "who was audited" table and the methods
appendix are built here too. Builders only read results; they never recompute an analysis.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from . import plots
from .html import format_number, rate_text, table_from_frame

__all__ = ["build_context", "STATUS_TEXT", "LEGAL_NOTE"]

STATUS_TEXT = {
    "ok": "completed",
    "unavailable": "not available in this build",
    "failed": "failed",
}

METHOD_NAMES = {
    "st": "ST (k-NN situation testing)",
    "cst": "CST without centres",
    "cst_centers": "CST with centres",
    "cf": "counterfactual fairness",
}

LEAD = {
    "situation": (
        "For every member of a protected group (the complainant) we compare how often similar "
        "protected people were rejected (the control group) with how often similar people of "
        "the non-protected group were rejected (the test group). Counterfactual situation "
        "testing (CST) chooses the test group around the person the complainant would have "
        "been without the protected attribute, using the causal model in the appendix. A "
        "difference Δp > τ is a case of potential discrimination; it is significant when its "
        "one-sided confidence interval excludes τ."
    ),
    "recourse": (
        "Recourse fairness asks how hard it is for rejected applicants to obtain a favourable "
        "decision by changing what they can change. For subgroups of rejected people (e.g. "
        "'temporary job, secondary education') it compares the protected and non-protected "
        "members: the same actions may help one group far more than the other."
    ),
    "principal": (
        "Principal-stratum fairness uses the true outcome (here: whether the loan is repaid). "
        "It asks whether the decision treats protected and non-protected people differently "
        "among those whose outcome would be the same whatever their group. These strata are "
        "never observed, so the analysis gives bounds: an interval that excludes 0 proves "
        "unfairness; one that contains 0 means no violation can be shown."
    ),
    "certainty": (
        "Several decision-makers (models, rules, people) are compared on the gap in "
        "favourable-decision rates between groups (the disparity) and on how sure we can be "
        "of that gap given the number of decisions behind it (the uncertainty). The preferred "
        "decision-maker is the one that is most certainly fair."
    ),
}

LEGAL_NOTE = [
    (
        "A finding in this report is evidence of potential discrimination, also called prima "
        "facie evidence: facts from which it may be presumed that discrimination occurred. In "
        "EU non-discrimination law (e.g. Directive 2000/43/EC, Art. 8; Directive 2006/54/EC, "
        "Art. 19) such evidence shifts the burden of proof: the decision-maker must then show "
        "that equal treatment was not breached, for instance that a difference is justified by "
        "a legitimate aim pursued by appropriate and necessary means."
    ),
    (
        "It is not a verdict. The numbers depend on the stated assumptions (the causal graph, "
        "the distance between people, the neighbourhood size k, the significance level α and "
        "the tolerance τ), and an individual case is about one person and their neighbours, "
        "not about the intent of the decision-maker."
    ),
]


def _svg(fig: Any, title: str) -> str | None:
    return None if fig is None else plots.svg_of(fig, title)


def _figure(fig: Any, title: str, caption: str) -> dict[str, Any] | None:
    svg = _svg(fig, title)
    if svg is None:
        return None
    return {"kind": "figure", "title": title, "svg": svg, "caption": caption}


def _table(frame: pd.DataFrame, title: str, caption: str = "", csv: str | None = None,
           max_rows: int = 50) -> dict[str, Any]:  # fmt: skip
    return {"kind": "table", **table_from_frame(frame, title, caption, max_rows, csv)}


def _rate_cell(k: Any, n: Any) -> tuple[str, float]:
    k, n = int(k), int(n)
    return rate_text(k, n), (k / n if n else float("nan"))


# ---------------------------------------------------------------------- situation testing
_COMPOSITION_LEVELS = 6  # most frequent levels of a categorical feature shown in the plot


def _zscore(vals: np.ndarray) -> np.ndarray:
    sd = vals.std()
    return (vals - vals.mean()) / (sd if sd > 0 else 1.0)


def _composition(data: Any, result: Any, method: str, k: int, rows: pd.DataFrame) -> pd.DataFrame:
    """Mean standardised feature values of control and test groups over the given complainants."""
    neigh = getattr(result, "neighbors", {}) or {}
    if data is None or (method, k) not in neigh or rows.empty:
        return pd.DataFrame()
    ctrl, test = neigh[(method, k)]
    table = result.table
    sel = table[(table["method"] == method) & (table["k"] == k)].reset_index(drop=True)
    pos = sel.index[sel["row"].isin(rows["row"])].to_numpy()
    frame = data.frame
    cols: dict[str, np.ndarray] = {}
    for name, spec in data.features.items():
        col = frame[name]
        if spec.kind == "numeric" or (spec.kind == "ordinal" and spec.order is None):
            vals = col.to_numpy(dtype=float)
        elif spec.kind == "ordinal":
            order = {str(v): i for i, v in enumerate(spec.order)}
            vals = col.astype(str).map(order).to_numpy(dtype=float)
        else:
            # categorical: one indicator per frequent level, so a skewed mix shows as a bar
            text = col.astype(str)
            for level in text.value_counts().index[:_COMPOSITION_LEVELS]:
                cols[f"{name}={level}"] = _zscore((text == level).to_numpy(dtype=float))
            continue
        cols[name] = _zscore(vals)
    cols["rejected"] = _zscore((1 - data.decision_array()).astype(float))
    out = []
    for group, idx in (("control", ctrl[pos]), ("test", test[pos])):
        valid = idx >= 0
        for name, vals in cols.items():
            v = np.where(valid, vals[np.maximum(idx, 0)], np.nan)
            mean_z = float(np.nanmean(np.nanmean(v, axis=1)))
            out.append({"group": group, "feature": name, "mean_z": mean_z})
    return pd.DataFrame(out)


def _situation(run: Any, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    spec = cfg["analyses"]["situation"]
    summary = run.extras.get("summary", pd.DataFrame())
    blocks: list[dict[str, Any]] = []
    findings: list[str] = []
    kmax = max(spec["k"])
    if not summary.empty:
        main = "cst" if "cst" in spec["methods"] else spec["methods"][0]
        shown = summary[(summary["k"] == kmax) & summary["method"].isin([main, "st"])]
        for r in shown.itertuples():
            findings.append(
                f"{r.test.replace('single_', '')} · {METHOD_NAMES.get(r.method, r.method)}, "
                f"k={kmax}: {rate_text(int(r.cases), int(r.denominator))} of the protected "
                f"individuals are cases of potential discrimination; "
                f"{rate_text(int(r.significant), int(r.denominator), ci=True)} are significant."
            )
        counts = summary.assign(test=summary["test"].str.replace("single_", "", regex=False))
        counts = counts.rename(columns={"test": "dimension"})
        blocks.append(
            _figure(
                plots.situation_counts(counts),
                "Cases by method and k",
                "Light bars: cases (Δp > τ); dark bars: significant cases; both as a share of "
                "the protected individuals of the test (counts and denominators in the table "
                "below).",
            )
        )
        disp = pd.DataFrame(
            {
                "test": summary["test"].str.replace("single_", "", regex=False),
                "method": summary["method"],
                "k": summary["k"],
                "protected individuals": summary["denominator"],
                "cases": [
                    _rate_cell(a, b)
                    for a, b in zip(summary["cases"], summary["denominator"], strict=True)
                ],
                "significant": [
                    _rate_cell(a, b)
                    for a, b in zip(summary["significant"], summary["denominator"], strict=True)
                ],
                "mean Δp (cases)": summary["mean_delta_cases"],
            }
        )
        blocks.append(
            _table(disp, "Counts by test, method and k", csv="tables/situation_summary.csv")
        )
    for label, res in run.results.items():
        frame = res.to_frame()
        if frame.empty:
            continue
        method = "cst" if "cst" in set(frame["method"]) else str(frame["method"].iloc[0])
        k = int(frame["k"].max())
        sub = frame[(frame["method"] == method) & (frame["k"] == k)]
        keys = [c for c in ("delta", "ci_low") if c in sub.columns]
        top = sub.sort_values(keys, ascending=False, kind="stable").head(20)
        name = label.replace("single_", "")
        blocks.append({"kind": "heading", "text": f"{name}: the strongest complaints"})
        blocks.append(
            _figure(
                plots.delta_intervals(top, top=20, tau=float(spec["tau"])),
                f"Δp with intervals, top complainants ({name}, {METHOD_NAMES.get(method, method)}, k={k})",
                f"Each row is one protected person: Δp is the share of the {k} most similar "
                "protected people who were rejected minus the share of the "
                f"{k} most similar non-protected people (for CST: similar to the person's "
                "counterfactual) who were rejected. The grey line is the one-sided "
                f"{100 * (1 - float(spec['alpha'])):.0f}% interval.",
            )
        )
        if label == "multiple":
            cols = [c for c in top.columns if c == "id" or c.startswith(("delta", "significant"))]
            blocks.append(
                _table(
                    top[["method", "k", *cols]],
                    "Top complainants (multiple)",
                    "A multiple case needs Δp > τ on every protected attribute (Bonferroni α/q "
                    "for significance); delta is the mean of the per-attribute deltas.",
                    csv="tables/situation_multiple.csv",
                    max_rows=20,
                )
            )
            continue
        comp = _composition(data, res, method, k, top[top["significant"].astype(bool)])
        blocks.append(
            _figure(
                plots.group_composition(comp),
                f"Control vs test group composition ({name})",
                "Average profile of the control groups (similar protected people) and test "
                "groups (similar non-protected people) of the significant complainants above, in "
                "standard deviations from the population mean; a categorical feature shows one "
                "bar per frequent level (feature=level, the share holding it, standardised) and "
                "'rejected' is the rejection indicator, standardised the same way. Similar "
                "profiles with different rejection rates are the signature of discrimination.",
            )
        )
        cols = [c for c in ("id", "method", "k", "k_c", "neg_c", "p_c", "k_t", "neg_t", "p_t",
                            "delta", "ci_low", "significant") if c in top.columns]  # fmt: skip
        blocks.append(
            _table(
                top[cols].rename(
                    columns={
                        "k_c": "control size",
                        "neg_c": "control rejected",
                        "k_t": "test size",
                        "neg_t": "test rejected",
                    }
                ),
                f"Top complainants ({name})",
                "p_c = control rejected / control size; p_t = test rejected / test size.",
                csv=f"tables/situation_{label}.csv",
                max_rows=20,
            )
        )
    return {"findings": findings, "blocks": [b for b in blocks if b]}


# ---------------------------------------------------------------------- certainty
def _certainty(run: Any, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    res = run.results["ranking"]
    table = res.to_frame()
    findings = []
    for r in table.itertuples():
        findings.append(
            f"{r.decision_maker} (rank {r.rank}): favourable rate "
            f"{rate_text(int(r.k_i), int(r.n_i))} for {r.most_privileged} vs "
            f"{rate_text(int(r.k_j), int(r.n_j))} for {r.least_privileged}; disparity "
            f"{r.disparity:.3f}, uncertainty {r.uncertainty:.4f}, utility {r.utility:.3f}."
        )
    chosen = table[table["selected"].astype(bool)]
    if len(chosen) and float(chosen["disparity"].iloc[0]) > 0.1:
        r = chosen.iloc[0]
        findings.insert(
            0,
            f"The selection is relative to the {len(table)} decision-makers compared: "
            f"{r['decision_maker']} is the most certainly fair of them, yet its favourable rate "
            f"still differs by {100 * r['disparity']:.1f} percentage points between "
            f"{r['most_privileged']} and {r['least_privileged']}.",
        )
    plane = table.rename(columns={"decision_maker": "name"})
    blocks = [
        _figure(
            plots.certainty_plane(plane, res.selected),
            "Decision-makers in the (disparity, uncertainty) plane",
            f"Selected: {', '.join(res.selected)} (ringed). The grey lines are indifference "
            "curves of the TOPSIS utility: points on one line are equally preferred; the "
            "dashed line δ = 0.5 separates fair-leaning from unfair-leaning decision-makers.",
        ),
        _table(
            pd.DataFrame(
                {
                    "rank": table["rank"],
                    "decision-maker": table["decision_maker"],
                    "most privileged": table["most_privileged"],
                    "rate (most privileged)": [
                        _rate_cell(k, n) for k, n in zip(table["k_i"], table["n_i"], strict=True)
                    ],
                    "least privileged": table["least_privileged"],
                    "rate (least privileged)": [
                        _rate_cell(k, n) for k, n in zip(table["k_j"], table["n_j"], strict=True)
                    ],
                    "disparity": table["disparity"],
                    "uncertainty": table["uncertainty"],
                    "utility": table["utility"],
                    "accuracy": table["accuracy"],
                    "selected": table["selected"],
                }
            ),
            "Ranking of the decision-makers",
            csv="tables/certainty_ranking.csv",
        ),
        _table(
            res.counts_frame()[["decision_maker", "group", "n", "k", "rate", "ci_low", "ci_high"]],
            "Favourable decisions per group",
            "k favourable decisions of n in the group; ci = 95% credible interval of the rate "
            "(Beta(1, 1) prior).",
            csv="tables/certainty_group_counts.csv",
            max_rows=60,
        ),
    ]
    return {"findings": findings, "blocks": [b for b in blocks if b]}


# ---------------------------------------------------------------------- principal strata
def _principal(run: Any, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
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
        _figure(
            plots.principal_intervals(iv.head(24)),
            "Bounds and LP intervals per definition and cell",
            "Each bar is the set of values the stratum-level difference can take given the data. "
            "Definition 1 needs both τ1 (always-repay stratum) and τ0 (never-repay stratum) to "
            "be 0; Definition 2 pools the two strata.",
        ),
        _table(
            summary.drop(columns=[c for c in ("note",) if c in summary.columns]),
            "Verdict per cell and definition",
            f"n_a1 / n_a0 = people with A=1 ({res.a1}) / A=0 ({res.a0}) in the cell; a direction "
            "names the group a violation favours; Definitions 3 and 4 are shown for comparison "
            "only.",
            csv="tables/principal_evaluation_summary.csv",
        ),
        _table(
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
            _table(
                rep.drop(columns=[c for c in ("note",) if c in rep.columns]),
                f"The minimal randomised repair (Definition {repair.definition})",
                "Flip decisions with the listed probabilities to make the decision fair in "
                "distribution; 'decisions changed' counts the flips drawn with the audit seed.",
                csv="tables/principal_repair_summary.csv",
            )
        )
    if hasattr(res, "plot"):
        blocks.append(_figure(res.plot(), "LP ranges and repair probabilities",
                              "The analysis' own view: red intervals exclude 0."))  # fmt: skip
    return {"findings": findings, "blocks": [b for b in blocks if b]}


# ---------------------------------------------------------------------- recourse
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


def _recourse(run: Any, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    facts = run.results["definitions"]
    audit = run.extras.get("audit")
    cards_by_def = run.extras.get("cards", {})
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
        _table(
            summary,
            "Definitions of recourse unfairness",
            "subgroups = subgroups audited; fair = subgroups with no difference; rank1 = "
            "subgroups tied first; top10_against[g] = among the top 10% ranked subgroups, how "
            "many are biased against group g.",
            csv="tables/recourse_definitions_summary.csv",
        )
    )
    shown: list[str] = []
    for csc in cards_by_def.values():
        for rec in csc.records[:1]:
            if rec.label not in shown:
                shown.append(rec.label)
    if audit is not None and shown:
        from ..recourse.plots import ecd_steps

        for sub in shown[:3]:
            s_idx = audit.subgroup_index(sub)
            rows = []
            for gi, g in enumerate(audit.groups_):
                x, y = ecd_steps(audit, s_idx, gi)
                n_g = int(audit.table_.n[s_idx, gi])
                rows.append(
                    pd.DataFrame({"group": f"{g} (n={n_g})", "cost": x, "effectiveness": y})
                )
            blocks.append(
                _figure(
                    plots.cumulative_effectiveness(pd.concat(rows, ignore_index=True), sub),
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
        blocks.append({"kind": "heading", "text": "Comparative subgroup counterfactuals"})
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
            _table(
                first.to_frame(),
                f"Subgroup ranking: {first.title}",
                "rank 0 = no difference (fair); n[g] = rejected members of group g in the "
                "subgroup; cov[g] = their share of all rejected members of g; d[g] = difficulty.",
                csv=f"tables/recourse_rank_{first.label.lower().replace('.', '_')}.csv",
                max_rows=25,
            )
        )
    return {"findings": findings, "blocks": [b for b in blocks if b]}


BUILDERS: dict[str, Callable[[Any, Any, Mapping[str, Any]], dict[str, Any]]] = {
    "situation": _situation,
    "recourse": _recourse,
    "principal": _principal,
    "certainty": _certainty,
}


# ---------------------------------------------------------------------- summary & appendix
def _groups_table(info: Mapping[str, Any]) -> dict[str, Any]:
    rows = []
    for g in info["groups"]:
        row = {
            "protected attribute": g["attribute"],
            "protected value(s)": ", ".join(g["protected_values"]),
            "protected people": (f"{g['n_protected']} of {g['n']}", g["n_protected"]),
            "favourable decision, protected": _rate_cell(
                g["favourable_protected"], g["n_protected"]
            ),
            "favourable decision, others": _rate_cell(
                g["favourable_non_protected"], g["n_non_protected"]
            ),
        }
        if "outcome_favourable_protected" in g:
            row["favourable outcome, protected"] = _rate_cell(
                g["outcome_favourable_protected"], g["n_protected"]
            )
            row["favourable outcome, others"] = _rate_cell(
                g["outcome_favourable_non_protected"], g["n_non_protected"]
            )
        rows.append(row)
    return table_from_frame(
        pd.DataFrame(rows),
        "",
        "Rates are shares of the group; the counts behind them are in brackets.",
        table_id="groups",
    )


def _assumptions(cfg: Mapping[str, Any]) -> list[str]:
    out = []
    an = cfg["analyses"]
    if cfg.get("causal"):
        out.append(
            "The causal graph in the appendix is correct and complete (no hidden common causes), "
            f"and each attribute follows a {cfg['causal']['mechanism']} structural equation with "
            "additive noise; counterfactuals are computed from it."
        )
    if an.get("situation"):
        s = an["situation"]
        ks = "{" + ", ".join(map(str, s["k"])) + "}"
        out.append(
            "Similar people are found with the Gower distance over the non-protected features "
            f"(protected attributes are never used); k ∈ {ks}, significance level "
            f"α = {s['alpha']}, tolerance τ = {s['tau']}, {s['interval']} intervals, "
            f"{s['direction']} discrimination; multiple discrimination uses a Bonferroni "
            "correction (α divided by the number of protected attributes)."
        )
    if an.get("principal"):
        out.append(
            "Principal strata: the protected attribute is independent of the potential outcomes "
            "and decisions given the covariates (unconfoundedness); the true outcome column is "
            "measured without error."
        )
    if an.get("certainty"):
        out.append(
            "Certainty of fairness: each group's favourable rate has a uniform Beta(1, 1) prior; "
            "the utility is TOPSIS (certainly fair ≻ uncertainly fair ≻ uncertainly unfair ≻ "
            "certainly unfair)."
        )
    if an.get("recourse"):
        r = an["recourse"]
        out.append(
            f"Recourse: subgroups are frequent itemsets (support ≥ {r['support']}); actions "
            f"never change immutable features {r['immutable'] or '(none declared)'}; costs "
            "follow the configured feature weights."
        )
    return out


def _flatten(prefix: str, obj: Any, out: list[tuple[str, str]]) -> None:
    """Dotted settings; unset options (None) are left out, empty ones shown as "(none)"."""
    if obj is None:
        return
    if isinstance(obj, (Mapping, list)) and not obj:
        out.append((prefix, "(none)"))
        return
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(obj, list) and obj and all(isinstance(v, (list, tuple)) for v in obj):
        out.append((prefix, "; ".join(" → ".join(map(str, v)) for v in obj)))
    else:
        out.append((prefix, str(obj) if not isinstance(obj, list) else ", ".join(map(str, obj))))


def build_context(result: Any) -> dict[str, Any]:
    """The template context of report.html for an :class:`~primafacie.audit.AuditResult`."""
    from ..audit import TITLES

    cfg = result.config
    info = result.data_info
    data = result.data
    protected_txt = "; ".join(f"{k} ({', '.join(v)})" for k, v in info["protected"].items())
    headlines = []
    scopes: list[tuple[str, str]] = []
    sections = []
    for name, run in result.runs.items():
        status_text = STATUS_TEXT.get(run.status, run.status)
        headlines.append(
            {
                "title": TITLES[name],
                "status": run.status,
                "status_text": status_text,
                "text": run.headline if run.status == "ok" else run.message,
            }
        )
        if run.scope:
            scopes.append((TITLES[name], run.scope))
        body = {"findings": [], "blocks": []}
        if run.status == "ok":
            body = BUILDERS[name](run, data, cfg)
            if run.message:
                body["blocks"].insert(0, {"kind": "text", "text": run.message})
        sections.append(
            {
                "id": f"sec-{name}",
                "title": TITLES[name],
                "status": run.status,
                "status_text": status_text,
                "message": run.message,
                "lead": LEAD[name],
                **body,
            }
        )
    n = info["n"]
    overview = [("Warning", w) for w in info.get("warnings", [])]
    overview += [
        ("People audited", f"{n} decisions"),
        ("Decision audited", info["decision_source"]),
        ("Favourable decisions", rate_text(info["n_favourable"], n)),
        ("Protected attributes", protected_txt),
    ]
    if info.get("outcome"):
        overview.append(
            (
                "True outcome",
                f"{info['outcome']}: favourable for {rate_text(info['n_outcome_favourable'], n)}",
            )
        )
    overview.append(
        (
            "Analyses",
            ", ".join(f"{TITLES[k]} ({STATUS_TEXT[r.status]})" for k, r in result.runs.items()),
        )
    )
    params: list[tuple[str, str]] = []
    _flatten("", {k: v for k, v in cfg.items() if k != "features"}, params)
    for fname, kind in cfg["features"].items():
        params.append(
            (
                f"features.{fname}",
                kind if isinstance(kind, str) else f"ordinal {kind.get('ordinal')}",
            )
        )
    causal = cfg.get("causal")
    scm_svg = None
    if causal:
        scm_svg = plots.scm_graph_svg(causal["edges"], protected=list(info["protected"]))
    appendix = {
        "scm_text": (
            "Arrows point from cause to effect; protected attributes are orange. Counterfactuals "
            "change a protected attribute and propagate the change along the arrows, keeping "
            "each person's own noise term (abduction, action, prediction)."
            if causal
            else "No causal model was given: only analyses that do not need one were run."
        ),
        "scm_svg": scm_svg,
        "scm_caption": f"Causal graph with {len(causal['edges'])} edges." if causal else "",
        "parameters": table_from_frame(
            pd.DataFrame(params, columns=["setting", "value"]),
            "",
            "The resolved configuration, defaults filled in.",
            max_rows=500,
            table_id="parameters",
            wrap=True,
        ),  # fmt: skip
        "notes": [
            {
                "title": "What “potential” or “prima facie” discrimination means",
                "paragraphs": LEGAL_NOTE,
            },
            {
                "title": "Corrections for multiple testing",
                "paragraphs": [
                    "Situation testing runs one test per complainant. Individual intervals are "
                    "not corrected for the number of complainants: each is evidence about one "
                    "person. Multiple discrimination (a case on every protected attribute) uses "
                    "the Bonferroni level α/q for q attributes. Counts of significant cases are "
                    "therefore descriptive, not a family-wise claim."
                ],
            },
            {
                "title": "How to read the numbers",
                "paragraphs": [
                    "Every rate is shown with its count and denominator, e.g. 8.0% (123 of "
                    "1530). All tables can be sorted by clicking a column header; the full "
                    "tables are CSV files next to this report and every number is also in "
                    "results.json."
                ],
            },
        ],
    }
    versions = result.versions
    return {
        "title": "primafacie audit report",
        "subtitle": f"{n} decisions · {info['decision_source']} · protected: {protected_txt}",
        "lead": (
            f"This report tests whether the decisions ({info['decision_source']}) on {n} people "
            f"treat members of protected groups ({protected_txt}) worse than comparable others. "
            "Each section starts with a plain-language explanation; the appendix lists every "
            "assumption and setting."
        ),
        "overview": overview,
        "headlines": headlines,
        "scopes": scopes,
        "groups": _groups_table(info),
        "assumptions": _assumptions(cfg),
        "reading_guide": (
            "“Potential discrimination” means prima facie evidence that shifts the burden of "
            "proof; see the appendix. It is not a legal finding."
        ),
        "sections": sections,
        "appendix": appendix,
        "footer": {
            "generated": f"Generated by primafacie {versions.get('primafacie', '')}. The same "
            "inputs and settings give a byte-identical report.",
            "inputs": list(result.inputs),
            "versions": sorted(versions.items()),
        },
        "format_number": format_number,
    }
