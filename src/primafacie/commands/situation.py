"""``primafacie situation``: situation testing (ST, CST w/o, CST w/, CF) from flags or a config."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np
import pandas as pd
import typer
from rich.table import Table

from ..data import AuditData, read_table
from ..decisions import ModelDecider, Rule, load_model
from ..errors import InputError
from ..io import atomic_output_dir, atomic_write_csv
from ._common import console, err_console, guarded

HELP = """Situation testing of individual decisions: k-NN situation testing (st), counterfactual
situation testing without/with the search centres (cst, cst_centers) and counterfactual
fairness (cf). Writes complainants.csv (one row per complainant, method and k) and summary.csv
(counts and shares by method and k) to --out.

Example (the CST paper's loan data):

    primafacie situation --data loans.csv --protected Gender=1 \\
        --feature AnnualSalary --feature AccountBalance \\
        --decision LoanApproval --favorable 1 \\
        --rule "AnnualSalary + 5 * AccountBalance > 225000" \\
        --edge Gender:AnnualSalary --edge Gender:AccountBalance \\
        --edge AnnualSalary:AccountBalance \\
        --k 15,30 --method st,cst,cst_centers,cf --out out/situation

or `primafacie situation --config audit.yaml --out out/situation`. `--counterfactuals FILE`
replaces `--edge` with a precomputed counterfactual table (same rows, same order). `--model
FILE` unpickles a fitted estimator for b(): only use a file you trust. `--legacy` reproduces
the CST authors' code conventions (z-scores refitted on the counterfactuals, ties to the larger
index, rounded z); the default is the corrected method.
"""


def _parse_list(text: str, cast: Any, what: str) -> list:
    try:
        return [cast(v.strip()) for v in str(text).split(",") if v.strip()]
    except ValueError as exc:
        raise InputError(f"{what}: cannot parse {text!r}") from exc


def _parse_protected(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise InputError(f"--protected expects COL=VALUE (e.g. gender=female), got {item!r}")
        col, value = item.split("=", 1)
        values = [v for v in value.split(",") if v != ""]
        if not col or not values:
            raise InputError(f"--protected expects COL=VALUE, got {item!r}")
        out[col.strip()] = values if len(values) > 1 else values[0]
    return out


def _parse_features(items: list[str]) -> dict[str, Any] | None:
    if not items:
        return None
    out: dict[str, Any] = {}
    for item in items:
        name, _, kind = item.partition(":")
        out[name] = kind or "numeric"
    return out


def _parse_edges(items: list[str]) -> list[tuple[str, str]]:
    edges = []
    for item in items:
        a, sep, b = item.partition(":")
        if not sep or not a or not b:
            raise InputError(f"--edge expects PARENT:CHILD, got {item!r}")
        edges.append((a, b))
    return edges


def _coerce_values(frame: pd.DataFrame, protected: dict[str, Any]) -> dict[str, Any]:
    """CLI values are strings; match them to the column's dtype (1 for an int column)."""
    out = {}
    for col, value in protected.items():
        if col in frame.columns and pd.api.types.is_numeric_dtype(frame[col]):
            vals = value if isinstance(value, list) else [value]
            try:
                conv = [float(v) if "." in v else int(v) for v in vals]
            except ValueError:
                conv = vals
            out[col] = conv if isinstance(value, list) else conv[0]
        else:
            out[col] = value
    return out


def _model_label(estimator: Any, favorable: str, path: Path) -> Any:
    """The model's class label that --favorable names (a CLI string: "1" must match 1)."""
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        try:
            return int(favorable)
        except ValueError:
            try:
                return float(favorable)
            except ValueError:
                return favorable
    from ..decisions import _same_label

    for c in classes:
        if str(c) == favorable or (
            isinstance(c, (int, float, np.number)) and _same_number(c, favorable)
        ):
            return c.item() if hasattr(c, "item") else c
        if _same_label(c.item() if hasattr(c, "item") else c, favorable):  # booleans: "1", "true"
            return c.item() if hasattr(c, "item") else c
    raise InputError(
        f"--favorable {favorable!r} is not a class of the model in {path}; its classes are "
        f"{[str(c) for c in classes]}"
    )


def _same_number(value: Any, text: str) -> bool:
    try:
        return float(value) == float(text)
    except ValueError:
        return False


def _read(path: Path, sep: str | None) -> pd.DataFrame:
    if sep is None:
        return read_table(path)
    if not Path(path).is_file():
        raise InputError(f"data file not found: {path}")
    try:
        return pd.read_csv(path, sep=sep)
    except Exception as exc:  # pandas raises many types; the user needs the file name
        raise InputError(f"cannot read {path}: {exc}") from exc


def _summary_table(summary: pd.DataFrame, title: str) -> Table:
    table = Table(title=title)
    for col in ("method", "k", "cases", "significant", "denominator"):
        table.add_column(col, justify="right" if col != "method" else "left")
    for row in summary.itertuples(index=False):
        table.add_row(
            str(row.method),
            str(row.k),
            f"{row.cases} ({row.cases_share:.1%})",
            f"{row.significant} ({row.significant_share:.1%})",
            str(row.denominator),
        )
    return table


def _write(out: Path, results: dict[str, Any], keep: tuple = ()) -> None:
    frames, summaries = [], []
    for dim, res in results.items():
        # Multiple results list every run's neighbours as control_ids_<attr>/test_ids_<attr>.
        f = res.to_frame(neighbors=True)
        for col in [c for c in f.columns if c.startswith(("control_ids", "test_ids"))]:
            f[col] = f[col].map(
                lambda ids: " ".join(map(str, ids)) if isinstance(ids, list) else ""
            )
        frames.append(f.assign(dimension=dim))
        summaries.append(res.summary().assign(dimension=dim))
    comp = pd.concat(frames, ignore_index=True)
    summ = pd.concat(summaries, ignore_index=True)
    comp = comp[["dimension"] + [c for c in comp.columns if c != "dimension"]]
    summ = summ[["dimension"] + [c for c in summ.columns if c != "dimension"]]
    with atomic_output_dir(out, owner="situation", keep=keep) as stage:
        atomic_write_csv(stage / "complainants.csv", comp)
        atomic_write_csv(stage / "summary.csv", summ)
    for dim, s in zip(results, summaries, strict=True):
        console.print(_summary_table(s, f"situation testing ({dim})"))
    console.print(f"wrote {out / 'complainants.csv'} and {out / 'summary.csv'}")


def _run(
    data: AuditData,
    settings: dict[str, Any],
    dimensions: list[str],
    scm: Any,
    counterfactuals: Any,
    decider: Any,
) -> dict[str, Any]:
    from ..situation import IntersectionalSituationTest, MultipleSituationTest, SituationTest

    results: dict[str, Any] = {}
    with err_console.status("situation testing…"):
        for dim in dimensions:
            if dim == "single":
                for attr in data.protected:
                    key = "single" if len(data.protected) == 1 else f"single:{attr}"
                    results[key] = SituationTest(**settings, attribute=attr).run(
                        data, scm=scm, counterfactuals=counterfactuals, decider=decider
                    )
            elif dim == "multiple":
                if counterfactuals is not None:
                    raise InputError(
                        "--dimension multiple needs --edge (an SCM), not --counterfactuals"
                    )
                results[dim] = MultipleSituationTest(**settings).run(data, scm=scm, decider=decider)
            elif dim == "intersectional":
                results[dim] = IntersectionalSituationTest(**settings).run(
                    data, scm=scm, counterfactuals=counterfactuals, decider=decider
                )
            else:
                raise InputError(
                    f"unknown dimension {dim!r}; expected single, multiple or intersectional"
                )
    return results


def register(app: typer.Typer) -> None:
    @app.command("situation", help=HELP)
    @guarded
    def situation(
        data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet table."),
        config: Optional[Path] = typer.Option(
            None, "--config", help="audit.yaml instead of flags."
        ),
        protected: list[str] = typer.Option([], "--protected", help="COL=VALUE (repeatable)."),
        feature: list[str] = typer.Option(
            [], "--feature", help="COL[:numeric|categorical|ordinal]."
        ),
        decision: Optional[str] = typer.Option(None, "--decision", help="Decision column ŷ."),
        favorable: str = typer.Option("1", "--favorable", help="Favourable decision value."),
        rule: Optional[str] = typer.Option(None, "--rule", help="b() as an expression."),
        model: Optional[Path] = typer.Option(None, "--model", help="b() as a fitted model file."),
        edge: list[str] = typer.Option([], "--edge", help="SCM edge PARENT:CHILD (repeatable)."),
        counterfactuals: Optional[Path] = typer.Option(
            None, "--counterfactuals", help="Precomputed counterfactual table."
        ),
        k: str = typer.Option("15,30", "--k", help="Comma-separated k values."),
        method: str = typer.Option("st,cst,cst_centers,cf", "--method", help="Methods."),
        dimension: str = typer.Option(
            "single", "--dimension", help="single,multiple,intersectional."
        ),
        alpha: float = typer.Option(0.05, "--alpha"),
        tau: float = typer.Option(0.0, "--tau"),
        direction: str = typer.Option("negative", "--direction", help="negative or positive."),
        interval: str = typer.Option("wald", "--interval", help="wald or newcombe (wilson)."),
        max_distance: Optional[float] = typer.Option(None, "--max-distance", help="ε."),
        legacy: bool = typer.Option(False, "--legacy", help="CST authors' code conventions."),
        sep: Optional[str] = typer.Option(None, "--sep", help="CSV separator (default ',')."),
        out: Path = typer.Option(Path("out/situation"), "--out", help="Output folder."),
    ) -> None:
        settings: dict[str, Any]
        if config is not None:
            from ..config import load_config

            cfg = load_config(config)
            spec = cfg.analyses.situation
            if spec is None:
                raise InputError(f"{config}: the configuration has no analyses.situation section")
            audit = cfg.audit_data()
            decider = cfg.decider()
            scm = None
            if cfg.causal is not None:
                from ..causal import SCM

                scm = SCM(edges=cfg.causal.edges, mechanism=cfg.causal.mechanism).fit(audit)
            settings = dict(
                method=spec.methods,
                k=spec.k,
                alpha=spec.alpha,
                tau=spec.tau,
                direction=spec.direction,
                interval=spec.interval,
                max_distance=spec.max_distance,
                legacy=spec.legacy,
            )
            results = _run(audit, settings, list(spec.dimensions), scm, None, decider)
            _write(out, results, keep=(config, cfg.data_path))
            return
        if data is None:
            raise InputError(
                "give --data FILE (with --protected, --decision, ...) or --config FILE"
            )
        frame = _read(data, sep)
        if not protected:
            raise InputError("give at least one --protected COL=VALUE")
        prot = _coerce_values(frame, _parse_protected(protected))
        decider: Any = None
        if rule is not None and model is not None:
            raise InputError("give --rule or --model, not both")
        if rule is not None:
            decider = Rule(rule)
        elif model is not None:
            feats = list(_parse_features(feature) or [])
            est = load_model(model)
            decider = ModelDecider(
                est, features=feats or None, favorable=_model_label(est, favorable, model)
            )
        fav: Any = favorable
        if decision is None:
            if decider is None:
                raise InputError("give --decision COL (the recorded ŷ) or --rule/--model for b()")
            decision = "decision"
            if decision in frame.columns:
                raise InputError("column 'decision' exists: name it with --decision")
            frame = frame.assign(decision=np.asarray(decider.predict(frame), dtype=np.int8))
            fav = 1
        elif decision in frame.columns and pd.api.types.is_numeric_dtype(frame[decision]):
            fav = _coerce_values(frame, {decision: favorable})[decision]
        audit = AuditData(
            frame,
            features=_parse_features(feature),
            protected=prot,
            decision=decision,
            favorable=fav,
        )
        scm = None
        cf = None
        if edge and counterfactuals is not None:
            raise InputError("give --edge (an SCM) or --counterfactuals, not both")
        if edge:
            from ..causal import SCM

            scm = SCM(edges=_parse_edges(edge)).fit(audit)
        elif counterfactuals is not None:
            cf = _read(counterfactuals, sep)
        settings = dict(
            method=_parse_list(method, str, "--method"),
            k=_parse_list(k, int, "--k"),
            alpha=alpha,
            tau=tau,
            direction=direction,
            interval=interval,
            max_distance=max_distance,
            legacy=legacy,
        )
        dims = _parse_list(dimension, str, "--dimension")
        results = _run(audit, settings, dims, scm, cf, decider)
        _write(out, results, keep=tuple(p for p in (data, counterfactuals, model) if p))
