"""Score metrics of the group analysis: thresholds, AUC and calibration per group.

When the decision is a score with a threshold (``decision: {score, threshold, favorable}``),
three readings of the score itself follow, for every protected attribute:

- **thresholds** (``thresholds: [..]`` or ``sweep: true``): at each threshold, the selection
  rate of every group (Wilson interval) and each protected group's impact ratio to the
  reference group (Katz log interval), as the group metrics measure them at the audited
  threshold. The scores of each group are sorted once and every threshold is a
  ``searchsorted`` on them, so the cost is O(rows log rows + thresholds × groups);
- **AUC** (with the true outcome): the Mann–Whitney area under the ROC curve of each group,
  with DeLong's interval (:func:`primafacie.intervals.auc_delong`), and each protected group's
  AUC gap to the reference group (the groups are disjoint, so the variances add);
- **calibration** (with the true outcome): the score's deciles over all audited rows are the
  bins (each value its own bin when the score has at most ten); per group and bin, the
  members, the mean score and the favourable-outcome rate with its Wilson interval.

The groups are those of the group metrics (:mod:`primafacie.groups.engine`): each value of
the attribute, and the non-protected values pooled into one reference row when there are
several. Intersections are not swept (one curve per attribute keeps the figure readable).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..intervals import auc_delong, wilson_interval, z_value
from .params import FOUR_FIFTHS, SWEEP_POINTS, WHERE
from .stats import katz_interval

__all__ = [
    "AttributeGroups",
    "attribute_groups",
    "sweep_thresholds",
    "threshold_table",
    "auc_table",
    "calibration_bins",
    "calibration_table",
    "score_array",
    "score_metrics",
]

#: Role of a group; the same words as the group metrics' table.
PROTECTED, REFERENCE, IN_REFERENCE = "protected", "reference", "non-protected"
POOLED = "non-protected (pooled)"
#: Role of a group outside a listed reference, and the label of a pooled listed reference.
LEFT_OUT, REFERENCE_POOLED = "left out", "reference (pooled)"


class AttributeGroups:
    """The groups of one protected attribute (or intersection) as the group metrics define them.

    Attributes
    ----------
    attribute
        The attribute's name (``"race × sex"`` for an intersection).
    labels
        One label per group: each observed value (sorted), then ``POOLED`` when the reference
        pools several non-protected values (``REFERENCE_POOLED`` for a listed reference).
    roles
        ``protected``, ``reference``, ``non-protected`` (pooled into the reference) or
        ``left out`` (neither: outside a listed reference).
    members
        Row indices of each group (the pooled reference holds every reference row).
    reference
        Index of the reference group in ``labels``.
    """

    def __init__(self, attribute: str, values: list[Any], codes: np.ndarray,
                 protected_rows: np.ndarray,
                 reference_rows: np.ndarray | None = None) -> None:  # fmt: skip
        n_values = len(values)
        protected_rows = np.asarray(protected_rows, dtype=bool)
        rest = reference_rows is None
        ref_rows = ~protected_rows if rest else np.asarray(reference_rows, dtype=bool)
        ref_rows = ref_rows & ~protected_rows
        prot = np.bincount(codes, weights=protected_rows, minlength=n_values) > 0
        ref = (np.bincount(codes, weights=ref_rows, minlength=n_values) > 0) & ~prot
        order = np.argsort(codes, kind="stable")  # rows of each value, in row order
        bounds = np.searchsorted(codes[order], np.arange(n_values + 1))
        members = [order[bounds[g] : bounds[g + 1]] for g in range(n_values)]
        n_ref = int(ref.sum())
        roles = np.where(prot, PROTECTED, np.where(ref, REFERENCE if n_ref == 1 else IN_REFERENCE,
                                                   LEFT_OUT)).tolist()  # fmt: skip
        labels = [str(v) for v in values]
        if n_ref != 1:  # pooled (or empty) reference: its own group
            labels.append(POOLED if rest else REFERENCE_POOLED)
            roles.append(REFERENCE)
            members.append(np.flatnonzero(ref_rows))
        self.attribute = attribute
        self.labels = labels
        self.roles = roles
        self.members = members
        self.reference = roles.index(REFERENCE)


def attribute_groups(
    audit: Any, attribute: str, codes: np.ndarray, values: list[Any]
) -> AttributeGroups:
    """The groups of ``attribute`` in an :class:`~primafacie.data.AuditData`, from the value
    codes the group metrics computed (``codes``: each row's index into the sorted ``values``);
    a listed or ``highest`` reference is honoured (the other values are left out)."""
    prot = np.asarray(audit.protected_mask(attribute))
    ref = audit.reference_mask(attribute) if attribute in audit.reference else None
    return AttributeGroups(attribute, values, codes, prot, ref)


def sweep_thresholds(score: np.ndarray, points: int = SWEEP_POINTS) -> np.ndarray:
    """The thresholds of ``sweep: true``: every distinct score value when there are at most
    ``points`` of them, else the distinct quantiles 0, 1/(points−1), …, 1 of the scores.

    The quantiles are observed values (``method="lower"``), so each threshold is a score
    somebody has and a decile score gives its ten values.

    Examples
    --------
    >>> sweep_thresholds(np.array([3, 1, 2, 3, 1])).tolist()
    [1.0, 2.0, 3.0]
    >>> len(sweep_thresholds(np.arange(1000.0)))
    101
    """
    s = np.asarray(score, dtype=float)
    distinct = np.unique(s)
    if len(distinct) <= points:
        return distinct
    return np.unique(np.quantile(s, np.linspace(0, 1, points), method="lower"))


def _favourable_counts(
    sorted_scores: np.ndarray, thresholds: np.ndarray, favorable: str
) -> np.ndarray:
    """How many of the sorted scores are favourable at each threshold (``>= t`` above,
    ``< t`` below, as :func:`primafacie.decisions.score_decisions`)."""
    below = np.searchsorted(sorted_scores, thresholds, side="left")  # count of s < t
    return below if favorable == "below" else len(sorted_scores) - below


def threshold_table(
    score: np.ndarray,
    groups: AttributeGroups,
    thresholds: np.ndarray,
    favorable: str = "above",
    alpha: float = 0.05,
    min_group: int = 30,
    audited: float | None = None,
) -> pd.DataFrame:
    """Selection rates and impact ratios of every group of one attribute at every threshold.

    Parameters
    ----------
    score
        The score of every row.
    groups
        The attribute's groups (:func:`attribute_groups`).
    thresholds
        Sorted distinct thresholds.
    favorable
        ``"above"``: favourable when ``score >= t``; ``"below"``: when ``score < t``.
    alpha
        Two-sided level of the Wilson and Katz intervals.
    min_group
        Groups with fewer members are flagged ``small``.
    audited
        The audited threshold (``decision.threshold``), flagged in the ``audited`` column.

    Returns
    -------
    pandas.DataFrame
        One row per (threshold, group): ``attribute, threshold, audited, group, role,
        members, small, k`` (favourable decisions), ``n`` (= members), ``rate, ci_low,
        ci_high`` (Wilson), ``reference, ratio, ratio_low, ratio_high`` (Katz; protected groups
        only) and ``below_four_fifths`` (ratio < 0.8; ``<NA>`` when the ratio is undefined).
    """
    t = np.asarray(thresholds, dtype=float)
    # one sort per group, one searchsorted per group over all thresholds: (groups, T) counts
    k = np.stack([_favourable_counts(np.sort(score[m]), t, favorable) for m in groups.members])
    n = np.array([len(m) for m in groups.members])[:, None] * np.ones_like(k)
    ref = groups.reference
    z = z_value(alpha, "two")
    low, high = wilson_interval(k, n, z)
    ratio, r_lo, r_hi = katz_interval(k, n, k[ref][None, :], n[ref][None, :], z)
    prot = (np.array(groups.roles) == PROTECTED)[:, None] * np.ones_like(k, dtype=bool)
    n_g, n_t = k.shape
    nan = np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(n > 0, k / np.maximum(n, 1), nan)
    ratio = np.where(prot, ratio, nan)
    below = pd.array(np.where(np.isnan(ratio), None, ratio < FOUR_FIFTHS).T.ravel().tolist(),
                     dtype="boolean")  # fmt: skip
    frame = pd.DataFrame(
        {
            "attribute": groups.attribute,
            "threshold": np.repeat(t, n_g),
            "audited": np.repeat(t == audited, n_g) if audited is not None else False,
            "group": np.tile(groups.labels, n_t),
            "role": np.tile(groups.roles, n_t),
            "members": n.T.ravel(),
            "small": n.T.ravel() < int(min_group),
            "k": k.T.ravel(),
            "n": n.T.ravel(),
            "rate": rate.T.ravel(),
            "ci_low": np.where(n > 0, low, nan).T.ravel(),
            "ci_high": np.where(n > 0, high, nan).T.ravel(),
            "reference": groups.labels[ref],
            "ratio": ratio.T.ravel(),
            "ratio_low": np.where(prot, r_lo, nan).T.ravel(),
            "ratio_high": np.where(prot, r_hi, nan).T.ravel(),
            "below_four_fifths": below,
        }
    )
    return frame


def auc_table(
    score: np.ndarray, outcome: np.ndarray, groups: AttributeGroups, alpha: float = 0.05
) -> pd.DataFrame:
    """The AUC of the score for the favourable outcome in every group, with DeLong's interval.

    Parameters
    ----------
    score
        The score oriented so that higher means more favourable (the negated score when the
        favourable side is ``below``).
    outcome
        True when the row's true outcome is favourable.
    groups
        The attribute's groups.
    alpha
        Two-sided level of the intervals.

    Returns
    -------
    pandas.DataFrame
        One row per group: ``attribute, group, role, members, positives, negatives, auc, se,
        auc_low, auc_high`` and, for protected groups, ``reference, auc_diff, diff_low,
        diff_high`` (group − reference; normal interval with the two DeLong variances added,
        as the groups share no row).
    """
    z = z_value(alpha, "two")
    rows = []
    for label, role, m in zip(groups.labels, groups.roles, groups.members, strict=True):
        s, y = score[m], outcome[m]
        auc, se, lo, hi = auc_delong(s[y], s[~y], z)
        rows.append((groups.attribute, label, role, len(m), int(y.sum()), int((~y).sum()),
                     auc, se, lo, hi))  # fmt: skip
    frame = pd.DataFrame(rows, columns=["attribute", "group", "role", "members", "positives",
                                        "negatives", "auc", "se", "auc_low", "auc_high"])  # fmt: skip
    ref = frame.iloc[groups.reference]
    prot = frame["role"].eq(PROTECTED).to_numpy()
    diff = frame["auc"].to_numpy(float) - float(ref["auc"])
    se = np.sqrt(frame["se"].to_numpy(float) ** 2 + float(ref["se"]) ** 2)
    frame["reference"] = groups.labels[groups.reference]
    frame["auc_diff"] = np.where(prot, diff, np.nan)
    frame["diff_low"] = np.where(prot, diff - z * se, np.nan)
    frame["diff_high"] = np.where(prot, diff + z * se, np.nan)
    return frame


def calibration_bins(score: np.ndarray, bins: int = 10) -> tuple[np.ndarray, list[str]]:
    """The calibration bins of a score: their upper edges and labels.

    With at most ``bins`` distinct values (a decile score), each value is its own bin.
    Otherwise the bins are the distinct deciles (for ``bins=10``) over all audited rows: bin i
    holds the scores in ``(edge_i, edge_i+1]``, the first one its lower edge too (as
    ``pandas.qcut``); tied scores make deciles equal, and those bins merge.

    Returns
    -------
    (upper, labels)
        Sorted upper edges (a score is in the first bin whose upper edge it does not exceed)
        and one label per bin (``7``, or ``[1, 2.5]``, ``(2.5, 4]``, …).

    Examples
    --------
    >>> calibration_bins(np.array([3, 1, 2, 3.0]))
    (array([1., 2., 3.]), ['1', '2', '3'])
    >>> calibration_bins(np.arange(1.0, 11.0), bins=2)
    (array([ 5.5, 10. ]), ['[1, 5.5]', '(5.5, 10]'])
    """
    s = np.asarray(score, dtype=float)
    distinct = np.unique(s)
    if len(distinct) <= bins:
        return distinct, [f"{v:g}" for v in distinct]
    edges = np.unique(np.quantile(s, np.linspace(0, 1, bins + 1)))
    labels = [f"{'[' if i == 0 else '('}{edges[i]:g}, {edges[i + 1]:g}]"
              for i in range(len(edges) - 1)]  # fmt: skip
    return edges[1:], labels


def calibration_table(
    score: np.ndarray, outcome: np.ndarray, groups: AttributeGroups,
    bins: tuple[np.ndarray, list[str]], alpha: float = 0.05,
) -> pd.DataFrame:  # fmt: skip
    """Members, mean score and favourable-outcome rate of every group in every score bin.

    Parameters
    ----------
    score
        The raw score of every row.
    outcome
        True when the row's true outcome is favourable.
    groups
        The attribute's groups.
    bins
        Upper edges and labels of the bins (:func:`calibration_bins`).
    alpha
        Two-sided level of the Wilson intervals.

    Returns
    -------
    pandas.DataFrame
        One row per (group, bin), empty cells included: ``attribute, group, role, bin`` (its
        label), ``members, mean_score`` (NaN when empty), ``outcome_k`` (favourable
        outcomes), ``outcome_rate, ci_low, ci_high`` (Wilson).
    """
    upper, labels = bins
    n_bins = len(upper)
    # the first bin whose upper edge the score does not exceed (the last edge is the maximum)
    bin_of = np.minimum(np.searchsorted(upper, score, side="left"), n_bins - 1)
    z = z_value(alpha, "two")
    parts = []
    for label, role, m in zip(groups.labels, groups.roles, groups.members, strict=True):
        b = bin_of[m]
        count = np.bincount(b, minlength=n_bins)
        total = np.bincount(b, weights=score[m], minlength=n_bins)
        k = np.bincount(b, weights=outcome[m].astype(float), minlength=n_bins).astype(np.int64)
        low, high = wilson_interval(k, count, z)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
            rate = np.where(count > 0, k / np.maximum(count, 1), np.nan)
        parts.append(pd.DataFrame({
            "attribute": groups.attribute, "group": label, "role": role,
            "bin": labels, "members": count,
            "mean_score": mean, "outcome_k": k, "outcome_rate": rate,
            "ci_low": np.where(count > 0, low, np.nan), "ci_high": np.where(count > 0, high, np.nan),
        }))  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def score_array(frame: pd.DataFrame, column: str) -> np.ndarray:
    """The score column as floats; an absent, non-numeric or incomplete column is an
    InputError naming it (as :func:`primafacie.decisions.score_decisions`) and where it is
    set (the declared flag and key: ``--score, decision.score``)."""
    where = f" ({WHERE['score']})"
    if column not in frame.columns:
        raise InputError(f"score: column {column!r} is not in the data{where}")
    values = frame[column]
    if not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        raise InputError(f"score: column {column!r} is not numeric ({values.dtype}){where}")
    s = values.to_numpy(dtype=float)
    if not np.isfinite(s).all():
        bad = int((~np.isfinite(s)).sum())
        first = int(np.flatnonzero(~np.isfinite(s))[0])
        raise InputError(f"score: column {column!r} has {bad} missing or infinite values "
                         f"(first at row {first}){where}")  # fmt: skip
    return s


def score_metrics(
    audit: Any,
    coded: Mapping[str, tuple[np.ndarray, list[Any]]] | Sequence[AttributeGroups],
    score: str,
    favorable: str = "above",
    thresholds: list[float] | None = None,
    sweep: bool = False,
    audited: float | None = None,
    alpha: float = 0.05,
    min_group: int = 30,
) -> Any:
    """Thresholds (when asked for), AUC and calibration (with the outcome) of every attribute.

    Parameters
    ----------
    audit
        The :class:`~primafacie.data.AuditData` measured.
    coded
        ``{attribute: (codes, values)}`` of the protected attributes, as the group metrics
        coded them (each row's index into the attribute's sorted values); or the groups
        themselves (:class:`AttributeGroups`), as the group metrics pass every attribute and
        intersection with its reference.
    score, favorable
        The score column and its favourable side (``above`` or ``below``).
    thresholds, sweep
        The thresholds asked for and/or the sweep grid (:func:`sweep_thresholds`), merged;
        neither: no threshold table.
    audited
        The audited threshold, added to the grid when there is one.
    alpha, min_group
        As the group metrics.

    Returns
    -------
    ScoreMetricsResult
    """
    from .score_results import ScoreMetricsResult

    s = score_array(audit.frame, score)
    grid = "sweep" if sweep else ("list" if thresholds else "none")
    t = None
    if grid != "none":
        t = np.concatenate([sweep_thresholds(s) if sweep else [],
                            np.asarray(thresholds if thresholds else [], dtype=float)])  # fmt: skip
        if audited is not None:
            t = np.append(t, float(audited))
        t = np.unique(t)
    y = audit.outcome_array().astype(bool) if audit.outcome is not None else None
    oriented = -s if favorable == "below" else s  # higher = more favourable, for the AUC
    bins = calibration_bins(s) if y is not None else None
    parts: dict[str, list[pd.DataFrame]] = {"t": [], "auc": [], "cal": []}
    if isinstance(coded, Mapping):
        coded = [attribute_groups(audit, a, codes, values) for a, (codes, values) in coded.items()]
    for g in coded:
        if t is not None:
            parts["t"].append(threshold_table(s, g, t, favorable, alpha, min_group, audited))
        if y is not None:
            parts["auc"].append(auc_table(oriented, y, g, alpha))
            parts["cal"].append(calibration_table(s, y, g, bins, alpha))

    def cat(key: str) -> pd.DataFrame | None:
        return pd.concat(parts[key], ignore_index=True) if parts[key] else None

    return ScoreMetricsResult(
        score=score, favorable=favorable, thresholds=cat("t"), auc=cat("auc"),
        calibration=cat("cal"), grid=grid,
        audited_threshold=None if audited is None else float(audited), alpha=float(alpha),
        min_group=int(min_group),
    )  # fmt: skip
