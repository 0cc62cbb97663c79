"""The 20-variable post-processing program of Section 3.3 and the randomised intervention.

``eps[a, b]`` (flattened ``2*a + b``: eps00, eps01, eps10, eps11) is the probability that a person
with A=a has the decision forced to b, independently of (S, Y); otherwise S' = S. The program
minimises ``sum(eps)`` over (w, eps) subject to the margin constraints evaluated at the *repaired*
table ``eps_{as} p'_{(1-s)ya} + (1 - eps_{a(1-s)}) p'_{sya}``, the fairness constraint f(w) = 0,
``eps >= 0`` and ``eps_a0 + eps_a1 <= 1`` (spec §5). ``sum(eps*)`` is the unfairness measure.
Cells are stacked block-diagonally into one HiGHS call per chunk (see :mod:`.stack`).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .lp import A_MARGIN_FULL, T0, T1, T
from .stack import BlockSet, solve_sets

__all__ = ["solve_repair", "repair_set", "finish_repair", "apply_eps", "randomised_repair"]

CHUNK_CELLS = 128
_NV = 20  # 16 w + 4 eps


def _fair_rows(definition: int) -> np.ndarray:
    if definition == 1:
        return np.stack([T0, T1])
    if definition == 2:
        return T[None, :]
    raise InputError(f"definition must be 1 or 2, got {definition!r}")


def _eps_coefficients(p: np.ndarray) -> np.ndarray:
    """``(C, 8, 4)``: coefficient of eps_{a b} in margin row ``4a + 2s + y`` moved to the left side.

    Row (a, s, y): sum(w) - eps_{as} p'_{(1-s)ya} + eps_{a(1-s)} p'_{sya} = p'_{sya}.
    """
    c = p.shape[0]
    coef = np.zeros((c, 8, 4))
    for a in (0, 1):
        for s in (0, 1):
            for y in (0, 1):
                row = 4 * a + 2 * s + y
                coef[:, row, 2 * a + s] -= p[:, a, 1 - s, y]
                coef[:, row, 2 * a + (1 - s)] += p[:, a, s, y]
    return coef


_UB = np.zeros((2, _NV))
_UB[0, 16:18] = 1.0  # eps00 + eps01 <= 1
_UB[1, 18:20] = 1.0  # eps10 + eps11 <= 1
_UPPER = np.r_[np.full(16, np.inf), np.ones(4)]
_COST = np.r_[np.zeros(16), np.ones(4)]


def repair_set(p: np.ndarray, definition: int = 2) -> BlockSet:
    """The post-processing programs of all cells of ``p`` as one :class:`~.stack.BlockSet`."""
    p = np.asarray(p, dtype=float)
    fair = _fair_rows(definition)
    c = p.shape[0]
    n_eq = 7 + fair.shape[0]
    blocks = np.zeros((c, n_eq, _NV))
    blocks[:, :7, :16] = A_MARGIN_FULL[:7]  # the 8th margin row is implied, as in .lp
    blocks[:, :7, 16:] = _eps_coefficients(p)[:, :7, :]
    blocks[:, 7:, :16] = fair
    b_eq = np.zeros((c, n_eq))
    b_eq[:, :7] = p.reshape(c, 8)[:, :7]
    return BlockSet(np.tile(_COST, (c, 1)), blocks, b_eq, _UPPER, _UB, np.ones((c, 2)))


def finish_repair(x: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """eps ``(C, 4)`` from solved repair blocks; solver noise below 1e-12 is set to 0."""
    eps = np.where(ok[:, None], x[:, 16:], np.nan)
    return np.where(np.abs(eps) < 1e-12, 0.0, eps) + 0.0


def solve_repair(p: np.ndarray, definition: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Minimal randomised repair ``eps*`` per cell.

    Parameters
    ----------
    p
        ``(C, 2, 2, 2)`` array ``p[c, a, s, y] = pr(S=s, Y=y | A=a)``.
    definition
        1 (tau0' = tau1' = 0) or 2 (tau0' + tau1' = 0).

    Returns
    -------
    eps, solved
        ``(C, 4)`` in the order eps00, eps01, eps10, eps11 and ``(C,)`` flags (the program is
        always feasible: forcing S' = 1 for everyone satisfies any f; False means a solver failure).

    Examples
    --------
    Table 4 of the paper: force S' = 1 for A = 1 with probability 0.01 / 0.90.

    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> eps, ok = solve_repair(p[None], 2)
    >>> np.round(eps[0] * 90, 6).tolist()
    [0.0, 0.0, 0.0, 1.0]
    """
    p = np.asarray(p, dtype=float)
    _fair_rows(definition)
    c = p.shape[0]
    eps = np.empty((c, 4))
    ok = np.empty(c, dtype=bool)
    for start in range(0, c, CHUNK_CELLS):
        sl = slice(start, min(c, start + CHUNK_CELLS))
        ((x, flag),) = solve_sets([repair_set(p[sl], definition)])
        eps[sl], ok[sl] = finish_repair(x, flag), flag
    return eps, ok


def apply_eps(p: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Table of (S', Y) given A after the intervention: ``eps_{as} p_{ay} + (1-eps_a0-eps_a1) p'_{sya}``.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> q = apply_eps(p[None], np.array([[0, 0, 0, 1 / 90]]))
    >>> round(float(q[0, 1, 1, 0]), 6)   # 0.03 + 0.92 / 90 ... S'=1, Y=0 in arm A=1
    0.04
    """
    p = np.asarray(p, dtype=float)
    e = np.asarray(eps, dtype=float).reshape(-1, 2, 2)  # [c, a, b]
    py = p.sum(axis=2)  # [c, a, y]
    keep = 1.0 - e.sum(axis=2)  # [c, a]
    return e[:, :, :, None] * py[:, :, None, :] + keep[:, :, None, None] * p


def randomised_repair(
    decisions: np.ndarray,
    a: np.ndarray,
    eps: np.ndarray,
    cell_codes: np.ndarray | None = None,
    seed: int | np.random.Generator | None = 0,
) -> np.ndarray:
    """Apply the intervention to individual decisions: S' (0/1 int8).

    For unit i with A_i = a in cell c draw U ~ Unif(0, 1): S' = 0 if U < eps_{a0}, else S' = 1 if
    U < eps_{a0} + eps_{a1}, else S' = S_i. The repaired margins then pass the bounds test (not
    refuted; fairness is never confirmed) in distribution, not row by row.

    Parameters
    ----------
    decisions, a
        0/1 arrays of the original decisions and the protected attribute.
    eps
        ``(C, 4)`` (or ``(4,)`` for one cell) repair probabilities.
    cell_codes
        Cell index of every row (``None``: one cell).
    seed
        Seed or generator; the same seed gives the same S'.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> s = np.array([0, 0, 1, 1]); a = np.array([1, 1, 0, 0])
    >>> randomised_repair(s, a, np.array([0.0, 0.0, 0.0, 1.0])).tolist()
    [1, 1, 1, 1]
    """
    s = np.asarray(decisions).astype(np.int8)
    a = np.asarray(a).astype(np.int64)
    e = np.atleast_2d(np.asarray(eps, dtype=float))
    codes = np.zeros(len(s), dtype=np.int64) if cell_codes is None else np.asarray(cell_codes)
    rng = np.random.default_rng(seed)
    u = rng.random(len(s))
    e0 = e[codes, 2 * a]
    e1 = e[codes, 2 * a + 1]
    out = s.copy()
    out[u < e0 + e1] = 1
    out[u < e0] = 0
    return out
