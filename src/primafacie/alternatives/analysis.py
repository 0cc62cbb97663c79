"""The less-discriminatory-alternative search as an audit analysis: definition, run, section.

It needs a scikit-learn model as the audited decision (``decision: {model: ...}``) and the true
outcome; it is off unless ``analyses.alternatives`` is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..analysis import Analysis, AnalysisRun, Context, result_tables, table_path
from ..errors import InputError
from ..report import blocks as rb
from .results import DISPARITY_LABELS
from .spec import AlternativesSpec

__all__ = ["ANALYSIS", "LEAD", "run", "section"]

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


def run(spec: Any, ctx: Context) -> AnalysisRun:
    """Search with the engine built by the spec, on the audited data and model."""
    if ctx.decider is None or not hasattr(ctx.decider, "estimator"):
        raise InputError(
            "analyses.alternatives refits the audited model: give decision: {model: FILE} "
            "(a scikit-learn model), not a column or a rule"
        )
    res = spec.build(ctx.data, ctx).run(ctx.data, ctx.decider, backend=ctx.backend)
    return AnalysisRun(
        "alternatives",
        "ok",
        scope=res.scope(),
        results={LABEL: res},
        tables=result_tables("alternatives", {LABEL: res}),
        numbers=res.summary(),
        headline=res.headline(),
        caveats=tuple(res.caveats()),
    )


def _table(res: Any) -> Any:
    t = res.to_frame()
    out = t[[c for c, _, _ in _SHOWN]].copy()
    for col, _, digits in _SHOWN:
        if digits is not None:
            out[col] = [f"{v:.{digits}f}" for v in t[col]]
    out["certainty_rank"] = (
        out["certainty_rank"].astype(object).where(out["certainty_rank"].notna(), "—")
    )
    return out.rename(columns={c: h for c, h, _ in _SHOWN})


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The verdict, the utility–disparity plane and every candidate."""
    res = run.results[LABEL]
    dname = DISPARITY_LABELS[res.settings["disparity"]]
    findings = [run.headline, f"Search space: {res.search_space()}."]
    blocks = [
        rb.figure(
            res.plot(),
            "Utility against disparity for every candidate",
            f"Each point is a candidate's cross-validated utility and {dname}; the line joins "
            "the candidates no other beats on both (Pareto frontier); the square is the "
            "audited model, the star the candidate chosen by the certainty ranking.",
        ),
        rb.table(
            _table(res),
            "Every candidate tried",
            "Utility and disparity on cross-validation (CV, the search rows) and on the held-out "
            "rows; certainty rank among the candidates within the utility tolerance. The full "
            "table has every interval and threshold.",
            csv=table_path("alternatives", LABEL),
        ),
    ]
    return rb.section(findings, blocks)


def check(spec: Any, config: Any) -> None:
    """The search refits the audited model: ``decision`` must be a model file."""
    if getattr(config.decision, "model", None) is None:
        raise InputError(
            "analyses.alternatives refits the audited model: give decision: {model: FILE} "
            "(a scikit-learn model); a recorded column or a rule cannot be refitted"
        )


def headline_number(run: AnalysisRun) -> str:
    """``found among 13 candidates`` / ``none among 13 candidates``."""
    n = run.numbers
    return f"{'found' if n['lda_found'] else 'none'} among {n['candidates']} candidates"


def seeds(spec: Any) -> dict[str, int]:
    """The search's one seed (split, folds, estimators, bootstrap, posterior draws)."""
    return {"seed": spec.seed}


def overview(run: AnalysisRun) -> Any:
    """The utility–disparity plane, for :meth:`AuditResult.plot`."""
    return run.results[LABEL].plot()


ANALYSIS = Analysis(
    name="alternatives",
    title="Less discriminatory alternatives",
    lead=LEAD,
    spec=AlternativesSpec,
    run=run,
    section=section,
    description="Search for a less discriminatory alternative to the audited model "
    "(needs decision: {model: ...} and outcome).",
    needs_outcome=True,
    check=check,
    seeds=seeds,
    overview=overview,
    headline_number=headline_number,
)
