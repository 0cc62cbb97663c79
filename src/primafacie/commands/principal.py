"""``primafacie principal``: counterfactual fairness on principal strata from flags or a config."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pandas as pd
import typer
from rich.table import Table

from ..data import AuditData, read_table
from ..errors import InputError
from ..io import atomic_output_dir, atomic_write_csv, atomic_write_json
from ._common import console, err_console, guarded

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
        --definition 1,2 --n-boot 500 --repair --out out/pf

or `primafacie principal --config audit.yaml --out out/pf` (section analyses.principal).
"""


def _parse_protected(item: str) -> tuple[str, str]:
    col, sep, value = item.partition("=")
    if not sep or not col or value == "":
        raise InputError(
            f"--protected expects COL=VALUE (VALUE is the protected group, coded A=0), got {item!r}"
        )
    return col.strip(), value


def _parse_list(text: str | None) -> list[str]:
    return [v.strip() for v in (text or "").split(",") if v.strip()]


def _parse_definitions(text: str) -> list[int]:
    out = []
    for v in _parse_list(text):
        if v not in ("1", "2"):
            raise InputError(f"--definition takes 1, 2 or 1,2; got {text!r}")
        out.append(int(v))
    if not out:
        raise InputError("--definition takes 1, 2 or 1,2")
    return out


def _summary_table(summary: pd.DataFrame, title: str) -> Table:
    table = Table(title=title)
    for col in ("cell", "n", "definition", "verdict", "evidence", "eps_sum", "boot_share_violated"):
        table.add_column(col)
    for r in summary.itertuples():
        eps = "" if pd.isna(r.eps_sum) else f"{r.eps_sum:.4f}"
        share = "" if pd.isna(r.boot_share_violated) else f"{r.boot_share_violated:.2f}"
        verdict = f"[red]{r.verdict}[/]" if r.verdict == "violated" else r.verdict
        table.add_row(
            str(r.cell), str(r.n), str(r.definition), verdict, str(r.evidence), eps, share
        )
    return table


def _run(
    data: AuditData,
    settings: dict[str, Any],
    do_repair: bool,
    out: Path,
    inputs: tuple[Path, ...] = (),
) -> None:
    from ..principal import NOTE, PrincipalFairness

    pf = PrincipalFairness(**settings)
    label = "principal-stratum bounds" + (
        f" + {settings['n_boot']} bootstrap replicates" if settings.get("n_boot") else ""
    )
    with err_console.status(label + "…"):
        result = pf.run(data)
        repairs = [pf.repair(data, definition=d) for d in result.definitions] if do_repair else []
    summary = result.summary()
    # inputs: a rerun on an earlier repaired_decisions.csv must not delete it as a stale output
    with atomic_output_dir(out, owner="principal", keep=inputs) as stage:
        atomic_write_csv(stage / "summary.csv", summary)
        atomic_write_csv(stage / "quantities.csv", result.to_frame())
        atomic_write_csv(stage / "counts.csv", result.counts_frame())
        payload: dict[str, Any] = {"evaluation": result.to_dict()}
        if repairs:
            payload["repair"] = [r.to_dict() for r in repairs]
            atomic_write_csv(stage / "repair.csv", pd.concat([r.to_frame() for r in repairs]))
            dec = repairs[0].decisions_frame()
            for r in repairs:
                dec[f"S_repaired_def{r.definition}"] = r.repaired
            atomic_write_csv(stage / "repaired_decisions.csv", dec.drop(columns="S_repaired"))
        atomic_write_json(stage / "principal.json", payload)
    console.print(
        _summary_table(
            summary, f"principal fairness: {result.protected} (A=1: {result.a1}, A=0: {result.a0})"
        )
    )
    console.print(NOTE)
    console.print(
        f"wrote {out}/summary.csv, quantities.csv, counts.csv, principal.json"
        + (", repair.csv, repaired_decisions.csv" if repairs else "")
    )


def register(app: typer.Typer) -> None:
    @app.command("principal", help=HELP)
    @guarded
    def principal(
        data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet table."),
        protected: Optional[str] = typer.Option(
            None, "--protected", help="COL=VALUE; VALUE is coded A=0."
        ),
        outcome: Optional[str] = typer.Option(None, "--outcome", help="Ground-truth column Y."),
        outcome_favorable: str = typer.Option(
            "1", "--outcome-favorable", help="Value of Y meaning 1."
        ),
        decision: Optional[str] = typer.Option(None, "--decision", help="Decision column S."),
        favorable: str = typer.Option("1", "--favorable", help="Favourable decision value (S=1)."),
        rule: Optional[str] = typer.Option(
            None, "--rule", help="S from a rule expression instead."
        ),
        covariates: Optional[str] = typer.Option(
            None, "--covariates", help="Comma-separated X columns."
        ),
        definition: str = typer.Option(
            "1,2", "--definition", help="1, 2 or 1,2 (repair programs)."
        ),
        joint: str = typer.Option("tau0", "--joint", help="tau0 (fix tau0'=0; paper §4) or tau1."),
        n_boot: int = typer.Option(
            0, "--n-boot", help="Bootstrap replicates (extension; 0 = off)."
        ),
        seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap and the repair."),
        min_group: int = typer.Option(5, "--min-group", help="Flag cells with a smaller arm."),
        skip_empty: bool = typer.Option(False, "--skip-empty", help="Skip cells lacking a group."),
        do_repair: bool = typer.Option(False, "--repair", help="Also apply the randomised repair."),
        sep: Optional[str] = typer.Option(None, "--sep", help="CSV separator (default ',')."),
        config: Optional[Path] = typer.Option(
            None, "--config", help="audit.yaml instead of flags."
        ),
        out: Path = typer.Option(Path("out/principal"), "--out", help="Output folder."),
    ) -> None:
        common = dict(
            joint=joint, min_group=min_group, empty_cells="skip" if skip_empty else "error"
        )
        if n_boot < 0:
            raise InputError(f"--n-boot must be >= 0, got {n_boot}")
        if config is not None:
            if data is not None:
                raise InputError("give either --config or --data, not both")
            from ..config import load_config

            cfg = load_config(config)
            spec = cfg.analyses.principal
            if spec is None:
                raise InputError(f"{config}: the configuration has no analyses.principal section")
            audit = cfg.audit_data()
            settings = dict(
                definition=list(spec.definitions),
                covariates=list(spec.covariates),
                n_boot=spec.n_boot,
                seed=spec.seed,
                # as the audit: the first protected attribute unless the section names one
                protected=spec.protected or next(iter(cfg.protected)),
                **common,
            )
            _run(audit, settings, do_repair, out, (config, cfg.data_path))
            return
        if data is None:
            raise InputError(
                "give --data FILE (with --protected, --outcome, --decision) or --config FILE"
            )
        missing = [
            flag for flag, v in (("--protected", protected), ("--outcome", outcome)) if v is None
        ]
        if missing:
            raise InputError(f"missing {' and '.join(missing)}")
        if (decision is None) == (rule is None):
            raise InputError("give exactly one of --decision COL or --rule EXPR")
        frame = pd.read_csv(data, sep=sep) if sep else read_table(data)
        col, value = _parse_protected(protected)  # type: ignore[arg-type]
        fav: Any = favorable
        if rule is not None:
            from ..decisions import Rule

            frame = frame.copy()
            frame["__decision__"] = Rule(rule).predict(frame)
            decision, fav = "__decision__", 1
        audit = AuditData(
            frame,
            features={},
            protected={col: value},
            decision=decision,
            favorable=fav,
            outcome=outcome,
            outcome_favorable=outcome_favorable,
        )
        settings = dict(
            definition=_parse_definitions(definition),
            covariates=_parse_list(covariates),
            n_boot=n_boot,
            seed=seed,
            **common,
        )
        _run(audit, settings, do_repair, out, (data,))
