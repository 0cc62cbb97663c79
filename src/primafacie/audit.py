"""One audit, one report: configuration -> analyses -> results -> report.html, results.json, CSVs.

:func:`run_audit` is what ``primafacie audit`` and ``primafacie demo`` call. It builds the
:class:`~primafacie.data.AuditData` from the configuration, fits the causal model once when an
analysis needs it, runs every analysis the configuration asks for and writes the outputs
through :func:`~primafacie.io.atomic_output_dir`, so a failed run leaves no half-written folder.

An analysis whose module is not part of this build is reported as *not available in this
build* (status ``"unavailable"``) and the audit goes on. Outputs carry no timestamps, so the
same inputs give byte-identical files.

Examples
--------
>>> from primafacie.config import load_config          # doctest: +SKIP
>>> res = run_audit(load_config("audit.yaml"), "out/audit")  # doctest: +SKIP
>>> res.summary()                                       # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import math
import platform
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from .config import AuditConfig
from .data import AuditData
from .errors import AnalysisError, InputError
from .io import (
    atomic_output_dir,
    atomic_write_csv,
    atomic_write_json,
    atomic_write_text,
    file_sha256,
)
from .jsonsafe import json_safe

__all__ = [
    "ANALYSES",
    "AnalysisRun",
    "AuditResult",
    "AnalysisUnavailable",
    "compute_audit",
    "run_audit",
    "run_demo",
    "write_audit",
    "json_safe",
]

#: The analyses an audit can run, in report order.
ANALYSES = ("situation", "recourse", "principal", "certainty")
TITLES = {
    "situation": "Situation testing",
    "recourse": "Recourse fairness",
    "principal": "Principal-stratum fairness",
    "certainty": "Certainty of fairness",
}
RESULTS_SCHEMA_VERSION = "1"
_VERSION_PACKAGES = (
    "primafacie", "numpy", "pandas", "scipy", "scikit-learn", "mlxtend", "matplotlib", "jinja2",
    "pydantic",
)  # fmt: skip


class AnalysisUnavailable(Exception):
    """The module implementing an analysis is not importable in this build."""


def _require(module: str, *names: str) -> tuple[Any, ...]:
    """Import ``names`` from ``module`` or raise :class:`AnalysisUnavailable` saying which."""
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise AnalysisUnavailable(f"{module} cannot be imported ({exc})") from None
    missing = [n for n in names if not hasattr(mod, n)]
    if missing:
        raise AnalysisUnavailable(f"{module} does not provide {', '.join(missing)}")
    return tuple(getattr(mod, n) for n in names)


#: Lists of per-row records longer than this are kept out of results.json (they are in the
#: result's CSV table, named in their place), so the file stays small and quick to write.
MAX_JSON_ROWS = 500


#: Wall-clock measurements some results carry; they differ between runs, so they are left out
#: of results.json (which must be byte-identical for identical inputs).
VOLATILE_KEYS = frozenset({"timings", "seconds", "elapsed", "duration", "runtime"})


def _prune_rows(obj: Any, see: str, limit: int = MAX_JSON_ROWS) -> Any:
    """Replace long lists of records by ``{"rows": n, "see": csv}`` and drop wall-clock timings
    (:data:`VOLATILE_KEYS`); everything else is kept."""
    if isinstance(obj, Mapping):
        return {
            k: _prune_rows(v, see, limit) for k, v in obj.items() if str(k) not in VOLATILE_KEYS
        }
    if isinstance(obj, list) and len(obj) > limit and obj and isinstance(obj[0], Mapping):
        return {"rows": len(obj), "see": see}
    return obj


# ---------------------------------------------------------------------- results
@dataclass(frozen=True)
class AnalysisRun:
    """What one analysis produced.

    Attributes
    ----------
    name
        ``situation`` | ``recourse`` | ``principal`` | ``certainty``.
    status
        ``"ok"``, ``"unavailable"`` (its module is not in this build) or ``"failed"`` (only when
        the audit was asked to keep going after an analysis error).
    message
        Why the status is not ``"ok"``.
    results
        ``{label: Result}``: the analysis' own result objects (each with ``to_frame``,
        ``summary``, ``to_dict``, ``plot``).
    tables
        ``{csv stem: DataFrame}`` written as ``tables/<stem>.csv``.
    numbers
        JSON-safe headline numbers (counts with their denominators).
    headline
        One sentence for the executive summary.
    scope
        What was tested on how many people (one sentence for the executive summary).
    extras
        Report-only material (e.g. group-composition tables, curves); not written to JSON.
    seconds
        Wall time (printed in the terminal only, never written, so outputs stay identical).
    """

    name: str
    status: str
    message: str = ""
    results: Mapping[str, Any] = field(default_factory=dict)
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    numbers: Mapping[str, Any] = field(default_factory=dict)
    headline: str = ""
    scope: str = ""
    extras: Mapping[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record: status, message, headline, numbers, every result's ``to_dict()``."""
        return {
            "status": self.status,
            "message": self.message,
            "headline": self.headline,
            "scope": self.scope,
            "numbers": json_safe(self.numbers),
            "results": {
                k: json_safe(_prune_rows(v.to_dict(), f"tables/{_slug(f'{self.name}_{k}')}.csv"))
                for k, v in self.results.items()
            },
            "tables": [f"tables/{stem}.csv" for stem in self.tables],
        }


@dataclass(frozen=True)
class AuditResult:
    """The whole audit: configuration, data description, one :class:`AnalysisRun` per analysis.

    ``to_dict()`` is the content of results.json (validated by
    :data:`primafacie.report.schema.RESULTS_SCHEMA`); ``summary()`` is the terminal table.
    """

    config: Mapping[str, Any]
    data_info: Mapping[str, Any]
    runs: Mapping[str, AnalysisRun]
    inputs: tuple[Mapping[str, str], ...]
    versions: Mapping[str, str]
    seeds: Mapping[str, int]
    data: AuditData | None = None
    scm: Any = None
    out_dir: Path | None = None
    files: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe content of results.json (no timestamps, no absolute paths)."""
        return json_safe(
            {
                "schema_version": RESULTS_SCHEMA_VERSION,
                "config": self.config,
                "data": self.data_info,
                "inputs": list(self.inputs),
                "versions": self.versions,
                "seeds": self.seeds,
                "analyses": {name: run.to_dict() for name, run in self.runs.items()},
                "files": list(self.files),
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row per analysis: status, headline (or the reason it did not run), seconds."""
        rows = [
            {
                "analysis": name,
                "status": run.status,
                "finding": run.headline if run.status == "ok" else run.message,
                "seconds": round(run.seconds, 1),
            }
            for name, run in self.runs.items()
        ]
        return pd.DataFrame(rows, columns=["analysis", "status", "finding", "seconds"])

    to_frame = summary

    def plot(self) -> Any:
        """Overview figure: situation-testing cases by test, method and k when situation testing
        ran, else the status of each analysis. Returns a matplotlib Figure."""
        from .report import plots

        sit = self.runs.get("situation")
        summary = sit.extras.get("summary") if sit is not None and sit.status == "ok" else None
        if summary is not None and not summary.empty:
            fig = plots.situation_counts(summary.rename(columns={"test": "dimension"}))
            if fig is not None:
                return fig
        fig, ax = plots._figure(6.0, 0.4 * max(len(self.runs), 1) + 0.8)
        for i, (name, run) in enumerate(self.runs.items()):
            ax.text(0.0, -i, f"{name}: {run.status}", fontsize=10, va="center")
        ax.set_ylim(-len(self.runs), 1)
        ax.set_axis_off()
        return fig

    @property
    def failed(self) -> list[str]:
        """Names of analyses that failed (only possible with ``keep_going``)."""
        return [n for n, r in self.runs.items() if r.status == "failed"]


# ---------------------------------------------------------------------- progress
class _Stages:
    """A rich progress display with one bar per stage on stderr (or nothing)."""

    def __init__(self, names: list[str], enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}
        self._names = names

    @contextmanager
    def running(self) -> Iterator[_Stages]:
        if not self.enabled:
            yield self
            return
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<28}"),
            BarColumn(),
            TextColumn("{task.fields[note]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        with self._progress:
            for name in self._names:
                self._tasks[name] = self._progress.add_task(name, total=1, note="", start=False)
            yield self

    def start(self, name: str) -> None:
        if self._progress is not None and name in self._tasks:
            self._progress.start_task(self._tasks[name])

    def step(self, name: str, completed: int, total: int, note: str = "") -> None:
        """Sub-steps of a stage (e.g. one situation test per protected attribute)."""
        if self._progress is not None and name in self._tasks:
            self._progress.update(self._tasks[name], completed=completed, total=total, note=note)

    def done(self, name: str, note: str = "") -> None:
        if self._progress is not None and name in self._tasks:
            self._progress.update(self._tasks[name], total=1, completed=1, note=note)
            self._progress.stop_task(self._tasks[name])


# ---------------------------------------------------------------------- helpers
def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", str(text)).strip("_").lower() or "table"


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in _VERSION_PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _input_files(cfg: AuditConfig) -> list[dict[str, str]]:
    """Every file the audit reads, with its path as written in the configuration and SHA-256."""
    items: list[tuple[str, Any]] = [("data", cfg.data)]
    if cfg.decision.model is not None:
        items.append(("decision model", cfg.decision.model))
    cert = cfg.analyses.certainty
    if cert is not None:
        for name, dm in cert.decision_makers.items():
            if dm.model is not None:
                items.append((f"decision-maker {name}", dm.model))
    seen: dict[str, dict[str, str]] = {}
    for role, path in items:
        key = Path(path).as_posix()
        if key in seen:
            continue
        full = cfg.resolve(path)
        if not full.is_file():
            raise InputError(f"{role} file not found: {full}")
        seen[key] = {"role": role, "path": key, "sha256": file_sha256(full)}
    return list(seen.values())


def _data_info(cfg: AuditConfig, data: AuditData) -> dict[str, Any]:
    """Who was audited: n, features, and per protected attribute the group sizes and rates."""
    y_hat = data.decision_array()
    groups = []
    for attr, values in data.protected.items():
        mask = data.protected_mask(attr)
        row: dict[str, Any] = {
            "attribute": attr,
            "protected_values": [str(v) for v in values],
            "n": int(data.n),
            "n_protected": int(mask.sum()),
            "n_non_protected": int((~mask).sum()),
            "favourable_protected": int(y_hat[mask].sum()),
            "favourable_non_protected": int(y_hat[~mask].sum()),
        }
        if data.outcome is not None:
            y = data.outcome_array()
            row["outcome_favourable_protected"] = int(y[mask].sum())
            row["outcome_favourable_non_protected"] = int(y[~mask].sum())
        groups.append(row)
    if len(data.protected) > 1:
        mask = data.protected_mask(list(data.protected))
        groups.append(
            {
                "attribute": " & ".join(data.protected),
                "protected_values": ["protected on every attribute"],
                "n": int(data.n),
                "n_protected": int(mask.sum()),
                "n_non_protected": int((~mask).sum()),
                "favourable_protected": int(y_hat[mask].sum()),
                "favourable_non_protected": int(y_hat[~mask].sum()),
            }
        )
    if cfg.decision.column is not None:
        source = f"recorded column {cfg.decision.column!r}"
    elif cfg.decision.model is not None:
        source = f"model {Path(cfg.decision.model).as_posix()}"
    else:
        source = f"rule {cfg.decision.rule}"
    n_fav = int(y_hat.sum())
    warnings_ = []
    if n_fav in (0, data.n):
        which = "unfavourable" if n_fav == 0 else "favourable"
        warnings_.append(
            f"every decision is {which} ({n_fav} favourable of {data.n}): no analysis can find a "
            "difference between groups; check the favourable value, the rule or the model"
        )
    return {
        "warnings": warnings_,
        "n": int(data.n),
        "features": {k: v.kind for k, v in data.features.items()},
        "protected": {k: [str(v) for v in vals] for k, vals in data.protected.items()},
        "decision_source": source,
        "n_favourable": int(y_hat.sum()),
        "outcome": data.outcome,
        "n_outcome_favourable": int(data.outcome_array().sum()) if data.outcome else None,
        "groups": groups,
    }


def _result_tables(prefix: str, results: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Every result's ``to_frame()`` (and ``summary()`` when it is a table) as CSV tables."""
    tables: dict[str, pd.DataFrame] = {}
    for label, res in results.items():
        stem = _slug(f"{prefix}_{label}")
        frame = res.to_frame()
        if isinstance(frame, pd.DataFrame):
            tables[stem] = frame
        summ = res.summary()
        if isinstance(summ, pd.DataFrame):
            tables[f"{stem}_summary"] = summ
    return tables


# ---------------------------------------------------------------------- analyses
#: ``runner(cfg, data, scm, tick)``; ``tick(done, total, note)`` reports sub-steps.
Runner = Callable[..., AnalysisRun]
Tick = Callable[[int, int, str], None]


def _no_tick(done: int, total: int, note: str) -> None:
    return None


def _needs_scm(cfg: AuditConfig) -> bool:
    sit = cfg.analyses.situation
    return sit is not None and any(m != "st" for m in sit.methods)


def _check_config(cfg: AuditConfig) -> None:
    """Cross-section checks that need no data (so a bad file fails before anything is read)."""
    if not any(getattr(cfg.analyses, a) is not None for a in ANALYSES):
        raise InputError(
            "analyses: the configuration asks for no analysis; add at least one of "
            + ", ".join(ANALYSES)
        )
    sit = cfg.analyses.situation
    multi = [d for d in (sit.dimensions if sit else []) if d != "single"]
    if multi and len(cfg.protected) < 2:
        raise InputError(
            f"analyses.situation.dimensions {multi} need at least two protected attributes; "
            f"protected: names {list(cfg.protected)}"
        )
    centred = [m for m in (sit.methods if sit else []) if m in ("cst_centers", "cf")]
    if centred and cfg.decision.column is not None:
        raise InputError(
            f"analyses.situation.methods {centred} label each complainant's counterfactual with "
            "the decision model, but decision: is a recorded column; give decision: {model: "
            "...} or {rule: ...}, or use methods: [st, cst]"
        )
    if _needs_scm(cfg) and cfg.causal is None:
        raise InputError(
            "analyses.situation.methods lists a counterfactual method (cst, cst_centers or "
            "cf), which needs the causal: section (edges of the causal graph); add it or use "
            "methods: [st]"
        )


def _fit_scm(cfg: AuditConfig, data: AuditData) -> Any:
    if cfg.causal is None or not _needs_scm(cfg):
        return None
    (SCM,) = _require("primafacie.causal", "SCM")
    return SCM(
        edges=cfg.causal.edges,
        mechanism=cfg.causal.mechanism,
        clip=dict(cfg.causal.clip),
        round=dict(cfg.causal.round),
    ).fit(data)


def _runner(name: str) -> Runner:
    return _RUNNERS[name]


def _rate(k: int, n: int) -> str:
    from .report.html import rate_text

    return rate_text(k, n, ci=True)


def run_situation(
    cfg: AuditConfig, data: AuditData, scm: Any, tick: Tick = _no_tick
) -> AnalysisRun:
    """Situation testing for every protected attribute (single), and multiple/intersectional."""
    (SituationTest,) = _require("primafacie.situation", "SituationTest")
    spec = cfg.analyses.situation
    assert spec is not None
    decider = cfg.decider()
    interval = {"wilson": "newcombe"}.get(spec.interval, spec.interval)
    common: dict[str, Any] = dict(
        method=list(spec.methods),
        k=list(spec.k),
        alpha=spec.alpha,
        tau=spec.tau,
        direction=spec.direction,
        interval=interval,
        legacy=spec.legacy,
        max_distance=spec.max_distance,
    )
    if cfg.compute.backend != "local" or cfg.compute.n_jobs > 1:
        import inspect

        from .compute import get_backend

        if "backend" in inspect.signature(SituationTest.__init__).parameters:
            common["backend"] = get_backend(cfg.compute.model_dump())
    results: dict[str, Any] = {}
    multi = [d for d in spec.dimensions if d != "single"]
    total = len(multi) + (len(data.protected) if "single" in spec.dimensions else 0)
    if "single" in spec.dimensions:
        for attr in data.protected:
            tick(len(results), total, attr)
            results[f"single_{attr}"] = SituationTest(attribute=attr, **common).run(
                data, scm=scm, decider=decider
            )
    unavailable: list[str] = []
    for dim, cls_name in (
        ("multiple", "MultipleSituationTest"),
        ("intersectional", "IntersectionalSituationTest"),
    ):
        if dim not in multi:
            continue
        try:
            (cls,) = _require("primafacie.situation", cls_name)
        except AnalysisUnavailable as exc:
            unavailable.append(f"{dim}: {exc}")
            continue
        tick(len(results), total, dim)
        results[dim] = cls(**common).run(data, scm=scm, decider=decider)
    summaries = []
    for label, res in results.items():
        summ = res.summary().copy()
        summ.insert(0, "test", label)
        summaries.append(summ)
    summary = pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()
    numbers: dict[str, Any] = {"by_test": json_safe(summary.to_dict(orient="records"))}
    headline = ""
    if not summary.empty:
        kmax = max(spec.k)
        best = summary[(summary["k"] == kmax)]
        main = best[best["method"] == ("cst" if "cst" in spec.methods else spec.methods[0])]
        parts = [
            f"{r.test.replace('single_', '')}: {_rate(int(r.significant), int(r.denominator))}"
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
    tables = _result_tables("situation", results)
    if not summary.empty:
        tables["situation_summary"] = summary
    message = "; ".join(unavailable)
    return AnalysisRun(
        "situation",
        "ok",
        message=("Not available in this build: " + message) if message else "",
        scope=scope,
        results=results,
        tables=tables,
        numbers=numbers,
        headline=headline,
        extras={"summary": summary, "unavailable": unavailable},
    )


def run_certainty(
    cfg: AuditConfig, data: AuditData, scm: Any, tick: Tick = _no_tick
) -> AnalysisRun:
    """Rank the decision-makers by how certainly fair they are."""
    (CertaintyAudit,) = _require("primafacie.certainty", "CertaintyAudit")
    spec = cfg.analyses.certainty
    assert spec is not None
    # Without a list, rank the audited decision alone under a readable name.
    dms = cfg.decision_makers() or {"audited decision": data.decision}
    res = CertaintyAudit(
        criterion=spec.criterion,
        protected=list(spec.protected) if spec.protected else None,
        tie_breaker=spec.tie_breaker,
        max_levels=spec.max_levels,
    ).run(data, decision_makers=dms)
    table = res.to_frame()
    sel = ", ".join(res.selected)
    top = table.iloc[0]
    headline = (
        f"Most certainly fair decision-maker ({spec.criterion.replace('_', ' ')}): {sel} — "
        f"disparity {top['disparity']:.3f} between {top['most_privileged']} "
        f"({int(top['k_i'])} of {int(top['n_i'])}) and {top['least_privileged']} "
        f"({int(top['k_j'])} of {int(top['n_j'])}), uncertainty {top['uncertainty']:.4f}"
    )
    numbers = {
        "selected": list(res.selected),
        "ranking": json_safe(
            table[["decision_maker", "rank", "disparity", "uncertainty", "utility"]].to_dict(
                orient="records"
            )
        ),
    }
    scope = (
        f"{len(table)} decision-makers ({', '.join(table['decision_maker'])}) on {data.n} people "
        f"in {len(res.groups)} groups of {' × '.join(res.protected)}; criterion "
        f"{res.criterion.replace('_', ' ')}"
    )
    return AnalysisRun(
        "certainty",
        "ok",
        scope=scope,
        results={"ranking": res},
        tables=_result_tables("certainty", {"ranking": res})
        | {"certainty_group_counts": res.counts_frame()},
        numbers=numbers,
        headline=headline,
    )


def run_principal(
    cfg: AuditConfig, data: AuditData, scm: Any, tick: Tick = _no_tick
) -> AnalysisRun:
    """Principal-stratum counterfactual fairness (Definitions 1 and 2) and the minimal repair."""
    (PrincipalFairness,) = _require("primafacie.principal", "PrincipalFairness")
    spec = cfg.analyses.principal
    assert spec is not None
    attr = spec.protected or next(iter(data.protected))
    if attr not in data.protected:
        raise InputError(
            f"analyses.principal.protected: {attr!r} is not a protected attribute; protected: "
            f"{list(data.protected)}"
        )
    pf = PrincipalFairness(
        definition=list(spec.definitions),
        covariates=list(spec.covariates),
        protected=attr,
        n_boot=spec.n_boot,
        seed=spec.seed,
    )
    res = pf.evaluate(data)
    results: dict[str, Any] = {"evaluation": res}
    if hasattr(pf, "repair"):
        results["repair"] = pf.repair(data, seed=spec.seed)
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
        tables=_result_tables("principal", results),
        numbers={
            "protected": attr,
            "violations": int(len(viol)),
            "checks": int(len(main)),
            "verdicts": json_safe(main.to_dict(orient="records")),
        },
        headline=headline,
    )


def run_recourse(cfg: AuditConfig, data: AuditData, scm: Any, tick: Tick = _no_tick) -> AnalysisRun:
    """FACTS: subgroups where recourse is harder for the protected group, with CSC cards."""
    (RecourseAudit,) = _require("primafacie.recourse", "RecourseAudit")
    spec = cfg.analyses.recourse
    assert spec is not None
    decider = cfg.decider()
    if decider is None:
        raise InputError(
            "analyses.recourse needs the decision model or rule (decision: {model: ...} or "
            "{rule: ...}) to test the effect of actions; a recorded column cannot be re-run"
        )
    attr = spec.protected or next(iter(data.protected))
    immutable = list(dict.fromkeys([*spec.immutable, *data.protected]))
    (_default_bins,) = _require("primafacie.recourse.items", "default_bins")
    features = {name: f.kind for name, f in data.features.items()}
    audit = RecourseAudit(
        decider,
        protected=attr,
        support=spec.support,
        feature_weights=dict(spec.feature_weights) or None,
        immutable=immutable,
        monotone=list(spec.monotone) or None,
        bins=_default_bins(data.frame, features, spec.bins) or None,
        favorable=1,
    )
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
    tables = _result_tables("recourse", results)
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
        extras={"audit": audit, "cards": cards},
    )


_RUNNERS: dict[str, Runner] = {
    "situation": run_situation,
    "recourse": run_recourse,
    "principal": run_principal,
    "certainty": run_certainty,
}


def compute_audit(
    cfg: AuditConfig,
    progress: bool = False,
    keep_going: bool = False,
    stages: _Stages | None = None,
) -> AuditResult:
    """Run the analyses of ``cfg`` in memory (nothing is written).

    Parameters
    ----------
    cfg
        A validated configuration (:func:`primafacie.config.load_config`).
    progress
        Show a rich progress bar per stage on stderr.
    keep_going
        Record an analysis that raises :class:`AnalysisError` (or an unexpected exception) as
        ``"failed"`` and continue; by default the error propagates. Bad input
        (:class:`InputError`) always propagates.
    stages
        An already running progress display (used by :func:`run_audit`).

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> res = compute_audit(load_config("audit.yaml"))  # doctest: +SKIP
    >>> res.to_dict()["analyses"]["situation"]["status"]  # doctest: +SKIP
    'ok'
    """
    _check_config(cfg)
    requested = [a for a in ANALYSES if getattr(cfg.analyses, a) is not None]
    own = stages is None
    if own:
        stages = _Stages(_stage_names(cfg), progress)
    ctx = stages.running() if own else _nullcontext(stages)
    with ctx:
        stages.start("load data")
        inputs = _input_files(cfg)
        data = cfg.audit_data()
        info = _data_info(cfg, data)
        stages.done("load data", f"{data.n} rows")
        scm = None
        if _needs_scm(cfg) and cfg.causal is not None:
            stages.start("fit causal model")
            try:
                scm = _fit_scm(cfg, data)
                stages.done("fit causal model", f"{len(cfg.causal.edges)} edges")
            except AnalysisUnavailable as exc:
                stages.done("fit causal model", "not available")
                scm = exc
        runs: dict[str, AnalysisRun] = {}
        for name in requested:
            stage = TITLES[name].lower()
            stages.start(stage)
            t0 = time.perf_counter()
            try:
                if isinstance(scm, AnalysisUnavailable) and name == "situation":
                    raise AnalysisUnavailable(f"the causal model is unavailable: {scm}")
                run = _runner(name)(
                    cfg, data, scm, lambda d, t, note, _s=stage: stages.step(_s, d, t, note)
                )
            except AnalysisUnavailable as exc:
                run = AnalysisRun(name, "unavailable", f"Not available in this build: {exc}.")
            except InputError:
                raise
            except Exception as exc:
                if not keep_going:
                    if isinstance(exc, AnalysisError):
                        raise AnalysisError(f"{name}: {exc}") from exc
                    raise
                run = AnalysisRun(name, "failed", f"{type(exc).__name__}: {exc}")
            run = replace(run, seconds=time.perf_counter() - t0)
            runs[name] = run
            stages.done(stage, run.status if run.status != "ok" else "done")
    seeds = {"audit": int(cfg.seed)}
    if cfg.analyses.principal is not None:
        seeds["principal_bootstrap"] = int(cfg.analyses.principal.seed)
    return AuditResult(
        config=cfg.resolved(),
        data_info=info,
        runs=runs,
        inputs=tuple(inputs),
        versions=_versions(),
        seeds=seeds,
        data=data,
        scm=None if isinstance(scm, AnalysisUnavailable) else scm,
    )


@contextmanager
def _nullcontext(value: Any) -> Iterator[Any]:
    yield value


def _stage_names(cfg: AuditConfig) -> list[str]:
    names = ["load data"]
    if _needs_scm(cfg) and cfg.causal is not None:
        names.append("fit causal model")
    names += [TITLES[a].lower() for a in ANALYSES if getattr(cfg.analyses, a) is not None]
    names.append("write report")
    return names


def write_audit(result: AuditResult, folder: str | Path) -> tuple[str, ...]:
    """Write report.html, results.json and ``tables/*.csv`` into ``folder``.

    ``folder`` is normally the staging folder of :func:`~primafacie.io.atomic_output_dir`.

    Returns
    -------
    tuple of str
        The written files, relative to ``folder`` (sorted).
    """
    from .report import build_report

    folder = Path(folder)
    tables = {
        f"tables/{stem}.csv": frame
        for run in result.runs.values()
        for stem, frame in run.tables.items()
    }
    files = tuple(sorted([*tables, "report.html", "results.json"]))
    final = replace(result, files=files)
    for rel, frame in tables.items():
        atomic_write_csv(folder / rel, frame)
    atomic_write_json(folder / "results.json", final.to_dict())
    atomic_write_text(folder / "report.html", build_report(final))
    return files


def run_audit(
    cfg: AuditConfig,
    out_dir: str | Path,
    progress: bool = True,
    keep_going: bool = False,
    extra_files: Callable[[Path], None] | None = None,
) -> AuditResult:
    """Run every analysis ``cfg`` asks for and write the outputs into ``out_dir`` atomically.

    Parameters
    ----------
    cfg
        A validated configuration (:func:`primafacie.config.load_config`).
    out_dir
        Output folder; it receives ``report.html``, ``results.json`` and ``tables/*.csv``.
        Nothing is written unless the whole audit succeeds.
    progress
        Show a rich progress bar per stage on stderr.
    keep_going
        Report a failing analysis as ``"failed"`` instead of aborting (see
        :func:`compute_audit`).
    extra_files
        Called with the staging folder before it is moved into place (the demo writes its
        inputs this way).

    Returns
    -------
    AuditResult
        With ``out_dir`` and ``files`` set.

    Raises
    ------
    InputError
        Bad configuration or data (exit code 2 in the CLI).
    AnalysisError
        An analysis failed (exit code 1), unless ``keep_going``.

    Examples
    --------
    >>> from primafacie.config import load_config
    >>> res = run_audit(load_config("out/demo/audit.yaml"), "out/rerun")  # doctest: +SKIP
    >>> res.summary()[["analysis", "status"]]  # doctest: +SKIP
    """
    stages = _Stages(_stage_names(cfg), progress)
    with stages.running():
        result = compute_audit(cfg, keep_going=keep_going, stages=stages)
        stages.start("write report")
        # the audited table may sit in out_dir: it is an input, never a stale output
        with atomic_output_dir(out_dir, owner="audit", keep=(cfg.data_path,)) as stage:
            if extra_files is not None:
                extra_files(stage)
            files = write_audit(result, stage)
        stages.done("write report", f"{len(files)} files")
    return replace(result, out_dir=Path(out_dir), files=files)


def run_demo(
    out_dir: str | Path,
    n: int | None = None,
    seed: int = 0,
    progress: bool = True,
    keep_going: bool = True,
) -> AuditResult:
    """Generate the credit world, write it with its models and audit.yaml, and audit it.

    Everything lands in ``out_dir`` atomically: ``inputs/credit_world.csv``,
    ``inputs/lr.joblib``, ``inputs/gb.joblib``, ``audit.yaml`` and the audit outputs
    (``report.html``, ``results.json``, ``tables/*.csv``). ``primafacie audit
    out_dir/audit.yaml --out other`` reproduces the same report and results byte for byte.

    Parameters
    ----------
    out_dir
        Output folder.
    n
        Number of applicants (default :data:`~primafacie.datasets.credit_world.DEFAULT_N`).
    seed
        Seed of the world, the models and the audit.
    progress
        Show a progress bar per stage on stderr.
    keep_going
        Report a failing analysis in the report instead of aborting (the default for the demo).

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> res = run_demo("out/demo", n=500, progress=False)  # doctest: +SKIP
    >>> res.runs["certainty"].numbers["selected"]  # doctest: +SKIP
    """
    from .config import load_config
    from .datasets.credit_world import DEFAULT_N, write_demo_inputs

    n = DEFAULT_N if n is None else n
    with atomic_output_dir(out_dir, owner="demo") as stage:
        t0 = time.perf_counter()
        cfg_path = write_demo_inputs(stage, n=n, seed=seed)
        cfg = load_config(cfg_path)
        stages = _Stages(["generate credit world", *_stage_names(cfg)], progress)
        with stages.running():
            stages.start("generate credit world")
            stages.done("generate credit world", f"{n} people, {time.perf_counter() - t0:.1f} s")
            result = compute_audit(cfg, keep_going=keep_going, stages=stages)
            stages.start("write report")
            files = write_audit(result, stage)
            stages.done("write report", f"{len(files)} files")
    return replace(result, out_dir=Path(out_dir), files=files)
