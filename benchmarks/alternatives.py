"""Candidates per second of the less-discriminatory-alternative search.

A generated world with 12 mixed features (numbers, a 200-level categorical) and a logistic
regression pipeline; the default search (each feature neutralised alone, 6 pairs) at growing n.
Prints n, candidates, fits (candidates × (folds + 1)), wall seconds, CPU seconds (every
thread of the process: on a shared, loaded machine the wall time says more about the load than
about the search), candidates per wall second and per CPU second, peak resident MB (each size
runs in its own process, so the peak is its own) and the load average at the end.

    python benchmarks/alternatives.py [--n 10000 100000] [--n-jobs 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from primafacie.alternatives import AlternativeSearch
from primafacie.compute import Backend
from primafacie.data import AuditData


def world(n: int, seed: int = 0) -> tuple[AuditData, Pipeline]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    num = {f"x{i}": rng.normal(size=n) + (0.4 * a if i < 3 else 0.0) for i in range(10)}
    frame = pd.DataFrame(num)
    frame["region"] = rng.integers(0, 200, n).astype(str)
    frame["job"] = np.where(rng.random(n) < 0.5 + 0.2 * a, "temp", "perm")
    logit = frame[["x0", "x3", "x4"]].sum(axis=1) - 0.5 * (frame["job"] == "temp")
    frame["y"] = (logit + rng.logistic(size=n) > 0).astype(int)
    frame["g"] = np.where(a, "p", "r")
    cats, nums = ["region", "job"], [f"x{i}" for i in range(10)]
    prep = ColumnTransformer([("n", StandardScaler(), nums),
                              ("c", OneHotEncoder(handle_unknown="ignore"), cats)])  # fmt: skip
    model = Pipeline([("prep", prep), ("clf", LogisticRegression(max_iter=500))])
    model.fit(frame[nums + cats], frame["y"])
    frame["d"] = model.predict(frame[nums + cats])
    feats = {c: "numeric" for c in nums} | {c: "categorical" for c in cats}
    return AuditData(frame, features=feats, protected={"g": "p"}, decision="d", outcome="y"), model


HEADER = (
    f"{'n':>8} {'cands':>6} {'fits':>5} {'seconds':>8} {'cpu s':>7} {'cand/s':>7} "
    f"{'cand/cpu s':>10} {'peak MB':>8} {'load':>5}"
)


def one(n: int, n_jobs: int) -> str:
    """One row of the table: the default search at ``n`` rows, in this process."""
    data, model = world(n)
    t0, c0 = time.perf_counter(), time.process_time()
    res = AlternativeSearch(n_boot=200).run(data, model, backend=Backend(n_jobs=n_jobs))
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    cands = len(res.table)
    fits = cands * (res.settings["folds"] + 1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return (
        f"{n:>8} {cands:>6} {fits:>5} {secs:>8.1f} {cpu:>7.1f} {cands / secs:>7.2f} "
        f"{cands / cpu:>10.2f} {peak:>8.0f} {os.getloadavg()[0]:>5.1f}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--n-jobs", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:  # a child: one size, so that its peak memory is its own
        print(one(args.n[0], args.n_jobs), flush=True)
        return
    print(HEADER, flush=True)
    for n in args.n:
        cmd = [sys.executable, __file__, "--one", "--n", str(n), "--n-jobs", str(args.n_jobs)]
        subprocess.run(cmd, check=True)


if __name__ == "__main__":
    main()
