"""Solve many small independent LPs in one ``scipy.optimize.linprog(method="highs")`` call.

Each call of ``linprog`` costs ~2 ms of fixed overhead on an idle machine, far more than the
16-20-variable programs themselves, so independent programs (all cells, all targets, the repair
program, bootstrap replicates) are stacked block-diagonally: the optimum of the sum of separate
objectives is attained by solving each block on its own, so every block of the stacked solution is
optimal for its own program. One infeasible block makes the whole stack infeasible; the stack is
then bisected until the infeasible blocks are isolated (rare: callers screen feasibility first).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ..errors import AnalysisError

__all__ = ["BlockSet", "solve_sets"]

_DENSE_MAX = 20_000


@dataclass(frozen=True)
class BlockSet:
    """``K`` programs ``min c_k x  s.t.  A_k x = b_k, G x <= h_k, 0 <= x <= upper``.

    ``a_eq`` is ``(m, nv)`` (shared) or ``(K, m, nv)``; ``g_ub`` is ``None`` or ``(mu, nv)``.
    """

    costs: np.ndarray
    a_eq: np.ndarray
    b_eq: np.ndarray
    upper: np.ndarray
    g_ub: np.ndarray | None = None
    h_ub: np.ndarray | None = None

    @property
    def k(self) -> int:
        return self.costs.shape[0]

    @property
    def nv(self) -> int:
        return self.costs.shape[1]

    def take(self, idx: np.ndarray | slice) -> BlockSet:
        a = self.a_eq[idx] if self.a_eq.ndim == 3 else self.a_eq
        h = None if self.h_ub is None else self.h_ub[idx]
        return BlockSet(self.costs[idx], a, self.b_eq[idx], self.upper, self.g_ub, h)


def _coo(s_mat: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Triplets of the block-diagonal matrix of ``k`` blocks (shared ``(m, n)`` or ``(k, m, n)``)."""
    if s_mat.ndim == 2:
        m, n = s_mat.shape
        ii, jj = np.nonzero(s_mat)
        vv = s_mat[ii, jj]
        kk = np.repeat(np.arange(k), ii.size)
        rows = (kk * m + np.tile(ii, k)).astype(np.int64)
        cols = (kk * n + np.tile(jj, k)).astype(np.int64)
        return rows, cols, np.tile(vv, k), k * m, k * n
    _, m, n = s_mat.shape
    kk, ii, jj = np.nonzero(s_mat)
    return kk * m + ii, kk * n + jj, s_mat[kk, ii, jj], k * m, k * n


def _assemble(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, int, int]]):
    """Block-diagonal constraint matrix: dense when small (scipy's sparse handling costs more than
    the solve for a single cell), CSR otherwise."""
    rows, cols, vals = [], [], []
    r0 = c0 = 0
    for r, c, v, nr, nc in parts:
        rows.append(r + r0)
        cols.append(c + c0)
        vals.append(v)
        r0 += nr
        c0 += nc
    if r0 * c0 <= _DENSE_MAX:
        dense = np.zeros((r0, c0))
        dense[np.concatenate(rows), np.concatenate(cols)] = np.concatenate(vals)
        return dense
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r0, c0)
    )


def _solve_once(sets: list[BlockSet]) -> tuple[int, str, list[np.ndarray]]:
    eq_parts, ub_parts, c_parts, b_parts, h_parts, up_parts = [], [], [], [], [], []
    for s in sets:
        eq_parts.append(_coo(s.a_eq, s.k))
        if s.g_ub is not None:
            ub_parts.append(_coo(s.g_ub, s.k))
            h_parts.append(s.h_ub.ravel())
        else:
            empty = np.empty(0, dtype=np.int64)
            ub_parts.append((empty, empty, np.empty(0), 0, s.k * s.nv))
        c_parts.append(s.costs.ravel())
        b_parts.append(s.b_eq.ravel())
        up_parts.append(np.tile(s.upper, s.k))
    a_eq = _assemble(eq_parts)
    has_ub = bool(h_parts)
    upper = np.concatenate(up_parts)
    res = linprog(
        np.concatenate(c_parts),
        A_ub=_assemble(ub_parts) if has_ub else None,
        b_ub=np.concatenate(h_parts) if has_ub else None,
        A_eq=a_eq,
        b_eq=np.concatenate(b_parts),
        bounds=np.stack([np.zeros_like(upper), upper], axis=1),
        method="highs",
    )
    if res.status != 0:
        return res.status, res.message, []
    out, start = [], 0
    for s in sets:
        stop = start + s.k * s.nv
        out.append(res.x[start:stop].reshape(s.k, s.nv))
        start = stop
    return 0, "", out


def solve_sets(sets: list[BlockSet]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Solve every block of every set; returns ``[(x (K, nv), feasible (K,)), ...]`` per set.

    Examples
    --------
    >>> s = BlockSet(np.array([[1.0, 2.0], [-1.0, 0.0]]), np.array([[1.0, 1.0]]),
    ...              np.array([[1.0], [3.0]]), np.array([np.inf, np.inf]))
    >>> [(x.round(6).tolist(), ok.tolist()) for x, ok in solve_sets([s])]
    [([[1.0, 0.0], [3.0, 0.0]], [True, True])]
    """
    sets = [s for s in sets]
    nonempty = [s for s in sets if s.k > 0]
    if not nonempty:
        return [(np.empty((0, s.nv)), np.empty(0, dtype=bool)) for s in sets]
    status, message, xs = _solve_once(nonempty)
    if status == 0:
        it = iter(xs)
        return [
            (next(it), np.ones(s.k, dtype=bool))
            if s.k > 0
            else (np.empty((0, s.nv)), np.empty(0, dtype=bool))
            for s in sets
        ]
    total = sum(s.k for s in nonempty)
    if total == 1:
        if status == 2:
            return [(np.full((s.k, s.nv), np.nan), np.zeros(s.k, dtype=bool)) for s in sets]
        raise AnalysisError(f"HiGHS failed on a {nonempty[0].nv}-variable program: {message}")
    # bisect: first half of the blocks of every set, then the second half
    firsts = [s.take(slice(0, s.k // 2)) if len(nonempty) == 1 else s for s in sets]
    if len(nonempty) == 1:
        seconds = [s.take(slice(s.k // 2, s.k)) for s in sets]
        r1, r2 = solve_sets(firsts), solve_sets(seconds)
        return [
            (np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]]))
            for a, b in zip(r1, r2, strict=False)
        ]
    return [solve_sets([s])[0] for s in firsts]
