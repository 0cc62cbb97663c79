"""Interval formulas of the group metrics, each tested by hand in ``tests/groups/test_stats.py``.

The Wilson interval of a rate and Newcombe's hybrid score interval of a difference are the
vectorised ones of :mod:`primafacie.intervals` (re-exported here so the group metrics
use one implementation); this module adds Katz's log interval of a ratio and the interval of
an absolute difference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..intervals import newcombe_interval, wilson_interval, z_value

__all__ = ["katz_interval", "abs_interval", "newcombe_interval", "wilson_interval", "z_value"]


def katz_interval(k1: Any, n1: Any, k2: Any, n2: Any, z: float) -> tuple[np.ndarray, ...]:
    """Ratio ``(k1/n1) / (k2/n2)`` with Katz's log interval (Katz et al. 1978).

    ``exp(log r ± z·sqrt(1/k1 − 1/n1 + 1/k2 − 1/n2))``. The ratio is NaN when ``k2 = 0`` or
    a denominator is 0 (undefined), and 0 when ``k1 = 0 < k2``; the interval is NaN whenever a
    count ``k`` is 0 (the log-scale variance is infinite there).

    Parameters
    ----------
    k1, n1
        Count and denominator of the compared (protected) group.
    k2, n2
        Count and denominator of the reference group.
    z
        Normal quantile (1.96 for a two-sided 95% interval).

    Returns
    -------
    (ratio, low, high)
        Float arrays.

    Examples
    --------
    >>> r, lo, hi = katz_interval(2, 6, 4, 6, 1.959963984540054)
    >>> round(float(r), 4), round(float(lo), 4), round(float(hi), 4)
    (0.5, 0.1411, 1.7718)
    """
    k1, n1, k2, n2 = (np.asarray(v, dtype=float) for v in (k1, n1, k2, n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (k1 / n1) / (k2 / n2)
        ratio = np.where((k2 > 0) & (n1 > 0) & (n2 > 0), ratio, np.nan)
        se = np.sqrt(1 / k1 - 1 / n1 + 1 / k2 - 1 / n2)
        ok = (k1 > 0) & (k2 > 0) & np.isfinite(ratio)
        low = np.where(ok, ratio * np.exp(-z * se), np.nan)
        high = np.where(ok, ratio * np.exp(z * se), np.nan)
    return ratio, low, high


def abs_interval(low: Any, high: Any) -> tuple[np.ndarray, np.ndarray]:
    """Interval of ``|d|`` implied by an interval ``[low, high]`` of ``d``.

    ``[0, max(|low|, |high|)]`` when the interval contains 0, else ``[min(|low|, |high|),
    max(|low|, |high|)]``.

    Examples
    --------
    >>> [v.tolist() for v in abs_interval([-0.2, 0.1, -0.5], [0.1, 0.3, -0.2])]
    [[0.0, 0.1, 0.2], [0.2, 0.3, 0.5]]
    """
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    a, b = np.abs(low), np.abs(high)
    straddles = (low <= 0) & (high >= 0)
    return np.where(straddles, 0.0, np.minimum(a, b)), np.maximum(a, b)
