"""Confidence intervals for the difference of two rejection rates, and Bonferroni.

All functions are vectorised over numpy arrays (one entry per complainant).

* Wald (the paper, eq. 10/11): ``w = z * sqrt(p_c(1-p_c)/k_c + p_t(1-p_t)/k_t)``; one-sided
  ``[Δp - w_α, +inf)`` with ``z_α = Φ⁻¹(1-α)``; two-sided ``[Δp - w_{α/2}, Δp + w_{α/2}]``.
* Newcombe's hybrid score interval (Newcombe 1998, method 10) built from two Wilson intervals;
  better coverage for small k and never degenerate at p ∈ {0, 1}.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from ..errors import InputError

__all__ = [
    "z_value",
    "wald_halfwidth",
    "wald_interval",
    "wilson_interval",
    "newcombe_interval",
    "bonferroni",
    "INTERVALS",
]

#: Interval methods accepted by the engine ("wilson" is an alias of "newcombe": the
#: difference interval built from two Wilson score intervals).
INTERVALS = ("wald", "newcombe", "wilson")


def z_value(alpha: float, sided: str = "one", legacy: bool = False) -> float:
    """Normal quantile for a one-sided (``1 - α``) or two-sided (``1 - α/2``) interval.

    Parameters
    ----------
    alpha
        Significance level in (0, 1).
    sided
        ``"one"`` or ``"two"``.
    legacy
        Round to 3 decimals as the CST authors' code does (1.645, 1.96).

    Returns
    -------
    float

    Examples
    --------
    >>> z_value(0.05, legacy=True), z_value(0.05, "two", legacy=True)
    (1.645, 1.96)
    """
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    if sided not in ("one", "two"):
        raise InputError(f"sided must be 'one' or 'two', got {sided!r}")
    z = float(norm.ppf(1 - (alpha if sided == "one" else alpha / 2)))
    return round(z, 3) if legacy else z


def wald_halfwidth(p_c, p_t, k_c, k_t, z: float) -> np.ndarray:
    """``z * sqrt(p_c(1-p_c)/k_c + p_t(1-p_t)/k_t)`` (NaN where a group is empty).

    Examples
    --------
    >>> round(float(wald_halfwidth(13 / 16, 0.0, 16, 16, 1.645)), 4)
    0.1605
    """
    p_c, p_t = np.asarray(p_c, dtype=float), np.asarray(p_t, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = p_c * (1 - p_c) / np.asarray(k_c, dtype=float) + p_t * (1 - p_t) / np.asarray(
            k_t, dtype=float
        )
    return z * np.sqrt(var)


def wald_interval(
    p_c,
    p_t,
    k_c,
    k_t,
    alpha: float = 0.05,
    sided: str = "one",
    direction: str = "negative",
    legacy: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Wald interval for ``Δp = p_c - p_t``.

    Parameters
    ----------
    p_c, p_t
        Rejection rates of the control and test groups.
    k_c, k_t
        Group sizes.
    alpha
        Significance level.
    sided
        ``"one"``: ``[Δp - w_α, +inf)`` for negative discrimination, ``(-inf, Δp + w_α]`` for
        positive; ``"two"``: ``[Δp - w_{α/2}, Δp + w_{α/2}]``.
    direction
        ``"negative"`` or ``"positive"`` (only used when one-sided).
    legacy
        Use z rounded to 3 decimals.

    Returns
    -------
    (low, high)
        Arrays; infinite bounds are ``±inf``.

    Examples
    --------
    >>> lo, hi = wald_interval(13 / 16, 0.0, 16, 16)
    >>> round(float(lo), 2), float(hi)
    (0.65, inf)
    """
    z = z_value(alpha, sided, legacy)
    w = wald_halfwidth(p_c, p_t, k_c, k_t, z)
    delta = np.asarray(p_c, dtype=float) - np.asarray(p_t, dtype=float)
    if sided == "two":
        return delta - w, delta + w
    if direction == "positive":
        return np.full_like(delta, -np.inf), delta + w
    return delta - w, np.full_like(delta, np.inf)


def wilson_interval(x, n, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a proportion ``x / n`` with normal quantile ``z``.

    Examples
    --------
    >>> lo, hi = wilson_interval(0, 10, 1.959963984540054)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.2775)
    """
    x = np.asarray(x, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = x / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def newcombe_interval(
    x_c, k_c, x_t, k_t, alpha: float = 0.05, sided: str = "one", direction: str = "negative"
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval (method 10) for ``p_c - p_t`` with counts ``x``.

    ``low = Δ - sqrt((p_c - l_c)² + (u_t - p_t)²)``, ``high = Δ + sqrt((u_c - p_c)² + (p_t - l_t)²)``
    with Wilson bounds ``(l, u)`` at ``z_α`` (one-sided) or ``z_{α/2}`` (two-sided).

    Examples
    --------
    >>> lo, hi = newcombe_interval(56, 70, 48, 80, sided="two")  # Newcombe (1998), Table II
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0524, 0.3339)
    """
    z = z_value(alpha, sided)
    x_c, x_t = np.asarray(x_c, dtype=float), np.asarray(x_t, dtype=float)
    k_c, k_t = np.asarray(k_c, dtype=float), np.asarray(k_t, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_c, p_t = x_c / k_c, x_t / k_t
    l_c, u_c = wilson_interval(x_c, k_c, z)
    l_t, u_t = wilson_interval(x_t, k_t, z)
    delta = p_c - p_t
    low = delta - np.sqrt((p_c - l_c) ** 2 + (u_t - p_t) ** 2)
    high = delta + np.sqrt((u_c - p_c) ** 2 + (p_t - l_t) ** 2)
    if sided == "two":
        return low, high
    if direction == "positive":
        return np.full_like(delta, -np.inf), high
    return low, np.full_like(delta, np.inf)


def bonferroni(alpha: float, q: int) -> float:
    """Per-test level ``α / q`` for q simultaneous tests (multiple discrimination).

    Examples
    --------
    >>> bonferroni(0.05, 2)
    0.025
    """
    if q < 1:
        raise InputError(f"the number of tests must be at least 1, got {q}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    return alpha / q
