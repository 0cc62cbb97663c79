"""The benchmark scripts whose hooks reach into the package's private names still run.

``benchmarks/slope.py`` wraps private functions of :mod:`primafacie.neighbors.search` by
name; a rename made it fail at its first call unnoticed (issue 22, ninth session). It runs
here in a subprocess (it replaces module attributes for good) on a tiny world.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_slope_runs_and_times_every_stage():
    cmd = [sys.executable, str(ROOT / "benchmarks" / "slope.py"), "--n", "4000", "--queries", "300"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    row = json.loads(done.stdout.strip().splitlines()[-1])
    assert (row["n"], row["queries"], row["k"]) == (4000, 300, 51)
    # the trees' own calls were counted (small groups are gathered whole, not queried)
    assert row["tree_queries"] > 0 and row["trees"] >= 1
    assert row["select_pairs"] >= 0 and row["merge_ranked"] >= 0 and row["cpu_s"] > 0
