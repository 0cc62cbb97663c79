"""``primafacie certainty``: rank decision-makers by how certainly fair they are."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from ..errors import InputError
from ._common import console, err_console, guarded, parse_pairs

HELP = """Rank decision-makers (models, rules, recorded human decisions) by how *certainly*
fair they are and select the best (Duong & Conrad, ECAI 2024).

Each decision-maker becomes (disparity, uncertainty): the gap between the most and least
privileged group and the Beta-posterior uncertainty of that gap; u_topsis ranks them.

Example:

    primafacie certainty --data loans.csv --protected gender \\
        --outcome repaid --column clerk=human_decision \\
        --model lr=lr.joblib --rule strict="salary > 50000" \\
        --tie-breaker accuracy --out out/certainty

    primafacie certainty --config audit.yaml --out out/certainty

Writes certainty.csv (ranking), certainty_counts.csv (per group: n, k, posterior, credible
interval), certainty.json and certainty.png into --out; nothing is written when the input is
bad (exit 2). A model file is unpickled only because you named it: load only files you trust.
"""


def _scalar(text: Any) -> Any:
    """'1' -> 1, '0.5' -> 0.5, else the text (flags arrive as strings)."""
    if not isinstance(text, str):
        return text
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _from_flags(data, protected, models, columns, rules) -> tuple[Any, list[str], dict]:
    from ..data import read_table
    from ..decisions import Rule, load_model

    if data is None:
        raise InputError("give --data FILE (or --config audit.yaml)")
    if not protected:
        raise InputError("give --protected COLUMN (repeat it for intersectional groups)")
    frame = read_table(data)
    dms: dict[str, Any] = {}
    for flag, pairs in (("--model", models), ("--column", columns), ("--rule", rules)):
        for name, value in parse_pairs(pairs, flag):
            if name in dms:
                raise InputError(f"decision-maker name {name!r} is used twice")
            if flag == "--model":
                dms[name] = load_model(value)
            elif flag == "--rule":
                dms[name] = Rule(value)
            else:
                dms[name] = value
    if not dms:
        raise InputError("name at least one decision-maker: --model, --column or --rule")
    return frame, list(protected), dms


def _from_config(path: Path) -> tuple[Any, dict[str, Any], dict]:
    from ..config import load_config

    cfg = load_config(path)
    spec = cfg.analyses.certainty
    if spec is None:
        raise InputError(f"{path}: the configuration has no analyses.certainty section")
    data = cfg.audit_data()
    dms = cfg.decision_makers()
    kwargs = {
        "criterion": spec.criterion,
        "protected": spec.protected or list(cfg.protected),
        "tie_breaker": spec.tie_breaker,
        "max_levels": spec.max_levels,
        "favorable": cfg.favorable,
    }
    if not dms:
        from ..certainty import DEFAULT_DECISION_MAKER

        dms = {DEFAULT_DECISION_MAKER: data.decision}
        if cfg.decider() is not None:
            kwargs.pop("favorable")  # the computed decision column is already 1 = favourable
    return data, kwargs, dms


def _print_summary(res) -> None:
    import pandas as pd
    from rich.table import Table

    table = Table(title=f"certainty of fairness — {res.criterion.replace('_', ' ')}")
    for col in ("rank", "decision-maker", "most priv.", "least priv.", "n_i/k_i", "n_j/k_j",
                "disparity", "uncertainty", "utility", "accuracy"):  # fmt: skip
        table.add_column(
            col, justify="left" if "priv" in col or col == "decision-maker" else "right"
        )
    for row in res.table.itertuples(index=False):
        acc = "" if row.accuracy != row.accuracy else f"{row.accuracy:.3f}"
        if acc and not pd.isna(row.accuracy_n):
            acc += f" ({row.accuracy_k}/{row.accuracy_n})"
        mark = " ★" if row.selected else ""
        table.add_row(
            str(row.rank), f"{row.decision_maker}{mark}", str(row.most_privileged),
            str(row.least_privileged), f"{row.n_i}/{row.k_i}", f"{row.n_j}/{row.k_j}",
            f"{row.disparity:.3f}", f"{row.uncertainty:.3f}", f"{row.utility:.3f}", acc,
        )  # fmt: skip
    console.print(table)
    console.print(f"selected: [bold]{', '.join(res.selected)}[/]")
    for note in res.warnings:
        err_console.print(f"[yellow]warning:[/] {escape(note)}")


def register(app: typer.Typer) -> None:
    @app.command("certainty", help=HELP)
    @guarded
    def certainty(
        data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet table."),
        protected: Optional[list[str]] = typer.Option(
            None, "--protected", help="Protected column; repeat for intersectional groups."
        ),
        model: Optional[list[str]] = typer.Option(
            None, "--model", help="NAME=FILE: a fitted estimator (joblib/pickle)."
        ),
        column: Optional[list[str]] = typer.Option(
            None, "--column", help="NAME=COL: a column of recorded decisions."
        ),
        rule: Optional[list[str]] = typer.Option(
            None, "--rule", help='NAME=EXPR: a rule such as "salary > 50000".'
        ),
        criterion: str = typer.Option(
            "statistical_parity",
            "--criterion",
            help="statistical_parity | equal_opportunity | predictive_parity.",
        ),  # fmt: skip
        favorable: str = typer.Option("1", "--favorable", help="Favourable decision value."),
        outcome: Optional[str] = typer.Option(None, "--outcome", help="True-outcome column."),
        outcome_favorable: str = typer.Option(
            "1", "--outcome-favorable", help="Favourable true-outcome value."
        ),
        tie_breaker: Optional[str] = typer.Option(
            None, "--tie-breaker", help="'accuracy' (needs --outcome) to break utility ties."
        ),
        utility: str = typer.Option("topsis", "--utility", help="topsis | norm."),
        disparity: str = typer.Option(
            "frequentist", "--disparity", help="frequentist (paper) | bayesian."
        ),
        epsilon: Optional[float] = typer.Option(
            None, "--epsilon", help="Also report P(disparity > epsilon | data)."
        ),
        on_empty: str = typer.Option(
            "error", "--on-empty", help="A group with no row in E2: error | skip."
        ),
        min_group_size: Optional[int] = typer.Option(
            None, "--min-group-size", help="Merge groups smaller than this into one."
        ),
        max_levels: int = typer.Option(
            20, "--max-levels", help="Most values a protected column may have (0: no limit)."
        ),
        config: Optional[Path] = typer.Option(
            None, "--config", help="audit.yaml with an analyses.certainty section."
        ),
        out: Path = typer.Option(Path("out/certainty"), "--out", help="Output folder."),
    ) -> None:
        from ..certainty import CertaintyAudit
        from ..io import atomic_output_dir, atomic_write_csv, atomic_write_json

        kwargs: dict[str, Any] = {
            "criterion": criterion,
            "favorable": _scalar(favorable),
            "outcome": outcome,
            "outcome_favorable": _scalar(outcome_favorable),
            "tie_breaker": tie_breaker,
            "utility": utility,
            "disparity": disparity,
            "epsilon": epsilon,
            "on_empty": on_empty,
            "min_group_size": min_group_size,
            "max_levels": max_levels or None,
        }
        with err_console.status("scoring decision-makers ..."):
            if config is not None:
                if data is not None or model or column or rule:
                    raise InputError("--config replaces --data/--model/--column/--rule; give one")
                table, from_cfg, dms = _from_config(config)
                kwargs.update(from_cfg)
                for key in ("outcome", "outcome_favorable"):
                    kwargs.pop(key)  # taken from the AuditData the configuration builds
                if protected:
                    kwargs["protected"] = list(protected)
            else:
                table, prot, dms = _from_flags(data, protected, model, column, rule)
                kwargs["protected"] = prot
            res = CertaintyAudit(**kwargs).run(table, dms)
            fig = res.plot()
        inputs = [p for p in (config, data) if p is not None]
        with atomic_output_dir(out, owner="certainty", keep=inputs) as stage:
            atomic_write_csv(stage / "certainty.csv", res.to_frame(), index=False)
            atomic_write_csv(stage / "certainty_counts.csv", res.counts_frame(), index=False)
            atomic_write_json(stage / "certainty.json", res.to_dict())
            fig.savefig(stage / "certainty.png", dpi=120, bbox_inches="tight")
        _print_summary(res)
        console.print(
            f"wrote {out}/certainty.csv, certainty_counts.csv, certainty.json, certainty.png"
        )
