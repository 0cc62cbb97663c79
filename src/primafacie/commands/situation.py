"""``primafacie situation``: situation testing (ST, CST w/o, CST w/, CF) from flags or a config.

Options, ``--config`` (which runs exactly what ``primafacie audit`` runs for
``analyses.situation``), the writing of the files and the defaults are derived
(:mod:`._analysis`); this module holds the help, the roles (features, b() as a rule or a model,
the SCM's edges or a counterfactual table) and how they are read; the table printed is the
report's (:func:`primafacie.situation.analysis.tables`). Every engine is built by
:meth:`~primafacie.situation.spec.SituationSpec.tests`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..errors import InputError
from ..situation.params import PARAMS
from ..terminal import print_table
from . import _data
from ._analysis import AnalysisCommand, role
from ._common import MODEL_FILES_HELP, console, escape, load_cli_model

if TYPE_CHECKING:
    import pandas as pd

    from ..data import AuditData

# numpy, pandas, the spec, the SCM and the engines are imported inside the functions: the CLI
# loads this module to render --help, which must not wait for them.

HELP = f"""Situation testing of individual decisions: k-NN situation testing (st), counterfactual
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
FILE` is b() as a model file. {MODEL_FILES_HELP} The options below say what `--legacy` (the
papers' tables) and `--multiplicity` (none for the papers' tables) change.
"""


def _model_label(estimator: Any, favorable: str, path: Path) -> Any:
    """The model's class label that --favorable names (a CLI string: "1" must match 1 and
    True), by the deciders' own matching (:func:`primafacie.decisions._model_label`)."""
    from ..decisions import _model_label as label_of

    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return _data.scalar(favorable)
    try:
        return label_of(estimator, favorable)
    except InputError:
        raise InputError(
            f"--favorable {favorable!r} is not a class of the model in {path}; its classes are "
            f"{[str(c) for c in classes]}"
        ) from None


def parse_flags(v: dict[str, Any], reading: dict[str, Any]) -> tuple[AuditData, Any]:
    """The audited data (read by the audit's reader, :func:`_data.load`) and b() (a rule, a
    model or None) from the values ``v`` of the flags (``data``, ``protected``, ``feature``,
    ``decision``, ``favorable``, ``rule``, ``model``, and ``trust_pickle`` and
    ``trusted_type`` for the model file) and the data flags (``reading``)."""
    data, protected, decision, favorable = v["data"], v["protected"], v["decision"], v["favorable"]
    rule, model, trust = v["rule"], v["model"], (v["trust_pickle"], v["trusted_type"])
    from ..decisions import ModelDecider, Rule  # (no --data: refused by AnalysisCommand.run)

    if not protected:
        raise InputError("give at least one --protected COL=VALUE")
    if rule is not None and model is not None:
        raise InputError("give --rule or --model, not both")
    if decision is None and rule is None and model is None:
        raise InputError("give --decision COL (the recorded ŷ) or --rule/--model for b()")
    prot = _data.protected_values(protected)
    features = dict(map(_feature, v["feature"]))
    decider: Any = Rule(rule) if rule is not None else None
    if model is not None:
        est = load_cli_model(model, *trust)
        label = _model_label(est, favorable, model)
        decider = ModelDecider(est, features=list(features) or None, favorable=label)
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


def _feature(text: str) -> tuple[str, str]:
    """``COL[:kind]`` as (column, kind), numeric when the kind is left out; a column name may
    hold ``:`` itself (``income:2024``: it was cut there and refused in pydantic's words)."""
    name, sep, kind = text.rpartition(":")
    return (
        (name, kind) if sep and kind in ("numeric", "categorical", "ordinal") else (text, "numeric")
    )


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


class Situation(AnalysisCommand):
    """``primafacie situation`` (the help text is :data:`HELP`)."""

    name, help, params, status = "situation", HELP, PARAMS, "situation testing…"
    no_data = "give --data FILE (with --protected, --decision, ...) or --config FILE"
    roles = (
        role("data"), role("protected"),
        role("feature", "COL[:numeric|categorical|ordinal].", list[str], []),
        role("decision"), role("favorable"), role("rule"), role("model"), role("trust_pickle"),
        role("trusted_type"), role("edge", "SCM edge PARENT:CHILD (repeatable).", list[str], []),
        role("counterfactuals", "Precomputed counterfactual table.", Optional[Path], None),
    )  # fmt: skip

    def from_flags(self, spec: Any, v: dict[str, Any], reading: dict[str, Any]) -> tuple:
        """Every test of the spec (built by :meth:`SituationSpec.tests`) on the data, b() and
        causal model the flags describe: the fitted SCM of ``--edge`` or the
        ``--counterfactuals`` table, at most one of them."""
        from ..config import CausalSpec

        audit, decider = parse_flags(v, reading)
        edges, scm, cf = [e.partition(":") for e in v["edge"]], None, None
        if edges and v["counterfactuals"] is not None:
            raise InputError("give --edge (an SCM) or --counterfactuals, not both")
        bad = next((a + s + b for a, s, b in edges if not (a and s and b)), None)
        if bad is not None:
            raise InputError(f"--edge expects PARENT:CHILD, got {bad!r}")
        if edges:  # the SCM built like audit.yaml's causal section
            scm = CausalSpec(edges=[(a, b) for a, _, b in edges]).build().fit(audit)
        elif v["counterfactuals"] is not None:  # read like the data (--sep, --encoding, ...)
            cf = _data.read_like_data(reading, v["counterfactuals"])
        if cf is not None and "multiple" in spec.dimensions:
            raise InputError("--dimension multiple needs --edge (an SCM), not --counterfactuals")
        results = self.run_engine(spec.tests(list(audit.protected)), v, reading, audit, scm=scm,
                                  counterfactuals=cf, decider=decider)  # fmt: skip
        return results, tuple(p for p in (v["data"], v["counterfactuals"], v["model"]) if p)

    def from_run(self, run: Any, cfg: Any, audit: Any, v: dict[str, Any]) -> Any:
        """The audit's tests (its dossiers and sensitivity left out)."""
        from ..situation.analysis import tests_of

        return tests_of(run.results)

    def files(self, res: Any) -> list[tuple[str, Any]]:
        """complainants.csv and summary.csv: every test's rows, column ``dimension`` its label."""
        from ..situation.results import stacked

        frames = {d: _flat_ids(r.to_frame(neighbors=True)) for d, r in res.items()}
        summaries = {d: r.summary() for d, r in res.items()}
        return [("complainants.csv", stacked(frames, "dimension")),
                ("summary.csv", stacked(summaries, "dimension"))]  # fmt: skip

    def show(self, res: Any, out: Path, names: list[str]) -> None:
        """The counts of every test, each test's headline and caveats, then where the files
        went."""
        for table in self.tables(res):
            print_table(console, table)
        for r in res.values():
            console.print(escape(r.headline()))
            for caveat in r.caveats():
                console.print(escape(f"  • {caveat}"))
        console.print(f"wrote {out / names[0]} and {out / names[1]}")


register = Situation().register
