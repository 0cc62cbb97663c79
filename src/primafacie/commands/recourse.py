"""``primafacie recourse``: FACTS subgroup fairness of recourse from flags or a config.

Options, the ``--config`` refusals, the writing of the files and the defaults are derived
(:mod:`._analysis`); this module holds the help, its own flags (b() as a model or a rule, the
columns mined, ``--loose``), the parsers of its ``COL=VALUE`` options, the progress bars of the
FACTS stages and what is printed (the definitions' table is the report's). ``--config`` runs
the analysis as the audit does, its engine adjusted by ``--legacy``/``--loose``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import InputError
from ..params import by_name
from ..recourse.params import PARAMS
from ..terminal import print_table
from . import _data
from ._analysis import AnalysisCommand, role, split_list, switch
from ._common import MODEL_FILES_HELP, console, err_console, load_cli_model, parse_pairs

if TYPE_CHECKING:
    import pandas as pd

# pandas, the spec and the engine are imported inside the functions: the CLI loads this module
# to render --help, which must not wait for them.

HELP = f"""FACTS (Fairness-Aware Counterfactuals for Subgroups): find subgroups of the rows that got
the unfavourable decision where one protected group finds recourse harder than another, under
six definitions (EE, ECR, EEWB, ECE macro/micro, FECT, E(C)MR). The model is only called through
predict().

{MODEL_FILES_HELP}

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
the label and other decisions); --bins says how numeric columns are cut.
"""

OUTPUTS = (
    "rankings.csv, ranking_LABEL.csv, csc_LABEL.txt, summary.csv, aggregated_rankings.csv, "
    "stats.csv, recourse.json"
)


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
        numbers = [_number(p, "--bins") for p in value.split(",") if p.strip()]
        if len(numbers) == 1 and not numbers[0].is_integer():
            raise InputError(f"--bins {col}={value}: give a whole number of quantile bins")
        out[col] = int(numbers[0]) if len(numbers) == 1 else numbers
    return out


def parse_metrics(text: str) -> list[str] | str:
    """``all`` or the comma-separated names (``EE,ECE``)."""
    return "all" if text.strip().lower() == "all" else split_list(text, "--metrics")


def _numbers(flag: str) -> Any:
    """The parser of a repeated ``--flag COL=NUMBER`` option (None when it is not given)."""
    return lambda items: {k: _number(v, flag) for k, v in _kv(items, flag).items()} or None


# ---------------------------------------------------------------------------------- build
def mined_kinds(
    frame: pd.DataFrame, v: dict[str, Any], decider: Any
) -> tuple[dict[str, Any], bool]:
    """Kinds of the mined columns, and whether they are the model's own inputs.

    Subgroups and actions range over the model's inputs when the model names them
    (scikit-learn's ``feature_names_in_``): a label or another decision-maker's column in the
    file is not something a person can change to get recourse.
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    exclude, ordinal = v["exclude"], v["ordinal"]
    model_cols = getattr(getattr(decider, "estimator", None), "feature_names_in_", None)
    candidates = list(frame.columns) if model_cols is None else list(model_cols)
    for names, absent in (
        (exclude, "--exclude names unknown column(s) {}"),
        (candidates, "the model needs column(s) {} that are not in --data"),
        (ordinal, "--ordinal names unknown column(s) {}"),
    ):
        missing = [c for c in names if c not in frame.columns]
        if missing:
            raise InputError(absent.format(missing))
    kinds: dict[str, Any] = {
        c: {"ordinal": ordinal[c]} if c in ordinal
        else "numeric" if is_numeric_dtype(frame[c]) and not is_bool_dtype(frame[c])
        else "categorical"
        for c in candidates if c != v["protected"] and c not in exclude
    }  # fmt: skip
    unused = [c for c in ordinal if c not in kinds]
    if unused:
        raise InputError(
            f"--ordinal names column(s) {unused} that are not mined (mined: {', '.join(kinds)})"
        )
    return kinds, model_cols is not None


def build_from_flags(spec: Any, v: dict[str, Any], reading: dict[str, Any] | None = None) -> tuple:
    """Read the table (the configuration's reader, :func:`_data.read_frame`) and b() (a model
    or a rule); the engine :meth:`RecourseSpec.build` configures on the mined columns, with
    the flags' engine arguments (:meth:`~._analysis.AnalysisCommand.with_flags`), not yet
    fitted, and the table.

    ``v`` holds the command's values: ``data``, ``model`` or ``rule``, ``protected``,
    ``favorable``, ``exclude``, ``ordinal`` (``COL=levels`` items), ``max_step``, ``legacy``,
    ``exact_features`` (``--loose``: False), ``trust_pickle`` and ``trusted_type``; ``spec``
    the ``analyses.recourse`` keys.
    """
    from ..analysis import Context
    from ..decisions import ModelDecider, Rule

    if (v["model"] is None) == (v["rule"] is None):
        raise InputError("give exactly one of --model FILE or --rule EXPR")
    if v["protected"] is None:
        raise InputError("missing --protected COLUMN")
    v = {**v, "exclude": list(v["exclude"] or []),
         "ordinal": {c: [x.strip() for x in levels.split(",")]
                     for c, levels in _kv(v["ordinal"], "--ordinal").items()}}  # fmt: skip
    # the audited columns of --dropna all: the rule's (a model's are its inputs, below)
    decision = {"rule": v["rule"]} if v["rule"] else {"column": v["protected"]}
    frame = _data.read_frame(reading or {}, v["data"], "recourse",
                             {"protected": [v["protected"]], "decision": decision})  # fmt: skip
    if v["model"] is not None:
        model = load_cli_model(v["model"], v["trust_pickle"], v["trusted_type"])
        decider: Any = ModelDecider(model, favorable=v["favorable"])
    else:
        decider = Rule(v["rule"])
    kinds, own_inputs = mined_kinds(frame, v, decider)
    whose = " (the model's inputs)" if own_inputs else ""
    mined = f"mining {len(kinds)} column(s): {', '.join(kinds)}{whose}"
    err_console.print(mined, soft_wrap=True, markup=False)
    engine = spec.build(frame, Context(config=None, data=frame, decider=decider), features=kinds)
    return Recourse().with_flags(engine, v, reading or {}), frame  # --max-step, --legacy, --loose


# ---------------------------------------------------------------------------------- run
def run_with_bars(spec: Any, engine: Any, data: Any, config: Any = None,
                  decider: Any = None, **run_kwargs: Any) -> tuple:  # fmt: skip
    """The analysis' run (:func:`primafacie.recourse.analysis.run`: fit, every definition,
    the CSCs, the rank stability) with a bar per stage on stderr: the Result, a CSC per
    definition (an empty one where every subgroup is Fair), the stability and the tables."""
    from ..analysis import Context
    from ..recourse.analysis import run as run_analysis
    from ..recourse.csc import CSCResult

    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=err_console)  # fmt: skip
    tasks: dict[str, Any] = {}

    def tick(done: int, total: int, note: str) -> None:  # one bar per stage, named by its note
        total = max(int(total), 1)
        if note not in tasks:
            tasks[note] = progress.add_task(note, total=total)
        progress.update(tasks[note], completed=min(int(done), total), total=total)

    with progress:
        ctx = Context(config=config, data=data, decider=decider, tick=tick)
        run = run_analysis(spec, ctx, audit=engine, **run_kwargs)
    result = run.results["definitions"]
    cscs = {label: run.results.get(f"csc_{label}") or CSCResult(label, r.title, records=())
            for label, r in result.rankings.items()}  # fmt: skip
    return result, cscs, run.results.get("rank_stability"), run.tables


class Recourse(AnalysisCommand):
    """``primafacie recourse`` (the help text is :data:`HELP`)."""

    name, help, params = "recourse", HELP, PARAMS
    no_data = "give --data FILE with --model FILE or --rule EXPR, or --config FILE"
    config_help = "audit.yaml instead."
    _repeat = Optional[list[str]]
    roles = (
        role("data", "CSV or Parquet audit table."),
        role("model", "Fitted estimator (.skops or .onnx)."), role("trust_pickle"),
        role("trusted_type", type=_repeat, default=None), role("rule", "Decision rule expression."),
        role("favorable", "Model's favourable label."),
        role("budgets", "EEWB budget (repeat; default: automatic rule).", Optional[list[float]],
             None, flag="--budget", param=by_name(PARAMS)["budgets"]),
        role("ordinal", "COL=low,mid,high: ordered levels (repeat).", _repeat, None),
        role("exclude", "Column that is no feature, e.g. the label (repeat).", _repeat, None),
        switch(by_name(PARAMS)["exact_features"]),
    )  # fmt: skip
    with_config = ("legacy", "exact_features")
    parsers = {"feature_weights": _numbers("--weight"), "max_step": _numbers("--max-step"),
               "bins": _bins, "metrics": parse_metrics}  # fmt: skip

    def from_flags(self, spec: Any, v: dict[str, Any], reading: dict[str, Any]) -> tuple:
        """Mine, score every definition, draw the CSCs and the rank stability, with bars (no
        ``tables/``: those are the audit's)."""
        engine, frame = build_from_flags(spec, v, reading)
        res = run_with_bars(spec, engine, frame, budgets=v["budgets"])  # none given: "auto"
        return (*res[:3], {}), tuple(p for p in (v["data"], v["model"]) if p)

    def from_config_file(self, cfg: Any, v: dict[str, Any]) -> Any:
        """``analyses.recourse`` built and run as the audit does (:meth:`RecourseSpec.build`,
        the analysis' ``run``), its engine adjusted by ``--legacy``/``--loose``."""
        from ..analysis import Context
        from ..data_dictionary import as_text

        spec = cfg.analyses.recourse
        data = as_text(cfg.audit_data().compared())  # the rows and text columns, as the audit
        decider = cfg.decider()
        engine = spec.build(data, Context(config=cfg, data=data, decider=decider))
        # --legacy, --loose: the flags allowed besides --config
        self.with_flags(engine, {name: v[name] for name in self.with_config}, {})
        return run_with_bars(spec, engine, data, cfg, decider)

    def files(self, res: Any) -> list[tuple[str, Any]]:
        """The audit's tables under ``tables/`` (with ``--config``), then every file of
        :data:`OUTPUTS` and ``rank_stability.csv`` when computed."""
        result, cscs, stability, tables = res
        out = [(f"tables/{stem}.csv", frame) for stem, frame in tables.items()]
        out.append(("rankings.csv", result.to_frame()))
        for label, ranking in result.rankings.items():
            out += [(f"ranking_{label}.csv", ranking.to_frame()),
                    (f"csc_{label}.txt", cscs[label].text)]  # fmt: skip
        out += [("summary.csv", result.ranking_analysis()),
                ("aggregated_rankings.csv", result.aggregated_rankings()),
                ("stats.csv", result.stats_frame())]  # fmt: skip
        doc = {"result": result.to_dict(), "csc": {k: c.to_dict() for k, c in cscs.items()}}
        if stability is not None:
            out.append(("rank_stability.csv", stability.to_frame()))
            doc["rank_stability"] = stability.to_dict()
        return [*out, ("recourse.json", doc)]

    def show(self, res: Any, out: Path, names: list[str]) -> None:
        """The definitions' table (the report's), headline, scope, rank stability, stage
        seconds and where the files went."""
        from ..recourse.analysis import tables

        result, _, stability, _ = res
        for table in tables(result):
            print_table(console, table)
        lines = [result.headline(), f"scope: {result.scope()}"]
        if stability is not None:
            lines += [stability.headline(), *(f"  • {c}" for c in stability.caveats())]
        secs = ", ".join(f"{k} {v:.1f} s" for k, v in result.timings.items())
        written = OUTPUTS + (", rank_stability.csv" if stability is not None else "")
        for line in (*lines, f"stages: {secs}", f"wrote {out}/{written}"):
            console.print(line, soft_wrap=True, markup=False)


register = Recourse().register
