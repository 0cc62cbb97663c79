"""Situation testing as an audit analysis: its definition, run adapter and report section."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from itertools import product, takewhile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context, table_path, table_stem
from ..compute import get_backend, overlapped
from ..corrections import MULTIPLICITY_NAMES, MULTIPLICITY_SHORT
from ..data_dictionary import by_text, frequent_texts
from ..errors import InputError
from ..intervals import wilson_interval, z_value
from ..jsonsafe import json_safe
from ..report import blocks as rb
from ..report import plots
from ..report.html import rate_text
from .engine import METHODS, SituationTest
from .labels import METHOD_GLOSSARY, METHOD_NAMES
from .multi import MultipleResult
from .partitioned import TOP_ROWS
from .power import power_sentence
from .results import expected_text, in_force, stacked, verdict_count
from .sensitivity import SENSITIVITY_LABEL, SensitivityResult, run_sensitivity
from .spec import SituationSpec

__all__ = ["ANALYSIS", "METHOD_NAMES", "LEAD", "run", "collect", "section", "summary_frame",
           "tables"]  # fmt: skip

#: The registry name (the ``analyses.situation`` key and the prefix of every table).
ANALYSIS_NAME = "situation"

assert set(METHOD_NAMES) == set(METHODS)

LEAD = (
    "For every member of a protected group (the complainant) we compare how often similar "
    "protected people were rejected (the control group) with how often similar people of "
    "the non-protected group were rejected (the test group). A difference Δp > τ is a case "
    "of potential discrimination; it is significant when its one-sided confidence interval "
    "excludes τ and, under a correction for multiple testing, when its adjusted p-value is "
    "at most α. The methods that ran are described below."
)


def methods_text(results: Mapping[str, Any]) -> str:
    """One sentence per method that ran (issue 23: method text only for the methods run;
    the causal model is named only when a counterfactual method used it)."""
    ran = {m for res in tests_of(results).values() for m in res.params.get("methods", [])}
    parts = [f"{METHOD_NAMES[m]} ({m}): {METHOD_GLOSSARY[m]}" for m in METHODS if m in ran]
    text = "Methods run: " + " ".join(parts)
    if any(m != "st" for m in ran):
        text += " The counterfactuals come from the causal model in the appendix."
    return text


def needs_scm(spec: SituationSpec) -> bool:
    """A counterfactual method (cst, cst_centers, cf) needs the fitted causal model."""
    return any(m != "st" for m in spec.methods)


def check(spec: SituationSpec, cfg: Any) -> None:
    """Cross-section checks that need no data (so a bad file fails before anything is read)."""
    multi = [d for d in spec.dimensions if d != "single"]
    centred = [m for m in spec.methods if m in ("cst_centers", "cf")]
    problems = (  # (whether it applies, the message), in the order they are checked
        (multi and len(cfg.protected) < 2,
         f"analyses.situation.dimensions {multi} need at least two protected attributes; "
         f"protected: names {list(cfg.protected)}"),
        (centred and cfg.decision.column is not None,
         f"analyses.situation.methods {centred} label each complainant's counterfactual with "
         "the decision model, but decision: is a recorded column; give decision: {model: "
         "...} or {rule: ...}, or use methods: [st, cst]"),
        (spec.sensitivity is not None and not (needs_scm(spec) and cfg.causal is not None),
         "analyses.situation.sensitivity varies the causal model of CST: it needs the "
         "causal: section and a counterfactual method (cst, cst_centers or cf) in "
         "analyses.situation.methods; remove sensitivity: or add them"),
        (needs_scm(spec) and cfg.causal is None,
         "analyses.situation.methods lists a counterfactual method (cst, cst_centers or "
         "cf), which needs the causal: section (edges of the causal graph); add it or use "
         "methods: [st]"),
    )  # fmt: skip
    message = next((text for applies, text in problems if applies), None)
    if message is not None:
        raise InputError(message)


def summary_frame(results: Mapping[str, Any]) -> pd.DataFrame:
    """Every test's ``summary()`` stacked, with a first column ``test`` (its label)."""
    return stacked({label: res.summary() for label, res in tests_of(results).items()}, "test")


def check_data(spec: SituationSpec, data: Any, cfg: Any) -> None:
    """Every data-dependent requirement of every test the audit will run (k against the
    search spaces, the reference value of each attribute), before any analysis runs."""
    for engine in spec.tests(list(data.protected)).values():
        getattr(engine, "check", lambda data: None)(data)


def run(spec: SituationSpec, ctx: Context) -> AnalysisRun:
    """Situation testing for every protected attribute (single), and multiple/intersectional.

    The engines come from :meth:`SituationSpec.tests` (as for ``primafacie situation``), and
    the headline, scope and caveats from the Results themselves (:func:`collect`).
    """
    engines = spec.tests(list(ctx.data.protected), backend=ctx.backend)
    results: dict[str, Any] = {}
    states: dict[str, Any] = {}
    # the single-attribute tests come first (SituationSpec.tests); written as parts, they can
    # overlap (each starts once the one before has searched), but by default run in order
    # (OVERLAP_BACKENDS); every other test then runs alone, in order
    parts = _parts_batch(spec, ctx, list(engines))
    overlapped([_parts_call(ctx, engines, label, i, results) for i, label in enumerate(parts)],
               overlap=get_backend(ctx.backend).kind in OVERLAP_BACKENDS)  # fmt: skip
    for index, label in enumerate(list(engines)[len(parts) :], start=len(parts)):
        engine = engines[label]
        ctx.tick(index, len(engines), _name(label))
        if spec.sensitivity is not None and isinstance(engine, SituationTest):
            # keep the factual search spaces: the variants re-run only the CF stages
            res = engine.run(ctx.data, scm=ctx.scm, decider=ctx.decider, keep_state=True)
            results[label], states[label] = res, (engine, res, engine.state_)
        else:
            results[label] = engine.run(ctx.data, scm=ctx.scm, decider=ctx.decider)
    results = {label: results[label] for label in engines}  # the tests' order, however run
    if spec.sensitivity is not None:
        results[SENSITIVITY_LABEL] = run_sensitivity(
            spec.sensitivity, states, ctx.scm, ctx.decider, ctx.tick
        )
    return _with_dossiers(collect(results), spec, ctx)


#: Backends on which the tests written as parts overlap, the next one starting once the one
#: before has searched: none by default. The overlap fills the cores the client's own stages
#: leave idle on a cluster (a test's statistics merges and report rows, the next test's space
#: and coordinates: docs/scaling.md, "The 10^7 run's idle cores, overlapped"), but above
#: 2·10^6 rows two tests' searches at once on the workers cost more than the idle cores they
#: fill: on a 2-worker cluster, idle, the overlap saved nothing at 10^6 (80.0 / 84.2 s on
#: against 79.2 / 87.8 s off) and cost 219 s at 5·10^6 (662.7 s on, 443.9 s off; the workers'
#: CPU 958 against 709 s; docs/scaling.md, "Issue 22's benchmark table on an idle machine",
#: ninth session). Locally the backend's threads already fill the cores, and two tests at
#: once would hold two tests' memory in the one process.
OVERLAP_BACKENDS: tuple[str, ...] = ()


def _parts_batch(spec: SituationSpec, ctx: Context, labels: list[str]) -> list[str]:
    """The leading labels of ``labels`` whose tests are written as parts: the single-attribute
    tests of an audit with a staging folder write a large table as Parquet parts
    (:mod:`.partitioned`); the dossiers and the sensitivity analysis read the whole table, so
    with either of them every table stays in memory."""
    if ctx.tables_dir is None or spec.dossiers is not None or spec.sensitivity is not None:
        return []
    return list(takewhile(lambda label: label.startswith("single_"), labels))


def _parts_call(ctx: Context, engines: Mapping[str, Any], label: str, index: int,
                results: dict[str, Any]) -> Any:  # fmt: skip
    """One test written as parts, as a step of :func:`~primafacie.compute.overlapped`: its
    Result is placed under its own label (never by when it finished); ``go`` is called once
    its searches are done."""
    stem = table_stem(ANALYSIS_NAME, label, among=engines)

    def call(go: Any) -> None:
        ctx.tick(index, len(engines), _name(label))
        results[label] = engines[label].run_to_parts(
            ctx.data, Path(ctx.tables_dir) / stem, f"tables/{stem}/", ctx.scm, ctx.decider,
            searched=go,
        )  # fmt: skip

    return call


def _with_dossiers(run: AnalysisRun, spec: SituationSpec, ctx: Context) -> AnalysisRun:
    """Add the dossier pages (``analyses.situation.dossiers``) as the Result ``dossiers``."""
    if spec.dossiers is None:
        return run
    from ..report.dossier import decision_source
    from .dossier import build_dossiers

    book = build_dossiers(
        run.results, ctx.data, scm=ctx.scm, source=decision_source(ctx.config),
        top=spec.dossiers.top, redact=spec.dossiers.redact,
        sensitivity=run.results.get("sensitivity"), **dossier_setting(ctx.config, ctx.data),
    )  # fmt: skip
    tables = {**run.tables, table_stem(ANALYSIS_NAME, "dossiers"): book.to_frame()}
    return replace(run, results={**run.results, "dossiers": book}, tables=tables)


def dossier_setting(cfg: Any, data: Any) -> dict[str, Any]:
    """What the dossier pages take from the audit's configuration: each row's time window
    (``time:``) and the jurisdiction of the legal notes."""
    if cfg is None:
        return {}
    windows = None
    time = getattr(cfg, "time", None)
    if time is not None:
        from ..overtime.windows import window_labels

        step = time.window if time.column is not None else None
        windows = window_labels(data.frame[time.source], step, time.source).tolist()
    return {"windows": windows, "jurisdiction": getattr(cfg, "jurisdiction", "eu")}


def tests_of(results: Mapping[str, Any]) -> dict[str, Any]:
    """The test Results of a situation run (its ``dossiers`` and ``sensitivity`` left out of
    counts and headlines)."""
    return {label: r for label, r in results.items() if label not in ("dossiers", "sensitivity")}


def _name(label: str) -> str:
    """How a test is called in prose: the attribute of a single test, else its dimension."""
    return label.removeprefix("single_")


def _share_intervals(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Add the 95% Wilson interval of each share (``<share>_low`` / ``<share>_high``), so a
    release gate can require the interval to clear its threshold (``check``, ``strict``)."""
    z = z_value(0.05, "two")
    shares = {"significant_share": "n_significant",
              "significant_adjusted_share": "n_significant_adjusted"}  # fmt: skip
    for rec, (share, count) in product(records, shares.items()):
        if rec["denominator"]:  # every row of summarize() has these columns
            low, high = wilson_interval(rec[count], rec["denominator"], z)
            rec[f"{share}_low"], rec[f"{share}_high"] = float(low), float(high)
    return json_safe(records)


def collect(results: Mapping[str, Any]) -> AnalysisRun:
    """The :class:`AnalysisRun` of some situation tests: tables, numbers and the words the
    Results give about themselves (headline, scope and caveats, each test named when there
    are several)."""
    tests = tests_of(results)
    summary = summary_frame(tests)
    tables = {} if summary.empty else {table_stem(ANALYSIS_NAME, "summary"): summary}
    caveats = [_named(label, c, len(tests)) for label, res in tests.items() for c in res.caveats()]
    numbers: dict[str, Any] = {"by_test": _share_intervals(summary.to_dict(orient="records"))}
    headline, scope = (" ".join(_said(tests, what)) for what in ("headline", "scope"))
    sens = results.get(SENSITIVITY_LABEL)
    if isinstance(sens, SensitivityResult):
        # beside the main headline: how many of those cases survive other causal models
        # (its tables come from its extra_tables)
        numbers["robust"] = json_safe(sens.robust_counts().to_dict(orient="records"))
        headline += " Robustness: " + sens.headline()
        scope += " Robustness: " + sens.scope()
        caveats += sens.caveats()
    return AnalysisRun.of(ANALYSIS_NAME, results, numbers, tables=tables, headline=headline,
                          scope=scope, caveats=dict.fromkeys(caveats))  # fmt: skip


def overview(run: AnalysisRun) -> Any:
    """Cases and significant cases by test, method and k (None when nothing was tested)."""
    # (an empty summary draws nothing)
    return plots.situation_counts(summary_frame(run.results).rename(columns={"test": "dimension"}))


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
    if callable(getattr(result, "block", None)):  # a partitioned table reads one part
        rows_of = result.block(method, k, ["row"])["row"]
    else:
        table = result.table
        rows_of = table.loc[(table["method"] == method) & (table["k"] == k), "row"]
    pos = np.flatnonzero(rows_of.isin(rows["row"]).to_numpy())  # positions in the block
    groups = (("control", ctrl[pos]), ("test", test[pos]))
    means: dict[str, dict[str, float]] = {}
    # one standardised column at a time, read at the members' rows and released: all of them
    # at once were ~18 float columns of every data row (+330 MB over the write's start at
    # 2·10^6 rows, the Dask client's peak: docs/scaling.md); the same values, bit for bit
    for name, vals in _standardised(data):
        means[name] = {}  # a repeated name replaces the values, in its first place
        for group, idx in groups:
            v = np.where(idx >= 0, vals[np.maximum(idx, 0)], np.nan)
            means[name][group] = float(np.nanmean(np.nanmean(v, axis=1)))
        del vals
    out = [{"group": g, "feature": n, "mean_z": m[g]} for g, _ in groups for n, m in means.items()]
    return pd.DataFrame(out)


def _standardised(data: Any) -> Iterator[tuple[str, np.ndarray]]:
    """The columns :func:`_composition` compares, standardised over every data row, one at a
    time (name, values): each feature (a categorical one as an indicator per frequent level),
    then the rejections."""
    for name, spec in data.features.items():
        col = data.frame[name]
        if spec.kind == "ordinal" and spec.order is not None:
            order = {str(v): i for i, v in enumerate(spec.order)}
            yield name, _zscore(by_text(col, lambda t, order=order: t.map(order), float))
        elif spec.kind in ("numeric", "ordinal"):
            yield name, _zscore(col.to_numpy(dtype=float))
        else:  # categorical: one indicator per frequent level, so a skewed mix shows as a bar
            text = col if isinstance(col.dtype, pd.CategoricalDtype) else col.astype(str)
            for level in frequent_texts(text)[:_COMPOSITION_LEVELS]:
                hit = by_text(text, lambda t, level=level: t == level, float)
                yield f"{name}={level}", _zscore(hit)
            del text
    yield "rejected", _zscore((1 - data.decision_array()).astype(float))


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The report section: each test's headline and caveats, counts by test, method and k,
    and the strongest complaints. Reads only ``run.results`` (and ``data`` for the group
    composition), never the configuration."""
    results = tests_of(run.results)
    links = run.results["dossiers"].links() if "dossiers" in run.results else {}
    findings = _said(results, "headline")
    # the run's caveats are rendered by the report under the findings of every section
    blocks: list[dict[str, Any] | None] = [rb.text(methods_text(results))]
    blocks += _power_blocks(results)
    blocks += _count_blocks(summary_frame(results))
    # one collapsible group per test (protected attribute, multiple, intersectional)
    blocks += [rb.group(f"{_name(label)}: the strongest complaints",
                        _complaint_blocks(label, res, data, links, run.results), _main_number(res))
               for label, res in results.items()]  # fmt: skip
    sens = run.results.get(SENSITIVITY_LABEL)
    if isinstance(sens, SensitivityResult):
        findings.append("Robustness: " + sens.headline())
        blocks += _robustness_blocks(sens)
    return rb.section(findings, blocks)


def _power_blocks(results: Mapping[str, Any]) -> list[dict[str, Any] | None]:
    """Under the headlines: the simulated power of the first test's main (method, k), so a
    reader knows how many affected people a test of this size misses (issue 15)."""
    if not results:
        return []
    res = next(iter(results.values()))
    p = res.params
    setting = (float(p.get("alpha", 0.05)), float(p.get("tau", 0.0)),
               str(p.get("interval", "wald")), str(p.get("multiplicity", "none")))  # fmt: skip
    return [rb.text(power_sentence(*res.main_test(), *setting))]


def _main(res: Any) -> tuple[str, int, Any]:
    """A test's main (method, k) and its summary row (None when it has none)."""
    method, k = res.main_test()
    return method, k, res._row(method, k)


def _main_number(res: Any) -> str:
    """``21 of 95 significant (22.1%; 95% CI 15.0–31.4%), CST w/o k=10``: one test's headline
    number, the significant cases of its main method and k among the tested, with the Wilson
    interval of the share."""
    method, k, r = _main(res)
    if r is None:
        return ""
    rate = rate_text(verdict_count(r), int(r["denominator"]), ci=True)
    return f"{rate} significant{_after(r)}, {METHOD_NAMES.get(method, method)} k={k}"


def _after(row: Any) -> str:
    """`` after BH`` when a correction is in force (the short name: nav and cards)."""
    return f" after {MULTIPLICITY_SHORT[row['multiplicity']]}" if in_force(row) else ""


def headline_number(run: AnalysisRun) -> str:
    """Significant cases of each single-attribute test (of the tested), after the correction
    in force, e.g. ``significant after BH: gender 360 of 1526 · race 747 of 1197``; every test
    when there is no single-attribute one."""
    rows = {_name(label): r for label, _, _, r in _single_mains(run) if r is not None}
    if not rows:
        return "no complainant tested"
    after = {_after(r) for r in rows.values()}
    parts = [f"{name} {verdict_count(r)} of {int(r['denominator'])}" for name, r in rows.items()]
    return f"significant{''.join(after) if len(after) == 1 else ''}: " + " · ".join(parts)


def finding(run: AnalysisRun) -> dict[str, Any]:
    """The test with the largest share of significant cases (after the correction in
    force): a concern when any complainant is significant, else no evidence."""
    tested = [m for m in _single_mains(run) if m[3] is not None and int(m[3]["denominator"])]
    if not tested:
        return {"level": "neutral", "badge": "not tested", "sentence": "no complainant "
                "could be tested", "strength": 0.0}  # fmt: skip
    # the first of the largest shares (max keeps the first of equal keys)
    label, method, k, r = max(tested, key=lambda t: verdict_count(t[3]) / int(t[3]["denominator"]))
    sig, den = verdict_count(r), int(r["denominator"])
    text = (
        f"{rate_text(sig, den)} of the tested complainants protected on {_name(label)} "
        f"are significant cases{_after(r)} ({METHOD_NAMES.get(method, method)}, k={k})"
    )
    return rb.verdict(sig, den, text, "significant cases", "no evidence")


def _single_mains(run: AnalysisRun) -> list[tuple[str, str, int, Any]]:
    """``(label, method, k, summary row)`` of the main test of each single-attribute test of
    a run, or of every test when there is none."""
    tests = tests_of(run.results)
    single = {k: v for k, v in tests.items() if k.startswith("single_")} or tests
    return [(label, *_main(res)) for label, res in single.items()]


def _robustness_blocks(sens: SensitivityResult) -> list[dict[str, Any] | None]:
    """ "How robust is this?": robust cases, variants × significant cases, single-edge cases."""
    summ = sens.summary()
    disp = summ.assign(significant=rb.rates(summ["significant"], summ["denominator"]))
    tables = (  # (table, CSV label, title, caption, rows shown)
        (sens.robust_counts(), "robust", "Robust cases by k",
         "significant: under the audited causal model; robust: significant under every "
         "alternative too; denominator: the complainants re-tested.", 50),
        (disp, "summary", "Significant cases under each alternative causal model",
         "gained / lost: verdicts that become / stop being significant compared with the "
         "audited model; unchanged: verdicts that stay the same.", 100),
        (sens.single_edge(), "single_edge", "Verdicts that depend on a single edge",
         "Complainants whose verdict at that k changes under exactly one edge variant "
         "(that edge removed or added) and under no other edge change.", 50),
    )  # fmt: skip
    return [
        rb.heading("How robust is this?"),
        rb.text(
            sens.headline() + " Each alternative causal model re-runs the counterfactuals and "
            "the test groups (the control groups do not depend on the causal model): every "
            "edge removed in turn, plausible missing edges added in turn, the mechanism "
            "swapped, and any graph listed in the configuration. A robust case is significant "
            "under the audited model and under every alternative."
        ),
        *(rb.table(frame, title, caption, max_rows=rows,
                   csv=table_path(ANALYSIS_NAME, f"{SENSITIVITY_LABEL}_{label}"))
          for frame, label, title, caption, rows in tables),
    ]  # fmt: skip


def _named(label: str, text: str, n_tests: int) -> str:
    return f"{_name(label)}: {text}" if n_tests > 1 else text


def _said(tests: Mapping[str, Any], what: str) -> list[str]:
    """Each test's ``headline()`` or ``scope()`` (``what``), named when there are several."""
    return [_named(label, getattr(res, what)(), len(tests)) for label, res in tests.items()]


def tables(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The section's counts by test, method and k, which ``primafacie situation`` prints too
    (:func:`primafacie.terminal.print_table`); none without a test."""
    return _count_blocks(summary_frame(results), figure=False)


def _count_blocks(summary: pd.DataFrame, figure: bool = True) -> list[Any]:
    """The bar chart (unless ``figure`` is False) and the table of counts by test, method and
    k: "significant" is the count after the correction in force (issue 23), the unadjusted
    count beside it."""
    if summary.empty:
        return []
    counts = summary.assign(dimension=summary["test"].map(_name)).drop(columns="test")
    verdict = [verdict_count(r) for _, r in summary.iterrows()]  # one row per (test, method, k)
    bars = counts.assign(method=counts["method"].map(METHOD_NAMES), n_significant=verdict)
    blocks = [rb.figure(
        plots.situation_counts(bars), "Cases by method and k",
        f"Light bars: cases (Δp > τ); dark bars: significant cases{_after_text(summary)}; both "
        "as a share of the tested protected individuals of the test (counts, denominators and "
        "the untested in the table below).",
    )] if figure else []  # fmt: skip
    # "significant" names the adjustment that produced it, e.g. "3.1% (12 of 388) (bh)"
    named = [(f"{text} ({m})", rate) for (text, rate), m in zip(
        rb.rates(verdict, summary["denominator"]), summary["multiplicity"], strict=True)]  # fmt: skip
    chance = [(expected_text(float(v)), float(v)) for v in summary["expected_by_chance"]]
    shown = rb.columns(counts, {
        "test": "dimension", "method": summary["method"].map(METHOD_NAMES), "k": "k",
        "denominator": "denominator", "untested": "untested", "cases": ("cases", "denominator"),
        "significant": named, "significant before adjustment": ("n_significant", "denominator"),
        "mean Δp (cases)": "mean_delta_cases", "expected by chance": chance,
    })  # fmt: skip
    table = rb.table(
        shown, "Counts by test, method and k",
        "denominator: the protected individuals of the test minus the untested complainants "
        "(no control or test neighbour), who are left out of every share. significant: after "
        "the adjustment across the complainants of the row's method and k, which is named "
        "(bonferroni, holm, bh, by; none: no adjustment); significant before adjustment: the "
        "unadjusted count. expected by chance: α × tested, the significant cases chance alone "
        "gives before any adjustment when no one is discriminated against (multiple: α/q × "
        "tested, at most, as a case needs every one of the q attributes significant at α/q).",
        csv=table_path(ANALYSIS_NAME, "summary"),
    )  # fmt: skip
    return [*blocks, table]


def _after_text(summary: pd.DataFrame) -> str:
    """`` after the Benjamini–Hochberg adjustment`` when every row has that one correction."""
    methods = set(summary["multiplicity"].astype(str)) - {"none"}
    if len(methods) == 1:
        return f" after the {MULTIPLICITY_NAMES[methods.pop()]} adjustment"
    return " after the adjustment named in the table" if methods else ""


def _complaint_blocks(label: str, res: Any, data: Any, links: Mapping[str, str] | None = None,
                      among: Iterable[str] = ()) -> list[dict[str, Any] | None]:  # fmt: skip
    """The strongest complaints of one test: Δp with intervals, group composition, table
    (``among``: the run's labels, which name the test's CSV as the writer did)."""
    if not int(getattr(res, "n_rows", len(res.table))):  # a partitioned table holds no rows
        return []
    method, k = res.main_test()
    tau, alpha = float(res.params["tau"]), float(res.params["alpha"])
    # a page of the table, not all of it (a partitioned table reads one part's keys)
    top = res.strongest(method, k, TOP_ROWS)  # an audit keeps these rows' members
    name, method_name = _name(label), METHOD_NAMES.get(method, method)
    blocks: list[dict[str, Any] | None] = [rb.figure(
        plots.delta_intervals(top, top=20, tau=tau, direction=res.params.get("direction")),
        f"Δp with intervals, top complainants ({name}, {method_name}, k={k})",
        f"Each row is one protected person: Δp is the share of the {k} most similar "
        "protected people who were rejected minus the share of the "
        f"{k} most similar non-protected people (for CST: similar to the person's "
        "counterfactual) who were rejected. The grey line is the one-sided "
        f"{100 * (1 - alpha):.0f}% interval.",
    )]  # fmt: skip
    if isinstance(res, MultipleResult):  # one set of columns per attribute's run
        cols = [c for c in top.columns if c == "id" or c.startswith(("delta", "significant"))]
        # named as in the single tables: "significant" is the verdict after the correction
        shown = top[["method", "k", *cols]].rename(columns=_MULTIPLE_SHOWN)
        note = ("A multiple case needs Δp > τ on every protected attribute (Bonferroni α/q for "
                "significance on each, significant_<attribute>); delta is the mean of the "
                "per-attribute deltas.")  # fmt: skip
    else:
        # the one verdict: significant after the correction in force
        verdict = top.get("significant_adjusted", top["significant"]).astype(bool)
        comp = _composition(data, res, method, k, top[verdict])
        blocks.append(rb.figure(
            plots.group_composition(comp), f"Control vs test group composition ({name})",
            "Average profile of the control groups (similar protected people) and test "
            "groups (similar non-protected people) of the significant complainants above, "
            "in standard deviations from the population mean; a categorical feature shows "
            "one bar per frequent level (feature=level, the share holding it, standardised) "
            "and 'rejected' is the rejection indicator, standardised the same way. Similar "
            "profiles with different rejection rates are the signature of discrimination.",
        ))  # fmt: skip
        shown = top[[c for c in _SHOWN if c in top.columns]].rename(columns=_SHOWN)
        shown = shown.assign(method=shown["method"].map(METHOD_NAMES))
        if links:  # a link column only when dossiers were written (the report is unchanged else)
            shown = shown.assign(dossier=[_link(links, i) for i in top["id"]])
        note = "p_c = control rejected / control size; p_t = test rejected / test size."
    # a partitioned table is a folder of Parquet parts
    csv = getattr(res, "see", None) or table_path(ANALYSIS_NAME, label, among)
    return [*blocks, rb.table(shown, f"Top complainants ({name})", note, csv=csv, max_rows=20)]


def _link(links: Mapping[str, str], ident: Any) -> Any:
    """A table cell linking a complainant's dossier page ("" when it has none)."""
    from ..report.dossier import PageLink

    href = links.get(str(ident))
    return PageLink(href) if href else ""


#: The columns of the table of top complainants, in order, and their headings.
_SHOWN = {
    "id": "id", "method": "method", "k": "k", "k_c": "control size", "neg_c": "control rejected",
    "p_c": "p_c", "k_t": "test size", "neg_t": "test rejected", "p_t": "p_t", "delta": "delta",
    "ci_low": "ci_low", "p_value": "p-value", "p_adjusted": "adjusted p-value",
    "significant_adjusted": "significant", "significant": "significant before adjustment",
}  # fmt: skip


#: The multiple table's verdict columns, named as in :data:`_SHOWN`.
_MULTIPLE_SHOWN = {"significant_adjusted": "significant",
                   "significant": "significant before adjustment"}  # fmt: skip


GLOSSARY = (
    ("k", "the number of nearest neighbours in the control group and in the test group."),
    ("α", "the significance level of each test (and the error rate the correction controls)."),
    ("τ", "the tolerance: a case needs Δp = p_c − p_t above τ."),
    ("Δp", "p_c − p_t: the control group's rejection rate minus the test group's."),
    (
        "p-value, adjusted p-value",
        "the one-sided p-value of Δp > τ, and the same after the "
        "correction across complainants (bh: Benjamini–Hochberg, by: Benjamini–Yekutieli, "
        "holm, bonferroni); significant means adjusted p-value ≤ α.",
    ),  # fmt: skip
    *((f"{METHOD_NAMES[m]} ({m})", METHOD_GLOSSARY[m]) for m in METHODS),
)

ANALYSIS = Analysis.define(
    globals(),
    name=ANALYSIS_NAME,
    reference_rows=True,
    encoded_text=True,
    title="Situation testing",
    spec=SituationSpec,
    description="Situation testing (ST, CST, CF).",
)
