"""``primafacie situation``: situation testing (ST, CST w/o, CST w/, CF) from flags or a config.

Module-level functions in the order a run goes: parse (:func:`parse_flags`,
:func:`spec_from_flags`, :func:`causal_from_flags`) → build and run (:func:`run_tests`, or
:func:`from_config`, which runs exactly what ``primafacie audit`` runs for
``analyses.situation``) → write and print (:func:`write_and_print`). Every engine is built by
:meth:`~primafacie.situation.spec.SituationSpec.tests`, and the option defaults are the spec's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..errors import InputError
from ..params import by_name
from ..situation.params import PARAMS
from . import _data
from ._common import (
    TRUST_PICKLE_HELP,
    TRUSTED_TYPE_HELP,
    config_section,
    console,
    err_console,
    escape,
    flag_error,
    guarded,
    load_cli_model,
    option,
)

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

    from ..data import AuditData
    from ..situation.spec import SituationSpec

#: The declarations of the analysis' parameters: each option's default and help.
_P = by_name(PARAMS)

# numpy, pandas, the spec, the SCM and the engines are imported inside the functions: the CLI
# loads this module to render --help, which must not wait for them.

HELP = """Situation testing of individual decisions: k-NN situation testing (st), counterfactual
situation testing without/with the search centres (cst, cst_centers) and counterfactual
fairness (cf). Writes complainants.csv (one row per complainant, method and k) and summary.csv
(counts and shares by method and k) to --out.

Example (the CST paper's loan data):

    primafacie situation --data loans.csv --protected Gender=1 \\
        --feature AnnualSalary --feature AccountBalance \\
        --decision LoanApproval --favorable 1 \\
        --rule "AnnualSalary + 5 * AccountBalance > 225000" \\
        --edge Gender:AnnualSalary --edge Gender:AccountBalance \\
        --edge AnnualSalary:AccountBalance \\
        --k 15,30,50 --method st,cst,cst_centers,cf --out out/situation

The data flags read the table as audit.yaml would: compare women with men only, in 2024,
from a file without a header row:

    primafacie situation --data loans.csv --no-header \\
        --names Gender,AnnualSalary,AccountBalance,LoanApproval,year \\
        --protected Gender=1 --reference 0 --where "year == 2024" \\
        --feature AnnualSalary --feature AccountBalance \\
        --decision LoanApproval --k 15 --method st --out out/situation-2024

or `primafacie situation --config audit.yaml --out out/situation`, which runs exactly what
`primafacie audit` runs for analyses.situation (same SCM with clip/round, compute backend and
checks). `--counterfactuals FILE`
replaces `--edge` with a precomputed counterfactual table (same rows, same order). `--model
FILE` is b() as a .skops or .onnx file (a pickle/joblib file runs its author's code when
loaded and is refused unless `--trust-pickle` is given). `--legacy` reproduces
the CST authors' code conventions (z-scores refitted on the counterfactuals, ties to the larger
index, rounded z) and needs `--interval wald`, the paper's interval; the default is the
corrected method with Newcombe intervals (docs/statistics.md says why).

`--multiplicity` adjusts the p-values across the complainants of each (method, k): none (the
papers' tables), bonferroni, holm, bh (Benjamini-Hochberg, the default) or by
(Benjamini-Yekutieli, valid under any dependence). It adds p_adjusted and significant_adjusted;
the unadjusted columns are unchanged.
"""


def _parse_list(text: str, cast: Any, what: str) -> list:
    try:
        return [cast(v.strip()) for v in str(text).split(",") if v.strip()]
    except ValueError as exc:
        raise InputError(f"{what}: cannot parse {text!r}") from exc


def _parse_features(items: list[str]) -> dict[str, Any] | None:
    if not items:
        return None
    out: dict[str, Any] = {}
    for item in items:
        name, _, kind = item.partition(":")
        out[name] = kind or "numeric"
    return out


def _parse_edges(items: list[str]) -> list[tuple[str, str]]:
    edges = []
    for item in items:
        a, sep, b = item.partition(":")
        if not sep or not a or not b:
            raise InputError(f"--edge expects PARENT:CHILD, got {item!r}")
        edges.append((a, b))
    return edges


def _model_label(estimator: Any, favorable: str, path: Path) -> Any:
    """The model's class label that --favorable names (a CLI string: "1" must match 1)."""
    import numpy as np

    classes = getattr(estimator, "classes_", None)
    if classes is None:
        try:
            return int(favorable)
        except ValueError:
            try:
                return float(favorable)
            except ValueError:
                return favorable
    from ..decisions import _same_label

    for c in classes:
        if str(c) == favorable or (
            isinstance(c, (int, float, np.number)) and _same_number(c, favorable)
        ):
            return c.item() if hasattr(c, "item") else c
        if _same_label(c.item() if hasattr(c, "item") else c, favorable):  # booleans: "1", "true"
            return c.item() if hasattr(c, "item") else c
    raise InputError(
        f"--favorable {favorable!r} is not a class of the model in {path}; its classes are "
        f"{[str(c) for c in classes]}"
    )


def _same_number(value: Any, text: str) -> bool:
    try:
        return float(value) == float(text)
    except ValueError:
        return False


# ---------------------------------------------------------------------- parse
#: The option a spec field comes from, for messages about a flag.
_FLAGS = {
    "k": "--k",
    "methods": "--method",
    "dimensions": "--dimension",
    "alpha": "--alpha",
    "tau": "--tau",
    "direction": "--direction",
    "interval": "--interval",
    "max_distance": "--max-distance",
    "legacy": "--legacy",
    "multiplicity": "--multiplicity",
}
#: Flags that give the data, b() and the causal model; ``--config`` has its own.
_DATA_FLAGS = {
    "data": "--data", "protected": "--protected", "feature": "--feature",
    "decision": "--decision", "favorable": "--favorable", "rule": "--rule", "model": "--model",
    "edge": "--edge", "counterfactuals": "--counterfactuals",
    "trust_pickle": "--trust-pickle", "trusted_type": "--trusted-type",
}  # fmt: skip
#: Typer parameter -> flag of every option that sets a key of ``analyses.situation``.
_SPEC_FLAGS = {
    {"methods": "method", "dimensions": "dimension"}.get(key, key): flag
    for key, flag in _FLAGS.items()
}


def spec_from_flags(
    k: str,
    method: str,
    dimension: str,
    alpha: float,
    tau: float,
    direction: str,
    interval: str,
    max_distance: float | None,
    legacy: bool,
    multiplicity: str = _P["multiplicity"].default,
) -> SituationSpec:
    """The :class:`SituationSpec` the flags describe (validated like ``audit.yaml``)."""
    from pydantic import ValidationError

    from ..situation.spec import SituationSpec

    values = dict(
        k=_parse_list(k, int, "--k"),
        methods=_parse_list(method, str, "--method"),
        dimensions=_parse_list(dimension, str, "--dimension"),
        alpha=alpha,
        tau=tau,
        direction=direction,
        interval=interval,
        max_distance=max_distance,
        legacy=legacy,
        multiplicity=multiplicity,
    )
    try:
        return SituationSpec(**values)
    except ValidationError as exc:
        lines = [
            flag_error(e, _FLAGS.get(str(e["loc"][0]), str(e["loc"][0]))) for e in exc.errors()
        ]
        raise InputError("\n".join(dict.fromkeys(lines))) from None


def parse_flags(
    data: Path | None,
    reading: dict[str, Any],
    protected: list[str],
    feature: list[str],
    decision: str | None,
    favorable: str,
    rule: str | None,
    model: Path | None,
    trust: tuple[bool, list[str] | None] = (False, None),
) -> tuple[AuditData, Any]:
    """The audited data (read by the audit's reader, :func:`_data.load`) and b() (a rule, a
    model or None) from the flags; ``trust`` is (``--trust-pickle``, ``--trusted-type``
    values) for the model file."""
    if data is None:  # before the imports: a usage error answers at once
        raise InputError("give --data FILE (with --protected, --decision, ...) or --config FILE")
    from ..decisions import ModelDecider, Rule

    if not protected:
        raise InputError("give at least one --protected COL=VALUE")
    if rule is not None and model is not None:
        raise InputError("give --rule or --model, not both")
    if decision is None and rule is None and model is None:
        raise InputError("give --decision COL (the recorded ŷ) or --rule/--model for b()")
    prot = _data.protected_values(protected)
    features = _parse_features(feature) or {}
    decider: Any = None
    if rule is not None:
        decider = Rule(rule)
    elif model is not None:
        est = load_cli_model(model, *trust)
        decider = ModelDecider(
            est, features=list(features) or None, favorable=_model_label(est, favorable, model)
        )
    recorded: dict[str, Any] = {"column": decision}
    if decision is None:  # ŷ is b()'s, computed by the configuration's decider
        recorded = {"rule": rule} if rule is not None else {"model": str(model)}
        if model is not None and trust[0]:
            recorded["trust"] = "pickle"
        if model is not None and trust[1]:
            recorded["trusted_types"] = list(trust[1])
    fav = decider.favorable if decision is None and model is not None else _data.scalar(favorable)
    doc = {
        **_data.config_from_flags(reading, data, prot), "features": features,
        "decision": recorded, "favorable": fav,
    }  # fmt: skip
    named = [("--decision", decision), *(("--protected", c) for c in prot)]
    # the protected and reference rows, as the audit (the test group is drawn from the latter)
    return _data.load(doc, named, analysis="situation")[1].compared(), decider


def causal_from_flags(
    audit: AuditData, edge: list[str], counterfactuals: Path | None, reading: dict[str, Any]
) -> tuple[Any, pd.DataFrame | None]:
    """The fitted SCM of ``--edge`` (built like ``audit.yaml``'s causal section) or the
    ``--counterfactuals`` table; at most one of them."""
    from ..config import CausalSpec

    if edge and counterfactuals is not None:
        raise InputError("give --edge (an SCM) or --counterfactuals, not both")
    if edge:
        return CausalSpec(edges=_parse_edges(edge)).build().fit(audit), None
    if counterfactuals is not None:
        # the counterfactual table is read like the data (--sep, --encoding, ...)
        return None, _data.read_like_data(reading, counterfactuals)
    return None, None


# ---------------------------------------------------------------------- build and run
def run_tests(
    spec: SituationSpec,
    audit: AuditData,
    scm: Any = None,
    counterfactuals: pd.DataFrame | None = None,
    decider: Any = None,
) -> dict[str, Any]:
    """Every test of ``spec`` (built by :meth:`SituationSpec.tests`) run on ``audit``."""
    if counterfactuals is not None and "multiple" in spec.dimensions:
        raise InputError("--dimension multiple needs --edge (an SCM), not --counterfactuals")
    engines = spec.tests(list(audit.protected))
    with err_console.status("situation testing…"):
        return {
            label: engine.run(audit, scm=scm, counterfactuals=counterfactuals, decider=decider)
            for label, engine in engines.items()
        }


def from_config(ctx: typer.Context, path: Path) -> tuple[dict[str, Any], tuple[Path, ...]]:
    """Run exactly what ``primafacie audit`` runs for ``analyses.situation`` (the same
    :func:`~primafacie.audit.compute_audit`, with the other analyses switched off); a flag
    typed besides ``--config`` is refused, since the file alone says what runs.

    Returns the Results by test label and the input files the output folder must keep.
    """
    from ..audit import compute_audit
    from ..audit.inputs import input_paths
    from ..audit.registry import ANALYSES
    from ..situation.analysis import ANALYSIS, tests_of

    cfg, _ = config_section(ctx, path, ANALYSIS.name, {**_DATA_FLAGS, **_SPEC_FLAGS})
    others = {a.name: None for a in ANALYSES if a.name != ANALYSIS.name}
    only = cfg.model_copy(update={"analyses": cfg.analyses.model_copy(update=others)})
    with err_console.status("situation testing…"):
        result = compute_audit(only)
    return tests_of(result.runs[ANALYSIS.name].results), input_paths(cfg, path)


# ---------------------------------------------------------------------- write and print
def _summary_table(summary: pd.DataFrame, title: str) -> Table:
    from rich.table import Table

    from ..report.html import rate_text
    from ..situation.labels import method_name

    table = Table(title=title)
    # one verdict per test (issue 23): "significant" is after the adjustment in force, named
    # in its header; the unadjusted count follows in its own column
    methods = set(summary["multiplicity"]) - {"none"}
    adjusted = f"significant after {methods.pop()}" if len(methods) == 1 else "significant"
    before = "before adjustment" if len(set(summary["multiplicity"]) - {"none"}) else None
    cols = ("method", "k", "cases", adjusted, before, "denominator", "untested")
    for col in filter(None, cols):
        table.add_column(col, justify="right" if col != "method" else "left")
    for row in summary.itertuples(index=False):
        den = int(row.denominator)
        in_force = row.multiplicity != "none"
        verdict = row.n_significant_adjusted if in_force else row.n_significant
        cells = [
            method_name(row.method),
            str(row.k),
            rate_text(int(row.cases), den),
            rate_text(int(verdict), den),
        ]
        if before:
            cells.append(rate_text(int(row.n_significant), den) if in_force else "—")
        table.add_row(*cells, str(den), str(row.untested))
    return table


def _flat_ids(frame: pd.DataFrame) -> pd.DataFrame:
    """Neighbour id lists as space-separated text (a multiple result has one per attribute),
    and integer columns as nullable integers, so that stacking tests whose columns differ
    (``k_c`` vs ``k_c_<attr>``) writes 5, not 5.0, as the audit's tables do."""
    import pandas as pd

    for col in [c for c in frame.columns if c.startswith(("control_ids", "test_ids"))]:
        frame[col] = frame[col].map(
            lambda ids: " ".join(map(str, ids)) if isinstance(ids, list) else ""
        )
    ints = [c for c in frame.columns if pd.api.types.is_integer_dtype(frame[c])]
    return frame.astype(dict.fromkeys(ints, "Int64"))


def write_and_print(out: Path, results: dict[str, Any], keep: tuple = ()) -> None:
    """Write complainants.csv and summary.csv (column ``dimension`` = the test's label)
    atomically, then print every test's counts, headline and caveats."""
    import pandas as pd

    from ..io import atomic_output_dir, atomic_write_table

    frames = [_flat_ids(r.to_frame(neighbors=True)).assign(dimension=d) for d, r in results.items()]
    summaries = [r.summary().assign(dimension=d) for d, r in results.items()]
    comp = pd.concat(frames, ignore_index=True)
    summ = pd.concat(summaries, ignore_index=True)
    comp = comp[["dimension"] + [c for c in comp.columns if c != "dimension"]]
    summ = summ[["dimension"] + [c for c in summ.columns if c != "dimension"]]
    with atomic_output_dir(out, owner="situation", keep=keep) as stage:
        atomic_write_table(stage / "complainants.csv", comp)
        atomic_write_table(stage / "summary.csv", summ)
    for (label, res), s in zip(results.items(), summaries, strict=True):
        console.print(_summary_table(s, escape(f"situation testing ({label})")))
        console.print(escape(res.headline()))
        for caveat in res.caveats():
            console.print(escape(f"  • {caveat}"))
    console.print(f"wrote {out / 'complainants.csv'} and {out / 'summary.csv'}")


# ---------------------------------------------------------------------- the command


# A typer command declares every option in its signature (24 options), hence the length.
def situation(
    ctx: typer.Context,
    data: Optional[Path] = typer.Option(None, "--data", help="CSV or Parquet table."),
    config: Optional[Path] = typer.Option(None, "--config", help="audit.yaml instead of flags."),
    protected: list[str] = typer.Option([], "--protected", help="COL=VALUE (repeatable)."),
    feature: list[str] = typer.Option([], "--feature", help="COL[:numeric|categorical|ordinal]."),
    decision: Optional[str] = typer.Option(None, "--decision", help="Decision column ŷ."),
    favorable: str = typer.Option("1", "--favorable", help="Favourable decision value."),
    rule: Optional[str] = typer.Option(None, "--rule", help="b() as an expression."),
    model: Optional[Path] = typer.Option(None, "--model", help="b() as a .skops/.onnx file."),
    trust_pickle: bool = typer.Option(False, "--trust-pickle", help=TRUST_PICKLE_HELP),
    trusted_type: list[str] = typer.Option([], "--trusted-type", help=TRUSTED_TYPE_HELP),
    edge: list[str] = typer.Option([], "--edge", help="SCM edge PARENT:CHILD (repeatable)."),
    counterfactuals: Optional[Path] = typer.Option(
        None, "--counterfactuals", help="Precomputed counterfactual table."
    ),
    k: str = option(_P["k"], help="Comma-separated neighbourhood sizes."),
    method: str = option(_P["methods"]),
    dimension: str = option(_P["dimensions"]),
    alpha: float = option(_P["alpha"]),
    tau: float = option(_P["tau"]),
    direction: str = option(_P["direction"]),
    interval: str = option(_P["interval"]),
    max_distance: Optional[float] = option(_P["max_distance"]),
    legacy: bool = option(_P["legacy"]),
    multiplicity: str = option(_P["multiplicity"]),
    out: Path = typer.Option(Path("out/situation"), "--out", help="Output folder."),
    reading: Any = None,
) -> None:
    """Parse the flags (or read ``--config``), build, run, write and print."""
    if config is not None:
        _data.refuse_with_config(reading, config)
        results, keep = from_config(ctx, config)
    else:
        trust = (trust_pickle, trusted_type)
        audit, decider = parse_flags(
            data, reading, protected, feature, decision, favorable, rule, model, trust
        )
        spec = spec_from_flags(
            k, method, dimension, alpha, tau, direction, interval, max_distance, legacy,
            multiplicity,
        )  # fmt: skip
        scm, cf = causal_from_flags(audit, edge, counterfactuals, reading)
        results = run_tests(spec, audit, scm=scm, counterfactuals=cf, decider=decider)
        keep = tuple(p for p in (data, counterfactuals, model) if p)
    write_and_print(out, results, keep)


def register(app: typer.Typer) -> None:
    """Add ``primafacie situation`` to ``app``."""
    app.command("situation", help=HELP)(guarded(_data.data_options(situation)))
