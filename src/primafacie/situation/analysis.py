"""Situation testing as an audit analysis: its definition, run adapter and report section."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context, result_tables, table_path, table_stem
from ..errors import InputError
from ..jsonsafe import json_safe
from ..report import blocks as rb
from ..report import plots
from .engine import METHODS
from .multi import MultipleResult
from .spec import SituationSpec

__all__ = ["ANALYSIS", "METHOD_NAMES", "LEAD", "run", "collect", "section", "summary_frame"]

#: The registry name (the ``analyses.situation`` key and the prefix of every table).
ANALYSIS_NAME = "situation"

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
    """Situation testing for every protected attribute (single), and multiple/intersectional.

    The engines come from :meth:`SituationSpec.tests` (as for ``primafacie situation``), and
    the headline, scope and caveats from the Results themselves (:func:`collect`).
    """
    engines = spec.tests(list(ctx.data.protected), backend=ctx.backend)
    results: dict[str, Any] = {}
    for done, (label, engine) in enumerate(engines.items()):
        ctx.tick(done, len(engines), _name(label))
        results[label] = engine.run(ctx.data, scm=ctx.scm, decider=ctx.decider)
    return _with_dossiers(collect(results), spec, ctx)


def _with_dossiers(run: AnalysisRun, spec: SituationSpec, ctx: Context) -> AnalysisRun:
    """Add the dossier pages (``analyses.situation.dossiers``) as the Result ``dossiers``."""
    if spec.dossiers is None:
        return run
    from ..report.dossier import build_dossiers, decision_source

    book = build_dossiers(
        run.results,
        ctx.data,
        scm=ctx.scm,
        source=decision_source(ctx.config),
        top=spec.dossiers.top,
        redact=spec.dossiers.redact,
        sensitivity=run.results.get("sensitivity"),
    )
    tables = {**run.tables, table_stem(ANALYSIS_NAME, "dossiers"): book.to_frame()}
    return replace(run, results={**run.results, "dossiers": book}, tables=tables)


#: Results of the situation analysis that are not tests (left out of counts and headlines).
_NOT_TESTS = ("dossiers", "sensitivity")


def tests_of(results: Mapping[str, Any]) -> dict[str, Any]:
    """The test Results of a situation run (its ``dossiers`` and ``sensitivity`` left out)."""
    return {label: res for label, res in results.items() if label not in _NOT_TESTS}


_tests = tests_of


def _name(label: str) -> str:
    """How a test is called in prose: the attribute of a single test, else its dimension."""
    return label.removeprefix("single_")


def collect(results: Mapping[str, Any]) -> AnalysisRun:
    """The :class:`AnalysisRun` of some situation tests: tables, numbers and the words the
    Results give about themselves (headline, scope and caveats, each test named when there
    are several)."""
    several = len(results) > 1

    def named(label: str, text: str) -> str:
        return f"{_name(label)}: {text}" if several else text

    summary = summary_frame(results)
    tables = result_tables(ANALYSIS_NAME, results)
    if not summary.empty:
        tables[table_stem(ANALYSIS_NAME, "summary")] = summary
    caveats = [named(label, c) for label, res in results.items() for c in res.caveats()]
    return AnalysisRun(
        ANALYSIS_NAME,
        "ok",
        results=dict(results),
        tables=tables,
        numbers={"by_test": json_safe(summary.to_dict(orient="records"))},
        headline=" ".join(named(label, res.headline()) for label, res in results.items()),
        scope=" ".join(named(label, res.scope()) for label, res in results.items()),
        caveats=tuple(dict.fromkeys(caveats)),
    )


def overview(run: AnalysisRun) -> Any:
    """Cases and significant cases by test, method and k (None when nothing was tested)."""
    summary = summary_frame(_tests(run.results))
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
    """The report section: each test's headline and caveats, counts by test, method and k,
    and the strongest complaints. Reads only ``run.results`` (and ``data`` for the group
    composition), never the configuration."""
    results = _tests(run.results)
    links = run.results["dossiers"].links() if "dossiers" in run.results else {}
    findings = [_named(label, res.headline(), len(results)) for label, res in results.items()]
    blocks: list[dict[str, Any] | None] = []
    if run.caveats:
        blocks.append(rb.text("Before quoting these numbers: " + " ".join(run.caveats)))
    blocks += _count_blocks(summary_frame(results))
    for label, res in results.items():
        blocks += _complaint_blocks(label, res, data, links)
    return rb.section(findings, blocks)


def _named(label: str, text: str, n_tests: int) -> str:
    return f"{_name(label)}: {text}" if n_tests > 1 else text


def _count_blocks(summary: pd.DataFrame) -> list[dict[str, Any] | None]:
    """The bar chart and the table of counts by test, method and k."""
    if summary.empty:
        return []
    counts = summary.assign(dimension=summary["test"].map(_name)).drop(columns="test")
    figure = rb.figure(
        plots.situation_counts(counts),
        "Cases by method and k",
        "Light bars: cases (Δp > τ); dark bars: significant cases; both as a share of the "
        "tested protected individuals of the test (counts, denominators and the untested in "
        "the table below).",
    )
    disp = pd.DataFrame(
        {
            "test": counts["dimension"],
            "method": summary["method"],
            "k": summary["k"],
            "denominator": summary["denominator"],
            "untested": summary["untested"],
            "cases": [
                rb.rate_cell(a, b)
                for a, b in zip(summary["cases"], summary["denominator"], strict=True)
            ],
            "significant": [
                rb.rate_cell(a, b)
                for a, b in zip(summary["n_significant"], summary["denominator"], strict=True)
            ],
            "mean Δp (cases)": summary["mean_delta_cases"],
        }
    )
    table = rb.table(
        disp,
        "Counts by test, method and k",
        "denominator: the protected individuals of the test minus the untested complainants "
        "(no control or test neighbour), who are left out of every share.",
        csv=table_path(ANALYSIS_NAME, "summary"),
    )
    return [figure, table]


def _complaint_blocks(
    label: str, res: Any, data: Any, links: Mapping[str, str] | None = None
) -> list[dict[str, Any] | None]:
    """The strongest complaints of one test: Δp with intervals, group composition, table."""
    frame = res.to_frame()
    if frame.empty:
        return []
    method, k = res.main_test()
    tau, alpha = float(res.params["tau"]), float(res.params["alpha"])
    sub = frame[(frame["method"] == method) & (frame["k"] == k)]
    keys = [c for c in ("delta", "ci_low") if c in sub.columns]
    top = sub.sort_values(keys, ascending=False, kind="stable").head(20)
    name, method_name = _name(label), METHOD_NAMES.get(method, method)
    blocks: list[dict[str, Any] | None] = [
        rb.heading(f"{name}: the strongest complaints"),
        rb.figure(
            plots.delta_intervals(top, top=20, tau=tau),
            f"Δp with intervals, top complainants ({name}, {method_name}, k={k})",
            f"Each row is one protected person: Δp is the share of the {k} most similar "
            "protected people who were rejected minus the share of the "
            f"{k} most similar non-protected people (for CST: similar to the person's "
            "counterfactual) who were rejected. The grey line is the one-sided "
            f"{100 * (1 - alpha):.0f}% interval.",
        ),
    ]
    if isinstance(res, MultipleResult):  # one set of columns per attribute's run
        cols = [c for c in top.columns if c == "id" or c.startswith(("delta", "significant"))]
        blocks.append(
            rb.table(
                top[["method", "k", *cols]],
                f"Top complainants ({name})",
                "A multiple case needs Δp > τ on every protected attribute (Bonferroni α/q "
                "for significance); delta is the mean of the per-attribute deltas.",
                csv=table_path(ANALYSIS_NAME, label),
                max_rows=20,
            )
        )
        return blocks
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
    shown = top[cols].rename(columns=_GROUP_COLUMNS)
    if links:  # a link column only when dossiers were written (the report is unchanged else)
        shown = shown.assign(dossier=[_link(links, i) for i in top["id"]])
    blocks.append(
        rb.table(
            shown,
            f"Top complainants ({name})",
            "p_c = control rejected / control size; p_t = test rejected / test size.",
            csv=table_path(ANALYSIS_NAME, label),
            max_rows=20,
        )
    )
    return blocks


def _link(links: Mapping[str, str], ident: Any) -> Any:
    """A table cell linking a complainant's dossier page ("" when it has none)."""
    from ..report.dossier import PageLink

    href = links.get(str(ident))
    return PageLink(href) if href else ""


_GROUP_COLUMNS = {
    "k_c": "control size",
    "neg_c": "control rejected",
    "k_t": "test size",
    "neg_t": "test rejected",
}


ANALYSIS = Analysis(
    name=ANALYSIS_NAME,
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
