"""The less-discriminatory-alternative search as an audit analysis: definition, run, section.

It needs a scikit-learn model (``decision: {model: ...}`` or ``analyses.alternatives.model``)
and the true outcome; it runs by default when the audited decision is a model file and the
outcome is given (``alternatives: false`` turns it off), and only when asked for otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..analysis import Analysis, AnalysisRun, Context, table_path
from ..errors import InputError
from ..report import blocks as rb
from .results import DISPARITY_LABELS, DISPARITY_READS
from .spec import MODEL_KEY, AlternativesSpec

__all__ = ["ANALYSIS", "LEAD", "run", "section", "tables"]

LABEL = "candidates"

LEAD = (
    "When a decision procedure shows disparity, the next question is whether another one "
    "serves the same purpose about as well with less of it: a less discriminatory "
    "alternative. The audited model is refitted with features neutralised, other estimators "
    "and other settings; the candidates about as useful as the audited model (within the "
    "tolerance, on cross-validation) are ranked by how certainly fair they are, and the best "
    "is compared with the audited model on rows that played no part in the choice."
)

#: Columns of the report's candidate table: (column, heading, digits).
_SHOWN = (
    ("description", "candidate", None),
    ("cv_utility", "utility (CV)", 3),
    ("cv_disparity", "disparity (CV)", 3),
    ("holdout_utility", "utility (held out)", 3),
    ("holdout_disparity", "disparity (held out)", 3),
    ("certainty_rank", "certainty rank", None),
    ("status", "status", None),
)


#: Why a model cannot be the start of the search, and what to give instead.
_NOT_REFITTABLE = (
    "an ONNX model cannot be refitted: the alternatives search needs a scikit-learn model "
    "file (.skops, or a pickle/joblib with trust: pickle)"
)


def _model(spec: Any, ctx: Context) -> tuple[Any, str]:
    """The estimator to refit (``analyses.alternatives.model``, else the audited decision's),
    or ``(None, reason)`` when the decision model cannot be refitted."""
    from ..modelfiles import OnnxModel

    if spec.model is not None:
        if ctx.config is None:
            raise InputError(f"{MODEL_KEY} needs the configuration that names it")
        path = ctx.config.resolve(spec.model.model)
        loaded = ctx.config.model_file(spec.model, MODEL_KEY)
        if loaded.format == "onnx" or isinstance(loaded.model, OnnxModel):
            raise InputError(f"{MODEL_KEY} {path}: {_NOT_REFITTABLE}")
        return loaded.model, ""
    est = getattr(ctx.decider, "estimator", None)
    if est is None:
        raise InputError(
            "analyses.alternatives refits the audited model: give decision: {model: FILE} "
            f"(a scikit-learn model) or {MODEL_KEY}: FILE, not a column or a rule"
        )
    if isinstance(est, OnnxModel):
        reason = f"decision.model: {_NOT_REFITTABLE}; give {MODEL_KEY}: FILE"
        if spec.by_default:  # not asked for: the audit goes on without it
            return None, reason
        raise InputError(reason)
    return ctx.decider, ""


def _train(spec: Any, ctx: Context) -> Any:
    """The training rows (``analyses.alternatives.train``, else ``train:``), or None."""
    cfg = ctx.config
    path = None if cfg is None else cfg.train_path(spec.train)
    if path is None:
        return None
    from ..data import AuditData

    try:
        return AuditData(
            cfg.read_train(path), features=cfg.feature_spec(), protected=cfg.protected,
            outcome=cfg.outcome, outcome_favorable=cfg.outcome_favorable,
            max_levels=cfg.max_levels,
        )  # fmt: skip
    except InputError as exc:
        raise InputError(f"train data file {path}: {exc}") from None


def run(spec: Any, ctx: Context) -> AnalysisRun:
    """Search with the engine built by the spec, on the audited data and model (or the
    section's own model), refitting on the training file when one is given."""
    model, reason = _model(spec, ctx)
    if model is None:
        return AnalysisRun("alternatives", "unavailable", message=reason)
    train = _train(spec, ctx)
    res = spec.build(ctx.data, ctx).run(ctx.data, model, backend=ctx.backend, train=train)
    return AnalysisRun.of("alternatives", {LABEL: res})


def _table(res: Any) -> Any:
    t = res.to_frame()
    out = t[[c for c, _, _ in _SHOWN]].copy()
    for col, _, digits in _SHOWN:
        if digits is not None:
            out[col] = [f"{v:.{digits}f}" for v in t[col]]
    out["certainty_rank"] = (
        out["certainty_rank"].astype(object).where(out["certainty_rank"].notna(), "—")
    )
    # the disparity measure named in the heading: an impact ratio read as a "disparity"
    # looked better when lower, the opposite of what it is
    kind = DISPARITY_LABELS[res.settings["disparity"]]
    return out.rename(columns={c: h.replace("disparity", kind) for c, h, _ in _SHOWN})


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The verdict, the utility–disparity plane and every candidate."""
    res = run.results[LABEL]
    dname = DISPARITY_LABELS[res.settings["disparity"]]
    n = len(res.table) - 1
    space = f"{n} candidate{'s' if n != 1 else ''} besides the audited model"
    findings = [run.headline, f"Search space: {space} ({res.search_space()})."]
    blocks = [
        rb.figure(
            res.plot(),
            "Utility against disparity for every candidate",
            f"Each point is a candidate's cross-validated utility and {dname}; the line joins "
            "the candidates no other beats on both (Pareto frontier); the square is the "
            "audited model, the star the candidate chosen by the certainty ranking.",
        ),
        *tables(res),
    ]
    return rb.section(findings, blocks)


def tables(res: Any) -> list[dict[str, Any]]:
    """The section's table of every candidate, which ``primafacie alternatives`` prints too
    (:func:`primafacie.terminal.print_table`)."""
    return [
        rb.table(
            _table(res),
            "Every candidate tried",
            "Utility and disparity on cross-validation (CV, the search rows) and on the held-out "
            f"rows; disparity is the {DISPARITY_READS[res.settings['disparity']]}; certainty "
            "rank among the candidates within the utility tolerance (its own measure: the "
            "largest gap between the favourable-decision rates of the combinations of the "
            "protected flags, with its Beta-posterior uncertainty, ranked by TOPSIS). The full "
            "table has every interval and threshold.",
            csv=table_path("alternatives", LABEL),
        )
    ]


def check(spec: Any, config: Any) -> None:
    """The search refits a model: ``decision`` or the section's ``model`` must be a file."""
    if getattr(spec, "model", None) is None and getattr(config.decision, "model", None) is None:
        raise InputError(
            "analyses.alternatives refits the audited model: give decision: {model: FILE} "
            f"(a scikit-learn model) or {MODEL_KEY}: FILE; a recorded column or a rule cannot "
            "be refitted"
        )


def default_when(doc: Mapping[str, Any]) -> bool:
    """On by default when the audited decision is a model file that can be refitted (not
    ``.onnx``) and the true outcome is given."""
    from pathlib import Path

    decision = doc.get("decision")
    model = (
        decision.get("model") if isinstance(decision, Mapping) else getattr(decision, "model", None)
    )
    if model is None or not doc.get("outcome"):
        return False
    return Path(str(model)).suffix.lower() != ".onnx"


def headline_number(run: AnalysisRun) -> str:
    """``found among 13 candidates`` / ``none among 13 candidates``."""
    n = run.numbers
    return f"{'found' if n['lda_found'] else 'none'} among {n['candidates']} candidates"


def finding(run: AnalysisRun) -> dict[str, Any]:
    """A less discriminatory alternative found is a concern (the audited model is not the
    least discriminatory way to serve its purpose); none found clears nothing (an alternative
    outside the search space may exist): a neutral badge."""
    n = run.numbers
    count = f"{n['candidates']} candidate{'s' if n['candidates'] != 1 else ''}"
    if n["lda_found"]:
        return {"level": "concern", "badge": "alternative found", "strength": 0.0,
                "sentence": f"a less discriminatory alternative was found among {count}"}  # fmt: skip
    badge = "nothing to reduce" if n.get("nothing_to_improve") else "none found"
    return {"level": "neutral", "badge": badge, "strength": 0.0,
            "sentence": f"no less discriminatory alternative among {count}"}  # fmt: skip


def seeds(spec: Any) -> dict[str, int]:
    """The search's one seed (split, folds, estimators, bootstrap, posterior draws)."""
    return {"seed": spec.seed}


def overview(run: AnalysisRun) -> Any:
    """The utility–disparity plane, for :meth:`AuditResult.plot`."""
    return run.results[LABEL].plot()


ANALYSIS = Analysis.define(
    globals(),
    name="alternatives",
    title="Less discriminatory alternatives",
    spec=AlternativesSpec,
    description="Search for a less discriminatory alternative to the audited model (on by "
    "default when decision: {model: ...} and outcome are given; false turns it off).",
    needs_outcome=True,
)
