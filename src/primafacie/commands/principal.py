"""``primafacie principal``: counterfactual fairness on principal strata from flags or a config.

parse (flags or ``--config``) -> build (:meth:`PrincipalSpec.build`, as the audit) -> run ->
write and print.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..errors import InputError
from ..params import by_name
from ..principal.params import PARAMS
from . import _data
from ._common import config_section, console, err_console, escape, guarded, option, spec_from_flags

if TYPE_CHECKING:
    from ..principal.spec import PrincipalSpec

# pandas, the spec and the engine are imported inside the functions: the CLI loads this module
# to render --help, which must not wait for them.

HELP = """Principal-stratum counterfactual fairness of a binary decision S with respect to a binary
protected attribute A and a binary true outcome Y (Definitions 1-2 of the principal-stratification
paper): sharp bounds (Proposition 1), LP ranges of tau0', tau1', tau', verdicts, and the minimal
randomised repair eps* (sum(eps*) = unfairness). A definition can only be REFUTED, never
confirmed: "not refuted" means no evidence of violation under Assumption 1.

Writes summary.csv (verdict per cell and definition), quantities.csv (every bound and interval),
counts.csv (the (A, S, Y) counts per cell), principal.json and, with --repair, repair.csv and
repaired_decisions.csv to --out.

Example (A=0 is the protected group given after '='):

    primafacie principal --data students.csv --protected address=R \\
        --outcome top_third --decision predicted --covariates sex \\
        --definitions 1,2 --n-boot 500 --repair --out out/pf

Rural against urban students of one school only, a ';'-separated file with a decimal comma:

    primafacie principal --data students.csv --sep ";" --decimal , \\
        --protected address=R --reference U --where "school == 'GP'" \\
        --dropna all --outcome top_third --decision predicted \\
        --out out/pf-gp

or `primafacie principal --config audit.yaml --out out/pf` (section analyses.principal; the
analysis is built from the file exactly as `primafacie audit` builds it).
"""

#: The declarations of the analysis' parameters: each option's default and help.
_P = by_name(PARAMS)

#: Flags that set an ``analyses.principal`` key ({parameter: flag}); refused with --config.
_SPEC_FLAGS = {
    "definitions": "--definitions", "definition": "--definition", "covariates": "--covariates",
    "joint": "--joint",
    "n_boot": "--n-boot", "seed": "--seed", "min_group": "--min-group",
    "skip_empty": "--skip-empty",
}  # fmt: skip
#: Flags that give the data and roles; the configuration has its own.
_DATA_FLAGS = {
    "data": "--data", "protected": "--protected", "outcome": "--outcome",
    "outcome_favorable": "--outcome-favorable", "decision": "--decision",
    "favorable": "--favorable", "rule": "--rule",
}  # fmt: skip


def _parse_list(text: str | None) -> list[str]:
    return [v.strip() for v in (text or "").split(",") if v.strip()]


def _parse_protected(item: str) -> tuple[str, str]:
    col, sep, value = item.partition("=")
    if not sep or not col or value == "":
        raise InputError(
            f"--protected expects COL=VALUE (VALUE is the protected group, coded A=0), got {item!r}"
        )
    return col.strip(), value


def _data_from_flags(data, protected, outcome, outcome_favorable, decision, favorable, rule,
                     reading):  # fmt: skip
    """The AuditData the flags describe (S from a column or a rule), read by the audit's
    reader; the protected and reference rows, as the audit."""
    missing = [f for f, v in (("--protected", protected), ("--outcome", outcome)) if v is None]
    if missing:
        raise InputError(f"missing {' and '.join(missing)}")
    if (decision is None) == (rule is None):
        raise InputError("give exactly one of --decision COL or --rule EXPR")
    col, value = _parse_protected(protected)
    doc = {
        **_data.config_from_flags(reading, data, {col: _data.scalar(value)}), "features": {},
        "decision": {"column": decision} if rule is None else {"rule": rule},
        "favorable": _data.scalar(favorable), "outcome": outcome,
        "outcome_favorable": _data.scalar(outcome_favorable),
    }  # fmt: skip
    named = [("--protected", col), ("--outcome", outcome), ("--decision", decision)]
    return _data.load(doc, named, analysis="principal")[1].compared()


def _from_config(ctx: typer.Context, config: Path) -> tuple[Any, PrincipalSpec, tuple]:
    """AuditData, spec and input files of ``--config`` (the analysis flags are refused)."""
    cfg, spec = config_section(ctx, config, "principal", {**_DATA_FLAGS, **_SPEC_FLAGS})
    from ..audit.inputs import input_paths

    # the protected and reference rows, as the audit; models and scheduler file too
    return cfg.audit_data().compared(), spec, input_paths(cfg, config)


def _run(pf: Any, data: Any, do_repair: bool) -> tuple[Any, list]:
    label = "principal-stratum bounds" + (
        f" + {pf.n_boot} bootstrap replicates" if pf.n_boot else ""
    )
    with err_console.status(label + "…"):
        result = pf.run(data)
        repairs = [pf.repair(data, definition=d) for d in result.definitions] if do_repair else []
    return result, repairs


def _write(out: Path, result: Any, repairs: list, inputs: tuple) -> None:
    import pandas as pd

    from ..io import atomic_output_dir, atomic_write_json, atomic_write_table

    # inputs: a rerun on an earlier repaired_decisions.csv must not delete it as a stale output
    with atomic_output_dir(out, owner="principal", keep=inputs) as stage:
        atomic_write_table(stage / "summary.csv", result.summary())
        atomic_write_table(stage / "quantities.csv", result.to_frame())
        atomic_write_table(stage / "counts.csv", result.counts_frame())
        payload: dict[str, Any] = {"evaluation": result.to_dict()}
        if repairs:
            payload["repair"] = [r.to_dict() for r in repairs]
            atomic_write_table(stage / "repair.csv", pd.concat([r.to_frame() for r in repairs]))
            dec = repairs[0].decisions_frame()
            for r in repairs:
                dec[f"S_repaired_def{r.definition}"] = r.repaired
            atomic_write_table(stage / "repaired_decisions.csv", dec.drop(columns="S_repaired"))
        atomic_write_json(stage / "principal.json", payload)


def _print(result: Any, repairs: list, out: Path) -> None:
    import pandas as pd
    from rich.table import Table

    table = Table(
        title=escape(f"principal fairness: {result.protected} (A=1: {result.a1}, A=0: {result.a0})")
    )
    for col in ("cell", "n", "definition", "verdict", "evidence", "eps_sum", "boot_share_violated"):
        table.add_column(col)
    for r in result.summary().itertuples():
        eps = "" if pd.isna(r.eps_sum) else f"{r.eps_sum:.4f}"
        share = "" if pd.isna(r.boot_share_violated) else f"{r.boot_share_violated:.2f}"
        verdict = f"[red]{r.verdict}[/]" if r.verdict == "violated" else r.verdict
        table.add_row(
            escape(r.cell), str(r.n), str(r.definition), verdict, escape(r.evidence), eps, share
        )
    console.print(table)
    console.print(escape(result.headline()))
    console.print(escape(f"scope: {result.scope()}"))
    for caveat in result.caveats():
        console.print(escape(caveat))
    console.print(
        f"wrote {out}/summary.csv, quantities.csv, counts.csv, principal.json"
        + (", repair.csv, repaired_decisions.csv" if repairs else "")
    )


# parse -> build -> run -> print; the typer option declarations make up most of its length
def principal(
    ctx: typer.Context,
    data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet table."),
    protected: Optional[str] = typer.Option(None, "--protected", help="COL=VALUE; VALUE is coded A=0."),
    outcome: Optional[str] = typer.Option(None, "--outcome", help="Ground-truth column Y."),
    outcome_favorable: str = typer.Option("1", "--outcome-favorable", help="Value of Y meaning 1."),
    decision: Optional[str] = typer.Option(None, "--decision", help="Decision column S."),
    favorable: str = typer.Option("1", "--favorable", help="Favourable decision value (S=1)."),
    rule: Optional[str] = typer.Option(None, "--rule", help="S from a rule expression instead."),
    covariates: Optional[str] = typer.Option(None, "--covariates", help="Comma-separated X columns."),
    definitions: str = option(_P["definitions"]),
    definition: Optional[str] = typer.Option(
        None, "--definition", hidden=True, help="Deprecated: --definitions."),
    joint: str = option(_P["joint"]),
    n_boot: int = option(_P["n_boot"]),
    seed: int = option(_P["seed"]),
    min_group: int = option(_P["min_group"]),
    skip_empty: bool = typer.Option(_P["empty_cells"].default == "skip", "--skip-empty",
                                    help="Skip cells lacking a group."),
    do_repair: bool = typer.Option(False, "--repair", help="Also apply the randomised repair."),
    config: Optional[Path] = typer.Option(None, "--config", help="audit.yaml instead of flags."),
    out: Path = typer.Option(Path("out/principal"), "--out", help="Output folder."),
    reading: Any = None,
) -> None:  # fmt: skip
    """``primafacie principal`` (the help text is :data:`HELP`)."""
    if config is None and data is None:  # before the imports: a usage error answers at once
        raise InputError(
            "give --data FILE (with --protected, --outcome, --decision) or --config FILE"
        )
    from ..principal.spec import PrincipalSpec

    if config is not None:
        _data.refuse_with_config(reading, config)
        audit, spec, inputs = _from_config(ctx, config)
    else:
        audit = _data_from_flags(
            data, protected, outcome, outcome_favorable, decision, favorable, rule, reading
        )
        if definition is not None:  # the former flag, read for one release
            typer.echo("note: --definition is deprecated; use --definitions", err=True)
            definitions = definition
        defs = [int(v) if v.isdigit() else v for v in _parse_list(definitions)]
        spec = spec_from_flags(
            PrincipalSpec, definitions=defs, covariates=_parse_list(covariates), joint=joint,
            n_boot=n_boot, seed=seed, min_group=min_group,
            empty_cells="skip" if skip_empty else "error",
        )  # fmt: skip
        inputs = (data,)
    result, repairs = _run(spec.build(audit), audit, do_repair)
    _write(out, result, repairs, inputs)
    _print(result, repairs, out)


def register(app: typer.Typer) -> None:
    """Add ``primafacie principal`` to ``app``."""
    app.command("principal", help=HELP)(guarded(_data.data_options(principal)))
