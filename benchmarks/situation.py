"""Benchmark of the situation-testing engine: seconds and peak memory per case.

Cases: the loan Table 1 (4 methods x 5 k, legacy), all law-school scenarios of Tables 10-13
(legacy), and CST (w/o) at k=50 on generated loan worlds of 10^4, 10^5 and 10^6 rows (SCM fitted
by primafacie.causal, counterfactuals by abduction). Each case runs in its own subprocess so
the peak resident memory (ru_maxrss) is that case's own.

Two timings per case: "cold" is the first run in a fresh interpreter once primafacie is
imported (it pays for the lazy imports of pandas/scipy/scikit-learn code paths and first-call
overheads, as a one-shot CLI call does); "warm" is the same case timed again after a tiny
warm-up run on 300 generated rows with every method (what a notebook or a service sees).

Usage::

    python benchmarks/situation.py                 # all cases
    python benchmarks/situation.py --max-n 100000  # skip the 10^6 world
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def _warm_up() -> None:
    """One tiny run through every code path a case uses (imports, SCM fit, k-NN, intervals)."""
    from primafacie.causal import SCM
    from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data
    from primafacie.decisions import Rule
    from primafacie.situation import SituationTest

    data = loan_world_data(n=300, seed=1)
    scm = SCM(edges=LOAN_EDGES).fit(data)
    rule = Rule("AnnualSalary + 5 * AccountBalance > 225000")
    for legacy in (False, True):
        # legacy reproduces the authors' Wald interval and must be asked for it by name
        SituationTest(
            methods=["st", "cst", "cst_centers", "cf"],
            k=[5, 10],
            legacy=legacy,
            interval="wald" if legacy else "newcombe",
        ).run(data, scm=scm, decider=rule).summary()


def _timed(name: str) -> tuple[int, float]:
    from primafacie.experiments.cst import law_table, loan_table

    t0 = time.perf_counter()
    if name == "loan-table1":
        loan_table(None, legacy=True)
        n = 4993
    elif name == "law-tables10-13":
        law_table(None, legacy=True)
        n = 21790
    elif name.startswith("world-"):
        from primafacie.causal import SCM
        from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data
        from primafacie.situation import SituationTest

        data = loan_world_data(n=int(float(name.split("-")[1])), seed=0)
        t0 = time.perf_counter()
        scm = SCM(edges=LOAN_EDGES).fit(data)
        res = SituationTest(methods="cst", k=50, keep_neighbors=False).run(data, scm=scm)
        res.summary()
        n = data.n
    else:
        raise SystemExit(f"unknown case {name}")
    return n, time.perf_counter() - t0


def _case(name: str) -> dict:
    n, cold = _timed(name)
    _warm_up()
    _, warm = _timed(name)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "case": name,
        "n": n,
        "cold": round(cold, 2),
        "warm": round(warm, 2),
        "peak_mb": round(peak_mb, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--case", help="run one case (internal)")
    parser.add_argument("--max-n", type=float, default=1e6)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(_case(args.case)))
        return
    cases = ["loan-table1", "law-tables10-13"] + [
        f"world-{n:.0e}" for n in (1e4, 1e5, 1e6) if n <= args.max_n
    ]
    print(f"{'case':<18} {'n':>9} {'cold s':>9} {'warm s':>9} {'peak MB':>9}")
    for case in cases:
        out = subprocess.run(
            [sys.executable, __file__, "--case", case], capture_output=True, text=True, check=False
        )
        if out.returncode != 0:
            print(f"{case:<18} failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{r['case']:<18} {r['n']:>9} {r['cold']:>9.2f} {r['warm']:>9.2f} {r['peak_mb']:>9.1f}"
        )


if __name__ == "__main__":
    main()
