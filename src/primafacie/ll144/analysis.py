"""The Local Law 144 bias audit as an audit analysis: definition, run, report section."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..analysis import Analysis, AnalysisRun, Context, table_path
from ..errors import InputError
from ..report import blocks as rb
from .spec import LL144Spec

__all__ = ["ANALYSIS", "LEAD", "run", "section", "inputs"]

LABEL = "rates"

LEAD = (
    "New York City's Local Law 144 requires a yearly bias audit of automated employment "
    "decision tools, published as a summary: for each sex category, each race/ethnicity "
    "category and each intersectional category, the selection rate (or, for a tool that "
    "scores, the scoring rate: the share scoring above the median) and the impact ratio, the "
    "category's rate divided by the highest category's rate (6 RCNY §5-301)."
)


def inputs(spec: Any, data: Any, decision_score: str | None = None) -> tuple[Any, Any]:
    """``(selected, score)`` for :meth:`LL144Tables.run` from the audited data and the spec.

    ``decision_score`` is the score column a ``decision: {score: COLUMN, threshold: T}``
    thresholds: what ``score: true`` reads (the audited decision itself is its 0/1 result).
    """
    if spec.score is False:
        return data.decision_array(), None
    if spec.score is True and decision_score is None:
        raise InputError(
            "analyses.ll144.score: true reads the score the decision is thresholded from; this "
            "audit's decision is a recorded 0/1 column, a model or a rule: give decision: "
            "{score: COLUMN, threshold: T}, or score: COLUMN"
        )
    column = decision_score if spec.score is True else spec.score
    if column not in data.frame.columns:
        raise InputError(f"analyses.ll144.score: column {column!r} is not in the data")
    return None, score_values(data.frame, column, "analyses.ll144.score")


def score_values(frame: Any, column: str, where: str) -> Any:
    """The numeric score column as floats; ``where`` names the key or flag in the error."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    values = frame[column]  # pandas' own test: np.issubdtype fails on its string dtypes
    if not is_numeric_dtype(values.dtype) or is_bool_dtype(values.dtype):
        raise InputError(f"{where}: column {column!r} is not numeric ({values.dtype})")
    return values.to_numpy(dtype=float)


def run(spec: Any, ctx: Context) -> AnalysisRun:
    """The rule's tables on the audited rows."""
    decision = getattr(ctx.config, "decision", None)  # None when run outside an audit
    selected, score = inputs(spec, ctx.data, getattr(decision, "score", None))
    res = spec.build().run(ctx.data.frame, selected=selected, score=score)
    return AnalysisRun.of(
        "ll144",
        {LABEL: res},
        {
            **res.numbers(),
            "audit_date": spec.audit_date,
            "distribution_date": spec.distribution_date,
            "data_source": spec.data_source,
        },
    )


def summary_table(res: Any) -> Any:
    """The published table: category, applicants, rate, impact ratio (excluded marked)."""
    t = res.to_frame()
    out = t[["dimension", "category", "n"]].rename(columns={"n": "number of applicants"})
    out[res.rate_name] = [
        f"{100 * r:.1f}% ({k} of {n})" for r, k, n in zip(t["rate"], t["k"], t["n"], strict=True)
    ]
    out["impact ratio"] = [
        f"excluded (< {100 * res.exclude_below:g}% of data)" if e else f"{r:.3f}"
        for r, e in zip(t["impact_ratio"], t["excluded"], strict=True)
    ]
    return out


def section(run: AnalysisRun, data: Any, cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The summary fields, the rates and impact ratios, and the unknown counts."""
    res = run.results[LABEL]
    n = run.numbers
    fields = [
        f"Audit date: {n['audit_date'] or 'not given (analyses.ll144.audit_date)'}.",
        f"Distribution date of the tool: {n['distribution_date'] or 'not given'}.",
        f"Data source: {n['data_source'] or 'not given'}.",
        "Individuals of unknown category: "
        + "; ".join(f"{d}: {k}" for d, k in res.unknown.items())
        + ".",
    ]
    blocks = [
        rb.text(" ".join(fields)),
        rb.figure(res.plot(), "Impact ratio per category", "The dashed line marks 0.8."),
        rb.table(
            summary_table(res),
            f"{res.rate_name.capitalize()}s and impact ratios",
            "Impact ratio = the category's rate / the highest category's rate.",
            csv=table_path("ll144", LABEL),
            max_rows=100,
        ),
    ]
    return rb.section([run.headline], blocks)


def check(spec: Any, config: Any) -> None:
    """The categories' columns are read from the data; nothing to check without it."""
    return None


def headline_number(run: AnalysisRun) -> str:
    """``2 of 9 ratios below 0.8``."""
    n = run.numbers
    return f"{n['below_four_fifths']} of {n['categories_rated']} ratios below 0.8"


ANALYSIS = Analysis.define(
    globals(),
    name="ll144",
    title="NYC Local Law 144 bias audit",
    spec=LL144Spec,
    description="Selection or scoring rates and impact ratios by sex, race/ethnicity and their "
    "intersection (6 RCNY §5-301).",
)
