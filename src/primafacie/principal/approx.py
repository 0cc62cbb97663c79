"""Program (9) of Theorem 3 (approximate fairness of the repaired decision), spec §5.

``alpha* = min_w g(w)`` over (8) evaluated at the repaired margins ``apply_eps(p, eps)`` with
``w >= 0``, where ``g(w) = tau1'^2 + tau0'^2`` (Definition 1) or ``tau'^2`` (Definition 2). The
paper plugs the *true* ``p'`` and the *estimated* ``eps-hat`` in, so ``alpha*`` measures how
unfair S' still is in the population (Theorem 3: ``alpha* = O_P(n^{-1/2})``); on the estimated
margins with their own ``eps*`` it is 0 by construction.

Definition 2 has a closed form: tau' ranges over an interval ``[L, U]`` (:func:`.lp.tau_range`), so
``alpha* = dist(0, [L, U])^2``. Definition 1 is a convex quadratic program in 16 variables, solved
per cell by SLSQP from the product coupling (always feasible; one small solve per cell, a
diagnostic that is not on the evaluation path); the tests certify its optimum with
the supporting-hyperplane LP (``min u . (tau0', tau1')`` over (8), with ``u`` the unit vector of
the optimum, equals ``sqrt(alpha*)``: no feasible point is nearer to 0).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from ..errors import AnalysisError, InputError
from .lp import A_MARGIN, T0, T1, tau_range
from .repair import apply_eps

__all__ = ["alpha_star"]


def _alpha_def1(m: np.ndarray) -> tuple[float, np.ndarray]:
    """min tau0'^2 + tau1'^2 over (8) with margins ``m`` (2, 2, 2), and the optimal (tau0', tau1')."""
    w0 = np.einsum("ij,kl->ikjl", m[0], m[1]).reshape(16)  # product coupling [s0, s1, y0, y1]
    rhs = m.reshape(8)[:7]
    tt = np.stack([T0, T1])
    q = 2.0 * tt.T @ tt

    res = minimize(
        lambda w: float(np.sum((tt @ w) ** 2)),
        w0,
        jac=lambda w: q @ w,
        method="SLSQP",
        bounds=[(0.0, None)] * 16,
        constraints=[
            {"type": "eq", "fun": lambda w: A_MARGIN @ w - rhs, "jac": lambda w: A_MARGIN}
        ],
        options={"ftol": 1e-15, "maxiter": 500},
    )
    if not res.success:
        raise AnalysisError(f"Theorem 3 program (9) did not converge: {res.message}")
    return max(0.0, float(res.fun)), tt @ res.x


def alpha_star(p: np.ndarray, eps: np.ndarray, definition: int = 2) -> np.ndarray:
    """Optimal value of the paper's program (9) per cell.

    Parameters
    ----------
    p
        ``(C, 2, 2, 2)`` margins ``p[c, a, s, y] = pr(S=s, Y=y | A=a)`` (the paper uses the true,
        population ``p'`` here).
    eps
        ``(C, 4)`` repair probabilities eps00, eps01, eps10, eps11 (the paper's ``eps-hat``).
    definition
        1: ``g = (w1011 - w0111)^2 + (w1000 - w0100)^2``; 2: ``g = (w1011 + w1000 - w0111 -
        w0100)^2``.

    Returns
    -------
    numpy.ndarray
        ``(C,)`` values ``alpha*`` (0 when the repaired margins are not refuted).

    Examples
    --------
    Table 4 without repair: tau' lies in [-0.13, -0.01], so alpha* = 0.01^2; with eps* = 1/90
    for (A=1, S'=1) the gap is closed.

    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> round(float(alpha_star(p[None], np.zeros((1, 4)))[0]), 10)
    0.0001
    >>> round(float(alpha_star(p[None], np.array([[0, 0, 0, 1 / 90]]))[0]), 10)
    0.0
    """
    if definition not in (1, 2) or isinstance(definition, bool):
        raise InputError(f"definition must be 1 or 2, got {definition!r}")
    p = np.asarray(p, dtype=float)
    eps = np.atleast_2d(np.asarray(eps, dtype=float))
    if eps.shape != (p.shape[0], 4):
        raise InputError(f"eps must have shape ({p.shape[0]}, 4), got {eps.shape}")
    m = apply_eps(p, eps)
    if definition == 2:
        lo, hi = tau_range(m)
        return np.maximum(0.0, np.maximum(lo, -hi)) ** 2
    return np.array([_alpha_def1(m[c])[0] for c in range(m.shape[0])])
