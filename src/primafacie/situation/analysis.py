"""Situation testing as an audit analysis: its definition, run adapter and report section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context, result_tables, table_path
from ..errors import InputError
from ..jsonsafe import json_safe
from ..report import blocks as rb
from ..report import plots
from ..report.html import rate_text
from .engine import METHODS
from .multi import IntersectionalSituationTest, MultipleSituationTest
from .spec import SituationSpec

__all__ = ["ANALYSIS", "METHOD_NAMES", "LEAD", "run", "section", "summary_frame"]

METHOD_NAMES = {
    "st": "ST (k-NN situation testing)",
    "cst": "CST without centres",
    "cst_centers": "CST with centres",
    "cf": "counterfactual fairness",
}
assert set(METHOD_NAMES) == set(METHODS)

LEAD = (
    "For every member of a protected group (the complainant) we compare how often similar "
    "protected people were rejected (the control group) with how often similar people of "
    "the non-protected group were rejected (the test group). Counterfactual situation "
    "testing (CST) chooses the test group around the person the complainant would have "
    "been without the protected attribute, using the causal model in the appendix. A "
    "difference Δp > τ is a case of potential discrimination; it is significant when its "
    "one-sided confidence interval excludes τ."
)

_MULTI = {"multiple": MultipleSituationTest, "intersectional": IntersectionalSituationTest}


def needs_scm(spec: SituationSpec) -> bool:
    """A counterfactual method (cst, cst_centers, cf) needs the fitted causal model."""
    return any(m != "st" for m in spec.methods)


def check(spec: SituationSpec, cfg: Any) -> None:
    """Cross-section checks that need no data (so a bad file fails before anything is read)."""
    multi = [d for d in spec.dimensions if d != "single"]
    if multi and len(cfg.protected) < 2:
        raise InputError(
            f"analyses.situation.dimensions {multi} need at least two protected attributes; "
            f"protected: names {list(cfg.protected)}"
        )
    centred = [m for m in spec.methods if m in ("cst_centers", "cf")]
    if centred and cfg.decision.column is not None:
        raise InputError(
            f"analyses.situation.methods {centred} label each complainant's counterfactual with "
            "the decision model, but decision: is a recorded column; give decision: {model: "
            "...} or {rule: ...}, or use methods: [st, cst]"
        )
    if needs_scm(spec) and cfg.causal is None:
        raise InputError(
            "analyses.situation.methods lists a counterfactual method (cst, cst_centers or "
            "cf), which needs the causal: section (edges of the causal graph); add it or use "
            "methods: [st]"
        )


def summary_frame(results: Mapping[str, Any]) -> pd.DataFrame:
    """Every test's ``summary()`` stacked, with a first column ``test`` (its label)."""
    summaries = []
    for label, res in results.items():
        summ = res.summary().copy()
        summ.insert(0, "test", label)
        summaries.append(summ)
    return pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()


def run(spec: SituationSpec, ctx: Context) -> AnalysisRun:
    """Situation testing for every protected attribute (single), and multiple/intersectional."""
    data, tick = ctx.data, ctx.tick
    results: dict[str, Any] = {}
    multi = [d for d in spec.dimensions if d != "single"]
    total = len(multi) + (len(data.protected) if "single" in spec.dimensions else 0)
    kwargs = dict(scm=ctx.scm, decider=ctx.decider)
    if "single" in spec.dimensions:
        for attr in data.protected:
            tick(len(results), total, attr)
            engine = spec.build(attribute=attr, backend=ctx.backend)
            results[f"single_{attr}"] = engine.run(data, **kwargs)
    for dim in multi:
        tick(len(results), total, dim)
        results[dim] = spec.build(dimension=dim, backend=ctx.backend).run(data, **kwargs)
    summary = summary_frame(results)
    numbers: dict[str, Any] = {"by_test": json_safe(summary.to_dict(orient="records"))}
    headline = ""
    if not summary.empty:
        kmax = max(spec.k)
        best = summary[(summary["k"] == kmax)]
        main = best[best["method"] == ("cst" if "cst" in spec.methods else spec.methods[0])]
        parts = [
            f"{r.test.replace('single_', '')}: "
            f"{rate_text(int(r.significant), int(r.denominator), ci=True)}"
            for r in main.itertuples()
        ]
        method = main["method"].iloc[0] if len(main) else ""
        kind = "positive discrimination" if spec.direction == "positive" else "discrimination"
        headline = (
            f"Significant cases of potential {kind} ({method}, k={kmax}, "
            f"α={spec.alpha}, τ={spec.tau}), as a share of the protected individuals — "
            + "; ".join(parts)
        )
    scope = ""
    if not summary.empty:
        per_test = summary.drop_duplicates("test")
        scope = (
            "; ".join(
                f"{r.test.replace('single_', '')}: {int(r.complainants)} complainants"
                for r in per_test.itertuples()
            )
            + f" — methods {', '.join(spec.methods)}; k = {', '.join(map(str, spec.k))}"
        )
    tables = result_tables("situation", results)
    if not summary.empty:
        tables["situation_summary"] = summary
    return AnalysisRun(
        "situation",
        "ok",
        scope=scope,
        results=results,
        tables=tables,
        numbers=numbers,
        headline=headline,
    )


def overview(run: AnalysisRun) -> Any:
    """Cases and significant cases by test, method and k (None when nothing was tested)."""
    summary = summary_frame(run.results)
    if summary.empty:
        return None
    return plots.situation_counts(summary.rename(columns={"test": "dimension"}))


def assumptions(spec: Mapping[str, Any], cfg: Mapping[str, Any]) -> list[str]:
    """The distance, k, α, τ and interval behind the findings."""
    ks = "{" + ", ".join(map(str, spec["k"])) + "}"
    return [
        "Similar people are found with the Gower distance over the non-protected features "
        f"(protected attributes are never used); k ∈ {ks}, significance level "
        f"α = {spec['alpha']}, tolerance τ = {spec['tau']}, {spec['interval']} intervals, "
        f"{spec['direction']} discrimination; multiple discrimination uses a Bonferroni "
        "correction (α divided by the number of protected attributes)."
    ]


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


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The report section: counts by test, method and k; the strongest complaints."""
    spec = cfg["analyses"]["situation"]
    summary = summary_frame(run.results)
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
            rb.figure(
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
                    rb.rate_cell(a, b)
                    for a, b in zip(summary["cases"], summary["denominator"], strict=True)
                ],
                "significant": [
                    rb.rate_cell(a, b)
                    for a, b in zip(summary["significant"], summary["denominator"], strict=True)
                ],
                "mean Δp (cases)": summary["mean_delta_cases"],
            }
        )
        blocks.append(
            rb.table(disp, "Counts by test, method and k", csv=table_path("situation", "summary"))
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
        blocks.append(rb.heading(f"{name}: the strongest complaints"))
        blocks.append(
            rb.figure(
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
                rb.table(
                    top[["method", "k", *cols]],
                    "Top complainants (multiple)",
                    "A multiple case needs Δp > τ on every protected attribute (Bonferroni α/q "
                    "for significance); delta is the mean of the per-attribute deltas.",
                    csv=table_path("situation", label),
                    max_rows=20,
                )
            )
            continue
        comp = _composition(data, res, method, k, top[top["significant"].astype(bool)])
        blocks.append(
            rb.figure(
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
            rb.table(
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
                csv=table_path("situation", label),
                max_rows=20,
            )
        )
    return rb.section(findings, blocks)


ANALYSIS = Analysis(
    name="situation",
    title="Situation testing",
    lead=LEAD,
    spec=SituationSpec,
    run=run,
    section=section,
    description="Situation testing (ST, CST, CF).",
    needs_scm=needs_scm,
    check=check,
    assumptions=assumptions,
    overview=overview,
)
