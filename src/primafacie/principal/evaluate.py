"""All per-cell quantities of the method for a stack of tables ``p[c, a, s, y]`` (spec §3-5).

One call evaluates every cell (and, for the bootstrap, every replicate of every cell): Proposition
1, Corollary 1, the LP ranges and the post-repair check in closed form (:mod:`.lp`), and the
post-processing programs of all cells and definitions in one stacked HiGHS call per chunk.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .bounds import corollary1, def3_gap, def4_bounds, prop1_bounds
from .lp import CHUNK_CELLS, interval_sets
from .repair import apply_eps, finish_repair, repair_set
from .stack import solve_sets

__all__ = ["evaluate_margins", "violations"]

#: Default tolerance: HiGHS' primal feasibility tolerance, so a bound printed 0.000 covers 0.
DEFAULT_TOL = 1e-7


def violations(v: dict[str, np.ndarray], tol: float = DEFAULT_TOL) -> dict[int, np.ndarray]:
    """Verdicts from evaluated quantities: ``{1: violated_def1, 2: violated_def2}`` (bool arrays).

    Definition 1 is refuted iff (8) + {tau0'=0, tau1'=0} is infeasible, i.e. the first fixed target
    cannot be 0 or the conditional range of the other excludes 0. Definition 2 is refuted iff the
    range of tau' excludes 0 (equivalently (8) + {tau'=0} is infeasible).
    """
    cond_lo, cond_hi = v["lp_cond_lo"], v["lp_cond_hi"]
    with np.errstate(invalid="ignore"):
        d1 = ~v["cond_feasible"].astype(bool) | (cond_lo > tol) | (cond_hi < -tol)
        d2 = (v["lp_tau_lo"] > tol) | (v["lp_tau_hi"] < -tol)
    return {1: d1, 2: d2}


def evaluate_margins(
    p: np.ndarray,
    definitions: Sequence[int] = (1, 2),
    joint: str = "tau0",
    tol: float = DEFAULT_TOL,
    repair: bool = True,
) -> dict[str, np.ndarray]:
    """Evaluate every cell of ``p`` (shape ``(C, 2, 2, 2)``, ``p[c, a, s, y] = pr(S=s, Y=y | A=a)``).

    Parameters
    ----------
    p
        Tables of the cells (rows of each arm must sum to one).
    definitions
        Which definitions (1 and/or 2) get the post-processing program.
    joint
        ``"tau0"``: tau1' is bounded with tau0' = 0 (paper §4); ``"tau1"``: the reverse (§3.2).
    tol
        Zero tolerance of every comparison.
    repair
        Also solve the 20-variable program and check the repaired margins.

    Returns
    -------
    dict of numpy arrays, one entry per cell. Keys: ``prop1_tau{0,1}_{lo,hi}``, ``d0``, ``d1``,
    ``cor1`` (C, 4), ``lp_tau{0,1,}_{lo,hi}``, ``lp_cond_{lo,hi}``, ``cond_feasible``,
    ``def3_gap``, ``def4_{lo,hi}``, ``violated_def{1,2}`` and per repaired definition d:
    ``eps_def{d}`` (C, 4), ``eps_sum_def{d}``, ``post_def{d}_{lo,hi}``, ``post_def{d}_closed``.

    Examples
    --------
    >>> p = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])
    >>> v = evaluate_margins(p[None])
    >>> bool(v["violated_def2"][0]), round(float(v["eps_sum_def2"][0]), 6), bool(v["post_def2_closed"][0])
    (True, 0.011111, True)
    """
    p = np.asarray(p, dtype=float)
    parts = [
        _evaluate_chunk(p[start : start + CHUNK_CELLS], tuple(definitions), joint, tol, repair)
        for start in range(0, p.shape[0], CHUNK_CELLS)
    ]
    if len(parts) == 1:
        return parts[0]
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}


def _evaluate_chunk(
    p: np.ndarray, definitions: tuple[int, ...], joint: str, tol: float, repair: bool
) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    b = prop1_bounds(p)
    out.update(
        prop1_tau1_lo=b.tau1_lower,
        prop1_tau1_hi=b.tau1_upper,
        prop1_tau0_lo=b.tau0_lower,
        prop1_tau0_hi=b.tau0_upper,
        d1=b.d1,
        d0=b.d0,
        cor1=corollary1(p, tol),
    )
    # phase 1: the ranges (closed form) and every repair program in one HiGHS call
    sets, finish = interval_sets(p, joint, tol)
    defs = definitions if repair else ()
    rep_sets = [repair_set(p, d) for d in defs]
    solved = solve_sets(sets + rep_sets)
    r = finish(solved[: len(sets)])
    out.update(
        lp_tau0_lo=r.tau0[0],
        lp_tau0_hi=r.tau0[1],
        lp_tau1_lo=r.tau1[0],
        lp_tau1_hi=r.tau1[1],
        lp_tau_lo=r.tau[0],
        lp_tau_hi=r.tau[1],
        lp_cond_lo=r.cond[0],
        lp_cond_hi=r.cond[1],
        cond_feasible=r.cond_feasible,
    )
    out["def3_gap"] = def3_gap(p)
    out["def4_lo"], out["def4_hi"] = def4_bounds(p)
    viol = violations(out, tol)
    out["violated_def1"], out["violated_def2"] = viol[1], viol[2]
    if not defs:
        return out
    # phase 2: check the repaired margins (closed forms; the stacked set list is empty)
    post_sets, post_finish = [], []
    for d, (x, ok) in zip(defs, solved[len(sets) :], strict=False):
        eps = finish_repair(x, ok)
        eps = np.where(eps < tol * 1e-2, 0.0, eps)
        out[f"eps_def{d}"] = eps
        out[f"eps_sum_def{d}"] = eps.sum(axis=1)
        s_d, f_d = interval_sets(
            apply_eps(p, np.nan_to_num(eps)), joint, tol, want=("tau",) if d == 2 else ("cond",)
        )
        post_sets.append(s_d)
        post_finish.append(f_d)
    post = solve_sets([s for group in post_sets for s in group])
    for i, d in enumerate(defs):
        rr = post_finish[i](post[i : i + 1])
        if d == 2:
            lo, hi = rr.tau
            closed = (lo <= tol) & (hi >= -tol)
        else:
            lo, hi = rr.cond
            with np.errstate(invalid="ignore"):
                closed = rr.cond_feasible & (lo <= tol) & (hi >= -tol)
        out[f"post_def{d}_lo"], out[f"post_def{d}_hi"], out[f"post_def{d}_closed"] = lo, hi, closed
    return out
