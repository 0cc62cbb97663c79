"""``primafacie audit``: run every analysis an audit.yaml asks for and write one report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import typer

from ._common import (
    AUDIT_YAML,
    EXIT_ANALYSIS,
    PROGRESS,
    console,
    date_option,
    err_console,
    escape,
    guarded,
    out_next_to,
)

HELP = """Run every analysis that AUDIT.yaml asks for and write one report.

Writes into --out: report.html (self-contained, open it in a browser), results.json (every
number, the resolved configuration, package versions, input file hashes and seeds) and
tables/*.csv (one file per result table). Nothing is written unless the whole audit succeeds,
and the same inputs give byte-identical files.

Example (after `primafacie demo --out out/demo`):

    primafacie audit out/demo/audit.yaml --out out/rerun

A model file named in the configuration (decision: {model: lr.skops}) is .skops or .onnx; a
pickle/joblib file runs its author's code when loaded and is refused unless the configuration
says trust: pickle for it (decision: {model: m.joblib, trust: pickle}). Print the schema with
`primafacie schema`. Exit codes: 0 ok, 1 an analysis failed, 2 bad configuration or data.
"""


def print_summary(result, inputs: Sequence[str] = ()) -> None:
    """The final summary table on stdout (one row per analysis); ``inputs``: files the
    command wrote besides the audit's outputs (the demo's audit.yaml and inputs/), counted
    in the last line."""
    from rich.table import Table

    for note in (getattr(result, "data_info", None) or {}).get("warnings", []):
        err_console.print(f"[yellow]warning:[/] {escape(note)}")
    for note in (getattr(result, "data_info", None) or {}).get("notes", []):
        err_console.print(f"note: {escape(note)}")  # rows dropped, repeated columns, id-like
    table = Table(title="primafacie audit", show_lines=False)
    table.add_column("analysis")
    table.add_column("status")
    table.add_column("finding", overflow="fold")
    table.add_column("seconds", justify="right")
    colors = {"ok": "green", "unavailable": "yellow", "failed": "red"}
    for row in result.summary().itertuples(index=False):
        table.add_row(
            escape(row.analysis),
            f"[{colors.get(row.status, 'white')}]{escape(row.status)}[/]",
            escape(row.finding),
            f"{row.seconds:.1f}",
        )
    console.print(table)
    console.print(escape(_verdict(result)))
    if result.out_dir is not None:
        n, besides = len(result.files), ""
        if inputs:  # e.g. "79 files (75 audit outputs, audit.yaml and 3 inputs)"
            others = [f for f in inputs if f != "audit.yaml"]
            n += len(inputs)
            besides = (f" ({len(result.files)} audit outputs, audit.yaml and {len(others)} "
                       f"input{'s' if len(others) != 1 else ''})")  # fmt: skip
        console.print(
            f"wrote {n} files to {result.out_dir}{escape(besides)} — open "
            f"{Path(result.out_dir) / 'report.html'}"
        )


def finish(result, inputs: Sequence[str] = ()) -> None:
    """Print the summary (:func:`print_summary`); exit 1 naming the analyses that failed
    (``--keep-going``, demo)."""
    print_summary(result, inputs)
    if result.failed:
        err_console.print(f"[bold red]failed analyses:[/] {', '.join(result.failed)}")
        raise typer.Exit(EXIT_ANALYSIS)


def _verdict(result) -> str:
    """The report's overall verdict sentence (the strongest finding, after the correction in
    force), so the terminal's first screen answers "is there a problem?" too."""
    from ..audit.registry import ANALYSES
    from ..report.sections import finding_of, overall_verdict

    by_name = {a.name: a for a in ANALYSES}
    rows = [(by_name[name].title, finding_of(by_name[name], run))
            for name, run in result.runs.items() if name in by_name]  # fmt: skip
    return overall_verdict(rows)


def register(app: typer.Typer) -> None:
    @app.command("audit", help=HELP)
    @guarded
    def audit(
        config: Path = AUDIT_YAML,
        out: Optional[Path] = out_next_to("audit-report"),
        keep_going: bool = typer.Option(
            False,
            "--keep-going",
            help="Report a failing analysis in the report (exit 1) instead of writing nothing.",
        ),
        progress: bool = PROGRESS,
        date: Optional[str] = date_option(),
    ) -> None:
        from ..audit import run_audit
        from ..audit.inputs import check_date, input_paths
        from ..config import load_config
        from ..io import check_output_dir

        date = check_date(date)
        cfg = load_config(config)
        out_dir = out if out is not None else Path(config).resolve().parent / "audit-report"
        check_output_dir(out_dir, input_paths(cfg, config))  # before any analysis runs
        finish(run_audit(cfg, out_dir, progress=progress, keep_going=keep_going, date=date))
