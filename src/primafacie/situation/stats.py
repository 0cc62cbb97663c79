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

P-values are the duals of these intervals (issue 15): the p-value of ``H0: π = τ`` is the
smallest α at which the interval excludes τ, so ``p ≤ α`` exactly when the interval at α
excludes τ. For Wald this is the z-test, ``p = 1 − Φ((Δp − τ) / se)`` (one-sided, negative
direction); for Newcombe, which has no closed form, the crossing point is found by bisection on
z, vectorised over complainants (:func:`newcombe_p_value`).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from numbers import Integral
from typing import Any, TypeVar

import numpy as np

from .. import intervals as _intervals
from ..intervals import ALPHA, newcombe_bounds, wilson_interval, z_value
from ..normal import ndtr
from ..validation import Interval, validate_params
from .params import INTERVALS  # declared once, beside the parameter that takes it

__all__ = [
    "z_value",
    "wald_halfwidth",
    "wald_interval",
    "wilson_interval",
    "newcombe_interval",
    "bonferroni",
    "wald_p_value",
    "newcombe_p_value",
    "consistent_p",
    "test_p_values",
    "distinct_counts",
    "INTERVALS",
    "ALPHA",
]

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


#: Newcombe's interval (:mod:`primafacie.intervals`), accepting the deprecated ``k_c``/``k_t``.
newcombe_interval = _renamed_sizes(_intervals.newcombe_interval)


def bonferroni(alpha: float, q: int) -> float:
    """Per-test level ``α / q`` for q simultaneous tests (multiple discrimination).

    Examples
    --------
    >>> bonferroni(0.05, 2)
    0.025
    """
    validate_params("bonferroni", {"alpha": ALPHA, "q": _TESTS}, {"alpha": alpha, "q": q})
    return alpha / q


def _side_p(zstat: np.ndarray, sided: str, direction: str) -> np.ndarray:
    """p-value of a standardised statistic: upper tail (negative direction), lower tail
    (positive direction) or both (two-sided)."""
    # ndtr(-z) and ndtr(z) are what scipy.stats.norm.sf and .cdf compute, bit for bit;
    # primafacie.normal's is SciPy's without importing it (start-up).
    if sided == "two":
        return np.minimum(1.0, 2 * ndtr(-np.abs(zstat)))
    return ndtr(-zstat) if direction == "negative" else ndtr(zstat)


@_renamed_sizes
def wald_p_value(
    x_c, n_c, x_t, n_t, tau: float = 0.0, sided: str = "one", direction: str = "negative"
) -> np.ndarray:
    """z-test p-value of ``H0: π = τ``, the dual of :func:`wald_interval`.

    ``z = (Δp − τ) / se`` with ``se = sqrt(p_c(1−p_c)/n_c + p_t(1−p_t)/n_t)`` (the unpooled
    standard error of the Wald interval, so the two agree): ``p = 1 − Φ(z)`` for negative
    discrimination (``H1: π > τ``), ``Φ(z)`` for positive (``H1: π < τ``), ``2(1 − Φ(|z|))``
    two-sided. When ``se = 0`` (both rates 0 or 1) the interval is a point, so ``z = ±inf``
    (p = 0 or 1) unless ``Δp = τ`` (z = 0). An empty group gives NaN.

    Parameters
    ----------
    x_c, n_c, x_t, n_t
        Negatives and sizes of the control and test groups (arrays or scalars).
    tau
        The null difference τ.
    sided
        ``"one"`` (the ``significant`` flag) or ``"two"`` (the two-sided interval).
    direction
        ``"negative"`` or ``"positive"`` (one-sided only).

    Returns
    -------
    numpy.ndarray
        One p-value per entry; ``p ≤ α`` exactly when :func:`wald_interval` at α excludes τ.

    Examples
    --------
    >>> # Δp = 10/15 − 3/15 = 0.4667, se = sqrt(0.2222/15 + 0.16/15) = 0.1596, z = 2.9235
    >>> round(float(wald_p_value(10, 15, 3, 15)), 5)
    0.00173
    """
    x_c, n_c = np.asarray(x_c, dtype=float), np.asarray(n_c, dtype=float)
    x_t, n_t = np.asarray(x_t, dtype=float), np.asarray(n_t, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_c, p_t = x_c / n_c, x_t / n_t
        se = np.sqrt(p_c * (1 - p_c) / n_c + p_t * (1 - p_t) / n_t)
        diff = p_c - p_t - tau
        # a point interval: Δp itself decides (the sign of Δp − τ, 0 at Δp = τ)
        point = np.where(diff > 0, np.inf, np.where(diff < 0, -np.inf, 0.0))
        zstat = np.where(se > 0, diff / np.where(se > 0, se, 1.0), point)
    zstat = np.where(np.isnan(diff) | (n_c <= 0) | (n_t <= 0), np.nan, zstat)
    return np.asarray(_side_p(zstat, sided, direction), dtype=float)


#: Counts up to this bound are packed four to an int64 key for :func:`distinct_counts`.
_PACK = 1 << 15


def distinct_counts(*counts: Any) -> tuple[tuple[np.ndarray, ...], np.ndarray] | None:
    """The distinct count tuples of same-shaped arrays, and where each entry's tuple is.

    A per-complainant statistic depends only on its integer counts (negatives and sizes of
    both groups), and a block of any size holds few distinct tuples (at most (k+1)² at a
    given k), so it is computed once per tuple and broadcast back with ``inverse``.

    Parameters
    ----------
    *counts
        Arrays of one shape (at most four: they are packed into one int64 key).

    Returns
    -------
    ((numpy.ndarray, ...), numpy.ndarray) or None
        The distinct tuples (one float array per input, in increasing key order) and the
        flat ``inverse`` (``uniq[j][inverse] == counts[j].ravel()``); ``None`` when an entry
        is not a whole number in ``[0, 32768)`` (NaN, negative, fractional: computed row by
        row instead).

    Examples
    --------
    >>> (xs, ns), inv = distinct_counts(np.array([3, 1, 3]), np.array([5, 5, 5]))
    >>> xs.tolist(), ns.tolist(), inv.tolist()
    ([1.0, 3.0], [5.0, 5.0], [1, 0, 1])
    """
    if not 1 <= len(counts) <= 4:
        raise ValueError(f"distinct_counts packs 1 to 4 arrays, got {len(counts)}")
    flat = [np.asarray(c, dtype=float).ravel() for c in counts]
    key = np.zeros(flat[0].shape, dtype=np.int64)
    for c in flat:
        with np.errstate(invalid="ignore"):
            whole = (c >= 0) & (c < _PACK) & (c == np.floor(c))
        if not whole.all():
            return None
        key = key * _PACK + c.astype(np.int64)
    # np.unique's result by hashing (pandas.factorize, O(n)) then sorting the few distinct
    # keys: a 262,144-row block took 26 ms with np.unique's sort of every key, 9 ms this way
    import pandas as pd

    codes, keys = pd.factorize(key)
    order = np.argsort(keys, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    uniq = keys[order]
    # each count back from its digits of the key (whole numbers below _PACK: exact)
    digits = tuple(
        ((uniq // _PACK ** (len(flat) - 1 - j)) % _PACK).astype(float) for j in range(len(flat))
    )
    return digits, rank[codes].ravel()


#: Bisection on z in [0, _Z_MAX]: 1 − Φ(40) underflows to 0, so a bound still beyond τ at
#: z = 40 gives p = 0; 80 halvings bring the bracket below 1e-22 in z.
_Z_MAX, _BISECTIONS = 40.0, 80


@_renamed_sizes
def newcombe_p_value(
    x_c, n_c, x_t, n_t, tau: float = 0.0, sided: str = "one", direction: str = "negative"
) -> np.ndarray:
    """p-value dual to :func:`newcombe_interval`: the smallest α at which it excludes τ.

    Newcombe's bounds move monotonically away from Δp as z grows (each Wilson bound does), so
    the z* where the bound crosses τ is unique and found by bisection on ``[0, 40]``,
    vectorised over the entries. Then ``p = 1 − Φ(z*)`` one-sided (the lower bound for
    negative discrimination, the upper for positive), ``2(1 − Φ(z*))`` two-sided (whichever
    bound crosses). When Δp lies on the wrong side of τ, the other bound's crossing gives
    ``p = Φ(z*) ≥ 0.5`` (one-sided); ``Δp = τ`` gives 0.5 one-sided, 1 two-sided.

    Parameters
    ----------
    x_c, n_c, x_t, n_t
        Negatives and sizes of the control and test groups.
    tau
        The null difference τ.
    sided
        ``"one"`` or ``"two"``.
    direction
        ``"negative"`` or ``"positive"`` (one-sided only).

    Returns
    -------
    numpy.ndarray
        p-values; ``p ≤ α`` exactly when ``newcombe_interval(..., alpha=α)`` excludes τ (up to
        the 1e-22 bracket of z*). NaN for an empty group.

    Examples
    --------
    >>> lo, _ = newcombe_interval(56, 70, 48, 80, alpha=0.05, sided="two")
    >>> p = float(newcombe_p_value(56, 70, 48, 80, tau=float(lo), sided="two"))
    >>> round(p, 6)  # τ on the 95% bound: the smallest α that excludes it is 0.05
    0.05
    """
    # The bisection depends on the counts only: it runs once per distinct count tuple (at
    # most (k+1)² of them in a block of any size) and is broadcast back.
    zstat = _newcombe_zstat_distinct(x_c, n_c, x_t, n_t, tau)
    return np.asarray(_side_p(zstat, sided, direction), dtype=float)


def _newcombe_zstat(
    x_c: np.ndarray, n_c: np.ndarray, x_t: np.ndarray, n_t: np.ndarray, tau: float
) -> np.ndarray:
    """The signed crossing point ``±z*`` of :func:`newcombe_p_value`, entry by entry (same-
    shaped float arrays); the one- and two-sided p-values are both read from it.

    Bisection keeps ``lo`` where the bound is beyond τ and ``hi`` where it is not; once
    ``(lo + hi) / 2`` rounds to ``lo`` or ``hi`` an entry is at a fixed point (no later halving
    changes it), so the loop stops when every entry whose z* is used is there (about 58 of
    the 80 halvings for z* near 2): bit for bit what the 80 halvings give.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        diff = x_c / n_c - x_t / n_t - tau
    # Which bound must cross τ: the lower one when Δp > τ, else the upper one.
    above = diff > 0

    def beyond(z: np.ndarray) -> np.ndarray:
        low, high = newcombe_bounds(x_c, n_c, x_t, n_t, z)
        return np.where(above, low > tau, high < tau)

    never = beyond(np.full(diff.shape, _Z_MAX))  # still beyond τ at z = 40: p = 0
    unused = never | (diff == 0) | np.isnan(diff) | (n_c <= 0) | (n_t <= 0)
    lo = np.zeros(diff.shape)
    hi = np.full(diff.shape, _Z_MAX)
    for _ in range(_BISECTIONS):  # halvings over all entries at once
        mid = (lo + hi) / 2
        if ((mid == lo) | (mid == hi) | unused).all():
            break
        out = beyond(mid)
        lo = np.where(out, mid, lo)
        hi = np.where(out, hi, mid)
    zstar = np.where(never, np.inf, lo)
    zstat = np.where(diff == 0, 0.0, np.where(above, zstar, -zstar))
    return np.where(np.isnan(diff) | (n_c <= 0) | (n_t <= 0), np.nan, zstat)


def _newcombe_zstat_distinct(x_c, n_c, x_t, n_t, tau) -> np.ndarray:
    """:func:`_newcombe_zstat` once per distinct count tuple, broadcast back (every step is
    elementwise, so each entry is bit for bit its row-by-row value)."""
    x_c, n_c = np.asarray(x_c, dtype=float), np.asarray(n_c, dtype=float)
    x_t, n_t = np.asarray(x_t, dtype=float), np.asarray(n_t, dtype=float)
    x_c, n_c, x_t, n_t = np.broadcast_arrays(x_c, n_c, x_t, n_t)
    distinct = distinct_counts(x_c, n_c, x_t, n_t) if np.ndim(tau) == 0 else None
    if distinct is None:
        return _newcombe_zstat(x_c, n_c, x_t, n_t, tau)
    uniq, inverse = distinct
    return _newcombe_zstat(*uniq, tau)[inverse].reshape(x_c.shape)


def consistent_p(p, significant, alpha: float) -> np.ndarray:
    """Align p-values with the decisions the engine took at level α.

    The engine's flag compares bounds rounded to 9 decimals (3 in legacy mode, where z is
    also rounded to 1.645), so at the boundary a p-value computed exactly can fall on the
    other side of α. There the decision wins: a significant case gets ``min(p, α)`` and a
    non-significant one at least the next float above α. Nothing else changes; the tests
    show that only p-values within rounding of α move.

    Parameters
    ----------
    p
        p-values (NaN for untested complainants).
    significant
        The engine's flags at level α.
    alpha
        The level of the flags.

    Returns
    -------
    numpy.ndarray
        p-values with ``p ≤ α`` exactly where ``significant``.

    Examples
    --------
    >>> consistent_p([0.0500001, 0.04], [True, False], 0.05).tolist()
    [0.05, 0.05000000000000001]
    """
    p = np.asarray(p, dtype=float)
    sig = np.asarray(significant, dtype=bool)
    p = np.where(sig & (p > alpha), alpha, p)
    return np.where(~sig & (p <= alpha), np.nextafter(alpha, 1.0), p)


def test_p_values(
    counts: dict,
    tau: float,
    interval: str,
    direction: str,
    alpha: float,
    significant,
    two_sided: tuple,
) -> tuple[np.ndarray, np.ndarray]:
    """The engine's one- and two-sided p-values, consistent with its decisions at α.

    Parameters
    ----------
    counts
        ``{"x_c", "n_c", "x_t", "n_t"}`` arrays (negatives and sizes of both groups).
    tau, interval, direction, alpha
        The run's settings (``interval`` ``"wald"`` or ``"newcombe"``/``"wilson"``).
    significant
        The engine's one-sided flags at α (``p_value ≤ α`` exactly there).
    two_sided
        ``(low, high)`` of the two-sided interval (``p_value_two ≤ α`` exactly where it
        excludes τ).

    Returns
    -------
    (p_value, p_value_two)
        NaN where a group is empty.
    """
    args = (counts["x_c"], counts["n_c"], counts["x_t"], counts["n_t"])
    if interval == "wald":
        p1 = wald_p_value(*args, tau=tau, sided="one", direction=direction)
        p2 = wald_p_value(*args, tau=tau, sided="two")
    else:
        # one bisection for both: z* does not depend on the side, only the tail read from it
        zstat = _newcombe_zstat_distinct(*args, tau)
        p1 = np.asarray(_side_p(zstat, "one", direction), dtype=float)
        p2 = np.asarray(_side_p(zstat, "two", direction), dtype=float)
    lo2, hi2 = (np.asarray(b, dtype=float) for b in two_sided)
    with np.errstate(invalid="ignore"):
        excluded = (lo2 > tau) | (hi2 < tau)
    nan = np.isnan(p1)
    p1 = np.where(nan, np.nan, consistent_p(p1, significant, alpha))
    p2 = np.where(nan, np.nan, consistent_p(p2, excluded, alpha))
    return p1, p2
