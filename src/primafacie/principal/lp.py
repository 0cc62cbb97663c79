"""The 16-variable linear programs of Section 3.2 (spec §3-4), solved for many cells at once.

Variables are ``w[s0, s1, y0, y1] = pr(S(0)=s0, S(1)=s1, Y(0)=y0, Y(1)=y1)`` flattened as
``8*s0 + 4*s1 + 2*y0 + y1``. The margin constraints (8) say that the (S(0), Y(0)) margin of ``w``
is the observed table ``p'_{..0}`` of the A=0 arm and the (S(1), Y(1)) margin is ``p'_{..1}``:
a 4x4 transportation polytope. Its eight equalities have rank 7, so the last one (arm 1,
s=1, y=1) is dropped: it is implied because both arms sum to one.

Speed: the ranges of tau0', tau1' and tau' over (8), and the conditional Definition-1 range (one
target fixed at 0), have closed forms (:func:`single_ranges`, :func:`tau_range`,
:func:`cond_range`, derived from Gale's supply-demand theorem for a transportation problem with
fixed cells and checked against HiGHS on thousands of random tables in the tests), so evaluating
a cell solves no LP; only the repair program of :mod:`.repair` goes to HiGHS.
:func:`solve_blocks` solves any target by LP, stacked block-diagonally over cells (see
:mod:`.stack`; used in the tests).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from .stack import BlockSet, solve_sets

__all__ = [
    "widx",
    "A_MARGIN",
    "T0",
    "T1",
    "T",
    "margin_rhs",
    "single_ranges",
    "tau_range",
    "cond_range",
    "solve_blocks",
    "interval_sets",
    "LPIntervals",
    "lp_intervals",
]


def widx(s0: int, s1: int, y0: int, y1: int) -> int:
    """Flat index of ``w_{s0 s1 y0 y1}`` (spec §3: ``8*s0 + 4*s1 + 2*y0 + y1``).

    Examples
    --------
    >>> widx(0, 1, 1, 1), widx(1, 0, 0, 0)
    (7, 8)
    """
    return 8 * s0 + 4 * s1 + 2 * y0 + y1


def _margin_matrix() -> np.ndarray:
    a = np.zeros((8, 16))
    for s0 in (0, 1):
        for s1 in (0, 1):
            for y0 in (0, 1):
                for y1 in (0, 1):
                    j = widx(s0, s1, y0, y1)
                    a[2 * s0 + y0, j] = 1.0  # arm A=0: margin over (s1, y1)
                    a[4 + 2 * s1 + y1, j] = 1.0  # arm A=1: margin over (s0, y0)
    return a


#: Full 8x16 margin matrix; rows ``2*s+y`` (arm 0) and ``4+2*s+y`` (arm 1).
A_MARGIN_FULL = _margin_matrix()
#: The 7 independent rows used in every program.
A_MARGIN = A_MARGIN_FULL[:7]

#: tau0' = w_0100 - w_1000 ; tau1' = w_0111 - w_1011 ; tau' = tau0' + tau1'.
T0 = np.zeros(16)
T0[widx(0, 1, 0, 0)] = 1.0
T0[widx(1, 0, 0, 0)] = -1.0
T1 = np.zeros(16)
T1[widx(0, 1, 1, 1)] = 1.0
T1[widx(1, 0, 1, 1)] = -1.0
T = T0 + T1

#: Cells per stacked ``linprog`` call (HiGHS time grows superlinearly beyond a few hundred blocks).
CHUNK_CELLS = 128
_INF16 = np.full(16, np.inf)


def margin_rhs(p: np.ndarray) -> np.ndarray:
    """Right-hand sides ``(C, 8)`` from ``p[c, a, s, y] = pr(S=s, Y=y | A=a)`` in row order."""
    p = np.asarray(p, dtype=float)
    return p.reshape(p.shape[0], 8)


def _two_cell_range(ri, cj, rk, cl):
    """Range of ``x - z`` where x sits in (row i, col j), z in (row k, col l), i != k, j != l.

    Fixing x and z leaves a transportation problem with two forbidden cells; by Gale's theorem it
    is feasible iff 0 <= x <= min(r_i, c_j), 0 <= z <= min(r_k, c_l), x - z >= r_i + c_j - 1 and
    z - x >= r_k + c_l - 1, whence the range below.
    """
    lo = np.maximum(-np.minimum(rk, cl), ri + cj - 1.0)
    hi = np.minimum(np.minimum(ri, cj), 1.0 - rk - cl)
    return lo, hi


def single_ranges(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Closed-form ranges of tau0' and tau1' over (8): ``(lo0, hi0, lo1, hi1)``, each ``(C,)``.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> np.round(np.ravel(single_ranges(p[None])), 6).tolist()
    [-0.11, -0.01, -0.02, 0.04]
    """
    p = np.asarray(p, dtype=float)
    # tau0' = w[(s0=0,y0=0) -> (s1=1,y1=0)] - w[(1,0) -> (0,0)]; rows are arm 0, columns arm 1
    lo0, hi0 = _two_cell_range(p[:, 0, 0, 0], p[:, 1, 1, 0], p[:, 0, 1, 0], p[:, 1, 0, 0])
    lo1, hi1 = _two_cell_range(p[:, 0, 0, 1], p[:, 1, 1, 1], p[:, 0, 1, 1], p[:, 1, 0, 1])
    return lo0, hi0, lo1, hi1


def _max_signed_sum(plus: list, minus: list) -> np.ndarray:
    """Max of ``sum(plus cells) - sum(minus cells)`` over (8) for four cells in distinct rows/cols.

    With the four cells ``v`` fixed, Gale's theorem leaves the constraints ``0 <= v <= m_v`` and
    ``2 v - F >= g_v`` (``m_v = min(r_i, c_j)``, ``g_v = r_i + c_j - 1``, ``F`` the sum of the four).
    For a fixed ``F = u`` the best value is ``f(u) = min(u - 2 L(u), 2 M_plus - u)`` with
    ``L(u) = sum over minus cells of max(0, (g + u) / 2)``; ``f`` is concave and its domain an
    interval, so the maximum sits at an end of the domain or a kink of ``f``. Every such point is
    in the candidate list below; every feasible candidate gives an attainable value, so the
    maximum over feasible candidates is the LP optimum (checked against HiGHS in the tests).
    """
    cells = plus + minus
    m = np.stack([np.minimum(r, c) for r, c in cells], axis=1)
    g = np.stack([r + c - 1.0 for r, c in cells], axis=1)
    m_plus = m[:, :2].sum(axis=1)
    cand = [np.zeros(m.shape[0]), m.sum(axis=1), m_plus]
    cand += [2 * m[:, v] - g[:, v] for v in range(4)]
    cand += [-g[:, v] for v in range(4)]
    for k in (1, 3, 4):  # roots of u = sum of the active lower bounds (slope k / 2 != 1)
        for subset in combinations(range(4), k):
            cand.append(g[:, list(subset)].sum(axis=1) / (2.0 - k))
    for zi in (2, 3):  # kinks where u - 2 L(u) meets 2 M_plus - u with one minus cell active
        cand.append(2.0 * m_plus + g[:, zi])
    u = np.stack(cand, axis=1)
    ell = np.maximum(0.0, (g[:, :, None] + u[:, None, :]) / 2.0)
    eps = 1e-12
    feas = (u >= -eps) & (u <= m.sum(axis=1)[:, None] + eps)
    feas &= (ell <= m[:, :, None] + eps).all(axis=1)
    feas &= ell.sum(axis=1) <= u + eps
    f = np.minimum(u - 2.0 * ell[:, 2:, :].sum(axis=1), 2.0 * m_plus[:, None] - u)
    return np.where(feas, f, -np.inf).max(axis=1)


def tau_range(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form range of tau' = tau0' + tau1' over (8): ``(lo, hi)``, each ``(C,)``.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> np.round(np.ravel(tau_range(p[None])), 6).tolist()
    [-0.13, -0.01]
    """
    p = np.asarray(p, dtype=float)
    plus = [(p[:, 0, 0, 0], p[:, 1, 1, 0]), (p[:, 0, 0, 1], p[:, 1, 1, 1])]  # w_0100, w_0111
    minus = [(p[:, 0, 1, 0], p[:, 1, 0, 0]), (p[:, 0, 1, 1], p[:, 1, 0, 1])]  # w_1000, w_1011
    return _clean(-_max_signed_sum(minus, plus)), _clean(_max_signed_sum(plus, minus))


def _clean(v: np.ndarray) -> np.ndarray:
    # solver noise around an exact 0 (and -0.0 from negated maxima) must not look like a sign
    return np.where(np.abs(v) < 1e-12, 0.0, v) + 0.0


def cond_range(
    p: np.ndarray, joint: str = "tau0", tol: float = 1e-9
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Closed-form range of the free Definition-1 target with the other fixed at 0: ``(lo, hi, ok)``.

    ``joint="tau0"``: tau1' = w_0111 - w_1011 over (8) + {w_0100 = w_1000}; ``"tau1"``: the reverse.
    The four cells lie in distinct rows and columns of the 4x4 transportation problem, so with
    them fixed at ``(a, a, c, d)`` Gale's theorem leaves ``0 <= v <= m_v`` and ``2 v - F >= g_v``
    (``F = 2a + c + d``, ``m_v = min(r, c)``, ``g_v = r + c - 1`` of the cell). The two fixed-cell
    conditions become ``c + d <= S = -max(g_1, g_2)`` and the free ones ``c - d >= g_3 + 2a``,
    ``d - c >= g_4 + 2a``: ``a = 0`` is never worse, and then ``u = c - d`` is attainable iff
    ``max(g_3, -m_4, -S) <= u <= min(m_3, -g_4, S)``. Checked against HiGHS in the tests
    (thousands of random tables with ties, empty cells and infeasible cases).

    Parameters
    ----------
    p
        ``(C, 2, 2, 2)`` array ``p[c, a, s, y] = pr(S=s, Y=y | A=a)``.
    joint
        ``"tau0"`` or ``"tau1"``: which target is fixed at 0.
    tol
        Slack on feasibility: a range whose ends cross by at most ``tol`` (rounding, or a fixed
        target that only reaches 0 within ``tol``) counts as feasible and is reported as the
        single point midway between the ends.

    Returns
    -------
    lo, hi, ok
        ``(C,)`` ends (NaN where infeasible) and feasibility flags.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> lo, hi, ok = cond_range(p[None], "tau1")   # tau1' = 0 fixed: tau0' in [-0.11, -0.01]
    >>> np.round([lo[0], hi[0]], 6).tolist(), bool(ok[0]), bool(cond_range(p[None])[2][0])
    ([-0.11, -0.01], True, False)
    """
    if joint not in ("tau0", "tau1"):
        raise ValueError(f"joint must be 'tau0' or 'tau1', got {joint!r}")
    p = np.asarray(p, dtype=float)
    # cell (row of arm 0, column of arm 1): w_0100, w_1000 (tau0'), w_0111, w_1011 (tau1')
    cells = {
        "0100": (p[:, 0, 0, 0], p[:, 1, 1, 0]),
        "1000": (p[:, 0, 1, 0], p[:, 1, 0, 0]),
        "0111": (p[:, 0, 0, 1], p[:, 1, 1, 1]),
        "1011": (p[:, 0, 1, 1], p[:, 1, 0, 1]),
    }
    fixed, plus, minus = (
        (("0100", "1000"), "0111", "1011")
        if joint == "tau0"
        else (("0111", "1011"), "0100", "1000")
    )
    g = {k: r + c - 1.0 for k, (r, c) in cells.items()}
    m = {k: np.minimum(r, c) for k, (r, c) in cells.items()}
    smax = -np.maximum(g[fixed[0]], g[fixed[1]])
    lo = np.maximum(np.maximum(g[plus], -m[minus]), -smax)
    hi = np.minimum(np.minimum(m[plus], -g[minus]), smax)
    ok = lo <= hi + tol
    mid = (lo + hi) / 2.0
    lo, hi = np.where(lo > hi, mid, lo), np.where(lo > hi, mid, hi)
    return _clean(np.where(ok, lo, np.nan)), _clean(np.where(ok, hi, np.nan)), ok


def solve_blocks(
    costs: np.ndarray, rhs: np.ndarray, extra_rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Minimise ``costs[k] @ w`` over (8) with right-hand side ``rhs[k]`` for every block ``k``.

    Parameters
    ----------
    costs
        ``(K, 16)`` objective of each block.
    rhs
        ``(K, 7)`` or ``(K, 8)`` margin right-hand sides (the 8th entry is ignored).
    extra_rows
        Optional ``(m, 16)`` rows ``r`` added as ``r @ w = 0`` to every block.

    Returns
    -------
    values, feasible
        ``(K,)`` optimal values (NaN where infeasible) and ``(K,)`` feasibility flags.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> v, ok = solve_blocks(np.stack([T, -T]), np.repeat(margin_rhs(p[None]), 2, axis=0))
    >>> np.round([v[0], -v[1]], 6).tolist(), ok.tolist()
    ([-0.13, -0.01], [True, True])
    """
    costs = np.atleast_2d(np.asarray(costs, dtype=float))
    rhs = np.atleast_2d(np.asarray(rhs, dtype=float))[:, :7]
    block = A_MARGIN
    if extra_rows is not None and len(extra_rows):
        extra = np.atleast_2d(np.asarray(extra_rows, dtype=float))
        block = np.vstack([A_MARGIN, extra])
        rhs = np.hstack([rhs, np.zeros((rhs.shape[0], extra.shape[0]))])
    k = costs.shape[0]
    values = np.full(k, np.nan)
    feasible = np.zeros(k, dtype=bool)
    step = CHUNK_CELLS * 6
    for start in range(0, k, step):
        sl = slice(start, min(k, start + step))
        ((x, ok),) = solve_sets([BlockSet(costs[sl], block, rhs[sl], _INF16)])
        values[sl] = np.where(ok, np.einsum("kj,kj->k", costs[sl], np.nan_to_num(x)), np.nan)
        feasible[sl] = ok
    return _clean(values), feasible


@dataclass(frozen=True)
class LPIntervals:
    """LP ranges per cell (arrays of shape ``(C,)``); NaN bounds where a program is infeasible.

    ``tau0``, ``tau1``, ``tau``: ranges of tau0', tau1', tau' over (8) alone.
    ``cond``: range of the second Definition-1 target with the first fixed at 0 (``joint="tau0"``:
    tau1' given tau0'=0, the paper's §4 / Table 5; ``joint="tau1"``: tau0' given tau1'=0, §3.2).
    ``cond_feasible``: whether (8) + {first target = 0} is feasible.
    """

    tau0: tuple[np.ndarray, np.ndarray]
    tau1: tuple[np.ndarray, np.ndarray]
    tau: tuple[np.ndarray, np.ndarray]
    cond: tuple[np.ndarray, np.ndarray]
    cond_feasible: np.ndarray
    joint: str


def interval_sets(
    p: np.ndarray, joint: str = "tau0", tol: float = 1e-9, want: tuple[str, ...] = ("tau", "cond")
) -> tuple[list[BlockSet], Callable[[list[tuple[np.ndarray, np.ndarray]]], LPIntervals]]:
    """The programs behind :func:`lp_intervals` as block sets, and a function assembling the result.

    Lets a caller stack them with other programs (the repair) into one ``linprog`` call. Every
    range now has a closed form, so the list is empty and ``finish`` ignores its argument (the
    interface is kept for callers that stack). ``want`` selects the ranges: ``"tau"`` (range of
    tau') and/or ``"cond"`` (the conditional Definition-1 range); ranges not wanted are NaN.
    """
    if joint not in ("tau0", "tau1"):
        raise ValueError(f"joint must be 'tau0' or 'tau1', got {joint!r}")
    p = np.asarray(p, dtype=float)
    c = p.shape[0]
    lo0, hi0, lo1, hi1 = (_clean(v) for v in single_ranges(p))
    first_lo, first_hi = (lo0, hi0) if joint == "tau0" else (lo1, hi1)
    # (8) is convex and the target linear, so {target = 0} is feasible iff 0 lies in its range
    cond_ok = (first_lo <= tol) & (first_hi >= -tol)
    tlo, thi = tau_range(p) if "tau" in want else (np.full(c, np.nan), np.full(c, np.nan))
    if "cond" in want:
        clo, chi, _ = cond_range(p, joint, tol)
        clo, chi = np.where(cond_ok, clo, np.nan), np.where(cond_ok, chi, np.nan)
    else:
        clo, chi = np.full(c, np.nan), np.full(c, np.nan)
    result = LPIntervals((lo0, hi0), (lo1, hi1), (tlo, thi), (clo, chi), cond_ok, joint)

    def finish(results: list[tuple[np.ndarray, np.ndarray]]) -> LPIntervals:
        # every range has a closed form now (cond_range): no program is left to solve
        return result

    return [], finish


def lp_intervals(p: np.ndarray, joint: str = "tau0", tol: float = 1e-9) -> LPIntervals:
    """Min and max of tau0', tau1', tau' over (8), and the conditional Definition-1 range.

    Parameters
    ----------
    p
        ``(C, 2, 2, 2)`` array ``p[c, a, s, y] = pr(S=s, Y=y | A=a)``.
    joint
        ``"tau0"`` (fix tau0'=0, bound tau1'; the paper's Section 4) or ``"tau1"`` (fix tau1'=0,
        bound tau0'; the paper's Section 3.2).
    tol
        A fixed target counts as attainable at 0 when its range reaches within ``tol`` of 0.

    Returns
    -------
    LPIntervals

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> r = lp_intervals(p[None])
    >>> np.round([r.tau[0][0], r.tau[1][0]], 6).tolist(), bool(r.cond_feasible[0])
    ([-0.13, -0.01], False)
    """
    p = np.asarray(p, dtype=float)
    parts = []
    for start in range(0, p.shape[0], CHUNK_CELLS):
        sets, finish = interval_sets(p[start : start + CHUNK_CELLS], joint, tol)
        parts.append(finish(solve_sets(sets)))
    if not parts:
        empty = np.empty(0)
        return LPIntervals(
            (empty, empty),
            (empty, empty),
            (empty, empty),
            (empty, empty),
            np.empty(0, dtype=bool),
            joint,
        )
    cat = lambda f: tuple(np.concatenate([f(r)[i] for r in parts]) for i in (0, 1))  # noqa: E731
    return LPIntervals(
        cat(lambda r: r.tau0),
        cat(lambda r: r.tau1),
        cat(lambda r: r.tau),
        cat(lambda r: r.cond),
        np.concatenate([r.cond_feasible for r in parts]),
        joint,
    )
