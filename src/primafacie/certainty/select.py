"""Ranking decision-makers by utility (with ties) and selecting the optimal one (paper §5.3)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError

__all__ = ["rank", "select_optimal", "TIE_DECIMALS"]

#: Utilities are compared after rounding to this many decimals, so values that differ only by
#: floating-point noise (summation order) count as tied.
TIE_DECIMALS = 12


def _keys(utility, tie_decimals: int) -> np.ndarray:
    u = np.asarray(utility, dtype=float)
    if u.ndim != 1:
        raise InputError(f"utilities must be a 1-D array, got shape {u.shape}")
    if np.isnan(u).any():
        raise InputError("a utility is NaN; every decision-maker needs a finite utility")
    return np.round(u, tie_decimals)


def rank(utility, tie_decimals: int = TIE_DECIMALS) -> tuple[np.ndarray, np.ndarray]:
    """Rank decision-makers by descending utility; equal utilities share a rank.

    Parameters
    ----------
    utility
        1-D array of utilities.
    tie_decimals
        Utilities equal after rounding to this many decimals are tied.

    Returns
    -------
    (order, ranks)
        ``order`` sorts the decision-makers best first (stable: input order within a tie);
        ``ranks`` gives each decision-maker the competition rank ("1224"): the best position
        of its tie group. The paper's positions inside a tie are arbitrary (an unstable sort).

    Examples
    --------
    >>> order, ranks = rank([0.2, 0.9, 0.2, -0.1])
    >>> order.tolist(), ranks.tolist()
    ([1, 0, 2, 3], [2, 1, 2, 4])
    """
    key = _keys(utility, tie_decimals)
    order = np.argsort(-key, kind="stable")
    sorted_key = key[order]
    new_group = np.empty(len(key), dtype=bool)
    if len(key):
        new_group[0] = True
        new_group[1:] = sorted_key[1:] != sorted_key[:-1]
    starts = np.flatnonzero(new_group)
    group_of = np.cumsum(new_group) - 1
    ranks = np.empty(len(key), dtype=np.int64)
    ranks[order] = starts[group_of] + 1
    return order, ranks


def select_optimal(
    utility, tiebreak=None, tie_decimals: int = TIE_DECIMALS
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the decision-makers with the highest utility, before and after a tie-break.

    Parameters
    ----------
    utility
        1-D array of utilities.
    tiebreak
        Optional secondary key of the same length, higher is better (for example accuracy,
        as the paper suggests for its SVM/RF tie). NaN never wins.
    tie_decimals
        Tie tolerance, see :func:`rank`.

    Returns
    -------
    (best, chosen)
        ``best``: every index attaining the maximum utility. ``chosen``: the subset of
        ``best`` that also maximises ``tiebreak`` (equal to ``best`` without a tie-break;
        several indices remain when the tie-break ties too).

    Examples
    --------
    >>> best, chosen = select_optimal([-0.75, 0.1, -0.75], tiebreak=[0.7, 0.6, 0.71])
    >>> best.tolist(), chosen.tolist()
    ([1], [1])
    >>> best, chosen = select_optimal([0.3, 0.3, 0.1], tiebreak=[0.6, 0.7, 0.9])
    >>> best.tolist(), chosen.tolist()
    ([0, 1], [1])
    """
    key = _keys(utility, tie_decimals)
    if key.size == 0:
        raise InputError("no decision-maker to select from")
    best = np.flatnonzero(key == key.max())
    if tiebreak is None or len(best) == 1:
        return best, best
    tb = np.asarray(tiebreak, dtype=float)
    if tb.shape != key.shape:
        raise InputError(f"the tie-breaker has {tb.size} values for {key.size} decision-makers")
    sub = np.where(np.isnan(tb[best]), -np.inf, tb[best])
    return best, best[sub == sub.max()]
