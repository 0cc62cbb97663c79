"""``primafacie recourse``: FACTS subgroup fairness of recourse from flags or a config.

Module-level steps, each short: :func:`recourse` (the typer command) parses the flags into a
:class:`FlagInputs`, :func:`build_from_flags` turns them into a table and a
:class:`~primafacie.recourse.RecourseFairness`, :func:`run_facts` runs it with progress bars,
:func:`write_outputs` writes the files all-or-nothing and :func:`print_summary` prints the table.
Defaults of the flags are those of ``analyses.recourse`` (one source).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import InputError
from ..params import by_name
from ..recourse.params import PARAMS
from . import _data
from ._common import (
    TRUST_PICKLE_HELP,
    TRUSTED_TYPE_HELP,
    console,
    err_console,
    given_flags,
    guarded,
    load_cli_model,
    parse_pairs,
)

#: The usage error of a run without data (checked first, before any heavy import).
_NO_DATA = "give --data FILE with --model FILE or --rule EXPR, or --config FILE"

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

# pandas, the spec and the engine are imported inside the functions: the CLI loads this module
# to render --help, which must not wait for them.

HELP = """FACTS (Fairness-Aware Counterfactuals for Subgroups): find subgroups of the rows that got
the unfavourable decision where one protected group finds recourse harder than another, under
six definitions (EE, ECR, EEWB, ECE macro/micro, FECT, E(C)MR). The model is only called through
predict(). A --model file is .skops or .onnx; a pickle/joblib file runs its author's code when
loaded and is refused unless --trust-pickle is given.

Writes to --out: rankings.csv (all definitions, long format), ranking_LABEL.csv (one per
definition, with per-group coverage and difficulty), csc_LABEL.txt (Comparative Subgroup
Counterfactuals of the top subgroups), summary.csv (rank-1 ties, top-10% bias tallies),
aggregated_rankings.csv, stats.csv (mining counts and budgets), recourse.json and, unless
--n-boot 0, rank_stability.csv (share of --n-boot bootstrap resamples of the audited rows, drawn
with --seed, in which each top-10 subgroup of each definition stays in the top 10; the fitted
flips are re-weighted, the model is not called again); with --config also tables/recourse_*.csv,
the very tables `primafacie audit` writes. The stage seconds are printed, not written, so the
same input gives byte-identical files.

Example (Adult test split with a fitted scikit-learn pipeline):

    primafacie recourse --data adult_test.csv --model lr.skops \\
        --protected sex --support 0.01 --phi 0.3 --phi 0.7 \\
        --weight age=10 --weight occupation=4 --immutable race \\
        --monotone age --top 5 --n-boot 100 --seed 1 --out out/recourse

The 2024 applicants of a Latin-1 file that writes '?' for missing, those rows dropped:

    primafacie recourse --data adult.csv --encoding latin-1 \\
        --na-values "?" --dropna all --where "year == 2024" \\
        --rule "education_num + hours > 50" --protected sex \\
        --out out/recourse-2024

or with a rule: `--rule "education_num + hours > 50"`, or `--config audit.yaml`
(section analyses.recourse).

Columns mined: a model that records its inputs (scikit-learn's feature_names_in_) is audited
over exactly those columns; otherwise every column except --protected and --exclude (exclude
the label and other decisions). A numeric column with more than 10 distinct values is cut into
5 quantile bins unless --bins sets its bins; actions move values between bins linearly.
"""

#: The declarations of the analysis' parameters (:data:`primafacie.recourse.params.PARAMS`):
#: the flags' defaults and help, shared with ``analyses.recourse`` in audit.yaml.
_P = by_name(PARAMS)
DEFAULTS = SimpleNamespace(**{name: p.default for name, p in _P.items()})

OUTPUTS = (
    "rankings.csv, ranking_LABEL.csv, csc_LABEL.txt, summary.csv, aggregated_rankings.csv, "
    "stats.csv, recourse.json"
)

_Repeat = Optional[list[str]]
DataOpt = Annotated[Optional[Path], typer.Option("--data", help="CSV or Parquet audit table.")]
ModelOpt = Annotated[
    Optional[Path], typer.Option("--model", help="Fitted estimator (.skops or .onnx).")
]
TrustPickleOpt = Annotated[bool, typer.Option("--trust-pickle", help=TRUST_PICKLE_HELP)]
TrustedTypeOpt = Annotated[_Repeat, typer.Option("--trusted-type", help=TRUSTED_TYPE_HELP)]
RuleOpt = Annotated[Optional[str], typer.Option("--rule", help="Decision rule expression.")]
ProtectedOpt = Annotated[Optional[str], typer.Option("--protected", help="Protected column.")]
FavorableOpt = Annotated[str, typer.Option("--favorable", help="Model's favourable label.")]
SupportOpt = Annotated[float, typer.Option("--support", help=_P["support"].help)]
PhiOpt = Annotated[
    list[float], typer.Option("--phi", help="Effectiveness threshold in [0, 1] (repeat).")
]
BudgetOpt = Annotated[
    Optional[list[float]],
    typer.Option("--budget", help="EEWB budget (repeat; default: automatic rule)."),
]
MetricsOpt = Annotated[str, typer.Option("--metrics", help="all or e.g. EE,ECE,FECT.")]
WeightOpt = Annotated[_Repeat, typer.Option("--weight", help="COL=W (repeat).")]
ImmutableOpt = Annotated[
    _Repeat, typer.Option("--immutable", help="Column that may not change (repeat).")
]
MonotoneOpt = Annotated[
    _Repeat, typer.Option("--monotone", help="Column that may not decrease (repeat).")
]
MaxStepOpt = Annotated[
    _Repeat, typer.Option("--max-step", help="COL=K: largest increase in ranks (repeat).")
]
BinsOpt = Annotated[
    _Repeat, typer.Option("--bins", help="COL=Q quantile bins or COL=e0,e1,... edges (repeat).")
]
OrdinalOpt = Annotated[
    _Repeat, typer.Option("--ordinal", help="COL=low,mid,high: ordered levels (repeat).")
]
ExcludeOpt = Annotated[
    _Repeat, typer.Option("--exclude", help="Column that is no feature, e.g. the label (repeat).")
]
LooseOpt = Annotated[bool, typer.Option("--loose", help="Actions over any subset of features.")]
LegacyOpt = Annotated[bool, typer.Option("--legacy", help="Reference code's FECT lists.")]
TopOpt = Annotated[int, typer.Option("--top", help=_P["top"].help)]
NBootOpt = Annotated[int, typer.Option("--n-boot", help=_P["n_boot"].help)]
SeedOpt = Annotated[int, typer.Option("--seed", help=_P["seed"].help)]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="audit.yaml instead.")]
OutOpt = Annotated[Path, typer.Option("--out", help="Output folder.")]


#: Flags that --config would otherwise ignore ({parameter: flag}): the keys of
#: analyses.recourse and the engine settings the file describes. ``--legacy`` and ``--loose``
#: are not among them: they adjust the engine built from the file.
_CONFIG_REFUSED = {
    "protected": "--protected", "favorable": "--favorable", "support": "--support",
    "phi": "--phi", "budget": "--budget", "metrics": "--metrics", "weight": "--weight",
    "immutable": "--immutable", "monotone": "--monotone", "max_step": "--max-step",
    "bins": "--bins", "ordinal": "--ordinal", "exclude": "--exclude", "top": "--top",
    "n_boot": "--n-boot", "seed": "--seed", "trust_pickle": "--trust-pickle",
    "trusted_type": "--trusted-type",
}  # fmt: skip


@dataclass
class FlagInputs:
    """The flags of one ``primafacie recourse`` run, as typed (nothing read yet)."""

    data: Path
    model: Path | None
    rule: str | None
    protected: str
    favorable: str
    support: float
    phi: list[float]
    budgets: list[float] | str
    metrics: list[str] | str
    top: int
    weights: dict[str, float] = field(default_factory=dict)
    immutable: list[str] | None = None
    monotone: list[str] = field(default_factory=list)
    max_step: dict[str, float] = field(default_factory=dict)
    bins: dict[str, Any] = field(default_factory=dict)
    ordinal: dict[str, list[str]] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    loose: bool = False
    legacy: bool = False
    n_boot: int = DEFAULTS.n_boot
    seed: int = DEFAULTS.seed
    trust_pickle: bool = False
    trusted_types: list[str] = field(default_factory=list)

    @property
    def inputs(self) -> tuple[Path, ...]:
        """Input files, kept out of an output folder that would replace them."""
        return tuple(p for p in (self.data, self.model) if p)


# ---------------------------------------------------------------------------------- parse
def _kv(items: list[str] | None, flag: str) -> dict[str, str]:
    return dict(parse_pairs(items, flag, "COL=VALUE"))


def _number(text: str, flag: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{flag}: {text!r} is not a number") from None


def _bins(items: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col, value in _kv(items, "--bins").items():
        parts = [p for p in value.split(",") if p.strip()]
        if len(parts) == 1:
            q = _number(parts[0], "--bins")
            if not q.is_integer():
                raise InputError(f"--bins {col}={value}: give a whole number of quantile bins")
            out[col] = int(q)
        else:
            out[col] = [_number(p, "--bins") for p in parts]
    return out


def parse_metrics(text: str) -> list[str] | str:
    """``all`` or the comma-separated names (``EE,ECE``)."""
    if text.strip().lower() == "all":
        return "all"
    return [m.strip() for m in text.split(",") if m.strip()]


def parse_flags(data: Path | None, model: Path | None, rule: str | None,
                protected: str | None, **flags: Any) -> FlagInputs:  # fmt: skip
    """Check the flags that must come together and convert the repeated ``COL=VALUE`` ones."""
    if data is None:
        raise InputError(_NO_DATA)
    if (model is None) == (rule is None):
        raise InputError("give exactly one of --model FILE or --rule EXPR")
    if protected is None:
        raise InputError("missing --protected COLUMN")
    return FlagInputs(
        data=data, model=model, rule=rule, protected=protected, favorable=flags["favorable"],
        support=flags["support"], phi=list(flags["phi"]),
        budgets=list(flags["budget"]) if flags["budget"] else "auto",
        metrics=parse_metrics(flags["metrics"]), top=flags["top"],
        weights={k: _number(v, "--weight") for k, v in _kv(flags["weight"], "--weight").items()},
        immutable=list(flags["immutable"]) if flags["immutable"] else None,
        monotone=list(flags["monotone"] or []),
        max_step={k: _number(v, "--max-step")
                  for k, v in _kv(flags["max_step"], "--max-step").items()},
        bins=_bins(flags["bins"]),
        ordinal={c: [v.strip() for v in levels.split(",")]
                 for c, levels in _kv(flags["ordinal"], "--ordinal").items()},
        exclude=list(flags["exclude"] or []), loose=flags["loose"], legacy=flags["legacy"],
        n_boot=flags["n_boot"], seed=flags["seed"],
        trust_pickle=flags.get("trust_pickle", False),
        trusted_types=list(flags.get("trusted_type") or []),
    )  # fmt: skip


# ---------------------------------------------------------------------------------- build
def _decider(args: FlagInputs) -> Any:
    if args.model is not None:
        from ..decisions import ModelDecider

        model = load_cli_model(args.model, args.trust_pickle, args.trusted_types)
        return ModelDecider(model, favorable=args.favorable)
    from ..decisions import Rule

    return Rule(args.rule)  # type: ignore[arg-type]


def mined_kinds(frame: pd.DataFrame, args: FlagInputs, decider: Any) -> tuple[dict[str, Any], bool]:
    """Kinds of the mined columns, and whether they are the model's own inputs.

    Subgroups and actions range over the model's inputs when the model names them
    (scikit-learn's ``feature_names_in_``): a label or another decision-maker's column in the
    file is not something a person can change to get recourse.
    """
    import pandas as pd

    unknown = [c for c in args.exclude if c not in frame.columns]
    if unknown:
        raise InputError(f"--exclude names unknown column(s) {unknown}")
    model_cols = getattr(getattr(decider, "estimator", None), "feature_names_in_", None)
    candidates = list(frame.columns) if model_cols is None else list(model_cols)
    absent = [c for c in candidates if c not in frame.columns]
    if absent:
        raise InputError(f"the model needs column(s) {absent} that are not in --data")
    kinds: dict[str, Any] = {}
    for c in candidates:
        if c == args.protected or c in args.exclude:
            continue
        if c in args.ordinal:
            kinds[c] = {"ordinal": args.ordinal[c]}
        elif pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c]):
            kinds[c] = "numeric"
        else:
            kinds[c] = "categorical"
    bad = [c for c in args.ordinal if c not in frame.columns]
    if bad:
        raise InputError(f"--ordinal names unknown column(s) {bad}")
    unused = [c for c in args.ordinal if c not in kinds]
    if unused:
        raise InputError(
            f"--ordinal names column(s) {unused} that are not mined (mined: {', '.join(kinds)})"
        )
    return kinds, model_cols is not None


def build_from_flags(
    args: FlagInputs, reading: dict[str, Any] | None = None
) -> tuple[Any, pd.DataFrame]:
    """Read the table (the configuration's reader, :func:`_data.read_frame`) and the model;
    the configured (not yet fitted) audit and the table."""
    from ..recourse import RecourseFairness
    from ..recourse.items import default_bins

    # the audited columns of --dropna all: the rule's (a model's are its inputs, below)
    decision = {"rule": args.rule} if args.rule else {"column": args.protected}
    roles = {"protected": [args.protected], "decision": decision}
    frame = _data.read_frame(reading or {}, args.data, "recourse", roles)
    decider = _decider(args)
    kinds, own_inputs = mined_kinds(frame, args, decider)
    err_console.print(
        f"mining {len(kinds)} column(s): {', '.join(kinds)}"
        + (" (the model's inputs)" if own_inputs else ""),
        soft_wrap=True,
        markup=False,
    )
    audit = RecourseFairness(
        decider, protected=args.protected, support=args.support,
        feature_weights=args.weights or None, immutable=args.immutable,
        monotone=args.monotone or None, max_step=args.max_step or None,
        bins=default_bins(frame, kinds, args.bins) or None, features=kinds,
        legacy=args.legacy, exact_features=not args.loose,
    )  # fmt: skip
    return audit, frame


# ---------------------------------------------------------------------------------- run
class StageBars:
    """``progress(stage, done, total)`` callback drawing one rich bar per FACTS stage.

    A stage is an engine stage key (``"mining"``) or already its note (the audit's
    ``tick(done, total, note)`` passes the words of :data:`STAGES`).
    """

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        from ..recourse.engine import STAGES

        total = max(int(total), 1)
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(STAGES.get(stage, stage), total=total)
        self.progress.update(self.tasks[stage], completed=min(int(done), total), total=total)

    def tick(self, done: int, total: int, note: str) -> None:
        """The audit's ``tick(done, total, note)`` signature."""
        self(note, done, total)


def stage_progress() -> Progress:
    """Progress display on stderr (bars, n/total, elapsed time)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
    )


def run_facts(audit: Any, data: Any, phi: Any, budgets: Any, metrics: Any,
              top: int) -> tuple[Any, dict[str, Any]]:  # fmt: skip
    """Fit, score every definition and draw the CSCs of the ``top`` subgroups, with bars."""
    with stage_progress() as progress:
        bars = StageBars(progress)
        result = audit.run(data, phi=phi, budgets=budgets, metrics=metrics, progress=bars)
        cscs = {}
        bars("csc", 0, len(result.rankings))
        for done, (label, ranking) in enumerate(result.rankings.items(), start=1):
            cscs[label] = audit.csc(**ranking.definition(), top=top)
            bars("csc", done, len(result.rankings))
    return result, cscs


def run_stability(audit: Any, result: Any, n_boot: int, seed: int) -> Any:
    """The rank stability of the top subgroups (as the audit computes it), or None when
    ``n_boot`` is 0 or no definition was scored."""
    if n_boot <= 0 or not result.rankings:
        return None
    from ..recourse.stability import rank_stability

    with err_console.status(f"rank stability ({n_boot} resamples)…"):
        return rank_stability(audit, result, n_boot=n_boot, seed=seed)


# ---------------------------------------------------------------------------------- print
def write_outputs(result: Any, cscs: dict[str, Any], out: Path, keep: tuple = (),
                  tables: Mapping[str, pd.DataFrame] | None = None,
                  stability: Any = None) -> None:  # fmt: skip
    """Every file of :data:`OUTPUTS` (``rank_stability.csv`` when ``stability`` is given, and
    ``tables/<stem>.csv`` of the audit's tables with ``--config``), swapped into ``out`` in
    one step."""
    from ..io import atomic_output_dir, atomic_write_json, atomic_write_table, atomic_write_text

    with atomic_output_dir(out, owner="recourse", keep=keep) as stage:
        for stem, frame in (tables or {}).items():
            atomic_write_table(stage / f"tables/{stem}.csv", frame)  # as the audit writes them
        atomic_write_table(stage / "rankings.csv", result.to_frame(), index=False)
        for label, ranking in result.rankings.items():
            atomic_write_table(stage / f"ranking_{label}.csv", ranking.to_frame(), index=False)
            atomic_write_text(stage / f"csc_{label}.txt", cscs[label].text)
        atomic_write_table(stage / "summary.csv", result.ranking_analysis(), index=False)
        atomic_write_table(stage / "aggregated_rankings.csv", result.aggregated_rankings())
        atomic_write_table(stage / "stats.csv", result.stats_frame(), index=False)
        doc = {"result": result.to_dict(), "csc": {k: v.to_dict() for k, v in cscs.items()}}
        if stability is not None:
            atomic_write_table(stage / "rank_stability.csv", stability.to_frame(), index=False)
            doc["rank_stability"] = stability.to_dict()
        atomic_write_json(stage / "recourse.json", doc)


def summary_table(result: Any) -> Table:
    """Rich table: one row per definition (subgroups, Fair, rank-1 ties, top-10% tallies)."""
    from rich.table import Table

    table = Table(title=f"FACTS: {result.protected} ({', '.join(result.groups)})")
    for col in ("metric", "definition", "subgroups", "fair", "rank1"):
        table.add_column(col)
    for g in result.groups:
        table.add_column(f"top10 against {g}")
    for r in result.ranking_analysis().itertuples(index=False):
        table.add_row(*[str(v) for v in r])
    return table


def print_summary(result: Any, out: Path, stability: Any = None) -> None:
    """Headline, scope, the summary table, rank stability, stage seconds and where the files
    went."""
    console.print(summary_table(result))
    for line in (result.headline(), f"scope: {result.scope()}"):
        console.print(line, soft_wrap=True, markup=False)
    written = OUTPUTS
    if stability is not None:
        console.print(stability.headline(), soft_wrap=True, markup=False)
        for caveat in stability.caveats():
            console.print(f"  • {caveat}", soft_wrap=True, markup=False)
        written += ", rank_stability.csv"
    secs = ", ".join(f"{k} {v:.1f} s" for k, v in result.timings.items())
    console.print(f"stages: {secs}", soft_wrap=True, markup=False)
    console.print(f"wrote {out}/{written}", soft_wrap=True, markup=False)


# ---------------------------------------------------------------------------------- commands
def run_config(config: Path, out: Path, legacy: bool, loose: bool, flags_given: bool,
               spec_flags: list[str] | None = None) -> None:  # fmt: skip
    """``--config audit.yaml``: ``analyses.recourse`` built and run exactly as the audit does
    (:meth:`RecourseSpec.build`, the analysis' ``run``); writes the audit's recourse tables
    under ``tables/`` too. ``--legacy``/``--loose`` adjust the built engine; ``spec_flags``
    (flags typed that set a key of analyses.recourse, such as ``--n-boot``) are refused."""
    from ..analysis import Context
    from ..audit.inputs import input_paths
    from ..config import load_config
    from ..io import check_output_dir
    from ..recourse.analysis import run as run_analysis
    from ..recourse.csc import CSCResult

    if flags_given:
        raise InputError("give either --config or --data/--model/--rule, not both")
    if spec_flags:
        raise InputError(
            f"--config builds the analysis from {config} alone (as `primafacie audit` does); "
            f"drop {', '.join(spec_flags)} or set the keys of analyses.recourse in the file"
        )
    cfg = load_config(config)
    spec = cfg.analyses.recourse
    if spec is None:
        raise InputError(f"{config}: the configuration has no analyses.recourse section")
    check_output_dir(out, input_paths(cfg, config))  # before any work: no input inside --out
    with stage_progress() as progress:
        bars = StageBars(progress)
        data = cfg.audit_data().compared()  # the protected and reference rows, as the audit
        ctx = Context(config=cfg, data=data, decider=cfg.decider(), tick=bars.tick)
        audit = spec.build(data, ctx)
        audit.legacy, audit.exact_features = legacy, not loose
        run = run_analysis(spec, ctx, audit=audit)
    result = run.results["definitions"]
    cscs = {label: run.results.get(f"csc_{label}") or CSCResult(label, r.title, records=())
            for label, r in result.rankings.items()}  # fmt: skip
    stability = run.results.get("rank_stability")
    write_outputs(
        result, cscs, out, keep=input_paths(cfg, config), tables=run.tables, stability=stability
    )
    print_summary(result, out, stability)


def recourse(
    ctx: typer.Context,
    data: DataOpt = None,
    model: ModelOpt = None,
    trust_pickle: TrustPickleOpt = False,
    trusted_type: TrustedTypeOpt = None,
    rule: RuleOpt = None,
    protected: ProtectedOpt = None,
    favorable: FavorableOpt = "1",
    support: SupportOpt = DEFAULTS.support,
    phi: PhiOpt = list(DEFAULTS.phi),  # noqa: B006 - typer reads the default, never mutates it
    budget: BudgetOpt = None,
    metrics: MetricsOpt = "all" if DEFAULTS.metrics == "all" else ",".join(DEFAULTS.metrics),
    weight: WeightOpt = None,
    immutable: ImmutableOpt = None,
    monotone: MonotoneOpt = None,
    max_step: MaxStepOpt = None,
    bins: BinsOpt = None,
    ordinal: OrdinalOpt = None,
    exclude: ExcludeOpt = None,
    loose: LooseOpt = False,
    legacy: LegacyOpt = False,
    top: TopOpt = DEFAULTS.top,
    n_boot: NBootOpt = DEFAULTS.n_boot,
    seed: SeedOpt = DEFAULTS.seed,
    config: ConfigOpt = None,
    out: OutOpt = Path("out/recourse"),
    reading: Any = None,
) -> None:
    """Parse -> build -> run -> print (see the module docstring)."""
    if config is None and data is None:  # before the imports: a usage error answers at once
        raise InputError(_NO_DATA)
    from ..recourse.params import PARAM_WHERE, RUN_CONSTRAINTS, STABILITY_CONSTRAINTS
    from ..validation import validate_params

    # the constraints of analyses.recourse (top, n_boot, seed), named by their flags
    constraints = {"top": RUN_CONSTRAINTS["top"], **STABILITY_CONSTRAINTS}
    values = {"top": top, "n_boot": n_boot, "seed": seed}
    validate_params("recourse", constraints, values, PARAM_WHERE)
    if config is not None:
        _data.refuse_with_config(reading, config)
        spec_flags = given_flags(ctx, _CONFIG_REFUSED)
        run_config(config, out, legacy, loose, any(v is not None for v in (data, model, rule)),
                   spec_flags)  # fmt: skip
        return
    args = parse_flags(
        data, model, rule, protected, favorable=favorable, support=support, phi=phi,
        budget=budget, metrics=metrics, weight=weight, immutable=immutable, monotone=monotone,
        max_step=max_step, bins=bins, ordinal=ordinal, exclude=exclude, loose=loose,
        legacy=legacy, top=top, n_boot=n_boot, seed=seed, trust_pickle=trust_pickle,
        trusted_type=trusted_type,
    )  # fmt: skip
    audit, frame = build_from_flags(args, reading)
    result, cscs = run_facts(audit, frame, args.phi, args.budgets, args.metrics, args.top)
    stability = run_stability(audit, result, args.n_boot, args.seed)
    write_outputs(result, cscs, out, keep=args.inputs, stability=stability)
    print_summary(result, out, stability)


def register(app: typer.Typer) -> None:
    """Add ``primafacie recourse`` to the app."""
    app.command("recourse", help=HELP)(guarded(_data.data_options(recourse)))
