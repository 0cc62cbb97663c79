"""``primafacie recourse``: FACTS subgroup fairness of recourse from flags or a config."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pandas as pd
import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from ..data import read_table
from ..errors import InputError
from ..io import atomic_output_dir, atomic_write_csv, atomic_write_json, atomic_write_text
from ._common import console, err_console, guarded, parse_pairs

HELP = """FACTS (Fairness-Aware Counterfactuals for Subgroups): find subgroups of the rows that got
the unfavourable decision where one protected group finds recourse harder than another, under
six definitions (EE, ECR, EEWB, ECE macro/micro, FECT, E(C)MR). The model is only called through
predict(); with --model the file is unpickled because you named it (only load files you trust).

Writes to --out: rankings.csv (all definitions, long format), ranking_LABEL.csv (one per
definition, with per-group coverage and difficulty), csc_LABEL.txt (Comparative Subgroup
Counterfactuals of the top subgroups), summary.csv (rank-1 ties, top-10% bias tallies),
aggregated_rankings.csv, stats.csv (mining counts and budgets) and recourse.json; the stage
seconds are printed, not written, so the same input gives byte-identical files.

Example (Adult test split with a fitted scikit-learn pipeline):

    primafacie recourse --data adult_test.csv --model lr.joblib \\
        --protected sex --support 0.01 --phi 0.3 --phi 0.7 \\
        --weight age=10 --weight occupation=4 --immutable race \\
        --monotone age --top 5 --out out/recourse

or with a rule: `--rule "education_num + hours > 50"`, or `--config audit.yaml`
(section analyses.recourse).

Columns mined: a model that records its inputs (scikit-learn's feature_names_in_) is audited
over exactly those columns; otherwise every column except --protected and --exclude (exclude
the label and other decisions). A numeric column with more than 10 distinct values is cut into
5 quantile bins unless --bins sets its bins; actions move values between bins linearly.
"""


def _kv(items: list[str] | None, flag: str) -> dict[str, str]:
    return dict(parse_pairs(items, flag, "COL=VALUE"))


def _number(text: str, flag: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{flag}: {text!r} is not a number") from None


def _bins(items: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col, value in _kv(items, "--bins").items():
        parts = [p for p in value.split(",") if p.strip()]
        if len(parts) == 1:
            q = _number(parts[0], "--bins")
            if not q.is_integer():
                raise InputError(f"--bins {col}={value}: give a whole number of quantile bins")
            out[col] = int(q)
        else:
            out[col] = [_number(p, "--bins") for p in parts]
    return out


def _summary_table(result: Any) -> Table:
    table = Table(title=f"FACTS: {result.protected} ({', '.join(result.groups)})")
    for col in ("metric", "definition", "subgroups", "fair", "rank1"):
        table.add_column(col)
    for g in result.groups:
        table.add_column(f"top10 against {g}")
    for r in result.ranking_analysis().itertuples(index=False):
        row = list(r)
        table.add_row(*[str(v) for v in row])
    return table


def _param_kwargs(ranking: Any) -> dict[str, Any]:
    if ranking.metric in ("ECR", "ECE"):
        return {"phi": ranking.param}
    if ranking.metric == "EEWB":
        return {"budget": ranking.param}
    return {}


STAGES = {
    "mining": "FACTS: frequent itemsets (groups, unaffected)",
    "actions": "FACTS: valid actions (subgroups)",
    "effectiveness": "FACTS: testing actions (subgroups)",
    "scoring": "FACTS: scoring definitions",
    "csc": "FACTS: counterfactual summaries",
}


class StageBars:
    """``progress(stage, done, total)`` callback drawing one rich bar per FACTS stage."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        total = max(int(total), 1)
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(STAGES.get(stage, stage), total=total)
        self.progress.update(self.tasks[stage], completed=min(int(done), total), total=total)


def stage_progress() -> Progress:
    """Progress display on stderr (bars, n/total, elapsed time)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
    )


def _run(
    audit: Any,
    data: Any,
    phi: list[float],
    budgets: Any,
    metrics: Any,
    top: int,
    out: Path,
    keep: tuple = (),
):
    with stage_progress() as progress:
        bars = StageBars(progress)
        audit.fit(data, progress=bars)
        result = audit.evaluate(phi=phi, budgets=budgets, metrics=metrics, progress=bars)
        cscs = {}
        n_csc = len(result.rankings)
        bars("csc", 0, n_csc)
        for done, (label, ranking) in enumerate(result.rankings.items(), start=1):
            cscs[label] = audit.csc(ranking.metric, ranking.viewpoint, top=top,
                                    **_param_kwargs(ranking))  # fmt: skip
            bars("csc", done, n_csc)
    with atomic_output_dir(out, owner="recourse", keep=keep) as stage:
        long = result.to_frame()
        atomic_write_csv(stage / "rankings.csv", long, index=False)
        for label, ranking in result.rankings.items():
            atomic_write_csv(stage / f"ranking_{label}.csv", ranking.to_frame(), index=False)
            atomic_write_text(stage / f"csc_{label}.txt", cscs[label].text)
        atomic_write_csv(stage / "summary.csv", result.ranking_analysis(), index=False)
        atomic_write_csv(stage / "aggregated_rankings.csv", result.aggregated_rankings())
        atomic_write_csv(stage / "stats.csv", result.stats_frame(), index=False)
        atomic_write_json(
            stage / "recourse.json",
            {"result": result.to_dict(), "csc": {k: v.to_dict() for k, v in cscs.items()}},
        )
    console.print(_summary_table(result))
    secs = ", ".join(f"{k} {v:.1f} s" for k, v in result.timings.items())
    console.print(f"stages: {secs}", soft_wrap=True, markup=False)
    console.print(
        f"wrote {out}/rankings.csv, ranking_LABEL.csv, csc_LABEL.txt, summary.csv, "
        "aggregated_rankings.csv, stats.csv, recourse.json",
        soft_wrap=True,
        markup=False,
    )


def register(app: typer.Typer) -> None:
    @app.command("recourse", help=HELP)
    @guarded
    def recourse(
        data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet audit table."),
        model: Optional[Path] = typer.Option(
            None, "--model", help="Fitted estimator (joblib/pickle) with predict()."
        ),
        rule: Optional[str] = typer.Option(None, "--rule", help="Decision rule expression."),
        protected: Optional[str] = typer.Option(None, "--protected", help="Protected column."),
        favorable: str = typer.Option("1", "--favorable", help="Model's favourable label."),
        support: float = typer.Option(0.01, "--support", help="Minimum support in (0, 1]."),
        phi: Optional[list[float]] = typer.Option(
            None, "--phi", help="Effectiveness threshold (repeat; default 0.3 and 0.7)."
        ),
        budget: Optional[list[float]] = typer.Option(
            None, "--budget", help="EEWB budget (repeat; default: automatic rule)."
        ),
        metrics: str = typer.Option("all", "--metrics", help="all or e.g. EE,ECE,FECT."),
        weight: Optional[list[str]] = typer.Option(None, "--weight", help="COL=W (repeat)."),
        immutable: Optional[list[str]] = typer.Option(
            None, "--immutable", help="Column that may not change (repeat)."
        ),
        monotone: Optional[list[str]] = typer.Option(
            None, "--monotone", help="Column that may not decrease (repeat)."
        ),
        max_step: Optional[list[str]] = typer.Option(
            None, "--max-step", help="COL=K: largest increase in ranks (repeat)."
        ),
        bins: Optional[list[str]] = typer.Option(
            None, "--bins", help="COL=Q quantile bins or COL=e0,e1,... edges (repeat)."
        ),
        ordinal: Optional[list[str]] = typer.Option(
            None, "--ordinal", help="COL=low,mid,high: ordered levels (repeat)."
        ),
        exclude: Optional[list[str]] = typer.Option(
            None, "--exclude", help="Column that is no feature, e.g. the label (repeat)."
        ),
        loose: bool = typer.Option(False, "--loose", help="Actions over any subset of features."),
        legacy: bool = typer.Option(False, "--legacy", help="Reference code's FECT lists."),
        top: int = typer.Option(10, "--top", help="Subgroups per CSC file."),
        config: Optional[Path] = typer.Option(None, "--config", help="audit.yaml instead."),
        out: Path = typer.Option(Path("out/recourse"), "--out", help="Output folder."),
    ) -> None:
        from ..recourse import RecourseAudit

        if top < 1:
            raise InputError(f"--top must be >= 1, got {top}")
        metric_list: Any = (
            "all"
            if metrics.strip().lower() == "all"
            else [m.strip() for m in metrics.split(",") if m.strip()]
        )
        if config is not None:
            if data is not None or model is not None or rule is not None:
                raise InputError("give either --config or --data/--model/--rule, not both")
            from ..config import load_config

            cfg = load_config(config)
            spec = cfg.analyses.recourse
            if spec is None:
                raise InputError(f"{config}: the configuration has no analyses.recourse section")
            decider = cfg.decider()
            if decider is None:
                raise InputError(
                    f"{config}: recourse needs decision: {{model: ...}} or {{rule: ...}} to test "
                    "actions; a recorded decision column cannot be re-run"
                )
            from ..recourse.items import default_bins

            audit_data = cfg.audit_data()
            attr = spec.protected or next(iter(audit_data.protected))
            audit = RecourseAudit(
                decider, protected=attr, support=spec.support,
                feature_weights=dict(spec.feature_weights) or None,
                immutable=list(dict.fromkeys([*spec.immutable, *audit_data.protected])),
                monotone=list(spec.monotone) or None,
                bins=default_bins(audit_data.frame, {n: f.kind for n, f in
                                                     audit_data.features.items()}, spec.bins)
                or None,
                legacy=legacy, exact_features=not loose,
            )  # fmt: skip
            _run(audit, audit_data, list(spec.phi), "auto", spec.metrics, spec.top, out,
                 keep=(config, cfg.data_path))  # fmt: skip
            return
        if data is None:
            raise InputError("give --data FILE with --model FILE or --rule EXPR, or --config FILE")
        if (model is None) == (rule is None):
            raise InputError("give exactly one of --model FILE or --rule EXPR")
        if protected is None:
            raise InputError("missing --protected COLUMN")
        frame = read_table(data)
        excluded = list(exclude or [])
        unknown = [c for c in excluded if c not in frame.columns]
        if unknown:
            raise InputError(f"--exclude names unknown column(s) {unknown}")
        if model is not None:
            from ..decisions import ModelDecider, load_model

            est = load_model(model)
            decider: Any = ModelDecider(est, favorable=favorable)
        else:
            from ..decisions import Rule

            decider = Rule(rule)  # type: ignore[arg-type]
        orders = {c: [v.strip() for v in levels.split(",")] for c, levels in
                  _kv(ordinal, "--ordinal").items()}  # fmt: skip
        # Subgroups and actions range over the model's own inputs when the model names them
        # (scikit-learn's feature_names_in_): a label or another decision-maker's column in the
        # file is not something a person can change to get recourse.
        model_cols = getattr(getattr(decider, "estimator", None), "feature_names_in_", None)
        candidates = list(frame.columns) if model_cols is None else list(model_cols)
        absent = [c for c in candidates if c not in frame.columns]
        if absent:
            raise InputError(f"the model needs column(s) {absent} that are not in --data")
        kinds: dict[str, Any] = {}
        for c in candidates:
            if c == protected or c in excluded:
                continue
            if c in orders:
                kinds[c] = {"ordinal": orders[c]}
            elif pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(
                frame[c]
            ):
                kinds[c] = "numeric"
            else:
                kinds[c] = "categorical"
        bad = [c for c in orders if c not in frame.columns]
        if bad:
            raise InputError(f"--ordinal names unknown column(s) {bad}")
        unused = [c for c in orders if c not in kinds]
        if unused:
            raise InputError(
                f"--ordinal names column(s) {unused} that are not mined (mined: {', '.join(kinds)})"
            )
        from ..recourse.items import default_bins

        bin_spec = default_bins(frame, kinds, _bins(bins))
        err_console.print(
            f"mining {len(kinds)} column(s): {', '.join(kinds)}"
            + (" (the model's inputs)" if model_cols is not None else ""),
            soft_wrap=True,
            markup=False,
        )
        audit = RecourseAudit(
            decider, protected=protected, support=support,
            feature_weights={k: _number(v, "--weight") for k, v in _kv(weight, "--weight").items()}
            or None,
            immutable=list(immutable) if immutable else None,
            monotone=list(monotone or []) or None,
            max_step={k: _number(v, "--max-step") for k, v in _kv(max_step, "--max-step").items()}
            or None,
            bins=bin_spec or None, features=kinds, legacy=legacy, exact_features=not loose,
        )  # fmt: skip
        _run(audit, frame, list(phi or [0.3, 0.7]), list(budget) if budget else "auto",
             metric_list, top, out, keep=tuple(p for p in (data, model) if p))  # fmt: skip
