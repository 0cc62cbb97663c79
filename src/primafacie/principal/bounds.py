"""Closed-form quantities per cell: Proposition 1, Corollary 1, Definitions 3 and 4.

Every function takes ``p`` with shape ``(C, 2, 2, 2)``, ``p[c, a, s, y] = pr(S=s, Y=y | A=a)``
(the paper's ``p'_{sya}``), and is vectorised over cells ``c``. The p'-form of the formulas is
used (``q_{ay} p_{ay} = p'_{1ya}``, ``(1 - q_{ay}) p_{ay} = p'_{0ya}``) so an empty (A, Y) cell,
where ``q`` is undefined, needs no special case (spec §7).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Prop1Bounds", "prop1_bounds", "corollary1", "def3_gap", "def4_bounds", "stratum_bounds"]


@dataclass(frozen=True)
class Prop1Bounds:
    """Sharp separate bounds on tau1 and tau0 (normalised differences), arrays of shape ``(C,)``.

    ``d1 = p_{01} - p_{10}`` and ``d0 = p_{10} - p_{01}`` are the smallest possible sizes of the
    strata (1,1) and (0,0); the bounds are ``[-1, 1]`` where the relevant ``d`` is not positive
    (``d <= D_TOL``, 1e-12, counts as 0: floating-point noise of an exact tie).
    """

    tau1_lower: np.ndarray
    tau1_upper: np.ndarray
    tau0_lower: np.ndarray
    tau0_upper: np.ndarray
    d1: np.ndarray
    d0: np.ndarray


#: A smallest stratum size ``d`` at or below this is rounding noise of an exact 0 (``p01`` and
#: ``p10`` are sums of floats): dividing by it would give nonsense such as Lower > Upper.
D_TOL = 1e-12


def _pp(p: np.ndarray, s: int, y: int, a: int) -> np.ndarray:
    """The paper's ``p'_{sya}`` across cells."""
    return p[:, a, s, y]


def prop1_bounds(p: np.ndarray) -> Prop1Bounds:
    """Proposition 1 (Jiang, Ding & Geng 2016, Prop. A.4) per cell.

    Parameters
    ----------
    p
        ``(C, 2, 2, 2)`` estimated ``pr(S=s, Y=y | A=a)`` indexed ``[c, a, s, y]``.

    Returns
    -------
    Prop1Bounds

    Examples
    --------
    Table 4 of the paper (d0 = 0.93 - 0.36 = 0.57): tau0 in [-11/57, -1/57].

    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> b = prop1_bounds(p[None])
    >>> round(float(b.tau0_lower[0]), 5), round(float(b.tau0_upper[0]), 5), float(b.tau1_lower[0])
    (-0.19298, -0.01754, -1.0)
    """
    p = np.asarray(p, dtype=float)
    p01 = p[:, 0, :, 1].sum(axis=1)  # pr(Y=1 | A=0)
    p10 = p[:, 1, :, 0].sum(axis=1)  # pr(Y=0 | A=1)
    d1 = p01 - p10
    d0 = p10 - p01
    with np.errstate(divide="ignore", invalid="ignore"):
        pos1 = d1 > D_TOL
        s1 = np.where(pos1, d1, 1.0)
        l1 = np.maximum(0.0, 1.0 - _pp(p, 0, 1, 1) / s1) - np.minimum(1.0, _pp(p, 1, 1, 0) / s1)
        u1 = np.minimum(1.0, _pp(p, 1, 1, 1) / s1) + np.minimum(0.0, _pp(p, 0, 1, 0) / s1 - 1.0)
        pos0 = d0 > D_TOL
        s0 = np.where(pos0, d0, 1.0)
        l0 = np.maximum(0.0, 1.0 - _pp(p, 0, 0, 1) / s0) - np.minimum(1.0, _pp(p, 1, 0, 0) / s0)
        u0 = np.minimum(1.0, _pp(p, 1, 0, 1) / s0) + np.minimum(0.0, _pp(p, 0, 0, 0) / s0 - 1.0)
    return Prop1Bounds(
        tau1_lower=np.where(pos1, l1, -1.0),
        tau1_upper=np.where(pos1, u1, 1.0),
        tau0_lower=np.where(pos0, l0, -1.0),
        tau0_upper=np.where(pos0, u0, 1.0),
        d1=d1,
        d0=d0,
    )


def corollary1(p: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """The four violation checks of Corollary 1, ``(C, 4)`` booleans.

    Columns: (1) violated because Lower(tau1) > 0, (1) violated because Upper(tau1) < 0,
    (2) violated because Lower(tau0) > 0, (2) violated because Upper(tau0) < 0. A check fires when
    its inequality *holds* by more than ``tol`` (the paper says "fails": a typo, spec §3).

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> corollary1(p[None]).tolist()   # 0.03 + 0.53 = 0.56 < d0 = 0.57
    [[False, False, False, True]]
    """
    p = np.asarray(p, dtype=float)
    p01 = p[:, 0, :, 1].sum(axis=1)
    p10 = p[:, 1, :, 0].sum(axis=1)
    d1 = p01 - p10
    d0 = p10 - p01
    c1 = _pp(p, 1, 1, 0) + _pp(p, 0, 1, 1) < d1 - tol
    c2 = _pp(p, 1, 1, 1) + _pp(p, 0, 1, 0) < d1 - tol
    c3 = _pp(p, 1, 0, 0) + _pp(p, 0, 0, 1) < d0 - tol
    c4 = _pp(p, 1, 0, 1) + _pp(p, 0, 0, 0) < d0 - tol
    return np.stack([c1, c2, c3, c4], axis=1)


def def3_gap(p: np.ndarray) -> np.ndarray:
    """Definition 3 (Kusner et al.): ``pr(S(1)=1) - pr(S(0)=1)``, point-identified under Assumption 1.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> round(float(def3_gap(p[None])[0]), 6)   # 0.08 - 0.43
    -0.35
    """
    p = np.asarray(p, dtype=float)
    return p[:, 1, 1, :].sum(axis=1) - p[:, 0, 1, :].sum(axis=1)


def def4_bounds(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sharp bounds on Definition 4, ``pr(S(1)=1 | Y(0)=1) - pr(S(0)=1 | Y(0)=1)``.

    ``pr(S(0)=1 | Y(0)=1)`` is identified; ``pr(S(1)=1, Y(0)=1)`` couples the two arms and is only
    known up to the Fréchet bounds ``[max(0, a + b - 1), min(a, b)]`` with ``a = pr(S=1 | A=1)``
    and ``b = pr(Y=1 | A=0)``, which are sharp because nothing links the arms (checked against the
    LP in the tests). NaN where ``pr(Y=1 | A=0) = 0``.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> lo, hi = def4_bounds(p[None])
    >>> round(float(lo[0]), 6), round(float(hi[0]), 6)   # [0 - 0.32, 0.08 - 0.32] / 0.36
    (-0.888889, -0.666667)
    """
    p = np.asarray(p, dtype=float)
    a = p[:, 1, 1, :].sum(axis=1)
    b = p[:, 0, :, 1].sum(axis=1)
    ident = p[:, 0, 1, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = (np.maximum(0.0, a + b - 1.0) - ident) / b
        hi = (np.minimum(a, b) - ident) / b
    bad = b <= 0
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)


def stratum_bounds(p: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Fréchet bounds on the four stratum proportions ``pi_{y1 y0}`` (spec §3), per cell.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> lo, hi = stratum_bounds(p[None])["00"]
    >>> round(float(lo[0]), 6), round(float(hi[0]), 6)
    (0.57, 0.64)
    """
    p = np.asarray(p, dtype=float)
    p11 = p[:, 1, :, 1].sum(axis=1)
    p01 = p[:, 0, :, 1].sum(axis=1)
    lo11 = np.maximum(0.0, p11 + p01 - 1.0)
    hi11 = np.minimum(p11, p01)
    return {
        "11": (lo11, hi11),
        "10": (p11 - hi11, p11 - lo11),
        "01": (p01 - hi11, p01 - lo11),
        "00": (lo11 + 1.0 - p11 - p01, hi11 + 1.0 - p11 - p01),
    }
