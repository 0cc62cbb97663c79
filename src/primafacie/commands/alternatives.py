"""``primafacie alternatives``: search for a less discriminatory alternative to the audited model.

parse (``--config``) -> build (:meth:`AlternativesSpec.build`, as the audit) -> run -> write
and print. The candidates table equals the audit's ``tables/alternatives_candidates.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from ..alternatives.params import PARAMS
from ..errors import InputError
from ._common import (
    TRUST_PICKLE_HELP,
    TRUSTED_TYPE_HELP,
    config_section,
    console,
    err_console,
    guarded,
    load_cli_model,
    spec_flags,
    spec_from_flags,
    spec_options,
)

#: The usage error of a run without its inputs (checked first, before any heavy import).
_NO_INPUT = "give --config FILE, or --data FILE --model FILE --protected COL=VALUE --outcome COL"

HELP = """Less discriminatory alternatives: refit the audited scikit-learn model (decision:
{model: FILE}) with each feature neutralised, with pairs of the features most associated with
the protected attribute neutralised, with other estimators and other hyperparameters; keep the
candidates whose cross-validated utility is within the tolerance of the audited model's; rank
them by how certainly fair they are; and compare the best with the audited model on rows held
out from the whole choice. It is a less discriminatory alternative when its disparity is lower
with an interval that excludes 0 and its utility is non-inferior within the tolerance.

The candidates are refitted on a training file when one is given (--train, or train: /
analyses.alternatives.train in audit.yaml: the same columns with the true outcome); without it
on the audited rows with their true outcome, split into search and held-out rows.

Example (the demo's audit.yaml, where the search is on by default: its decision is a model
and it has an outcome; settings go in a section analyses.alternatives, e.g.
`alternatives: {estimators: [decision_tree], tolerance: 0.01}`):

    primafacie alternatives --config out/demo/audit.yaml \\
        --out out/alternatives

    primafacie alternatives --data out/demo/inputs/credit_world.csv \\
        --model out/demo/inputs/lr.skops --protected gender=female \\
        --outcome repaid --folds 3 --out out/alternatives

Writes candidates.csv (every candidate: features neutralised, estimator, parameters,
threshold, cross-validated and held-out utility and disparity with intervals, certainty rank,
status) and alternatives.json to --out; nothing is written when the input is bad (exit 2).
"""


def _write(out: Path, res: Any, inputs: tuple) -> None:
    from ..io import atomic_output_dir, atomic_write_json, atomic_write_table

    with atomic_output_dir(out, owner="alternatives", keep=inputs) as stage:
        atomic_write_table(stage / "candidates.csv", res.to_frame())
        atomic_write_json(stage / "alternatives.json", res.to_dict())


def _print(res: Any, out: Path) -> None:
    from rich.table import Table

    table = Table(title="less discriminatory alternatives (best 10 by certainty rank)")
    for col in ("candidate", "utility CV", "disparity CV", "utility held out",
                "disparity held out", "status"):  # fmt: skip
        table.add_column(col)
    t = res.to_frame().sort_values(["certainty_rank", "candidate"], kind="stable").head(10)
    for r in t.itertuples():
        table.add_row(
            escape(r.description), f"{r.cv_utility:.3f}", f"{r.cv_disparity:.3f}",
            f"{r.holdout_utility:.3f}", f"{r.holdout_disparity:.3f}", escape(r.status),
        )  # fmt: skip
    console.print(table)
    console.print(escape(res.headline()))
    console.print(f"scope: {escape(res.scope())}")
    console.print(f"wrote {escape(str(out))}/candidates.csv, alternatives.json")


#: Flags that give the data, roles and model; the configuration has its own.
_DATA_FLAGS = {
    "data": "--data", "model": "--model", "protected": "--protected", "outcome": "--outcome",
    "outcome_favorable": "--outcome-favorable", "train": "--train", "sep": "--sep",
    "trust_pickle": "--trust-pickle", "trusted_type": "--trusted-type",
}  # fmt: skip


def _from_config(ctx: typer.Context, config: Path) -> tuple[Any, tuple]:
    """The Result of ``analyses.alternatives`` exactly as the audit computes it (the analysis'
    check and run on the configuration's data, model and training file)."""
    from ..alternatives.analysis import ANALYSIS, LABEL
    from ..analysis import Context
    from ..audit.inputs import input_paths

    cfg, spec = config_section(ctx, config, ANALYSIS.name, {**_DATA_FLAGS, **spec_flags(PARAMS)})
    ANALYSIS.check(spec, cfg)
    inputs = input_paths(cfg, config)  # the data, models and training file
    data = cfg.audit_data()
    context = Context(config=cfg, data=data, decider=cfg.decider(), backend=cfg.compute.build())
    with err_console.status("fitting and comparing the candidates…"):
        run = ANALYSIS.run(spec, context)
    if run.status != "ok":  # a decision model that cannot be refitted
        raise InputError(f"{config}: {run.message}")
    return run.results[LABEL], inputs


def _frame(path: Path, sep: str | None, columns: list[str], flag: str) -> Any:
    from ..data import read_table

    frame = read_table(path, sep=sep)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{flag} {path}: no column {missing}; columns: {list(frame.columns)}")
    return frame


def _from_flags(data: Path | None, model: Path | None, protected: list[str], outcome: str | None,
                outcome_favorable: str, train: Path | None, sep: str | None,
                trust: tuple[bool, list[str] | None], settings: dict[str, Any]) -> tuple[Any, tuple]:  # fmt: skip
    """The Result of the flags: the model's columns are its features (numbers numeric, the
    rest categorical), its decisions are recomputed, and ``--train`` rows refit it."""
    if data is None or model is None or outcome is None or not protected:
        raise InputError(_NO_INPUT)
    import numpy as np

    from ..alternatives.spec import AlternativesSpec
    from ..data import AuditData
    from ..decisions import ModelDecider
    from ._data import protected_values

    if isinstance(settings.get("estimators"), str):
        settings["estimators"] = [v.strip() for v in settings["estimators"].split(",") if v.strip()]
    spec = spec_from_flags(AlternativesSpec, **settings)
    est = load_cli_model(model, *trust)
    names = getattr(est, "feature_names_in_", None)
    if names is None:
        raise InputError(f"--model {model}: the model has no feature names; fit it on a table "
                         "with named columns, or use --config with features:")  # fmt: skip
    prot = protected_values(protected)
    features = [str(c) for c in names if str(c) not in prot]
    decider = ModelDecider(est, features=[str(c) for c in names])
    roles = [*features, *prot, outcome]
    rows = []
    for flag, path in (("--data", data), ("--train", train)):
        if path is None:
            rows.append(None)
            continue
        frame = _frame(path, sep, roles, flag)
        kinds = {f: "numeric" if frame[f].dtype.kind in "biuf" else "categorical" for f in features}
        decision = None
        if flag == "--data":  # the audited decisions, as the audit computes them from a model
            frame["__decision__"] = np.asarray(decider.predict(frame), dtype=np.int8)
            decision = "__decision__"
        try:
            rows.append(AuditData(frame, features=kinds, protected=prot, decision=decision,
                                  outcome=outcome, outcome_favorable=outcome_favorable))  # fmt: skip
        except InputError as exc:
            raise InputError(f"{flag} {path}: {exc}") from None
    audited, training = rows
    with err_console.status("fitting and comparing the candidates…"):
        res = spec.build(audited).run(audited, decider, train=training)
    return res, tuple(p for p in (data, train, model) if p is not None)


def alternatives(
    ctx: typer.Context,
    data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet table of the audited rows."),
    model: Optional[Path] = typer.Option(None, "--model", help="The audited scikit-learn model file (.skops; a pickle with --trust-pickle)."),
    protected: list[str] = typer.Option([], "--protected", help="COL=VALUE[,VALUE...]: the protected group(s) (repeatable)."),
    outcome: Optional[str] = typer.Option(None, "--outcome", help="True-outcome column."),
    outcome_favorable: str = typer.Option("1", "--outcome-favorable", help="Favourable true-outcome value."),
    train: Optional[Path] = typer.Option(None, "--train", help="Training rows (same columns, true outcome) to refit on; default: the audited rows, split."),
    sep: Optional[str] = typer.Option(None, "--sep", help="CSV separator (default: detected)."),
    trust_pickle: bool = typer.Option(False, "--trust-pickle", help=TRUST_PICKLE_HELP),
    trusted_type: Optional[list[str]] = typer.Option(None, "--trusted-type", help=TRUSTED_TYPE_HELP),
    config: Optional[Path] = typer.Option(None, "--config", help="audit.yaml (section analyses.alternatives, or on by default) instead of flags."),
    out: Path = typer.Option(Path("out/alternatives"), "--out", help="Output folder."),
    **settings: Any,
) -> None:  # fmt: skip
    """``primafacie alternatives`` (the help text is :data:`HELP`); ``settings`` are the options
    declared in :data:`primafacie.alternatives.params.PARAMS` (added by :func:`spec_options`)."""
    if config is not None:
        res, inputs = _from_config(ctx, config)
    else:
        res, inputs = _from_flags(data, model, protected, outcome, outcome_favorable, train,
                                  sep, (trust_pickle, trusted_type), settings)  # fmt: skip
    _write(out, res, inputs)
    _print(res, out)


def register(app: typer.Typer) -> None:
    """Add ``primafacie alternatives`` to ``app``."""
    app.command("alternatives", help=HELP)(guarded(spec_options(PARAMS)(alternatives)))
