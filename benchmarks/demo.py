"""Time ``primafacie demo`` (generate the credit world, train the deciders, full audit, report).

Prints one row per size: n, seconds (wall), peak resident memory (MB). Each size runs in a
fresh subprocess so imports and peak memory are counted as a user would see them. The default
size is the demo's default n; pass other sizes as arguments:

    python benchmarks/demo.py            # default n
    python benchmarks/demo.py 1000 3000 6000
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from primafacie.audit import run_demo
res = run_demo(sys.argv[1], n=int(sys.argv[2]), seed=0, progress=False)
seconds = time.perf_counter() - t0
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
stages = {k: round(r.seconds, 2) for k, r in res.runs.items()}
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "stages": stages,
                  "status": {k: r.status for k, r in res.runs.items()}}))
"""


def main(argv: list[str]) -> int:
    from primafacie.datasets.credit_world import DEFAULT_N

    sizes = [int(a) for a in argv] or [DEFAULT_N]
    print(f"{'case':<6} {'n':>7} {'seconds':>9} {'peak MB':>9}  analyses (seconds)")
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run(
                [sys.executable, "-c", CHILD, f"{tmp}/demo", str(n)],
                capture_output=True,
                text=True,
                check=False,
            )
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return proc.returncode
        row = json.loads(proc.stdout.strip().splitlines()[-1])
        stages = ", ".join(f"{k} {v}" for k, v in row["stages"].items())
        print(f"{'demo':<6} {n:>7} {row['seconds']:>9.1f} {row['peak_mb']:>9.0f}  {stages}")
        bad = {k: v for k, v in row["status"].items() if v != "ok"}
        if bad:
            print(f"       not ok: {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
