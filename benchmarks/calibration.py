"""Calibration under the null and power of situation testing (issue 15).

Calibration: on the null worlds of :mod:`primafacie.datasets.null_worlds` ((a) the protected
attribute affects nothing; (b) it shifts a feature the decision does not use), the share of
tested complainants flagged significant at α, pooled over runs, against a binomial band
around α; and the share of runs with ANY discovery after Benjamini–Hochberg (BH) and
Benjamini–Yekutieli (BY) at FDR α (under the complete null every discovery is false, so this
share is the FDR itself).

Tail (``--tail``): why an adjustment is or is not calibrated. BH compares the smallest
p-values of ~1,000 tests with α·i/m ≈ 5e-5, so what matters is ``P(p ≤ t) / t`` at small t
(1 for a calibrated p-value, > 1 when small p-values come too often): pooled over the null
worlds' tests, and exact for one test of two groups of n with a common rejection rate.

Power (``--power``): on worlds where every protected person is rejected 5, 10 or 20 points
more often (a direct effect), the share of protected complainants detected by ST, CST w/o,
CST w/ and CF at k = 15, 30, 50, unadjusted and after BH. ``--write`` regenerates
``src/primafacie/situation/power_table.py``, the table the report quotes.

Everything is seeded (run r uses seed ``seed + r``): the tables are reproducible.

Usage::

    python benchmarks/calibration.py                     # calibration table (Newcombe)
    python benchmarks/calibration.py --interval wald     # the same with the paper's Wald
    python benchmarks/calibration.py --tail              # the p-values' far tail
    python benchmarks/calibration.py --power --write     # power table (+ the data module)
    python benchmarks/calibration.py --runs 10 --n 1500  # quicker
"""

from __future__ import annotations

import argparse
import math
import pprint
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import binom

from primafacie.datasets.null_worlds import NULL_KINDS, make_gap_world, make_null_world
from primafacie.situation import SituationTest
from primafacie.situation.multiplicity import adjust_p
from primafacie.situation.stats import newcombe_p_value, wald_p_value

METHODS = ["st", "cst", "cst_centers", "cf"]
NAMES = {"st": "ST", "cst": "CST w/o", "cst_centers": "CST w/", "cf": "CF"}
KS = [15, 30, 50]
GAPS = [0.05, 0.10, 0.20]
#: Levels t of the tail table: 5e-5 ≈ α/m, the threshold BH gives the smallest of ~1,000
#: p-values at α = 0.05, up to α itself.
TAIL = (5e-5, 1e-4, 1e-3, 1e-2, 5e-2)


def run_world(
    world, alpha: float = 0.05, methods=METHODS, ks=KS, interval: str = "newcombe"
) -> pd.DataFrame:
    """Per-(method, k) counts of one run: tested, significant before/after BH and BY."""
    res = SituationTest(
        methods=methods, k=ks, alpha=alpha, multiplicity="none", interval=interval
    ).run(world.data, counterfactuals=world.counterfactuals)
    rows = []
    for (method, k), g in res.table.groupby(["method", "k"], sort=False):
        p = g["p_value"].to_numpy(dtype=float)
        tested = int((~np.isnan(p)).sum())
        rows.append(
            {
                "method": method,
                "k": int(k),
                "tested": tested,
                "significant": int(g["significant"].sum()),
                "bh": int((adjust_p(p, "bh") <= alpha).sum()),
                "by": int((adjust_p(p, "by") <= alpha).sum()),
                # how many p-values fall at or below each small level (NaN: untested)
                **{f"p<={t:g}": int((p <= t).sum()) for t in TAIL},
            }
        )
    return pd.DataFrame(rows)


def null_runs(runs: int, n: int, alpha: float, seed: int, interval: str) -> pd.DataFrame:
    """Per-run rows of :func:`run_world` on both null worlds (``world`` column), CF left out
    (it never flags when ŷ^CF = ŷ)."""
    frames = []
    for kind in NULL_KINDS:
        for r in range(runs):
            world = make_null_world(n=n, kind=kind, seed=seed + r)
            frames.append(run_world(world, alpha, interval=interval).assign(world=kind))
    allruns = pd.concat(frames, ignore_index=True)
    return allruns[allruns["method"] != "cf"]


def tail(runs: int, n: int, alpha: float, seed: int, interval: str = "newcombe") -> pd.DataFrame:
    """Pooled ``P(p ≤ t) / t`` of the null worlds' p-values, per world, method and k."""
    allruns = null_runs(runs, n, alpha, seed, interval)
    out = []
    for (kind, method, k), g in allruns.groupby(["world", "method", "k"], sort=False):
        tests = int(g["tested"].sum())
        row = {"world": kind, "method": NAMES[method], "k": int(k), "tests": tests}
        row.update({f"P(p≤{t:g})/t": g[f"p<={t:g}"].sum() / tests / t for t in TAIL})
        out.append(row)
    return pd.DataFrame(out)


def exact_size(n: int, rate: float, t: float, interval: str = "newcombe") -> float:
    """``P(p ≤ t)`` of one one-sided test when both groups have n members and rejection rate
    ``rate`` (H0 true): the sum of the binomial probabilities of the count pairs with p ≤ t.

    Examples
    --------
    >>> # n = 1: only (x_c, x_t) = (1, 0) has p < 0.5 (Wald: p = 0), probability ¼ at rate ½
    >>> round(exact_size(1, 0.5, 0.01, "wald"), 12)
    0.25
    """
    x = np.arange(n + 1)
    xc, xt = np.meshgrid(x, x, indexing="ij")
    fn = wald_p_value if interval == "wald" else newcombe_p_value
    p = fn(xc, n, xt, n)
    w = binom.pmf(x, n, rate)
    return float(np.outer(w, w)[p <= t].sum())


def exact_tail(ns=(15, 30, 50), rates=(0.25, 0.5)) -> pd.DataFrame:
    """:func:`exact_size` over t divided by t, for both intervals (rates r and 1 − r agree)."""
    out = []
    for interval in ("wald", "newcombe"):
        for n in ns:
            for rate in rates:
                row = {"interval": interval, "n": n, "rate": rate}
                row.update({f"P(p≤{t:g})/t": exact_size(n, rate, t, interval) / t for t in TAIL})
                out.append(row)
    return pd.DataFrame(out)


def binomial_band(alpha: float, n: int, z: float = 3.0) -> tuple[float, float]:
    """α ± z·sqrt(α(1−α)/n): the band of a share of n independent tests at level α."""
    half = z * math.sqrt(alpha * (1 - alpha) / n)
    return max(0.0, alpha - half), alpha + half


def calibration(
    runs: int, n: int, alpha: float, seed: int, interval: str = "newcombe"
) -> pd.DataFrame:
    """The calibration table: one row per null world, method (ST, CST w/o, CST w/) and k.

    ``design effect`` is the variance of the per-run share over the binomial variance
    ``α(1−α)/tests``: how much the overlap of neighbour groups inflates the spread (1 for
    independent tests). The one-run band ``α ± 3·sqrt(deff·α(1−α)/tests)`` accounts for it.
    """
    out = []
    allruns = null_runs(runs, n, alpha, seed, interval)
    for (kind, method, k), g in allruns.groupby(["world", "method", "k"], sort=False):
        tests = int(g["tested"].sum())
        per_test = int(g["tested"].mean())
        share = g["significant"] / g["tested"]
        deff = float(share.var(ddof=1) / (alpha * (1 - alpha) / per_test))
        lo, hi = binomial_band(alpha, per_test)
        out.append(
            {
                "world": kind,
                "method": NAMES[method],
                "k": k,
                "tests/run": per_test,
                "significant share": g["significant"].sum() / tests,
                "binomial band (one run)": f"[{lo:.3f}, {hi:.3f}]",
                "design effect": deff,
                "band with deff": "[{:.3f}, {:.3f}]".format(
                    *binomial_band(alpha, per_test / max(deff, 1.0))
                ),
                "max share in a run": float(share.max()),
                "runs with a BH discovery": float((g["bh"] > 0).mean()),
                "runs with a BY discovery": float((g["by"] > 0).mean()),
            }
        )
    return pd.DataFrame(out)


def power(runs: int, n: int, alpha: float, seed: int, interval: str = "newcombe") -> pd.DataFrame:
    """The power table: share of protected complainants detected, by gap, method and k."""
    out = []
    for gap in GAPS:
        per_run = [
            run_world(make_gap_world(n=n, gap=gap, seed=seed + r), alpha, interval=interval)
            for r in range(runs)
        ]
        allruns = pd.concat(per_run)
        for (method, k), g in allruns.groupby(["method", "k"], sort=False):
            tests = int(g["tested"].sum())
            out.append(
                {
                    "gap": gap,
                    "method": method,
                    "k": int(k),
                    "power": round(float(g["significant"].sum() / tests), 3),
                    "power_bh": round(float(g["bh"].sum() / tests), 3),
                    "power_by": round(float(g["by"].sum() / tests), 3),
                }
            )
    return pd.DataFrame(out)


def write_power_module(
    table: pd.DataFrame, runs: int, n: int, alpha: float, seed: int, interval: str = "newcombe"
) -> Path:
    """Regenerate ``situation/power_table.py`` from a measured power table."""
    path = Path(__file__).resolve().parents[1] / "src/primafacie/situation/power_table.py"
    rows = [
        (r.method, int(r.k), float(r.gap), float(r.power), float(r.power_bh), float(r.power_by))
        for r in table.itertuples()
    ]
    text = (
        '"""Measured power of situation testing (generated by ``benchmarks/calibration.py '
        "--power --write``; do not edit).\n\n"
        "Worlds of :func:`primafacie.datasets.null_worlds.make_gap_world`: every protected\n"
        "person is rejected ``gap`` more often than a non-protected person with the same x.\n"
        "``power`` is the share of protected complainants flagged significant at α\n"
        "(unadjusted), ``power_bh``/``power_by`` after Benjamini–Hochberg/–Yekutieli.\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        f"#: How the table was measured.\n"
        f"SETTINGS = {{'runs': {runs}, 'n': {n}, 'alpha': {alpha}, 'seed': {seed}, "
        f"'protected_share': 0.35, 'interval': {interval!r}, 'tau': 0.0}}\n\n"
        "#: (method, k, gap, power, power_bh, power_by)\n"
        f"ROWS = {pprint.pformat(rows, width=96)}\n"
    )
    path.write_text(text, encoding="utf-8")
    # the repository's formatting, so a regenerated table differs only where numbers do
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(path)], check=False)
    return path


def markdown(frame: pd.DataFrame, index: bool = False) -> str:
    """A markdown table (floats with 3 decimals), without the optional ``tabulate``."""
    if index:
        frame = frame.reset_index()
    cols = [" ".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in frame.columns]

    def cell(v: object) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += [
        "| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--power", action="store_true", help="the power table instead")
    ap.add_argument("--tail", action="store_true", help="the p-values' tail, pooled and exact")
    ap.add_argument("--write", action="store_true", help="regenerate situation/power_table.py")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=2026)
    # the engine's default interval (Newcombe), so the tables describe what a user gets
    ap.add_argument("--interval", default="newcombe", choices=["wald", "newcombe"])
    args = ap.parse_args()
    t0 = time.perf_counter()
    if args.power:
        table = power(args.runs, args.n, args.alpha, args.seed, args.interval)
        wide = table.assign(method=table["method"].map(NAMES)).pivot_table(
            index=["gap", "method"], columns="k", values=["power", "power_bh"], sort=False
        )
        print(markdown(wide, index=True))
        if args.write:
            print(
                "wrote",
                write_power_module(table, args.runs, args.n, args.alpha, args.seed, args.interval),
            )
    elif args.tail:
        print(markdown(tail(args.runs, args.n, args.alpha, args.seed, args.interval)))
        print("\nExact, one test of two groups of n with a common rejection rate:\n")
        print(markdown(exact_tail()))
    else:
        table = calibration(args.runs, args.n, args.alpha, args.seed, args.interval)
        print(markdown(table))
    print(
        f"\n{args.runs} runs of n = {args.n}, α = {args.alpha}, seed {args.seed}: "
        f"{time.perf_counter() - t0:.0f} s"
    )


if __name__ == "__main__":
    main()
