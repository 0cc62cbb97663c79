"""Population-level helpers: margins implied by a joint law of potential values, true targets.

Used by the paper's worked example (Table 1), by the simulations (Lemma 1, Theorems 1-2) and by
tests: they start from ``w[s0, s1, y0, y1] = pr(S(0)=s0, S(1)=s1, Y(0)=y0, Y(1)=y1)`` and give
what an auditor would observe under a randomised A (Assumption 1).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "margins_from_joint",
    "joint_targets",
    "joint_from_strata",
    "TABLE1_STRATA",
    "table1_joint",
]

#: Paper Table 1: stratum (Y(1), Y(0)) -> (size, #S(1)=1 "high", #S(0)=1 "high"); 700 people.
TABLE1_STRATA: dict[tuple[int, int], tuple[int, int, int]] = {
    (1, 1): (200, 50, 50),
    (1, 0): (100, 30, 70),
    (0, 1): (200, 170, 30),
    (0, 0): (200, 150, 150),
}


def joint_from_strata(
    strata: dict[tuple[int, int], tuple[float, float, float]], rates: bool = False
) -> np.ndarray:
    """A joint ``w`` (16,) from stratum sizes and S(1)=1 / S(0)=1 within each stratum.

    ``strata[(y1, y0)] = (size, n_S1_high, n_S0_high)`` as counts, or with ``rates=True``
    ``(pr(stratum), pr(S(1)=1 | stratum), pr(S(0)=1 | stratum))``. S(1) and S(0) are coupled
    independently within a stratum: the observed margins and every target below do not depend
    on that coupling.

    Examples
    --------
    >>> w = table1_joint()
    >>> round(float(w.sum()), 12)
    1.0
    """
    total = sum(v[0] for v in strata.values())
    w = np.zeros((2, 2, 2, 2))  # [s0, s1, y0, y1]
    for (y1, y0), (size, h1, h0) in strata.items():
        pi = size / total
        r1, r0 = (h1, h0) if rates else (h1 / size, h0 / size)
        for s1, f1 in ((1, r1), (0, 1 - r1)):
            for s0, f0 in ((1, r0), (0, 1 - r0)):
                w[s0, s1, y0, y1] += pi * f1 * f0
    return w.reshape(16)


def table1_joint() -> np.ndarray:
    """The joint ``w`` of the paper's Table 1 (life-insurance example)."""
    return joint_from_strata(TABLE1_STRATA)


def margins_from_joint(w: np.ndarray) -> np.ndarray:
    """Observed tables ``p[c, a, s, y]`` implied by joints ``w`` (``(16,)`` or ``(C, 16)``).

    Examples
    --------
    >>> p = margins_from_joint(table1_joint())
    >>> np.round(p[0, 1] * 700).astype(int).tolist()   # A=1: [[S=0,Y=0, S=0,Y=1], [S=1,...]]
    [[80, 220], [320, 80]]
    """
    w = np.atleast_2d(np.asarray(w, dtype=float)).reshape(-1, 2, 2, 2, 2)  # [c, s0, s1, y0, y1]
    p = np.empty((w.shape[0], 2, 2, 2))
    p[:, 0] = w.sum(axis=(2, 4))  # [c, s0, y0]
    p[:, 1] = w.sum(axis=(1, 3))  # [c, s1, y1]
    return p


def joint_targets(w: np.ndarray) -> dict[str, float]:
    """True values of every target for one joint ``w`` (16,).

    Returns rates ``rate_S{a}_{y1}{y0}`` = pr(S(a)=1 | stratum), ``tau1``, ``tau0`` (Definition 1),
    ``tau`` (Definition 2, pooled), the unnormalised ``tau1'``, ``tau0'``, ``tau'``, ``pr_S1``,
    ``pr_S0`` (Definition 3) and ``def4_S1``, ``def4_S0`` = pr(S(a)=1 | Y(0)=1) (Definition 4).

    Examples
    --------
    >>> t = joint_targets(table1_joint())
    >>> t["rate_S1_11"], t["rate_S0_00"], round(t["pr_S1"] * 7, 9), round(t["def4_S1"], 9)
    (0.25, 0.75, 4.0, 0.55)
    """
    w = np.asarray(w, dtype=float).reshape(2, 2, 2, 2)  # [s0, s1, y0, y1]
    out: dict[str, float] = {}
    for y1 in (1, 0):
        for y0 in (1, 0):
            pi = w[:, :, y0, y1].sum()
            out[f"pi_{y1}{y0}"] = float(pi)
            s1 = w[:, 1, y0, y1].sum()
            s0 = w[1, :, y0, y1].sum()
            out[f"rate_S1_{y1}{y0}"] = float(s1 / pi) if pi > 0 else float("nan")
            out[f"rate_S0_{y1}{y0}"] = float(s0 / pi) if pi > 0 else float("nan")
    t1p = w[0, 1, 1, 1] - w[1, 0, 1, 1]
    t0p = w[0, 1, 0, 0] - w[1, 0, 0, 0]
    out["tau1'"], out["tau0'"], out["tau'"] = float(t1p), float(t0p), float(t1p + t0p)
    pi11, pi00 = out["pi_11"], out["pi_00"]
    out["tau1"] = float(t1p / pi11) if pi11 > 0 else float("nan")
    out["tau0"] = float(t0p / pi00) if pi00 > 0 else float("nan")
    out["tau"] = float((t1p + t0p) / (pi11 + pi00)) if pi11 + pi00 > 0 else float("nan")
    out["pr_S1"] = float(w[:, 1].sum())
    out["pr_S0"] = float(w[1].sum())
    py0 = w[:, :, 1, :].sum()
    out["def4_S1"] = float(w[:, 1, 1, :].sum() / py0) if py0 > 0 else float("nan")
    out["def4_S0"] = float(w[1, :, 1, :].sum() / py0) if py0 > 0 else float("nan")
    return out
