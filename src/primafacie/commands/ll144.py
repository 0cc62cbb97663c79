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
from . import _data
from ._common import config_section, console, guarded, parse_pairs, spec_from_flags

#: The help of each ``analyses.ll144`` key, shared by its flag (a dict of text: no import of
#: the spec, which --help must not wait for).
_KEYS = {
    "score": "false: selection rates from the decision; true: the decision column is a score; "
    "or a score column. Scores give scoring rates (share above the median).",
    "exclude_below": "Categories under this share of the data are listed but left out of the "
    "impact ratios, as the rule allows; 0 keeps them all.",
    "unknown": "A value meaning an unknown category (blank cells always do)",
    "audit_date": "Date of the bias audit (YYYY-MM-DD), printed on the summary.",
    "distribution_date": "Distribution date of the tool audited (YYYY-MM-DD).",
    "data_source": "Where the data came from (historical data of the employer, test data).",
}
#: Flags that give the data or set an ``analyses.ll144`` key; refused with --config.
_FLAGS = {
    "data": "--data", "decision": "--decision", "favorable": "--favorable",
    "category": "--category", "score": "--score", "exclude_below": "--exclude-below",
    "unknown": "--unknown", "audit_date": "--audit-date",
    "distribution_date": "--distribution-date", "data_source": "--data-source",
}  # fmt: skip

HELP = """NYC Local Law 144 bias audit (6 RCNY §5-301): for each sex category, each
race/ethnicity category and each intersectional category, the selection rate (or, with
score, the scoring rate: the share scoring above the median) and the impact ratio against the
category with the highest rate. Categories under exclude_below (2%) of the data are listed
but left out of the ratios; individuals of unknown category are counted apart.

Example (the hiring decisions of 2024 in a semicolon-separated Latin-1 file, rows with a
missing decision dropped):

    primafacie ll144 --data hiring.csv --sep ";" --encoding latin-1 \\
        --decision hired --favorable 1 \\
        --category sex=gender --category race/ethnicity=race \\
        --where "year == 2024" --dropna hired --audit-date 2026-11-26 \\
        --out out/ll144

or with an audit.yaml holding `analyses: {ll144: {categories: {sex: gender, race/ethnicity:
race}, audit_date: 2026-11-26}}`:

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


def _from_flags(data: Path, decision: str | None, favorable: str, category: list[str],
                reading: dict[str, Any], **settings: Any) -> tuple[Any, Any]:  # fmt: skip
    """The spec and the audited data of the flags (the table read by the configuration's
    reader, :func:`_data.read_frame`)."""
    from ..data import AuditData
    from ..ll144.spec import LL144Spec

    if decision is None:
        raise InputError("give --decision COL (the decision, or the score with --score)")
    categories = dict(parse_pairs(category, "--category", "LABEL=COLUMN"))
    if not categories:
        raise InputError("give at least one --category LABEL=COLUMN, e.g. --category sex=gender")
    score: Any = {"true": True, "false": False}.get(str(settings["score"]).lower(),
                                                   settings["score"])  # fmt: skip
    unknown = [_data.scalar(v) for v in settings["unknown"]]
    spec = spec_from_flags(LL144Spec, categories=categories, **{**settings, "score": score,
                                                                "unknown": unknown})  # fmt: skip
    roles = {"protected": list(categories.values()), "decision": {"column": decision}}
    frame = _data.read_frame(reading, data, "ll144", roles, {"categories": categories})
    _data.check_columns_of(frame, [("--decision", decision),
                                   *(("--category", c) for c in categories.values())])  # fmt: skip
    fav = _data.scalar(favorable) if score is False else 1
    return spec, AuditData(frame, features={}, protected={}, decision=decision, favorable=fav)


def ll144(
    ctx: typer.Context,
    data: Optional[Path] = typer.Option(None, "--data", help="CSV, Parquet or Excel table."),
    decision: Optional[str] = typer.Option(
        None, "--decision", help="Decision column (the score column with --score true)."),
    favorable: str = typer.Option("1", "--favorable", help="Favourable decision value."),
    category: list[str] = typer.Option(
        [], "--category", help="LABEL=COLUMN: a category of the rule, e.g. sex=gender (repeat)."),
    score: str = typer.Option("false", "--score", help=_KEYS["score"]),
    exclude_below: float = typer.Option(0.02, "--exclude-below", help=_KEYS["exclude_below"]),
    unknown: list[str] = typer.Option([], "--unknown", help=_KEYS["unknown"] + " (repeat)"),
    audit_date: Optional[str] = typer.Option(None, "--audit-date", help=_KEYS["audit_date"]),
    distribution_date: Optional[str] = typer.Option(
        None, "--distribution-date", help=_KEYS["distribution_date"]),
    data_source: Optional[str] = typer.Option(None, "--data-source", help=_KEYS["data_source"]),
    config: Optional[Path] = typer.Option(None, "--config", help="audit.yaml with analyses.ll144."),
    out: Path = typer.Option(Path("out/ll144"), "--out", help="Output folder."),
    reading: Any = None,
) -> None:  # fmt: skip
    """``primafacie ll144`` (the help text is :data:`HELP`)."""
    if config is None and data is None:
        raise InputError("give --data FILE (with --decision and --category) or --config FILE "
                         "(an audit.yaml with an analyses.ll144 section)")  # fmt: skip
    from ..ll144.analysis import inputs

    if config is not None:
        _data.refuse_with_config(reading, config)
        cfg, spec = config_section(ctx, config, "ll144", _FLAGS)
        data_ = cfg.audit_data()
        keep: tuple = (config, cfg.data_path)
    else:
        settings = dict(score=score, exclude_below=exclude_below, unknown=unknown,
                        audit_date=audit_date, distribution_date=distribution_date,
                        data_source=data_source)  # fmt: skip
        spec, data_ = _from_flags(data, decision, favorable, category, reading, **settings)
        keep = (data,)
    selected, score_values = inputs(spec, data_)
    res = spec.build().run(data_.frame, selected=selected, score=score_values)
    _write(out, spec, res, keep)
    console.print(escape(res.headline()))
    console.print(f"scope: {escape(res.scope())}")
    console.print(f"wrote {escape(str(out))}/summary.html, rates.csv, unknown.csv, ll144.json")


def register(app: typer.Typer) -> None:
    """Add ``primafacie ll144`` to ``app``."""
    app.command("ll144", help=HELP)(guarded(_data.data_options(ll144)))
