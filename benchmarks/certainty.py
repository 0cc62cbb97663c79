"""Benchmark the certainty hot paths and print a table (case, n, seconds, peak memory MB).

Cases
-----
- score+rank pairs: disparity, uncertainty, u_topsis and ranking of m two-group decision-makers
  from counts (target: 10^6 under 1 s).
- score+rank multigroup: the same for m decision-makers over 6 groups (max - min pair).
- counts: n and k per group for 100 decision-makers over N rows and 50 groups (target:
  10^6 rows under 10 s on 2 cores), for statistical parity and predictive parity.
- P(disparity > epsilon): deterministic quadrature (2,000 nodes) for m decision-makers, in
  blocks of 2^18 cells, so memory stays flat as m grows.
- CertaintyRanking.run end to end (validation of 100 prediction arrays, group coding, counts,
  posteriors, credible intervals, ranking, selection by accuracy) on the same data.

Run: ``.venv/bin/python benchmarks/certainty.py [--quick]``. Peak memory is measured with
tracemalloc (numpy allocations are traced), which slows the run slightly.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import numpy as np
import pandas as pd
import scipy.stats  # noqa: F401 - imported up front so its one-off import is not timed

from primafacie.certainty import CertaintyRanking
from primafacie.certainty.counts import count_events, criterion_events
from primafacie.certainty.posterior import decision_maker_multigroup, prob_disparity_exceeds
from primafacie.certainty.score import score_pairs
from primafacie.certainty.select import rank
from primafacie.certainty.utility import u_topsis


def measure(fn, *args):
    tracemalloc.start()
    t0 = time.perf_counter()
    fn(*args)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 2**20


def score_multi(k, n):
    dm = decision_maker_multigroup(k, n)
    rank(u_topsis(dm.disparity, dm.uncertainty))


def counts(crit, codes, preds, y):
    e1, e2 = criterion_events(crit, preds, y)
    count_events(codes, 50, e1, e2)


def main(quick: bool = False) -> None:
    rng = np.random.default_rng(0)
    rows = []
    sizes = (10**4, 10**5) if quick else (10**4, 10**5, 10**6)
    for m in sizes:
        ni = rng.integers(1, 1000, m)
        nj = rng.integers(1, 1000, m)
        ki = rng.integers(0, 1000, m) % (ni + 1)
        kj = rng.integers(0, 1000, m) % (nj + 1)
        sec, mem = measure(score_pairs, ki, ni, kj, nj)
        rows.append(("score+rank pairs", m, sec, mem))
        n = rng.integers(1, 500, (m, 6))
        k = rng.integers(0, 500, (m, 6)) % (n + 1)

        sec, mem = measure(score_multi, k, n)
        rows.append(("score+rank multigroup (6 groups)", m, sec, mem))
    for m in (100, 200) if quick else (200, 1000):
        ni, nj = rng.integers(1, 1000, m), rng.integers(1, 1000, m)
        ki, kj = rng.integers(0, 1000, m) % (ni + 1), rng.integers(0, 1000, m) % (nj + 1)
        sec, mem = measure(prob_disparity_exceeds, ki, ni, kj, nj, 0.1)
        rows.append(("P(disparity > 0.1) quadrature, 2000 nodes", m, sec, mem))
    n_rows = 10**5 if quick else 10**6
    codes = rng.integers(0, 50, n_rows)
    # decision-maker-major, as CertaintyRanking stores predictions; count_events takes the (N, m) view
    preds = rng.integers(0, 2, (100, n_rows), dtype=np.int8)
    y = rng.integers(0, 2, n_rows, dtype=np.int8)
    for crit in ("statistical_parity", "predictive_parity"):
        sec, mem = measure(counts, crit, codes, preds.T, y)
        rows.append((f"counts {crit} (100 DMs, 50 groups)", n_rows, sec, mem))
    frame = pd.DataFrame({"g": codes, "y": y})
    dms = {f"m{i}": preds[i] for i in range(100)}
    for crit in ("statistical_parity", "equal_opportunity"):
        audit = CertaintyRanking(
            crit, protected="g", outcome="y", tie_breaker="accuracy", max_levels=None
        )  # 50 groups on purpose
        sec, mem = measure(audit.run, frame, dms)
        rows.append((f"CertaintyRanking.run {crit} (100 DMs, 50 gr.)", n_rows, sec, mem))
    print(f"{'case':<58} {'n':>9} {'seconds':>9} {'peak MB':>9}")
    for case, n, sec, mem in rows:
        print(f"{case:<58} {n:>9} {sec:>9.3f} {mem:>9.1f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
