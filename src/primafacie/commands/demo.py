"""``primafacie demo``: generate the credit world, train its decision-makers, audit it."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ._common import PROGRESS, date_option, guarded

HELP = """The main job on an embedded default: audit a generated credit-decision world.

Generates a seeded loan market in which gender and race shape income, savings, employment,
education and region, and these shape true repayment; trains a logistic regression and a
gradient-boosting model on it, adds a biased scorecard rule and a noisy loan officer; then
runs the full audit: situation testing (single, multiple, intersectional), recourse,
principal strata and the certainty ranking of the four decision-makers.

Writes into --out: report.html, results.json, tables/*.csv, plus the inputs
(inputs/credit_world.csv, inputs/lr.skops, inputs/gb.skops) and the audit.yaml that
reproduces the audit. Example:

    primafacie demo --out out/demo

    primafacie demo --out out/small --n 800 --seed 3

    primafacie audit out/demo/audit.yaml --out out/rerun  # the same report
"""


def register(app: typer.Typer) -> None:
    @app.command("demo", help=HELP)
    @guarded
    def demo(
        out: Path = typer.Option(Path("out/demo"), "--out", "-o", help="Output folder."),
        n: Optional[int] = typer.Option(
            None, "--n", min=50, help="Number of applicants (default 3000)."
        ),
        seed: int = typer.Option(0, "--seed", help="Seed of the world, the models and the audit."),
        progress: bool = PROGRESS,
        date: Optional[str] = date_option(),
    ) -> None:
        from ..audit import run_demo
        from ..audit.inputs import check_date
        from ..io import check_output_dir
        from .audit import finish

        date = check_date(date)
        check_output_dir(out)  # before the world is generated
        result = run_demo(out, n=n, seed=seed, progress=progress, keep_going=True, date=date)
        inputs = ["audit.yaml", *sorted(f"inputs/{p.name}" for p in (out / "inputs").iterdir())]
        finish(result, inputs)
