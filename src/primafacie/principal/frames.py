"""The tables of a :class:`~primafacie.principal.results.PrincipalResult`, built from its arrays.

:func:`counts_frame` (cell, A, S, Y counts), :func:`quantity_frame` (every bound, program,
repair and check of every cell, with its bootstrap interval) and :func:`verdict_frame` (one
verdict per cell and definition, with its evidence). The Result holds the numbers and says
them in words; these functions lay them out, so neither grows into the other. They take the
Result as ``res`` (typed ``Any``: this module must not import ``results``, which imports it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["COR1_NAMES", "NOT_REFUTED", "VIOLATED", "cond_name", "counts_frame",
           "quantity_frame", "verdict_frame"]  # fmt: skip

VIOLATED = "violated"
#: Corollary 1's four inequalities: equation (1) via Lower(tau1) > 0 / Upper(tau1) < 0, (2) via tau0.
COR1_NAMES = (
    "cor1_eq1_lower_pos",
    "cor1_eq1_upper_neg",
    "cor1_eq2_lower_pos",
    "cor1_eq2_upper_neg",
)
NOT_REFUTED = "not refuted"


def _f(x: Any) -> float:
    return float(x) if x is not None else float("nan")


def _boot(res: Any, key: str, c: int) -> tuple[float, float]:
    """The bootstrap percentile interval of ``key`` in cell ``c`` (NaN without one)."""
    if res.boot is None or f"{key}@lo" not in res.boot:
        return float("nan"), float("nan")
    return float(res.boot[f"{key}@lo"][c]), float(res.boot[f"{key}@hi"][c])


def cond_name(joint: str) -> str:
    """The name of Definition 1's conditional program: the other tau given ``joint`` = 0."""
    return "lp_tau1'|tau0'=0" if joint == "tau0" else "lp_tau0'|tau1'=0"


def cell_base(res: Any, c: int, label: str, n_arm: np.ndarray) -> dict[str, Any]:
    """Columns that open every per-cell row: the cell, its arm sizes and the small flag."""
    return {
        "cell": label,
        "n": int(n_arm[c].sum()),
        "n_a0": int(n_arm[c, 0]),
        "n_a1": int(n_arm[c, 1]),
        "small": bool(res.small[c]),
    }


def counts_frame(res: Any) -> pd.DataFrame:
    """:meth:`PrincipalResult.counts_frame`: one row per cell, A, S and Y."""
    c, a, s, y = np.indices(res.counts.shape).reshape(4, -1)
    cnt = res.counts.reshape(-1)
    n_arm = res.counts.sum(axis=(2, 3))[c, a]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n_arm > 0, cnt / np.maximum(n_arm, 1), np.nan)
    return pd.DataFrame(
        {
            "cell": np.asarray(res.labels, dtype=object)[c],
            "A": a,
            "S": s,
            "Y": y,
            "count": cnt,
            "n_arm": n_arm,
            "p": p,
        }
    )


def quantity_frame(res: Any) -> pd.DataFrame:
    """:meth:`PrincipalResult.to_frame`: one row per cell and quantity."""
    n_arm = res.counts.sum(axis=(2, 3))
    rows: list[dict[str, Any]] = []
    for c, label in enumerate(res.labels):
        base = cell_base(res, c, label, n_arm)
        rows.extend(_quantity_row(res, base, c, *spec) for spec in _cell_quantities(res, c))
    return pd.DataFrame(rows)


def _cell_quantities(res: Any, c: int) -> list[tuple]:
    """``(definition, name, estimate, lower, upper, feasible, boot keys, verdict)`` of a cell,
    in the order of :meth:`to_frame`."""
    v = res.values
    nan = np.nan
    specs: list[tuple] = []
    interval_specs = [
        ("1", "prop1_tau1", "prop1_tau1", None),
        ("1", "prop1_tau0", "prop1_tau0", None),
        ("1", "lp_tau0'", "lp_tau0", None),
        ("1", "lp_tau1'", "lp_tau1", None),
        ("1", cond_name(res.joint), "lp_cond", "cond_feasible"),
        ("2", "lp_tau'", "lp_tau", None),
        ("4", "def4_gap", "def4", None),
    ]
    for d, name, key, feas_key in interval_specs:
        feas = bool(v[feas_key][c]) if feas_key else True
        specs.append((
            d, name, nan, _f(v[f"{key}_lo"][c]), _f(v[f"{key}_hi"][c]), feas,
            (None, f"{key}_lo", f"{key}_hi"),
            None if feas else "infeasible: Definition 1 violated",
        ))  # fmt: skip
    ok = bool(res.evaluated[c])
    for j, name in enumerate(COR1_NAMES):
        fired = bool(v["cor1"][c, j]) if ok else False
        verdict = "holds: Definition 1 violated" if fired else "does not hold"
        specs.append(("1", name, float(fired), nan, nan, True, (None,) * 3, verdict))
    for name, key, stratum in (("prop1_d1", "d1", "(1,1)"), ("prop1_d0", "d0", "(0,0)")):
        specs.append((
            "1", name, _f(v[key][c]), nan, nan, True, (None,) * 3,
            f"smallest size of stratum {stratum}",
        ))  # fmt: skip
    specs.append(
        ("3", "def3_gap", _f(v["def3_gap"][c]), nan, nan, True, ("def3_gap", None, None), None)
    )
    for d in res.definitions:
        if f"eps_def{d}" not in v:
            continue
        specs.append((
            str(d), "eps_sum", _f(v[f"eps_sum_def{d}"][c]), nan, nan, True,
            (f"eps_sum_def{d}", None, None), None,
        ))  # fmt: skip
        for j, ab in enumerate(("00", "01", "10", "11")):
            specs.append((
                str(d), f"eps_{ab}", _f(v[f"eps_def{d}"][c, j]), nan, nan, True,
                (f"eps_def{d}_{ab}", None, None), None,
            ))  # fmt: skip
        lo = _f(v[f"post_def{d}_lo"][c])
        specs.append((
            str(d), "post_repair", nan, lo, _f(v[f"post_def{d}_hi"][c]), not np.isnan(lo),
            (None,) * 3,
            "gap closed" if v[f"post_def{d}_closed"][c] else "gap NOT closed",
        ))  # fmt: skip
    return specs


def _quantity_row(
    res: Any,
    base: dict[str, Any],
    c: int,
    definition: str,
    name: str,
    est: float,
    lo: float,
    hi: float,
    feas: bool,
    boot_keys: tuple,
    verdict: str | None,
) -> dict[str, Any]:
    """One row of :meth:`to_frame`: the quantity, whether it excludes 0, its bootstrap."""
    ok = bool(res.evaluated[c])
    tol = res.tol
    if np.isnan(est):
        excl = (not feas) or lo > tol or hi < -tol  # NaN comparisons are False
    else:
        excl = abs(est) > tol
    row = dict(base)
    row.update(
        definition=definition,
        quantity=name,
        estimate=est,
        lower=lo,
        upper=hi,
        feasible=bool(feas),
        excludes_zero=bool(excl) if ok else False,
    )
    for tag, key in zip(("estimate", "lower", "upper"), boot_keys, strict=True):
        blo, bhi = _boot(res, key, c) if key else (np.nan, np.nan)
        row[f"boot_{tag}_lo"], row[f"boot_{tag}_hi"] = blo, bhi
    if not ok:
        row["verdict"] = "skipped: an arm of the cell is empty"
    else:
        row["verdict"] = verdict or ("excludes 0" if excl else "covers 0")
    return row


def verdict_frame(res: Any) -> pd.DataFrame:
    """:meth:`PrincipalResult.summary`: one row per cell and definition, with the verdict."""
    n_arm = res.counts.sum(axis=(2, 3))
    rows = []
    for c, label in enumerate(res.labels):
        base = cell_base(res, c, label, n_arm)
        for d in (1, 2, 3, 4):
            row = dict(base, definition=d)
            if not res.evaluated[c]:
                row.update(
                    verdict="skipped",
                    direction="",
                    evidence="an arm of the cell is empty",
                    eps_sum=np.nan,
                    boot_share_violated=np.nan,
                    note="",
                )
                rows.append(row)
                continue
            row.update(_verdict(res, c, d))
            if res.small[c]:
                row["note"] = (row["note"] + "; " if row["note"] else "") + (
                    f"small cell (an arm has < {res.min_group} people): estimate unreliable"
                )
            rows.append(row)
    return pd.DataFrame(rows)


def _verdict(res: Any, c: int, d: int) -> dict[str, Any]:
    """Verdict, direction, evidence, eps_sum, bootstrap share and note of an evaluated cell."""
    v = res.values
    tol = res.tol
    if d == 3:
        g = float(v["def3_gap"][c])
        return dict(
            verdict=VIOLATED if abs(g) > tol else "holds (point-identified)",
            direction="",
            evidence=f"pr(S(1)=1)-pr(S(0)=1) = {g:.4f}",
            eps_sum=np.nan,
            boot_share_violated=np.nan,
            note="comparison only (Kusner et al.); plug-in estimate",
        )
    if d == 4:
        lo, hi = float(v["def4_lo"][c]), float(v["def4_hi"][c])
        bad = lo > tol or hi < -tol
        undefined = np.isnan(lo)  # no Y=1 among A=0: pr(. | Y(0)=1) undefined
        return dict(
            verdict="undefined: no Y=1 in group A=0"
            if undefined
            else (VIOLATED if bad else NOT_REFUTED),
            direction="",
            evidence="pr(Y(0)=1) = 0"
            if undefined
            else f"gap in [{lo:.4f}, {hi:.4f}] (partially identified)",
            eps_sum=np.nan,
            boot_share_violated=np.nan,
            note="comparison only (Coston et al.)",
        )
    bad = bool(v[f"violated_def{d}"][c])
    if d == 2:
        lo, hi = float(v["lp_tau_lo"][c]), float(v["lp_tau_hi"][c])
        ev = f"tau' in [{lo:.4f}, {hi:.4f}]"
    elif not v["cond_feasible"][c]:
        first = "tau0'" if res.joint == "tau0" else "tau1'"
        key = "lp_tau0" if res.joint == "tau0" else "lp_tau1"
        lo, hi = float(v[f"{key}_lo"][c]), float(v[f"{key}_hi"][c])
        ev = f"{first}=0 infeasible ({first} in [{lo:.4f}, {hi:.4f}])"
    else:
        lo, hi = float(v["lp_cond_lo"][c]), float(v["lp_cond_hi"][c])
        ev = f"{cond_name(res.joint)[3:]} in [{lo:.4f}, {hi:.4f}]"
    direction = ""
    if bad:
        direction = f"favours A=1 ({res.a1})" if lo > tol else f"favours A=0 ({res.a0})"
    return dict(
        verdict=VIOLATED if bad else NOT_REFUTED,
        direction=direction,
        evidence=ev,
        eps_sum=float(v[f"eps_sum_def{d}"][c]) if f"eps_sum_def{d}" in v else np.nan,
        boot_share_violated=float(res.boot[f"share_violated_def{d}"][c])
        if res.boot is not None
        else np.nan,
        note="" if bad else "no evidence of violation; fairness cannot be confirmed",
    )
