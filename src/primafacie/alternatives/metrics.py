"""Utility and disparity of many models at once, under bootstrap weights of the rows.

Every quantity is a weighted mean over rows, so one weight matrix ``W`` (bootstrap replicates
× rows, multinomial counts; a row of ones for the point estimate) gives every model's value on
every replicate with a matrix product. The same ``W`` is applied to every model, so their
differences are paired, and intervals of a difference come from the replicates of the
difference. The AUC is the weighted Mann–Whitney statistic (ties count one half).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["auc", "utility", "disparity", "group_rates", "bootstrap_weights", "better"]


def bootstrap_weights(n: int, n_boot: int, seed: int, block: int = 64) -> Iterator[np.ndarray]:
    """Blocks of multinomial bootstrap weights (``(≤ block, n)`` int arrays), ``n_boot`` in all.

    The same ``n``, ``n_boot`` and ``seed`` give the same replicates whatever the caller does
    with them, so every model sees the same resamples.
    """
    rng = np.random.default_rng(seed)
    p = np.full(n, 1.0 / n)
    for start in range(0, n_boot, block):
        yield rng.multinomial(n, p, size=min(block, n_boot - start)).astype(np.float64)


def auc(score: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Weighted AUC of one model's ``score`` for each row of weights ``W``.

    Examples
    --------
    >>> auc(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]), np.ones((1, 4))).tolist()
    [0.75]
    """
    order = np.argsort(score, kind="stable")
    s, yy = score[order], y[order].astype(float)
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # one block per distinct score
    Ws = W[:, order]
    pos = np.add.reduceat(Ws * yy, starts, axis=1)
    neg = np.add.reduceat(Ws * (1 - yy), starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg
    num = (pos * (below + 0.5 * neg)).sum(1)
    den = pos.sum(1) * neg.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def utility(
    kind: str | Mapping[str, Any],
    scores: np.ndarray,
    decisions: np.ndarray,
    y: np.ndarray,
    W: np.ndarray,
) -> np.ndarray:
    """Utility of each model (columns) on each replicate (rows): ``(len(W), models)``.

    ``kind``: ``auc`` (from the scores), ``accuracy``, ``balanced_accuracy`` or
    ``{"profit": {"tp", "fp", "fn", "tn"}}`` (mean gain per decision), from the decisions.
    """
    if kind == "auc":
        return np.stack([auc(s, y, W) for s in scores], axis=1)
    d = decisions.T.astype(float)  # rows × models
    yy = y.astype(float)[:, None]
    tp, fp = W @ (d * yy), W @ (d * (1 - yy))
    fn, tn = W @ ((1 - d) * yy), W @ ((1 - d) * (1 - yy))
    total = W.sum(1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "accuracy":
            return (tp + tn) / total
        if kind == "balanced_accuracy":
            return 0.5 * (tp / (tp + fn) + tn / (tn + fp))
        gain = kind["profit"]
        return (gain["tp"] * tp + gain["fp"] * fp + gain["fn"] * fn + gain["tn"] * tn) / total


def _rates(decisions: np.ndarray, mask: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Weighted share of favourable decisions among ``mask`` rows: (replicates, models)."""
    m = mask.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (W @ (decisions.T * m[:, None])) / (W @ m)[:, None]


def group_rates(
    kind: str,
    decisions: np.ndarray,
    y: np.ndarray,
    groups: Sequence[tuple[np.ndarray, np.ndarray]],
    W: np.ndarray,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per attribute, the protected and reference groups' rates: (replicates, models) each.

    Selection rates, or true positive rates (among rows with a favourable outcome) for
    ``equal_opportunity``.
    """
    out = []
    for prot, ref in groups:
        if kind == "equal_opportunity":
            prot, ref = prot & (y == 1), ref & (y == 1)
        out.append((_rates(decisions, prot, W), _rates(decisions, ref, W)))
    return out


def disparity(
    kind: str,
    decisions: np.ndarray,
    y: np.ndarray,
    groups: Sequence[tuple[np.ndarray, np.ndarray]],
    W: np.ndarray,
    disadvantaged: Sequence[bool],
) -> tuple[np.ndarray, np.ndarray]:
    """The worst disparity over the protected attributes, against the disadvantaged side.

    ``groups`` holds one ``(protected rows, reference rows)`` pair of masks per attribute and
    ``disadvantaged`` says, per attribute, whether the protected group is the one the audited
    model disadvantages (else the reference group is). Measured in that direction, so that a
    candidate near parity is not folded back (``min(r, 1/r)`` would make a resample slightly
    past parity look like new disparity and ruin the paired intervals):

    * ``impact_ratio``: rate of the disadvantaged side / rate of the other, capped at 1
      (parity); the lowest attribute counts;
    * ``selection_difference``: rate of the other side − rate of the disadvantaged side,
      floored at 0; the largest counts; ``equal_opportunity``: the same with true positive
      rates.

    Returns
    -------
    (disparity, reversal)
        Both (replicates, models). ``reversal`` is the largest disparity *against the other
        side* (1/ratio below 1, or a negative gap), which a candidate must not create beyond
        the audited model's own disparity.
    """
    per, rev = [], []
    for (rp, rr), dis in zip(
        group_rates(kind, decisions, y, groups, W), disadvantaged, strict=True
    ):
        low, high = (rp, rr) if dis else (rr, rp)
        with np.errstate(invalid="ignore", divide="ignore"):
            if kind == "impact_ratio":
                r = np.where(low == high, 1.0, low / high)
                per.append(np.fmin(r, 1.0))
                rev.append(np.where(r > 1, 1 / r, 1.0))
            else:
                per.append(np.fmax(high - low, 0.0))
                rev.append(np.fmax(low - high, 0.0))
    per, rev = np.stack(per), np.stack(rev)
    if kind == "impact_ratio":
        return per.min(0), rev.min(0)
    return per.max(0), rev.max(0)


def better(kind: str, candidate: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """How much less disparity ``candidate`` has than ``baseline`` (positive = less)."""
    return candidate - baseline if kind == "impact_ratio" else baseline - candidate
