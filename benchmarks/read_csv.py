"""Time ``read_table`` with each reader (``data.reader``) on a CSV and a Parquet file.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/read_csv.py [--rows 1000000] [--dir DIR]``

The table has ``--rows`` rows and 10 mixed columns: three integers (one with gaps), three
floats, three texts (2, 50 and 10,000 distinct values) and a 0/1 decision. It is written once
as CSV and Parquet into ``--dir`` (a temporary folder by default); then every case (format x
reader) runs in a process of its own, so the peak resident memory of one case is not that of
another, and the imports are paid outside the measurement. Columns: wall seconds, CPU seconds
(user + system of every thread: DuckDB reads with several) and the process's peak resident
MB (``ru_maxrss``, imports included).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = [("csv", "pandas"), ("csv", "duckdb"), ("parquet", "pandas"), ("parquet", "duckdb")]


def write_table(folder: Path, rows: int) -> dict[str, Path]:
    """The benchmark table as ``t.csv`` and ``t.parquet`` in ``folder`` (kept if present)."""
    import numpy as np
    import pandas as pd

    paths = {"csv": folder / f"t{rows}.csv", "parquet": folder / f"t{rows}.parquet"}
    if all(p.exists() for p in paths.values()):
        return paths
    rng = np.random.default_rng(0)
    age = rng.integers(18, 90, rows).astype(float)
    age[rng.random(rows) < 0.01] = np.nan  # an integer column with gaps: float64 in pandas
    frame = pd.DataFrame({
        "id": np.arange(rows), "age": age, "children": rng.integers(0, 6, rows),
        "income": rng.lognormal(10, 1, rows).round(2), "debt": rng.normal(0, 1e4, rows),
        "score": rng.random(rows), "sex": rng.choice(["f", "m"], rows),
        "region": rng.choice([f"region_{i}" for i in range(50)], rows),
        "postcode": rng.integers(10_000, 20_000, rows).astype(str),
        "approved": rng.integers(0, 2, rows),
    })  # fmt: skip
    frame["postcode"] = "P" + frame["postcode"]
    frame.to_csv(paths["csv"], index=False)
    frame.to_parquet(paths["parquet"], index=False)
    return paths


def one(path: str, reader: str) -> None:
    """Measure one read in this process and print it as JSON."""
    from primafacie.data import read_table

    t0, c0 = time.perf_counter(), os.times()
    frame = read_table(path, reader=reader)
    c1 = os.times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    used = frame.attrs["reader"]["used"]
    print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": cpu, "peak_mb": peak,
                      "rows": len(frame), "used": used}))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--one", nargs=2, metavar=("PATH", "READER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(*args.one)
        return
    folder = args.dir or Path(tempfile.mkdtemp(prefix="pf_read_"))
    paths = write_table(folder, args.rows)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    print(f"{'format':<8} {'reader':<7} {'used':<8} {'n':>9} {'seconds':>8} {'CPU s':>7} "
          f"{'peak MB':>8}")  # fmt: skip
    for fmt, reader in CASES:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(paths[fmt]), reader],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{fmt:<8} {reader:<7} {r['used']:<8} {r['rows']:>9} {r['seconds']:>8.2f} "
              f"{r['cpu']:>7.2f} {r['peak_mb']:>8.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
