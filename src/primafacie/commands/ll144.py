"""``primafacie ll144``: the NYC Local Law 144 bias audit tables and published summary.

parse (``--config``) -> build (:meth:`LL144Spec.build`, as the audit) -> run -> write and
print. ``rates.csv`` equals the audit's ``tables/ll144_rates.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from ..errors import InputError
from ._common import config_section, console, guarded

HELP = """NYC Local Law 144 bias audit (6 RCNY §5-301): for each sex category, each
race/ethnicity category and each intersectional category, the selection rate (or, with
score, the scoring rate: the share scoring above the median) and the impact ratio against the
category with the highest rate. Categories under exclude_below (2%) of the data are listed
but left out of the ratios; individuals of unknown category are counted apart.

Example (an audit.yaml with `analyses: {ll144: {categories: {sex: gender,
race/ethnicity: race}, audit_date: 2026-11-26}}`):

    primafacie ll144 --config audit.yaml --out out/ll144

Writes summary.html (the one-page summary the rule asks to publish), rates.csv,
unknown.csv and ll144.json to --out; nothing is written when the input is bad (exit 2).
"""


def _write(out: Path, spec: Any, res: Any, inputs: tuple) -> None:
    from ..io import atomic_output_dir, atomic_write_json, atomic_write_table, atomic_write_text
    from ..ll144.page import summary_page

    page = summary_page(res, spec.audit_date, spec.distribution_date, spec.data_source)
    with atomic_output_dir(out, owner="ll144", keep=inputs) as stage:
        atomic_write_text(stage / "summary.html", page)
        atomic_write_table(stage / "rates.csv", res.to_frame())
        atomic_write_table(stage / "unknown.csv", res.summary())
        atomic_write_json(stage / "ll144.json", res.to_dict())


def ll144(
    ctx: typer.Context,
    config: Optional[Path] = typer.Option(None, "--config", help="audit.yaml with analyses.ll144."),
    out: Path = typer.Option(Path("out/ll144"), "--out", help="Output folder."),
) -> None:  # fmt: skip
    """``primafacie ll144`` (the help text is :data:`HELP`)."""
    if config is None:
        raise InputError("give --config FILE (an audit.yaml with an analyses.ll144 section)")
    from ..ll144.analysis import inputs

    cfg, spec = config_section(ctx, config, "ll144", {})
    data = cfg.audit_data()
    selected, score = inputs(spec, data)
    res = spec.build().run(data.frame, selected=selected, score=score)
    _write(out, spec, res, (config, cfg.data_path))
    console.print(escape(res.headline()))
    console.print(f"scope: {escape(res.scope())}")
    console.print(f"wrote {escape(str(out))}/summary.html, rates.csv, unknown.csv, ll144.json")


def register(app: typer.Typer) -> None:
    """Add ``primafacie ll144`` to ``app``."""
    app.command("ll144", help=HELP)(guarded(ll144))
