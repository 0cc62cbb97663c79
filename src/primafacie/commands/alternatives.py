"""``primafacie alternatives``: search for a less discriminatory alternative to the audited model.

Options, ``--config``, outputs and words are derived (:mod:`._analysis`) from the
declarations of :mod:`primafacie.alternatives.params`; this module holds the help, the roles
(the model, ``--train``) and how the flags become the audited and training rows; the table
printed is the report's (:func:`primafacie.alternatives.analysis.tables`). The candidates
table equals the audit's ``tables/alternatives_candidates.csv``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..alternatives.params import PARAMS
from ..errors import InputError
from . import _data
from ._analysis import AnalysisCommand, role
from ._common import load_cli_model

# numpy, pandas, scikit-learn and the engine are imported inside the functions: the CLI loads
# this module to render --help, which must not wait for them.

#: The usage error of a run without its inputs (checked first, before any heavy import).
_NO_INPUT = "give --config FILE, or --data FILE --model FILE --protected COL=VALUE --outcome COL"

#: Data flags the search does not apply (it refits on every row of --data or --train).
_NOT_APPLIED = ("reference", "weights", "where", "dropna")

HELP = """Less discriminatory alternatives: refit the audited scikit-learn model (decision:
{model: FILE}) with each feature neutralised, with pairs of the features most associated with
the protected attribute neutralised, with other estimators and other hyperparameters; keep the
candidates whose cross-validated utility is within the tolerance of the audited model's; rank
them by how certainly fair they are; and compare the best with the audited model on rows held
out from the whole choice. It is a less discriminatory alternative when its disparity is lower
with an interval that excludes 0 and its utility is non-inferior within the tolerance.

The candidates are refitted on a training file when one is given (--train, or train: /
analyses.alternatives.train in audit.yaml: the same columns with the true outcome); without it
on the audited rows with their true outcome, split into search and held-out rows.

Example (the demo's audit.yaml, where the search is on by default: its decision is a model
and it has an outcome; settings go in a section analyses.alternatives, e.g.
`alternatives: {estimators: [decision_tree], tolerance: 0.01}`):

    primafacie alternatives --config out/demo/audit.yaml \\
        --out out/alternatives

    primafacie alternatives --data out/demo/inputs/credit_world.csv \\
        --model out/demo/inputs/lr.skops --protected gender=female \\
        --outcome repaid --folds 3 --out out/alternatives

Writes candidates.csv (every candidate: features neutralised, estimator, parameters,
threshold, cross-validated and held-out utility and disparity with intervals, certainty rank,
status) and alternatives.json to --out; nothing is written when the input is bad (exit 2).
"""


def _frame(path: Path, reading: dict[str, Any], columns: list[str], flag: str) -> Any:
    """The table of ``flag`` read with the data's file options (``--sep``, ``--encoding``,
    ...); each of ``columns`` must be in it."""
    frame = _data.read_like_data(reading, path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{flag} {path}: no column {missing}; columns: {list(frame.columns)}")
    return frame


class Alternatives(AnalysisCommand):
    """``primafacie alternatives`` (the help text is :data:`HELP`)."""

    name, help, params, no_data = "alternatives", HELP, PARAMS, _NO_INPUT
    status, bullet = "fitting and comparing the candidates…", None  # no caveats printed
    config_help = ("audit.yaml (section analyses.alternatives, or on by default) instead of "
                   "flags.")  # fmt: skip
    roles = (
        role("data", "CSV or Parquet table of the audited rows."),
        role("model", "The audited scikit-learn model file (.skops; a pickle with "
             "--trust-pickle)."),
        role("protected", "COL=VALUE[,VALUE...]: the protected group(s) (repeatable)."),
        role("outcome"), role("outcome_favorable"),
        role("train", "Training rows (same columns, true outcome) to refit on; default: the "
             "audited rows, split.", Optional[Path], None),
        role("trust_pickle"), role("trusted_type"),
    )  # fmt: skip

    def from_flags(self, spec: Any, v: dict[str, Any], reading: dict[str, Any]) -> tuple:
        """The search on the flags' rows: the model's columns are its features (numbers
        numeric, the rest categorical), its decisions are recomputed, and ``--train`` rows
        refit it."""
        if v["model"] is None or v["outcome"] is None or not v["protected"]:
            raise InputError(_NO_INPUT)
        not_applied = [f.flag for f in _data.DATA_FLAGS
                       if f.name in _NOT_APPLIED and f.flag in _data.given(reading)]  # fmt: skip
        if not_applied:
            raise InputError(f"{', '.join(not_applied)}: not applied by alternatives from flags "
                             "(it refits on every row); use --config with the keys")  # fmt: skip
        import numpy as np

        from ..data import AuditData
        from ..decisions import ModelDecider

        est = load_cli_model(v["model"], v["trust_pickle"], v["trusted_type"])
        names = getattr(est, "feature_names_in_", None)
        if names is None:
            raise InputError(f"--model {v['model']}: the model has no feature names; fit it on "
                             "a table with named columns, or use --config with features:")  # fmt: skip
        prot = _data.protected_values(v["protected"])
        features = [str(c) for c in names if str(c) not in prot]
        decider = ModelDecider(est, features=[str(c) for c in names])
        roles = [*features, *prot, v["outcome"]]
        rows = []
        for flag, path in (("--data", v["data"]), ("--train", v["train"])):
            if path is None:
                rows.append(None)
                continue
            frame = _frame(path, reading, roles, flag)
            kinds = {f: "numeric" if frame[f].dtype.kind in "biuf" else "categorical"
                     for f in features}  # fmt: skip
            decision = None
            if flag == "--data":  # the audited decisions, as the audit computes them
                frame["__decision__"] = np.asarray(decider.predict(frame), dtype=np.int8)
                decision = "__decision__"
            try:
                rows.append(AuditData(frame, features=kinds, protected=prot, decision=decision,
                                      outcome=v["outcome"],
                                      outcome_favorable=v["outcome_favorable"]))  # fmt: skip
            except InputError as exc:
                raise InputError(f"{flag} {path}: {exc}") from None
        audited, training = rows
        res = self.run_engine(spec.build(audited), v, reading, audited, decider, train=training)
        return res, tuple(p for p in (v["data"], v["train"], v["model"]) if p is not None)

    def files(self, res: Any) -> list[tuple[str, Any]]:
        """candidates.csv (every candidate) and alternatives.json."""
        return [("candidates.csv", res.to_frame()), ("alternatives.json", res.to_dict())]


register = Alternatives().register
