"""The score part of the group metrics' report section, tables and numbers.

Kept beside :mod:`primafacie.groups.analysis` so that the section stays one screen: the audit
calls :func:`score_check` before any data and :func:`score_blocks` in ``section``; each
only reads a :class:`~primafacie.groups.score_results.ScoreMetricsResult` (its tables and
numbers are the :class:`~primafacie.groups.GroupMetricsResult`'s ``extra_tables`` and
``numbers``).
"""

from __future__ import annotations

from typing import Any

from ..analysis import table_path
from ..report import blocks as rb
from .params import FOUR_FIFTHS

__all__ = ["score_blocks", "score_check"]


def score_check(spec: Any, config: Any) -> None:
    """``thresholds`` or ``sweep`` need ``decision.score`` (checked before any data)."""
    from ..errors import InputError

    asked = [k for k in ("thresholds", "sweep") if getattr(spec, k, None) not in (None, False)]
    if asked and getattr(config.decision, "score", None) is None:
        raise InputError(
            f"analyses.groups.{asked[0]} needs a score: the decision must be "
            "decision: {score: COLUMN, threshold: T, favorable: above|below} (thresholds are "
            "values of that score)"
        )


def _threshold_blocks(scores: Any) -> list[Any]:
    level = scores.level
    grid = (
        "every distinct score value (or, with more than 101, its distinct percentiles 0, 1, …, "
        "100)" if scores.grid == "sweep" else "the thresholds listed in analyses.groups.thresholds"
    )  # fmt: skip
    out: list[Any] = []
    for attribute in dict.fromkeys(scores.thresholds["attribute"]):
        out.append(rb.figure(
            scores.plot_thresholds(attribute), f"{attribute}: impact ratio and selection rates "
            f"by threshold of {scores.score}",
            f"Left: each protected group's selection rate divided by the reference group's, with "
            f"its {level} Katz log interval (band) at each threshold; the dashed line is "
            f"{FOUR_FIFTHS:g} (four-fifths), the dotted line the audited threshold. Right: each "
            f"group's selection rate with its {level} Wilson interval (reference in black). "
            f"Favourable: score {'≥' if scores.favorable == 'above' else '<'} threshold; "
            f"thresholds: {grid}. Intervals are pointwise, not simultaneous.",
        ))  # fmt: skip
    out.append(rb.table(
        scores.summary().assign(
            below_runs=lambda d: d["below_runs"].map(_runs_cell),
            wholly_below_runs=lambda d: d["wholly_below_runs"].map(_runs_cell)),
        "Thresholds at which the impact ratio is below four-fifths",
        f"Per protected group: thresholds measured, where the ratio is defined, below "
        f"{FOUR_FIFTHS:g}, and where its {level} interval lies wholly below {FOUR_FIFTHS:g}; "
        "the full curve (every threshold and group with counts) is in the CSV.",
        csv=table_path("groups", "thresholds"),
    ))  # fmt: skip
    return out


def _runs_cell(runs: list) -> str:
    return "; ".join(f"{a:g}" if a == b else f"{a:g}–{b:g}" for a, b in runs) or "—"


def _outcome_blocks(scores: Any) -> list[Any]:
    level = scores.level
    auc = scores.auc[["attribute", "group", "role", "members", "positives", "negatives", "auc",
                      "auc_low", "auc_high", "reference", "auc_diff", "diff_low", "diff_high"]]  # fmt: skip
    side = "higher" if scores.favorable == "above" else "lower"
    out: list[Any] = [rb.table(
        auc, f"AUC of {scores.score} per group",
        f"Probability that a member with a favourable outcome has a {side} score than one "
        f"without (Mann–Whitney, ties ½), with DeLong's {level} interval; difference = group − "
        "reference, its interval from the two DeLong variances (disjoint groups).",
        csv=table_path("groups", "auc"),
    )]  # fmt: skip
    for attribute in dict.fromkeys(scores.calibration["attribute"]):
        out.append(rb.figure(
            scores.plot_calibration(attribute), f"{attribute}: calibration of {scores.score}",
            f"Each point is a group's favourable-outcome rate in a bin of the score (the deciles "
            f"of {scores.score} over all audited rows, or each of its values when it has at most "
            f"ten), at the bin's mean score, with its {level} "
            "Wilson interval. Curves apart at the same score mean the score does not mean the "
            "same for the groups.",
        ))  # fmt: skip
    out.append(rb.table(
        scores.calibration, f"Calibration of {scores.score} per group",
        f"Per group and score bin: members, mean score, favourable outcomes and their rate "
        f"with its {level} Wilson interval.",
        csv=table_path("groups", "calibration"), max_rows=60,
    ))  # fmt: skip
    return out


def score_blocks(scores: Any) -> tuple[list[str], list[Any]]:
    """The findings (one sentence per protected group, from the numbers) and the blocks."""
    if scores is None:
        return [], []
    blocks: list[Any] = [rb.heading(f"Score {scores.score}: thresholds, AUC and calibration")]
    if scores.thresholds is not None:
        blocks += _threshold_blocks(scores)
    if scores.auc is not None:
        blocks += _outcome_blocks(scores)
    return scores.sentences()[:20], blocks
