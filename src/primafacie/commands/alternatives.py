"""``primafacie alternatives``: search for a less discriminatory alternative to the audited model.

parse (``--config``) -> build (:meth:`AlternativesSpec.build`, as the audit) -> run -> write
and print. The candidates table equals the audit's ``tables/alternatives_candidates.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from ..errors import InputError
from ._common import config_section, console, err_console, guarded

HELP = """Less discriminatory alternatives: refit the audited scikit-learn model (decision:
{model: FILE}) with each feature neutralised, with pairs of the features most associated with
the protected attribute neutralised, with other estimators and other hyperparameters; keep the
candidates whose cross-validated utility is within the tolerance of the audited model's; rank
them by how certainly fair they are; and compare the best with the audited model on rows held
out from the whole choice. It is a less discriminatory alternative when its disparity is lower
with an interval that excludes 0 and its utility is non-inferior within the tolerance.

Example (the demo's audit.yaml, with a section analyses.alternatives added, e.g.
`alternatives: {estimators: [decision_tree], tolerance: 0.01}`):

    primafacie alternatives --config out/demo/audit.yaml \\
        --out out/alternatives

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


def alternatives(
    ctx: typer.Context,
    config: Optional[Path] = typer.Option(None, "--config", help="audit.yaml with analyses.alternatives."),
    out: Path = typer.Option(Path("out/alternatives"), "--out", help="Output folder."),
) -> None:  # fmt: skip
    """``primafacie alternatives`` (the help text is :data:`HELP`)."""
    if config is None:
        raise InputError("give --config FILE (an audit.yaml with an analyses.alternatives section)")
    from ..alternatives.analysis import check

    cfg, spec = config_section(ctx, config, "alternatives", {})
    check(spec, cfg)
    data, decider = cfg.audit_data(), cfg.decider()
    with err_console.status("fitting and comparing the candidates…"):
        res = spec.build(data).run(data, decider, backend=cfg.compute.build())
    _write(out, res, (config, cfg.data_path))
    _print(res, out)


def register(app: typer.Typer) -> None:
    """Add ``primafacie alternatives`` to ``app``."""
    app.command("alternatives", help=HELP)(guarded(alternatives))
