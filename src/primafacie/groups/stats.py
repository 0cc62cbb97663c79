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

__all__ = [
    "abs_interval",
    "fisher_exact_p",
    "katz_interval",
    "newcombe_interval",
    "pooled_z",
    "shortfall",
    "wilson_interval",
    "z_value",
]


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


#: Relative tolerance when Fisher's two-sided test collects the tables "as or less likely" than
#: the observed one: tables whose probability equals the observed one up to rounding count
#: (R's ``fisher.test`` uses the same 1 + 1e-7).
_FISHER_REL_TOL = 1e-7


def fisher_exact_p(k1: Any, n1: Any, k2: Any, n2: Any) -> np.ndarray:
    """Two-sided p-value of Fisher's exact test of equal rates ``k1/n1`` vs ``k2/n2``.

    Conditional on the margins, the favourable count of group 1 is hypergeometric; the p-value
    sums the probabilities of every table no more likely than the observed one (relative
    tolerance 1e-7, as in R's ``fisher.test``). Probabilities are computed in log space and
    normalised over the support, so 10^6-row groups are exact to rounding. One vectorised pass
    per comparison (a handful per audit); NaN when a denominator is 0.

    Parameters
    ----------
    k1, n1
        Favourable decisions and members of the protected group.
    k2, n2
        The same for the reference group.

    Returns
    -------
    numpy.ndarray
        Float p-values, one per comparison.

    Examples
    --------
    Fisher's tea-tasting table (3 of 4 vs 1 of 4): p = 34/70.

    >>> float(fisher_exact_p(3, 4, 1, 4)[0]) == 34 / 70
    True
    """
    from scipy.special import gammaln  # only the group comparisons need it: not at start-up

    k1, n1, k2, n2 = (np.atleast_1d(np.asarray(v, dtype=np.int64)) for v in (k1, n1, k2, n2))
    out = np.full(k1.shape, np.nan)
    for i in range(k1.size):  # one comparison per protected group, each vectorised over tables
        a, m, b, n = int(k1[i]), int(n1[i]), int(k2[i]), int(n2[i])
        if m <= 0 or n <= 0:
            continue
        total = a + b
        x = np.arange(max(0, total - n), min(m, total) + 1)
        logp = (
            gammaln(m + 1) - gammaln(x + 1) - gammaln(m - x + 1)
            + gammaln(n + 1) - gammaln(total - x + 1) - gammaln(n - total + x + 1)
        )  # fmt: skip
        logp -= logp.max()
        p = np.exp(logp)
        observed = p[a - x[0]]
        out[i] = min(1.0, p[p <= observed * (1 + _FISHER_REL_TOL)].sum() / p.sum())
    return out


def pooled_z(k1: Any, n1: Any, k2: Any, n2: Any) -> np.ndarray:
    """Two-proportion z statistic with the pooled variance (the "two standard deviations" test).

    ``z = (k1/n1 − k2/n2) / sqrt(P (1 − P) (1/n1 + 1/n2))`` with ``P = (k1 + k2)/(n1 + n2)``;
    negative when group 1 is selected less often. NaN when a denominator is 0 or every row
    shares one decision (P = 0 or 1: no variance).

    Examples
    --------
    >>> round(float(pooled_z(20, 100, 40, 100)[0]), 4)
    -3.0861
    """
    k1, n1, k2, n2 = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (k1, n1, k2, n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (k1 + k2) / (n1 + n2)
        se = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        z = (k1 / n1 - k2 / n2) / se
    return np.where((n1 > 0) & (n2 > 0) & (se > 0), z, np.nan)


def shortfall(k1: Any, n1: Any, k2: Any, n2: Any) -> np.ndarray:
    """Additional favourable decisions group 1 would need to reach group 2's rate.

    ``n1 · k2/n2 − k1``, and 0 when group 1's rate is already at least group 2's (no shortfall).
    A count of people, so it is usually read rounded up; it is returned unrounded. NaN when a
    denominator is 0.

    Examples
    --------
    >>> shortfall([20, 50], [100, 100], [40, 40], [100, 100]).tolist()
    [20.0, 0.0]
    """
    k1, n1, k2, n2 = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (k1, n1, k2, n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.maximum(n1 * (k2 / n2) - k1, 0.0)
    return np.where((n1 > 0) & (n2 > 0), gap, np.nan)
