"""``primafacie check``: release gates on a saved audit, for a build pipeline.

parse (results.json under the versioned contract; the gate file with yaml.safe_load, validated)
-> evaluate (:func:`~primafacie.overtime.gates.evaluate_gates`) -> print and write JUnit XML ->
exit 0 when every gate holds, 1 when one fails, 2 for a malformed gate file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from ._common import EXIT_ANALYSIS, console, guarded

HELP = """Check release gates on an audit's results.json. A gate names a JSON path of
results.json (`<analysis>.<number>`, looked up in that analysis' numbers) and a threshold;
other keys of the gate select records (method, k, test, attribute, group). `strict: true`
requires the interval to clear the threshold (lower bound for min, upper bound for max).
`baseline: no_significant_fall` (or no_significant_rise, no_significant_change) compares with
--baseline, an earlier audit, and fails on a change significant after Holm's adjustment.

Example gates.yaml:

    gates:
      groups.min_selection_ratio: {min: 0.8}
      situation.significant_adjusted_share: {max: 0.05, method: cst, k: 30}
      principal.violations: {equals: 0}
      groups.selection_ratio: {baseline: no_significant_fall}

and its use in a pipeline, after `primafacie audit audit.yaml --out out/audit`:

    primafacie check out/audit --gates gates.yaml \\
        --baseline out/last-release --junit gates.xml

Exit codes: 0 every gate holds, 1 a gate fails, 2 a malformed gate file or results.json (the
message names the gate, the value and the threshold).
"""


def register(app: typer.Typer) -> None:
    app.command("check", help=HELP)(guarded(check))


def _print(outcomes: list[Any]) -> None:
    from rich.table import Table

    table = Table(title="release gates")
    for col in ("gate", "threshold", "verdict", "values"):
        table.add_column(col)
    for o in outcomes:
        table.add_row(
            escape(o.gate.name),
            escape(o.gate.describe()),
            "[green]holds[/]" if o.holds else "[bold red]fails[/]",
            escape("\n".join(o.details)),
        )
    console.print(table)


def check(
    results: Path = typer.Argument(..., help="The audit folder or its results.json."),
    gates: Path = typer.Option(..., "--gates", "-g", help="The gate file (YAML)."),
    baseline: Optional[Path] = typer.Option(
        None, "--baseline", help="An earlier audit for baseline gates (folder or results.json)."
    ),
    junit: Optional[Path] = typer.Option(
        None, "--junit", help="Write the outcomes as JUnit XML to this file (atomically)."
    ),
) -> None:
    """``primafacie check``: parse -> evaluate -> print -> exit code."""
    from ..io import atomic_write_text
    from ..overtime.gates import evaluate_gates, junit_xml, load_gates
    from ..overtime.reader import read_results

    rec = read_results(results)
    parsed = load_gates(gates)
    base = read_results(baseline) if baseline is not None else None
    outcomes = evaluate_gates(rec, parsed, base)
    _print(outcomes)
    if junit is not None:
        atomic_write_text(junit, junit_xml(outcomes))
    failed = [o.gate.name for o in outcomes if not o.holds]
    if failed:
        console.print(f"[bold red]{len(failed)} of {len(outcomes)} gate(s) fail:[/] "
                      f"{escape(', '.join(failed))}")  # fmt: skip
        raise typer.Exit(EXIT_ANALYSIS)
    console.print(f"all {len(outcomes)} gate(s) hold")
