"""Time GroupMetrics.run on generated tables of growing size.

Run: ``.venv/bin/python benchmarks/groups.py [--sizes 10000 100000 1000000]``

Cases
-----
one        one binary protected attribute, decision only (selection rates).
two        gender (2 values) and race (5 values, 2 protected) with their intersection,
           decision and outcome (every metric: selection rate, TPR, FPR, FNR, PPV, accuracy).
three      three attributes (2, 5 and 4 values), every intersection (4 of them), with outcome.

Peak MB is the tracemalloc peak of ``run`` (the table is generated outside the measurement).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
import pandas as pd

from primafacie.groups import GroupMetrics

CASES = {
    "one": ({"sex": "f"}, False),
    "two": ({"sex": "f", "race": ["a", "b"]}, True),
    "three": ({"sex": "f", "race": ["a", "b"], "age": "old"}, True),
}


def table(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "sex": rng.choice(["f", "m"], n), "race": rng.choice(list("abcde"), n),
        "age": rng.choice(["young", "mid", "old", "senior"], n),
        "d": rng.integers(0, 2, n), "y": rng.integers(0, 2, n),
    })  # fmt: skip


def run_case(case: str, frame: pd.DataFrame) -> tuple[float, float, int]:
    protected, outcome = CASES[case]
    engine = GroupMetrics(protected=protected, decision="d", outcome="y" if outcome else None)
    tracemalloc.start()
    t0 = time.perf_counter()
    res = engine.run(frame)
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 2**20, len(res.to_frame())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--cases", nargs="+", default=list(CASES))
    args = parser.parse_args()
    print(f"{'case':<8} {'n':>9} {'seconds':>9} {'peak MB':>9} {'rows out':>9}")
    run_case("one", table(1000))  # warm-up
    for n in args.sizes:
        frame = table(n)
        for case in args.cases:
            seconds, peak, rows = run_case(case, frame)
            print(f"{case:<8} {n:>9} {seconds:>9.3f} {peak:>9.1f} {rows:>9}")


if __name__ == "__main__":
    main()
