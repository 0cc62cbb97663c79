"""``primafacie certainty``: rank decision-makers by how certainly fair they are.

parse (flags or ``--config``) -> build (:meth:`CertaintySpec.build`, as the audit) -> run ->
write and print.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..certainty.params import PARAMS
from ..errors import InputError
from ..params import by_name
from . import _data
from ._common import (
    TRUST_PICKLE_HELP,
    TRUSTED_TYPE_HELP,
    config_section,
    console,
    err_console,
    escape,
    guarded,
    load_cli_model,
    option,
    parse_pairs,
    spec_from_flags,
)

#: The usage error of a run without data (checked first, before any heavy import).
_NO_DATA = "give --data FILE (or --config audit.yaml)"

if TYPE_CHECKING:
    from rich.table import Table

# the spec, the engine and pandas are imported inside the functions: the CLI loads this module
# to render --help, which must not wait for them.

HELP = """Rank decision-makers (models, rules, recorded human decisions) by how *certainly*
fair they are and select the best (Duong & Conrad, ECAI 2024).

Each decision-maker becomes (disparity, uncertainty): the gap between the most and least
privileged group and the Beta-posterior uncertainty of that gap; u_topsis ranks them.

Example:

    primafacie certainty --data loans.csv --protected gender \\
        --outcome repaid --column clerk=human_decision \\
        --model lr=lr.skops --rule strict="salary > 50000" \\
        --tie-breaker accuracy --n-draws 20000 --seed 1 \\
        --out out/certainty

    primafacie certainty --config audit.yaml --out out/certainty

Weighted, on the 2024 rows of sheet "loans" of an Excel file:

    primafacie certainty --data loans.xlsx --sheet loans \\
        --where "year == 2024" --weights w --protected gender \\
        --column clerk=human_decision --out out/c24

With --config the ranking is built from the file exactly as `primafacie audit` builds it
(without a decision_makers list, the audited decision is ranked alone).

p_most_fair, the posterior probability that each decision-maker has the smallest disparity, is
a Monte Carlo of --n-draws posterior draws seeded by --seed (--n-draws 0: not computed).

Writes certainty.csv (ranking), certainty_counts.csv (per group: n, k, posterior, credible
interval), certainty.json and certainty.png into --out; nothing is written when the input is
bad (exit 2). A --model file is .skops or .onnx; a pickle/joblib file runs its author's code
when loaded and is refused unless --trust-pickle is given (see docs/security.md).
"""


#: Typer defaults: the spec's (literals, checked against ``CertaintySpec()`` by the tests).
_P = by_name(PARAMS)

#: Flags that set an ``analyses.certainty`` key ({parameter: flag}); refused with --config.
_SPEC_FLAGS = {
    "protected": "--protected", "criterion": "--criterion", "tie_breaker": "--tie-breaker",
    "utility": "--utility", "disparity": "--disparity", "epsilon": "--epsilon",
    "on_empty": "--on-empty", "min_group": "--min-group", "max_levels": "--max-levels",
    "n_draws": "--n-draws", "seed": "--seed", "min_group_size": "--min-group-size",
}  # fmt: skip
#: Flags that give the data, roles and decision-makers; the configuration has its own.
_DATA_FLAGS = {
    "data": "--data", "model": "--model", "column": "--column", "rule": "--rule",
    "trust_pickle": "--trust-pickle", "trusted_type": "--trusted-type",
    "favorable": "--favorable", "outcome": "--outcome", "outcome_favorable": "--outcome-favorable",
}  # fmt: skip


def _from_flags(data, protected, models, columns, rules, trust=(False, None), reading=None,
                outcome=None) -> tuple[Any, dict]:  # fmt: skip
    """The table (read by the configuration's reader, :func:`_data.read_frame`) and the
    decision-makers the flags name (models loaded, rules parsed)."""
    if data is None:  # before the imports: a usage error answers at once
        raise InputError(_NO_DATA)
    from ..decisions import Rule

    if not protected:
        raise InputError("give --protected COLUMN (repeat it for intersectional groups)")
    recorded = [value for _, value in parse_pairs(columns, "--column")]
    rules_given = [value for _, value in parse_pairs(rules, "--rule")]
    # the audited columns of --dropna all: a recorded decision, a rule's columns, else (only
    # models) the protected columns alone
    decision = {"rule": rules_given[0]} if rules_given and not recorded else {
        "column": (recorded or list(protected))[0]}  # fmt: skip
    roles = {"protected": list(protected), "decision": decision, "outcome": outcome}
    frame = _data.read_frame(reading or {}, data, "certainty", roles)
    dms: dict[str, Any] = {}
    for flag, pairs in (("--model", models), ("--column", columns), ("--rule", rules)):
        for name, value in parse_pairs(pairs, flag):
            if name in dms:
                raise InputError(f"decision-maker name {name!r} is used twice")
            if flag == "--model":
                dms[name] = load_cli_model(value, *trust)
            elif flag == "--rule":
                dms[name] = Rule(value)
            else:
                dms[name] = value
    if not dms:
        raise InputError("name at least one decision-maker: --model, --column or --rule")
    return frame, dms


def _min_group(min_group: Optional[int], former: Optional[int]) -> Optional[int]:
    """``--min-group``, or the deprecated ``--min-group-size`` (with a note on stderr)."""
    if former is None:
        return min_group
    typer.echo("note: --min-group-size is deprecated; use --min-group", err=True)
    if min_group is not None and min_group != former:
        raise InputError("give --min-group only (--min-group and --min-group-size differ)")
    return former


def _from_config(ctx: typer.Context, config: Path) -> tuple[Any, Any, dict, list]:
    """AuditData, engine, decision-makers and input files of ``--config``, as the audit's."""
    cfg, spec = config_section(ctx, config, "certainty", {**_DATA_FLAGS, **_SPEC_FLAGS})
    data = cfg.audit_data().compared()  # the protected and reference rows, as the audit
    from ..audit.inputs import input_paths

    inputs = list(input_paths(cfg, config))  # models and scheduler file too
    return data, spec.build(data), spec.decision_makers_of(cfg, data), inputs


def _write(out: Path, res: Any, fig: Any, inputs: list) -> None:
    from ..io import atomic_output_dir, atomic_write_json, atomic_write_table

    with atomic_output_dir(out, owner="certainty", keep=inputs) as stage:
        atomic_write_table(stage / "certainty.csv", res.to_frame(), index=False)
        atomic_write_table(stage / "certainty_counts.csv", res.counts_frame(), index=False)
        atomic_write_json(stage / "certainty.json", res.to_dict())
        fig.savefig(stage / "certainty.png", dpi=120, bbox_inches="tight")


def summary_table(res: Any) -> Table:
    """Rich table, one row per decision-maker in rank order; P(most fair) and accuracy appear
    only when computed (``--n-draws`` not 0, ``--outcome`` given), so the table stays legible
    at 80 columns."""
    import pandas as pd
    from rich.table import Table

    rows = res.table
    cols = ["rank", "decision-maker", "most priv.", "least priv.", "n_i/k_i", "n_j/k_j",
            "disparity", "uncertainty", "utility"]  # fmt: skip
    has_p = bool(rows["p_most_fair"].notna().any())
    has_acc = bool(rows["accuracy"].notna().any())
    cols += ["P(most fair)"] * has_p + ["accuracy"] * has_acc
    table = Table(title=f"certainty of fairness — {res.criterion.replace('_', ' ')}")
    for col in cols:
        table.add_column(
            col, justify="left" if "priv" in col or col == "decision-maker" else "right"
        )
    for row in rows.itertuples(index=False):
        acc = "" if row.accuracy != row.accuracy else f"{row.accuracy:.3f}"
        if acc and not pd.isna(row.accuracy_n):
            acc += f" ({row.accuracy_k}/{row.accuracy_n})"
        mark = " ★" if row.selected else ""
        cells = [
            str(row.rank), f"{row.decision_maker}{mark}", str(row.most_privileged),
            str(row.least_privileged), f"{row.n_i}/{row.k_i}", f"{row.n_j}/{row.k_j}",
            f"{row.disparity:.3f}", f"{row.uncertainty:.3f}", f"{row.utility:.3f}",
        ]  # fmt: skip
        if has_p:
            cells.append("" if pd.isna(row.p_most_fair) else f"{row.p_most_fair:.2f}")
        if has_acc:
            cells.append(acc)
        table.add_row(*(escape(c) for c in cells))
    return table


def _print_summary(res: Any, out: Path) -> None:
    console.print(summary_table(res))
    console.print(f"selected: [bold]{', '.join(res.selected)}[/]")
    console.print(escape(res.headline()))
    console.print(escape(f"scope: {res.scope()}"))
    for note in res.caveats():
        err_console.print(f"[yellow]caveat:[/] {escape(note)}")
    console.print(f"wrote {out}/certainty.csv, certainty_counts.csv, certainty.json, certainty.png")


# parse -> build -> run -> print; the typer option declarations make up most of its length
def certainty(
    ctx: typer.Context,
    data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet table."),
    protected: Optional[list[str]] = typer.Option(
        None, "--protected", help="Protected column; repeat for intersectional groups."),
    model: Optional[list[str]] = typer.Option(
        None, "--model", help="NAME=FILE: a fitted estimator (.skops or .onnx)."),
    trust_pickle: bool = typer.Option(False, "--trust-pickle", help=TRUST_PICKLE_HELP),
    trusted_type: Optional[list[str]] = typer.Option(
        None, "--trusted-type", help=TRUSTED_TYPE_HELP),
    column: Optional[list[str]] = typer.Option(
        None, "--column", help="NAME=COL: a column of recorded decisions."),
    rule: Optional[list[str]] = typer.Option(
        None, "--rule", help='NAME=EXPR: a rule such as "salary > 50000".'),
    criterion: str = option(_P["criterion"]),
    favorable: str = typer.Option("1", "--favorable", help="Favourable decision value."),
    outcome: Optional[str] = typer.Option(None, "--outcome", help="True-outcome column."),
    outcome_favorable: str = typer.Option(
        "1", "--outcome-favorable", help="Favourable true-outcome value."),
    tie_breaker: Optional[str] = option(_P["tie_breaker"]),
    utility: str = option(_P["utility"]),
    disparity: str = option(_P["disparity"]),
    epsilon: Optional[float] = option(_P["epsilon"]),
    on_empty: str = option(_P["on_empty"]),
    min_group: Optional[int] = option(_P["min_group"]),
    min_group_size: Optional[int] = typer.Option(
        None, "--min-group-size", hidden=True, help="Deprecated: --min-group."),
    # on the command line 0 stands for null (no limit / not computed)
    max_levels: int = option(_P["max_levels"], help="Most values a protected column may have "
                             "(0: no limit; at most 1,000)."),
    n_draws: int = option(_P["n_draws"], help="Posterior draws behind p_most_fair (0: not "
                          "computed; at most 10^7, Monte Carlo error below 0.0002)."),
    seed: int = option(_P["seed"]),
    config: Optional[Path] = typer.Option(
        None, "--config", help="audit.yaml with an analyses.certainty section."),
    out: Path = typer.Option(Path("out/certainty"), "--out", help="Output folder."),
    reading: Any = None,
) -> None:  # fmt: skip
    """``primafacie certainty`` (the help text is :data:`HELP`)."""
    if config is None and data is None:  # before the imports: a usage error answers at once
        raise InputError(_NO_DATA)
    from ..certainty.spec import CertaintySpec

    if config is not None:
        _data.refuse_with_config(reading, config)
        table, engine, dms, inputs = _from_config(ctx, config)
    else:
        table, dms = _from_flags(data, protected, model, column, rule,
                                 (trust_pickle, trusted_type), reading, outcome)  # fmt: skip
        spec = spec_from_flags(
            CertaintySpec, criterion=criterion, protected=list(protected or []) or None,
            tie_breaker=tie_breaker, utility=utility, disparity=disparity, epsilon=epsilon,
            on_empty=on_empty, min_group=_min_group(min_group, min_group_size),
            max_levels=max_levels or None,
            n_draws=n_draws or None, seed=seed,
        )  # fmt: skip
        engine = spec.build()
        # the roles of a plain table (an AuditData from --config carries its own)
        engine.favorable, engine.outcome = _data.scalar(favorable), outcome
        engine.outcome_favorable = _data.scalar(outcome_favorable)
        engine.weights = reading["weights"]  # --weights (None: unweighted)
        inputs = [data]
    with err_console.status("scoring decision-makers ..."):
        res = engine.run(table, dms)
        fig = res.plot()
    _write(out, res, fig, inputs)
    _print_summary(res, out)


def register(app: typer.Typer) -> None:
    """Add ``primafacie certainty`` to ``app``."""
    app.command("certainty", help=HELP)(guarded(_data.data_options(certainty)))
