"""``primafacie diff``: what changed between two saved audits, and whether it is significant.

parse (two audit folders or results.json, read under the versioned contract) -> compare
(:func:`~primafacie.overtime.diff.diff_audits`) -> write (diff.html, diff.json, diff.csv,
diff_complainants.csv, atomically) -> print (the significant changes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from ._common import console, guarded, out_next_to

HELP = """Compare two audits: for every headline number present in both (group selection rates
and ratios, significant situation-testing cases per method and k, FACTS top subgroups,
principal verdicts, certainty's selection and disparities) the old value, the new value, the
change with its 95% interval and whether it is significant after Holm's adjustment across the
whole comparison. Complainants present in both audits are matched by id: the flags that
appeared, disappeared or stayed are listed (McNemar's exact test). Numbers present in one audit
only, and settings that differ in a way that makes a comparison invalid (protected groups,
favourable value, an analysis' alpha or correction), are listed and not compared.

Example (two audits of the same decision system a year apart, each written by
`primafacie audit audit-YEAR.yaml --out out/YEAR`):

    primafacie diff out/2025 out/2026 --out out/diff-2025-2026

Writes diff.html (self-contained), diff.json, diff.csv and diff_complainants.csv to --out;
the terminal lists the significant changes. Exit codes: 0 ok (whatever changed), 2 bad input
(a folder without results.json, or a results.json schema_version this release does not read).
"""


def register(app: typer.Typer) -> None:
    app.command("diff", help=HELP)(guarded(diff))


def _print(result: Any) -> None:
    from rich.table import Table

    console.print(escape(result.headline()))
    sig = result.significant
    if sig.empty:
        console.print("no significant change")
        return
    table = Table(title="significant changes (Holm-adjusted)")
    for col in ("number", "where", "old", "new", "change [95% CI, unadjusted]", "p (Holm)"):
        table.add_column(col)
    for r in sig.to_dict(orient="records"):
        table.add_row(
            escape(str(r["path"])),
            escape(str(r["where"])),
            f"{r['old']:.4g}",
            f"{r['new']:.4g}",
            f"{r['change']:+.4g}"
            + ("" if r["ci_low"] != r["ci_low"] else f" [{r['ci_low']:.4g}, {r['ci_high']:.4g}]"),
            f"{r['p_adjusted']:.3g}",
        )
    console.print(table)


def diff(
    old: Path = typer.Argument(..., help="The earlier audit: its folder or its results.json."),
    new: Path = typer.Argument(..., help="The later audit: its folder or its results.json."),
    out: Optional[Path] = out_next_to("diff", "NEW"),
    alpha: float = typer.Option(
        0.05, "--alpha", help="Family-wise significance level (Holm across the comparison)."
    ),
) -> None:
    """``primafacie diff``: parse -> compare -> write -> print."""
    from ..errors import InputError
    from ..io import check_output_dir
    from ..overtime.diff import diff_audits
    from ..overtime.reader import read_results
    from ..overtime.render import write_diff

    if not 0 < alpha < 1:
        raise InputError(f"--alpha must be in (0, 1), got {alpha}")
    a, b = read_results(old), read_results(new)
    out_dir = out if out is not None else b.folder / "diff"
    check_output_dir(out_dir, (a.path, b.path))
    result = diff_audits(a, b, alpha=alpha)
    write_diff(result, out_dir, (a.path, b.path))
    _print(result)
    console.print(f"wrote {escape(str(out_dir))}: diff.html, diff.json, diff.csv")
