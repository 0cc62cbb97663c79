"""Time SCM.fit + SCM.counterfactual on generated CST loan worlds of growing size.

Run: ``.venv/bin/python benchmarks/causal.py [--sizes 10000 100000 1000000]``

Cases
-----
linear        the Figure 1 DAG (Gender -> AnnualSalary, Gender/AnnualSalary -> AccountBalance),
              OLS mechanisms, do(Gender := 0) on the women.
categorical   the same DAG plus a binary child ``Tier = 1{AccountBalance > 30000}`` of
              AccountBalance, fitted by the default classifier (standardised logistic
              regression) and abducted by the inverse-CDF midpoint rule.
gradient_boosting  the Figure 1 DAG with mechanism="gradient_boosting"
              (HistGradientBoostingRegressor): one stacked predict per node. Opt-in
              (--cases gradient_boosting): ~1 min at 10^6 rows on a loaded 2-core box.

Peak MB is the tracemalloc peak of the fit + counterfactual step (numpy reports its buffers to
tracemalloc); generation of the world is outside the measurement.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from primafacie.causal import SCM
from primafacie.datasets.loan_world import LOAN_EDGES, make_loan_world


def run_case(case: str, n: int) -> tuple[float, float, int]:
    world = make_loan_world(n=n, seed=0)
    edges = list(LOAN_EDGES)
    if case == "categorical":
        world["Tier"] = (world["AccountBalance"] > 30000).astype(np.int64)
        edges.append(("AccountBalance", "Tier"))
    women = (world["Gender"] == 1).to_numpy()
    tracemalloc.start()
    t0 = time.perf_counter()
    mechanism = "gradient_boosting" if case == "gradient_boosting" else "linear"
    scm = SCM(edges, mechanism=mechanism, protected=["Gender"]).fit(world)
    cf = scm.counterfactual(world, {"Gender": 0}, rows=women)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert cf.shape == world.shape
    return seconds, peak / 2**20, len(world)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--cases", nargs="+", default=["linear", "categorical"])
    args = parser.parse_args()
    print(f"{'case':<18} {'n':>9} {'seconds':>9} {'peak MB':>9}")
    for case in args.cases:
        run_case(case, 1000)  # warm-up: the first call pays scikit-learn's import (~2 s)
        for n in args.sizes:
            seconds, peak, rows = run_case(case, n)
            print(f"{case:<18} {rows:>9} {seconds:>9.3f} {peak:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
