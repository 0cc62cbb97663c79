"""Confidence intervals for proportions and their differences, shared by the analyses.

The one definition of a significance level (:data:`ALPHA`), the normal quantile
(:func:`z_value`), Wilson's score interval and Newcombe's hybrid score interval of a
difference. Situation testing and the group metrics use them; analyses never import each other.
"""

from __future__ import annotations

import numpy as np

from .validation import ALPHA, Options, validate_params

__all__ = ["ALPHA", "z_value", "wilson_interval", "newcombe_bounds", "newcombe_interval"]

# ALPHA, what a significance level accepts, is defined in validation.py (numpy-free, so the
# declarations of the analyses' parameters can share it) and re-exported here.

_SIDED = [Options("one", "two")]


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
    validate_params("z_value", {"alpha": ALPHA, "sided": _SIDED}, {"alpha": alpha, "sided": sided})
    # scipy.special, imported here and not at module level: importing the package must not
    # load SciPy (scipy.stats alone cost 0.55 s of every command's start-up). ndtri is
    # correctly rounded at the usual levels (1.6448536269514722 at 5%), where the standard
    # library's NormalDist().inv_cdf is 3 ulps off (1.6448536269514715), and every interval
    # bound stays bit for bit what it was.
    from scipy.special import ndtri

    z = float(ndtri(1 - (alpha if sided == "one" else alpha / 2)))
    return round(z, 3) if legacy else z


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


def newcombe_bounds(x_c, n_c, x_t, n_t, z) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's lower and upper bounds of ``p_c - p_t`` at the normal quantile ``z``.

    ``low = Δ - sqrt((p_c - l_c)² + (u_t - p_t)²)``, ``high = Δ + sqrt((u_c - p_c)² + (p_t - l_t)²)``
    with the Wilson bounds ``(l, u)`` of each proportion at ``z``. ``z`` may be one number or
    one per entry (the p-value of situation testing bisects on it).

    Parameters
    ----------
    x_c, n_c, x_t, n_t
        Counts and sizes of the two groups (numbers or arrays).
    z
        Normal quantile (a number or an array broadcasting with the counts).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The lower and upper bounds (NaN for an empty group).

    Examples
    --------
    >>> lo, hi = newcombe_bounds(56, 70, 48, 80, 1.959963984540054)  # Newcombe (1998), Table II
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0524, 0.3339)
    """
    x_c, x_t = np.asarray(x_c, dtype=float), np.asarray(x_t, dtype=float)
    n_c, n_t = np.asarray(n_c, dtype=float), np.asarray(n_t, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_c, p_t = x_c / n_c, x_t / n_t
    l_c, u_c = wilson_interval(x_c, n_c, z)
    l_t, u_t = wilson_interval(x_t, n_t, z)
    delta = p_c - p_t
    low = delta - np.sqrt((p_c - l_c) ** 2 + (u_t - p_t) ** 2)
    high = delta + np.sqrt((u_c - p_c) ** 2 + (p_t - l_t) ** 2)
    return low, high


def newcombe_interval(
    x_c, n_c, x_t, n_t, alpha: float = 0.05, sided: str = "one", direction: str = "negative"
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval (method 10) for ``p_c - p_t = x_c/n_c - x_t/n_t``.

    Counts come as (count, size) per group.

    ``low = Δ - sqrt((p_c - l_c)² + (u_t - p_t)²)``, ``high = Δ + sqrt((u_c - p_c)² + (p_t - l_t)²)``
    with Wilson bounds ``(l, u)`` at ``z_α`` (one-sided) or ``z_{α/2}`` (two-sided).

    Examples
    --------
    >>> lo, hi = newcombe_interval(56, 70, 48, 80, sided="two")  # Newcombe (1998), Table II
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0524, 0.3339)
    """
    low, high = newcombe_bounds(x_c, n_c, x_t, n_t, z_value(alpha, sided))
    if sided == "two":
        return low, high
    if direction == "positive":
        return np.full_like(high, -np.inf), high
    return low, np.full_like(low, np.inf)
