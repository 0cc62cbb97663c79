"""Utilities over decision-makers (disparity, uncertainty), the preference axioms, indifference.

A decision-maker is a point ``(delta, s)`` in [0, 1]^2: its disparity and the uncertainty of
that disparity. The paper's trivial preferences over the corners are
``(0,0) > (0,1) > (1,1) > (1,0)`` (certainly fair > uncertainly fair > uncertainly unfair >
certainly unfair) plus their transitive consequences (Duong & Conrad 2024, Def. 8-10).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

__all__ = [
    "u_topsis",
    "u_norm",
    "UTILITIES",
    "get_utility",
    "TRIVIAL_PREFERENCES",
    "AxiomCheck",
    "check_trivial_preferences",
    "indifference_delta",
    "indifference_curve",
]

Utility = Callable[[np.ndarray, np.ndarray], np.ndarray]


def u_topsis(delta, s) -> np.ndarray:
    """TOPSIS utility: distance to the worst corner (1, 0) minus distance to the ideal (0, 0).

    ``u = sqrt((delta - 1)^2 + s^2) - sqrt(delta^2 + s^2)`` in [-1, 1] (paper Ex. 4).
    ``u(1 - delta, s) = -u(delta, s)``, so ``u(0.5, s) = 0`` for every s.

    Parameters
    ----------
    delta, s
        Disparity and uncertainty (array-like, broadcastable, in [0, 1]).

    Returns
    -------
    numpy.ndarray
        Utility values.

    Examples
    --------
    >>> round(float(u_topsis(1.0, 0.48)), 6)
    -0.629234
    >>> float(u_topsis(0.5, 0.3))
    0.0
    """
    delta = np.asarray(delta, dtype=float)
    s = np.asarray(s, dtype=float)
    return np.hypot(delta - 1.0, s) - np.hypot(delta, s)


def u_norm(delta, s) -> np.ndarray:
    """Normalised TOPSIS utility ``(u_topsis + 1) / 2`` in [0, 1] (paper Ex. 5, eq. 16).

    Examples
    --------
    >>> round(float(u_norm(0.5, 0.430804)), 6)
    0.5
    """
    return (u_topsis(delta, s) + 1.0) / 2.0


UTILITIES: dict[str, Utility] = {"topsis": u_topsis, "norm": u_norm}


def get_utility(utility: str | Utility) -> tuple[str, Utility]:
    """Resolve a utility given by name (``"topsis"``, ``"norm"``) or as a callable."""
    if callable(utility):
        return getattr(utility, "__name__", "custom"), utility
    if utility in UTILITIES:
        return str(utility), UTILITIES[utility]
    raise InputError(f"unknown utility {utility!r}; use one of {list(UTILITIES)} or a callable")


#: The six corner preferences ``better > worse`` of Def. 8 with the transitive ones.
TRIVIAL_PREFERENCES: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = (
    ((0, 0), (0, 1)),
    ((0, 1), (1, 1)),
    ((1, 1), (1, 0)),
    ((0, 0), (1, 1)),
    ((0, 0), (1, 0)),
    ((0, 1), (1, 0)),
)


@dataclass(frozen=True)
class AxiomCheck:
    """Outcome of :func:`check_trivial_preferences`.

    ``holds`` is True when the function is total on the checked grid (finite real values)
    and satisfies all six corner preferences; ``violations`` lists the failed preferences as
    strings such as ``"u(0,1)=0.2 > u(1,1)=0.5 fails"``.
    """

    holds: bool
    corners: dict[str, float]
    violations: tuple[str, ...]
    total_on_grid: bool

    def __bool__(self) -> bool:
        return self.holds

    def to_dict(self) -> dict:
        """JSON-safe view (non-finite corner values as strings)."""
        return {
            "holds": self.holds,
            "corners": {k: (v if np.isfinite(v) else str(v)) for k, v in self.corners.items()},
            "violations": list(self.violations),
            "total_on_grid": self.total_on_grid,
        }


def check_trivial_preferences(utility: str | Utility, grid: int = 101) -> AxiomCheck:
    """Check the requirements of a utility function (paper Def. 10) for any ``u``.

    ``u`` must be total (a finite real value everywhere on [0, 1]^2; checked on a
    ``grid x grid`` lattice) and satisfy the six corner preferences strictly.

    Parameters
    ----------
    utility
        Name (``"topsis"``, ``"norm"``) or a callable ``u(delta, s)`` (vectorised, or scalar
        only: it is then evaluated point by point).
    grid
        Lattice size for the totality check.

    Returns
    -------
    AxiomCheck
        Truthy when the axioms hold.

    Examples
    --------
    >>> bool(check_trivial_preferences(u_topsis))
    True
    >>> bool(check_trivial_preferences(lambda d, s: 1 - d))  # ignores uncertainty
    False
    """
    _, u = get_utility(utility)

    def at(a, b) -> float:
        # a function undefined at a point (math.log(0), 1/0) is not total there: NaN, no crash
        try:
            with np.errstate(all="ignore"):
                return float(np.asarray(u(np.float64(a), np.float64(b))))
        except (ArithmeticError, ValueError, TypeError):
            return float("nan")

    corners: dict[str, float] = {}
    for x in (0, 1):
        for y in (0, 1):
            corners[f"u({x},{y})"] = at(x, y)
    violations = []
    for better, worse in TRIVIAL_PREFERENCES:
        ub = corners[f"u({better[0]},{better[1]})"]
        uw = corners[f"u({worse[0]},{worse[1]})"]
        if not ub > uw:
            violations.append(
                f"u({better[0]},{better[1]})={ub:.6g} > u({worse[0]},{worse[1]})={uw:.6g} fails"
            )
    d, s = np.meshgrid(np.linspace(0, 1, grid), np.linspace(0, 1, grid))
    with np.errstate(all="ignore"):
        try:
            values = np.asarray(u(d, s), dtype=float)
        except (TypeError, ValueError):
            # a scalar-only function (math.hypot, if/else): evaluate it point by point
            values = np.vectorize(at, otypes=[float])(d, s)
    total = values.shape == d.shape and bool(np.isfinite(values).all())
    if not total:
        violations.append("u is not total: non-finite or missing values on [0,1]^2")
    return AxiomCheck(not violations, corners, tuple(violations), total)


def indifference_delta(s, c: float) -> np.ndarray:
    """Disparity on the u_topsis indifference curve ``u = c`` at uncertainty ``s``.

    The level set is a branch of the hyperbola with foci (0, 0) and (1, 0):
    ``delta = 0.5 - (c / 2) sqrt(1 + 4 s^2 / (1 - c^2))``; for c = 0 it is the vertical line
    delta = 0.5 (paper eq. 19). Points outside [0, 1] are returned as NaN.

    Parameters
    ----------
    s
        Uncertainty values.
    c
        Utility level in (-1, 1).

    Returns
    -------
    numpy.ndarray
        The disparity for each s (NaN where the curve leaves the unit square).

    Examples
    --------
    >>> float(indifference_delta(0.7, 0.0))
    0.5
    >>> round(float(indifference_delta(0.0, 0.6)), 6)
    0.2
    """
    if not -1 < c < 1:
        raise InputError(f"utility level c must lie in (-1, 1), got {c!r}")
    s = np.asarray(s, dtype=float)
    delta = 0.5 - (c / 2.0) * np.sqrt(1.0 + 4.0 * s * s / (1.0 - c * c))
    return np.where((delta >= 0) & (delta <= 1), delta, np.nan)


def indifference_curve(c: float, points: int = 201) -> tuple[np.ndarray, np.ndarray]:
    """``(delta, s)`` arrays tracing the u_topsis level ``c`` inside [0, 1]^2 (for plotting)."""
    s = np.linspace(0.0, 1.0, points)
    d = indifference_delta(s, c)
    keep = np.isfinite(d)
    return d[keep], s[keep]
