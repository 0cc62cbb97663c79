"""Benchmark of primafacie.principal: prints case, n, cells, seconds, peak memory (MB).

Targets (2-core machine): one LP evaluation plus repair < 10 ms; 10,000 covariate cells < 60 s;
1,000 bootstrap replicates of the student data < 30 s. Small cases: median time without
tracemalloc, peak memory (tracemalloc) in an extra run. Heavy cases (cells, bootstrap): one timed
run, memory = process peak RSS so far. Run: ``python benchmarks/principal.py [--quick]``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

from primafacie.data import AuditData
from primafacie.principal import PrincipalFairness, principal_arrays
from primafacie.principal.evaluate import evaluate_margins

TABLE4 = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])


def _timed(fn, repeat: int = 1, heavy: bool = False) -> tuple[float, float]:
    if heavy:
        # one timed run; memory is the process peak RSS so far (tracemalloc would double the time)
        t = time.perf_counter()
        fn()
        sec = time.perf_counter() - t
        return sec, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    fn()  # warm-up (imports, caches)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return statistics.median(times), peak


def _cells_data(n_cells: int, per_cell: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    n = n_cells * per_cell
    codes = np.repeat(np.arange(n_cells), per_cell)
    a = np.tile(np.arange(per_cell) % 2, n_cells)  # both arms in every cell
    y = (rng.random(n) < 0.7).astype(np.int8)
    s = ((y == 1) & (rng.random(n) < 0.8) | (a == 1) & (rng.random(n) < 0.2)).astype(np.int8)
    return a, s, y, codes


def _student(data_dir=None):
    from sklearn.naive_bayes import CategoricalNB

    from primafacie.datasets.student import STUDENT_PREDICTORS, dichotomize_student, load_student

    d = dichotomize_student(load_student("por", data_dir))
    nb = CategoricalNB(alpha=1e-10, force_alpha=True, min_categories=2)
    d["S"] = nb.fit(d[STUDENT_PREDICTORS], d["Y"]).predict(d[STUDENT_PREDICTORS])
    return AuditData(d, features={}, protected={"address_label": "R"}, decision="S", outcome="Y")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller cases (CI smoke run)")
    args = parser.parse_args()
    warnings.simplefilter("ignore", UserWarning)
    rows = []

    p = TABLE4[None]
    from scipy.optimize import linprog

    from primafacie.principal.lp import A_MARGIN, T, margin_rhs

    rhs = margin_rhs(p)[0, :7]
    sec, mb = _timed(
        lambda: linprog(T, A_eq=A_MARGIN, b_eq=rhs, bounds=(0, None), method="highs"), repeat=30
    )
    rows.append(("calibration: one bare linprog call (16 variables)", 1, 1, sec, mb))
    sec, mb = _timed(lambda: evaluate_margins(p, definitions=(2,)), repeat=30)
    rows.append(("one cell: LP ranges + Def-2 repair + post check (Table 4)", 1, 1, sec, mb))
    sec, mb = _timed(lambda: evaluate_margins(p, definitions=(1, 2)), repeat=30)
    rows.append(("one cell: LP ranges + Def-1 and Def-2 repair", 1, 1, sec, mb))

    a, s, y, codes = _cells_data(1, 1000)
    sec, mb = _timed(lambda: principal_arrays(a, s, y, definitions=(2,)), repeat=20)
    rows.append(("API on 1,000 rows (counts + evaluate + repair)", 1000, 1, sec, mb))

    n_cells = 1000 if args.quick else 10_000
    a, s, y, codes = _cells_data(n_cells, 50)
    sec, mb = _timed(lambda: principal_arrays(a, s, y, codes, definitions=(2,)), heavy=True)
    rows.append((f"{n_cells:,} covariate cells, Def 2", len(a), n_cells, sec, mb))
    sec, mb = _timed(lambda: principal_arrays(a, s, y, codes, definitions=(1, 2)), heavy=True)
    rows.append((f"{n_cells:,} covariate cells, Defs 1+2", len(a), n_cells, sec, mb))

    try:
        data = _student()
    except Exception as exc:  # noqa: BLE001 - the data folder may be absent
        print(f"student data unavailable, skipping the bootstrap case: {exc}")
    else:
        n_boot = 100 if args.quick else 1000
        for covs, label in (([], "por address, X = none"), (["sex_label"], "por address | sex")):
            pf = PrincipalFairness(definition=2, covariates=covs, n_boot=n_boot, seed=0)
            sec, mb = _timed(lambda pf=pf: pf.evaluate(data), heavy=True)
            cells = 1 if not covs else 2
            rows.append((f"{n_boot} bootstrap replicates, {label}", data.n, cells, sec, mb))

    frame = pd.DataFrame(rows, columns=["case", "n", "cells", "seconds", "peak_MB"])
    frame["seconds"] = frame["seconds"].map(lambda v: f"{v:.4f}" if v < 1 else f"{v:.2f}")
    frame["peak_MB"] = frame["peak_MB"].map(lambda v: f"{v:.1f}")
    print(frame.to_string(index=False))


if __name__ == "__main__":
    main()
