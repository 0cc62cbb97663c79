"""Confidence intervals for the difference of two rejection rates, and Bonferroni.

All functions are vectorised over numpy arrays (one entry per complainant). Counts come in
one order everywhere, as in statsmodels' ``proportion_confint(count, nobs)``: the number of
negatives (successes) first, then the group size (trials), group by group —
``newcombe_interval(x_c, n_c, x_t, n_t)``. The group sizes were called ``k_c``/``k_t``
before (the paper's notation); those keyword names still work with a DeprecationWarning.

* Wald (the paper, eq. 10/11): ``w = z * sqrt(p_c(1-p_c)/n_c + p_t(1-p_t)/n_t)`` (``n`` = group size, ``k_c``/``k_t`` in the paper); one-sided
  ``[Δp - w_α, +inf)`` with ``z_α = Φ⁻¹(1-α)``; two-sided ``[Δp - w_{α/2}, Δp + w_{α/2}]``.
* Newcombe's hybrid score interval (Newcombe 1998, method 10) built from two Wilson intervals;
  better coverage for small k and never degenerate at p ∈ {0, 1}.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, TypeVar

import numpy as np
from scipy.stats import norm

from ..validation import Interval, Options, validate_params

__all__ = [
    "z_value",
    "wald_halfwidth",
    "wald_interval",
    "wilson_interval",
    "newcombe_interval",
    "bonferroni",
    "INTERVALS",
    "ALPHA",
]

#: What a significance level accepts: the one definition, used by the engines' constraints,
#: the ``audit.yaml`` models and the functions below.
ALPHA = [Interval(Real, 0, 1, closed="neither")]

_SIDED = [Options("one", "two")]
_TESTS = [Interval(Integral, 1, None)]

_F = TypeVar("_F", bound=Callable[..., Any])
#: Old keyword names of the group sizes (the paper's k_c, k_t) -> the current ones.
_SIZE_NAMES = {"k_c": "n_c", "k_t": "n_t"}


def _renamed_sizes(func: _F) -> _F:
    """Accept the old keyword names ``k_c``/``k_t`` of the group sizes, with a warning."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        renamed = {old: new for old, new in _SIZE_NAMES.items() if old in kwargs}
        if renamed:
            warnings.warn(
                f"{func.__name__}({', '.join(f'{o}=...' for o in renamed)}) is deprecated; call "
                f"it {', '.join(f'{n}=...' for n in renamed.values())} (counts come as "
                "(negatives, size) everywhere)",
                DeprecationWarning,
                stacklevel=2,
            )
            for old, new in renamed.items():
                kwargs[new] = kwargs.pop(old)
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


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
    validate_params("z_value", {"alpha": ALPHA, "sided": _SIDED}, {"alpha": alpha, "sided": sided})
    z = float(norm.ppf(1 - (alpha if sided == "one" else alpha / 2)))
    return round(z, 3) if legacy else z


@_renamed_sizes
def wald_halfwidth(p_c, p_t, n_c, n_t, z: float) -> np.ndarray:
    """``z * sqrt(p_c(1-p_c)/n_c + p_t(1-p_t)/n_t)`` (NaN where a group is empty).

    Examples
    --------
    >>> round(float(wald_halfwidth(13 / 16, 0.0, 16, 16, 1.645)), 4)
    0.1605
    """
    p_c, p_t = np.asarray(p_c, dtype=float), np.asarray(p_t, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = p_c * (1 - p_c) / np.asarray(n_c, dtype=float) + p_t * (1 - p_t) / np.asarray(
            n_t, dtype=float
        )
    return z * np.sqrt(var)


@_renamed_sizes
def wald_interval(
    p_c,
    p_t,
    n_c,
    n_t,
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
    n_c, n_t
        Group sizes (``k_c``/``k_t`` are deprecated names).
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
    w = wald_halfwidth(p_c, p_t, n_c, n_t, z)
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


@_renamed_sizes
def newcombe_interval(
    x_c, n_c, x_t, n_t, alpha: float = 0.05, sided: str = "one", direction: str = "negative"
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval (method 10) for ``p_c - p_t = x_c/n_c - x_t/n_t``.

    Counts come as (negatives, size) per group; ``k_c``/``k_t`` are deprecated names of
    ``n_c``/``n_t``.

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
    n_c, n_t = np.asarray(n_c, dtype=float), np.asarray(n_t, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_c, p_t = x_c / n_c, x_t / n_t
    l_c, u_c = wilson_interval(x_c, n_c, z)
    l_t, u_t = wilson_interval(x_t, n_t, z)
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
    validate_params("bonferroni", {"alpha": ALPHA, "q": _TESTS}, {"alpha": alpha, "q": q})
    return alpha / q
