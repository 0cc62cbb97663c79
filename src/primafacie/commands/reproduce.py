"""``primafacie reproduce NAME``: regenerate a table of one of the four papers."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from ..experiments import EXPERIMENTS, get_experiment
from ..io import atomic_output_dir
from ..paths import resolve_data_dir
from ._common import console, guarded

HELP = f"""Regenerate a paper's table from the real data and write it as CSV.

NAME is one of: {", ".join(EXPERIMENTS)}.

Example:

    primafacie reproduce cst-loan --data-dir ../shared/data --out out/ --legacy

`--legacy` reproduces the authors' code conventions (the published numbers); without it the
corrected method runs. `--data-dir` defaults to $PRIMAFACIE_DATA, then ../shared/data.
"""


def register(app: typer.Typer) -> None:
    @app.command("reproduce", help=HELP)
    @guarded
    def reproduce(
        name: str = typer.Argument(..., help="Which table to reproduce."),
        data_dir: Optional[Path] = typer.Option(
            None, "--data-dir", help="Folder with the datasets (default $PRIMAFACIE_DATA)."
        ),
        out: Path = typer.Option(Path("out/reproduce"), "--out", help="Output folder."),
        legacy: bool = typer.Option(False, "--legacy", help="Authors' code conventions."),
        positive: bool = typer.Option(
            False, "--positive", help="Positive discrimination (cst-loan: Table 15)."
        ),
        tau: Optional[float] = typer.Option(
            None, "--tau", help="Accepted deviation (cst: 0.05 gives Tables 16-18)."
        ),
        protected: Optional[str] = typer.Option(
            None, "--protected", help="Protected attribute (facts-adult: sex or race)."
        ),
        seed: Optional[int] = typer.Option(
            None, "--seed", help="Random seed where the run has one."
        ),
    ) -> None:
        run = get_experiment(name)
        options = {"legacy": legacy}
        if positive:
            options["positive"] = True
        for key, value in (("tau", tau), ("protected", protected), ("seed", seed)):
            if value is not None:
                options[key] = value
        data_root = resolve_data_dir(data_dir)
        with atomic_output_dir(out) as stage:
            written = run(data_root, stage, **options)
        for path in written:
            console.print(f"wrote {out / Path(path).name}")
