"""Tests of a change between two audits, each checked by hand in ``tests/overtime/test_stats.py``.

Two audits of different periods are two independent samples: a rate is compared with the
two-proportion z test (pooled variance) and its change gets Newcombe's hybrid score interval
(:func:`primafacie.intervals.newcombe_bounds`); a ratio of rates is compared on the log scale
with Katz's delta-method variance. When both audits hold the *same* people (a model retrained
and re-run on one applicant pool) the samples are paired and the independent variance is
conservative (too wide); the flags of those people are compared with McNemar's exact test
(:func:`mcnemar_exact`). Every p-value of one ``diff`` is adjusted together with Holm's
step-down method (:func:`holm`), which controls the family-wise error rate.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binomtest, norm

from ..intervals import newcombe_bounds

__all__ = ["two_proportion_test", "rate_change", "ratio_change", "mcnemar_exact", "holm"]


def two_proportion_test(k1, n1, k2, n2) -> np.ndarray:
    """Two-sided p-value of H0: p1 = p2, pooled two-proportion z test (arrays broadcast).

    ``z = (p2 - p1) / sqrt(p (1 - p) (1/n1 + 1/n2))`` with the pooled ``p = (k1 + k2) / (n1
    + n2)``; a pooled rate of 0 or 1 (no variation) gives p = 1, an empty sample NaN.

    Examples
    --------
    >>> round(float(two_proportion_test(40, 100, 60, 100)), 4)  # z = 2.8284
    0.0047
    """
    k1, n1, k2, n2 = (np.asarray(v, dtype=float) for v in (k1, n1, k2, n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (k1 + k2) / (n1 + n2)
        se = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        z = (k2 / n2 - k1 / n1) / se
        p = 2 * norm.sf(np.abs(z))
    p = np.where(se == 0, 1.0, p)
    return np.where((n1 > 0) & (n2 > 0), p, np.nan)


def rate_change(k1, n1, k2, n2, alpha: float = 0.05) -> tuple[np.ndarray, ...]:
    """Change ``p2 - p1`` of a rate, its two-sided Newcombe interval and z-test p-value.

    Returns
    -------
    (change, low, high, p_value)
    """
    z = float(norm.ppf(1 - alpha / 2))
    k1, n1, k2, n2 = (np.asarray(v, dtype=float) for v in (k1, n1, k2, n2))
    # newcombe_bounds is of p_c - p_t: the new audit is "c", the old one "t"
    low, high = newcombe_bounds(k2, n2, k1, n1, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        change = k2 / n2 - k1 / n1
    return change, low, high, two_proportion_test(k1, n1, k2, n2)


def _log_ratio(k, n, rk, rn) -> tuple[np.ndarray, np.ndarray]:
    """log of (k/n)/(rk/rn) and its Katz variance ``1/k - 1/n + 1/rk - 1/rn``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        log_r = np.log((k / n) / (rk / rn))
        var = 1 / k - 1 / n + 1 / rk - 1 / rn
    return log_r, var


def ratio_change(old, new, alpha: float = 0.05) -> tuple[np.ndarray, ...]:
    """Change of a selection ratio between two independent audits.

    ``old`` and ``new`` are ``(k, n, ref_k, ref_n)``: the protected group's and the reference
    group's favourable counts and sizes. The change is ``R_new - R_old``; its interval maps the
    Wald interval of ``log(R_new / R_old)`` (variance: the sum of both Katz variances) back by
    ``R_old * (exp(bound) - 1)`` and the p-value is that Wald test's. A zero count makes the
    log undefined: NaN interval and p-value.

    Returns
    -------
    (change, low, high, p_value)

    Examples
    --------
    >>> c, lo, hi, p = ratio_change((40, 100, 60, 100), (40, 100, 60, 100))
    >>> float(c), round(float(p), 3)
    (0.0, 1.0)
    """
    z = float(norm.ppf(1 - alpha / 2))
    lo_old, var_old = _log_ratio(*(np.asarray(v, dtype=float) for v in old))
    lo_new, var_new = _log_ratio(*(np.asarray(v, dtype=float) for v in new))
    r_old, r_new = np.exp(lo_old), np.exp(lo_new)
    d = lo_new - lo_old
    se = np.sqrt(var_old + var_new)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = 2 * norm.sf(np.abs(d) / se)
    return r_new - r_old, r_old * np.expm1(d - z * se), r_old * np.expm1(d + z * se), p


def mcnemar_exact(appeared: int, disappeared: int) -> float:
    """Exact (binomial) McNemar p-value for paired flags: H0 a flag is as likely to appear as
    to disappear. Only the discordant people count; none gives p = 1.

    Examples
    --------
    >>> round(mcnemar_exact(9, 1), 4)  # 2 * P(X <= 1), X ~ Bin(10, 1/2) = 2 * 11 / 1024
    0.0215
    """
    total = int(appeared) + int(disappeared)
    if total == 0:
        return 1.0
    return float(binomtest(int(min(appeared, disappeared)), total, 0.5).pvalue)


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN stays NaN and does not count as a test).

    ``p_(i) * (m - i + 1)`` in ascending order, made monotone and capped at 1.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    order = np.argsort(p[ok], kind="stable")
    adj = np.minimum(np.maximum.accumulate(p[ok][order] * (m - np.arange(m))), 1.0)
    vals = np.empty(m)
    vals[order] = adj
    out[ok] = vals
    return out
