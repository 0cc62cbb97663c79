"""``primafacie groups``: selection rates, four-fifths ratios and error-rate gaps per group.

parse (flags or ``--config``) -> build (:meth:`GroupsSpec.build`, as the audit) -> run ->
write and print. With ``--config`` the analysis' own ``run`` measures the configuration's
AuditData, so the CSVs are the audit's ``tables/groups_*.csv`` byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..errors import InputError
from ..groups.params import PARAMS
from . import _data
from ._common import (
    config_section,
    console,
    err_console,
    escape,
    guarded,
    spec_flags,
    spec_from_flags,
    spec_options,
)

#: The usage error of a run without data (checked first, before any heavy import).
_NO_DATA = "give --data FILE (with --protected and --decision) or --config FILE"

if TYPE_CHECKING:
    from rich.table import Table

    from ..data import AuditData

# pandas, the spec and the engine are imported inside the functions: the CLI loads this module
# to render --help, which must not wait for them.

HELP = """Group metrics: for each protected attribute and their intersections, the selection rate
(favourable decisions among the group's members) of every group, each protected group's
difference from and ratio to the reference (non-protected) group with their intervals, and the
four-fifths rule (a ratio below 0.8 suggests adverse impact). With --outcome, the true positive,
false positive and false negative rates, the positive predictive value and the accuracy per
group follow, with the equal-opportunity (TPR gap) and equalized-odds differences. Every rate
is k of n with its Wilson interval; a group smaller than --min-group is flagged, never dropped.

Example (the demo's loan officer, column human, on its generated credit world):

    primafacie groups --data credit_world.csv \\
        --protected gender=female --protected race=black,hispanic \\
        --decision human --favorable 1 --outcome repaid \\
        --out out/groups

    primafacie groups --config audit.yaml --out out/groups

COMPAS as every COMPAS analysis reads it (African-American against Caucasian defendants only,
the other races left out and counted), one year, rows with a missing decision dropped:

    primafacie groups --data compas.csv --protected race=African-American \\
        --reference Caucasian --decision is_recid --favorable 0 \\
        --where "c_charge_degree == 'F'" --dropna is_recid --out out/compas

Weighted (Adult's census weights; intervals use the Kish effective sample size) from a
semicolon-separated Latin-1 file that writes '?' for missing:

    primafacie groups --data adult.csv --sep ";" --encoding latin-1 \\
        --na-values "?" --protected sex=Female --decision income \\
        --favorable ">50K" --weights fnlwgt --out out/adult

With --config the metrics are measured exactly as `primafacie audit` measures them (section
analyses.groups, on by default; the decision may then be a model or a rule), and rates.csv and
summary.csv equal the audit's tables/groups_metrics.csv and tables/groups_metrics_summary.csv.

A score (--score COL, or decision: {score: COL, threshold: T} with --config) adds, with
--thresholds 3,5,7 or --sweep, every group's selection rate and the impact ratio at each
threshold (thresholds.csv), and with --outcome the AUC (DeLong interval) and a calibration
table per group (auc.csv, calibration.csv).

Writes rates.csv (one row per group and metric: k, n, rate, interval, difference and ratio to
the reference), summary.csv (one row per protected group: selection rates, difference, ratio,
four-fifths flag, error-rate gaps) and groups.json to --out; nothing is written when the input
is bad (exit 2).
"""

#: Flags that set an ``analyses.groups`` key ({parameter: flag}); refused with --config.
_SPEC_FLAGS = spec_flags(PARAMS)
#: Flags that give the data and roles; the configuration has its own.
_DATA_FLAGS = {
    "data": "--data", "protected": "--protected", "decision": "--decision",
    "favorable": "--favorable", "outcome": "--outcome", "outcome_favorable": "--outcome-favorable",
    "score": "--score", "score_favorable": "--score-favorable",
}  # fmt: skip


# ---------------------------------------------------------------------------------- parse
def data_from_flags(
    data: Path | None,
    protected: list[str],
    decision: str | None,
    favorable: str,
    outcome: str | None,
    outcome_favorable: str,
    reading: dict[str, Any] | None = None,
    score: str | None = None,
) -> AuditData:
    """The AuditData the flags describe, read by the audit's reader (:func:`_data.load`); a
    mistake is an InputError naming its flag."""
    if data is None:  # before the imports: a usage error answers at once
        raise InputError(_NO_DATA)
    if not protected:
        raise InputError("give at least one --protected COL=VALUE (repeat it per attribute)")
    if decision is None:
        raise InputError("give --decision COL (the column of decisions)")
    prot = _data.protected_values(protected)
    doc = {
        **_data.config_from_flags(reading or {}, data, prot), "features": {},
        "decision": {"column": decision}, "favorable": _data.scalar(favorable),
        "outcome": outcome, "outcome_favorable": _data.scalar(outcome_favorable),
    }  # fmt: skip
    named = [("--decision", decision), ("--outcome", outcome),
             *(("--protected", c) for c in prot), ("--score", score)]  # fmt: skip
    return _data.load(doc, named)[1]


# ---------------------------------------------------------------------------------- run
def from_config(ctx: typer.Context, config: Path) -> tuple[Any, tuple[Path, ...]]:
    """The Result of ``analyses.groups`` measured exactly as the audit measures it (the
    analysis' check and run on the configuration's AuditData), and the input files."""
    from ..analysis import Context
    from ..groups.analysis import ANALYSIS, LABEL

    cfg, spec = config_section(ctx, config, ANALYSIS.name, {**_DATA_FLAGS, **_SPEC_FLAGS})
    ANALYSIS.check(spec, cfg)  # before any data is read, as the audit does
    with err_console.status("measuring groups…"):
        run = ANALYSIS.run(spec, Context(config=cfg, data=cfg.audit_data()))
    from ..audit.inputs import input_paths

    return run.results[LABEL], input_paths(cfg, config)  # models and scheduler file too


def parse_thresholds(text: str | None) -> list[float] | None:
    """``--thresholds 3,5,7.5`` -> ``[3.0, 5.0, 7.5]``; a value that is not a number is an
    InputError naming the flag.

    Examples
    --------
    >>> parse_thresholds("3, 5,7.5"), parse_thresholds(None)
    ([3.0, 5.0, 7.5], None)
    """
    if text is None:
        return None
    values = [v.strip() for v in str(text).split(",")]
    try:
        return [float(v) for v in values]
    except ValueError:
        bad = next(v for v in values if not _is_float(v))
        raise InputError(
            f"--thresholds expects numbers separated by commas (e.g. 3,5,7.5); {bad!r} is not "
            "a number (--thresholds, analyses.groups.thresholds)"
        ) from None


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def from_flags(
    data: Path | None, protected: list[str], decision: str | None, favorable: str,
    outcome: str | None, outcome_favorable: str, reading: dict[str, Any], score: str | None = None,
    score_favorable: str = "above", **settings: Any,
) -> tuple[Any, tuple[Path, ...]]:  # fmt: skip
    """The Result of the flags: the spec validates the settings (``{key: value}`` of the
    declared options; errors name the flag), then builds the engine that measures the data."""
    from ..groups.spec import GroupsSpec

    if "thresholds" in settings:
        settings["thresholds"] = parse_thresholds(settings["thresholds"])
    spec = spec_from_flags(GroupsSpec, **settings)
    audit = data_from_flags(
        data, protected, decision, favorable, outcome, outcome_favorable, reading, score
    )
    engine = spec.build(audit)
    engine.score, engine.score_favorable = score, score_favorable  # the flags' score role
    with err_console.status("measuring groups…"):
        return engine.run(audit), (data,)  # type: ignore[return-value]


# ---------------------------------------------------------------------------------- print
def _rate(k: Any, n: Any) -> str:
    from ..formats import rate_text

    return rate_text(k, n)


def _number(value: Any, digits: int, low: Any = None, high: Any = None) -> str:
    """``0.60 [0.56, 0.65]``, ``-0.267`` or — when undefined."""
    import pandas as pd

    if pd.isna(value):
        return "—"
    text = f"{value:.{digits}f}"
    return text if low is None or pd.isna(low) else f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def _below(flag: Any) -> str:
    """The four-fifths cell: yes (in red), no, or — when the ratio is undefined (an empty
    group, or a reference group without a favourable decision)."""
    import pandas as pd

    if pd.isna(flag):
        return "—"
    return "[bold red]yes[/]" if bool(flag) else "no"


def summary_tables(res: Any) -> list[Table]:
    """Rich tables, one per grouping (an attribute or an intersection), one row per protected
    group against the reference group named in the caption: the selection rate as k/n, the
    ratio with its interval and the four-fifths flag (and the TPR and equalized-odds gaps with
    an outcome). The intervals of every number are in the CSVs."""
    from rich import box
    from rich.table import Table

    from ..groups.params import FOUR_FIFTHS

    level = f"{100 * (1 - res.alpha):g}%"
    tables = []
    for attribute, rows in res.summary().groupby("attribute", sort=False):
        first = rows.iloc[0]
        table = Table(
            title=escape(f"{attribute}: selection rates"),
            caption=escape(
                f"reference {first['reference']}: "
                f"{_rate(first['reference_k'], first['reference_n'])}"
            ),
            box=box.SIMPLE_HEAD,
        )
        cols = ["group", "selection rate", f"ratio [{level} CI]", f"< {FOUR_FIFTHS:g}"]
        if res.has_outcome:
            cols += ["TPR gap", "eq. odds"]
        for col in cols:
            # the numbers never wrap; a long intersection label does
            table.add_column(col, justify="left" if col == "group" else "right",
                             no_wrap=col != "group")  # fmt: skip
        for r in rows.itertuples(index=False):
            row = [
                escape(f"{r.group} (small)" if r.small else str(r.group)),
                _rate(r.selection_k, r.selection_n),
                _number(r.selection_ratio, 2, r.selection_ratio_low, r.selection_ratio_high),
                _below(r.four_fifths),
            ]
            if res.has_outcome:
                row += [_number(r.equal_opportunity_diff, 3), _number(r.equalized_odds_diff, 3)]
            table.add_row(*row)
        tables.append(table)
    return tables


def print_summary(res: Any, out: Path) -> None:
    """The table, headline, scope and caveats, then where the files went."""
    for table in summary_tables(res):
        console.print(table)
    console.print(escape(res.headline()))
    console.print(escape(f"scope: {res.scope()}"))
    for caveat in res.caveats():
        console.print(escape(f"  • {caveat}"))
    if res.scores is not None:
        for sentence in res.scores.sentences():
            console.print(escape(f"  {sentence}"))
    extra = "".join(f", {name}.csv" for name, _ in _score_files(res))
    console.print(escape(f"wrote {out}/rates.csv, summary.csv{extra}, groups.json"))


def _score_files(res: Any) -> list[tuple[str, Any]]:
    """``(file stem, table)`` of the score tables the result holds (thresholds, auc,
    calibration), the same frames as the audit's tables/groups_<stem>.csv."""
    sc = res.scores
    if sc is None:
        return []
    frames = [("thresholds", sc.thresholds), ("auc", sc.auc), ("calibration", sc.calibration)]
    return [(name, frame) for name, frame in frames if frame is not None]


def write_outputs(res: Any, out: Path, inputs: tuple) -> None:
    """rates.csv, summary.csv and groups.json, swapped into ``out`` in one step."""
    from ..io import atomic_output_dir, atomic_write_json, atomic_write_table

    with atomic_output_dir(out, owner="groups", keep=inputs) as stage:
        # the same frames and writer as the audit's tables (result_tables, audit/write.py)
        atomic_write_table(stage / "rates.csv", res.to_frame())
        atomic_write_table(stage / "summary.csv", res.summary())
        for name, frame in _score_files(res):
            atomic_write_table(stage / f"{name}.csv", frame)
        atomic_write_json(stage / "groups.json", res.to_dict())


# ---------------------------------------------------------------------------------- command
# parse -> build -> run -> print; the typer option declarations make up most of its length
def groups(
    ctx: typer.Context,
    data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet table."),
    protected: list[str] = typer.Option(
        [], "--protected", help="COL=VALUE[,VALUE...]: the protected group(s) (repeatable)."),
    decision: Optional[str] = typer.Option(None, "--decision", help="Decision column ŷ."),
    favorable: str = typer.Option("1", "--favorable", help="Favourable decision value."),
    outcome: Optional[str] = typer.Option(
        None, "--outcome", help="True-outcome column (adds the error rates)."),
    outcome_favorable: str = typer.Option(
        "1", "--outcome-favorable", help="Favourable true-outcome value."),
    score: Optional[str] = typer.Option(
        None, "--score", help="Numeric score column: with --thresholds or --sweep, rates and "
        "impact ratios at each threshold; with --outcome, AUC and calibration per group."),
    score_favorable: str = typer.Option(
        "above", "--score-favorable", help="above (score >= threshold is favourable) or below."),
    config: Optional[Path] = typer.Option(
        None, "--config", help="audit.yaml (section analyses.groups) instead of flags."),
    out: Path = typer.Option(Path("out/groups"), "--out", help="Output folder."),
    reading: Any = None,
    **settings: Any,
) -> None:  # fmt: skip
    """``primafacie groups`` (the help text is :data:`HELP`); ``settings`` are the options
    declared in :data:`primafacie.groups.params.PARAMS` (added by :func:`spec_options`)."""
    if config is None and data is None:  # before the imports: a usage error answers at once
        raise InputError(_NO_DATA)
    if config is not None:
        _data.refuse_with_config(reading, config)
        res, inputs = from_config(ctx, config)
    else:
        res, inputs = from_flags(
            data, protected, decision, favorable, outcome, outcome_favorable, reading, score,
            score_favorable, **settings,
        )  # fmt: skip
    write_outputs(res, out, inputs)
    print_summary(res, out)


def register(app: typer.Typer) -> None:
    """Add ``primafacie groups`` to ``app``."""
    app.command("groups", help=HELP)(guarded(_data.data_options(spec_options(PARAMS)(groups))))
