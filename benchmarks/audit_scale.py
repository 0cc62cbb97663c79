"""Memory and time of ``primafacie audit`` (the path users run) on the credit world.

Writes the credit world of n rows as Parquet with an ``audit.yaml`` asking for situation
testing only (both protected attributes, st, cst, cst_centers, cf at k = 15, 30, 50; single dimension; decisions by the
scorecard rule), runs ``python -m primafacie audit`` in a subprocess and samples every 0.2 s
the resident memory of the client process (the CLI) and of each of its descendants (Dask
workers, nannies, scheduler). Prints one JSON line per run: wall seconds, the client's CPU
seconds, the descendants' CPU seconds, the client's peak MB, the largest descendant's peak MB,
the peak of their sum and the 1-minute load average at the end.

Usage::

    python benchmarks/audit_scale.py --n 2e5                 # local backend
    python benchmarks/audit_scale.py --n 1e6 --dask 2        # 2-worker LocalCluster
    python benchmarks/audit_scale.py --n 2e4 --out /tmp/a    # keep the output folder

The input files are cached in ``--work`` (default ``/tmp/primafacie-audit-bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def _inputs(n: int, work: Path, dask: int) -> Path:
    """The Parquet file and audit.yaml for n rows (generated once, then reused)."""
    import yaml

    from primafacie.datasets.credit_world import (
        CREDIT_EDGES,
        CREDIT_FEATURES,
        CREDIT_PROTECTED,
        SCORECARD_RULE,
        generate_credit_world,
    )

    work.mkdir(parents=True, exist_ok=True)
    data = work / f"credit_{n}.parquet"
    if not data.exists():
        world = generate_credit_world(n=n, seed=0)
        world.to_parquet(data.with_suffix(".tmp"), index=False)
        os.replace(data.with_suffix(".tmp"), data)
    compute = {"backend": "dask", "n_jobs": dask} if dask else {"backend": "local"}
    cfg = {
        "data": data.name,
        "id": "id",
        "decision": {"rule": SCORECARD_RULE},
        "favorable": 1,
        "features": CREDIT_FEATURES,
        "protected": CREDIT_PROTECTED,
        "causal": {"edges": [list(e) for e in CREDIT_EDGES], "mechanism": "linear"},
        "analyses": {
            "situation": {
                "k": [15, 30, 50],
                "methods": ["st", "cst", "cst_centers", "cf"],
                "dimensions": ["single"],
            },
        },
        "compute": compute,
        "seed": 0,
    }
    path = work / f"audit_{n}_{'dask' if dask else 'local'}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def _measure(cmd: list[str]) -> dict:
    """Run ``cmd``; peak RSS of it and of its descendants, sampled every 0.2 s."""
    import psutil

    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    me = psutil.Process(proc.pid)
    client = worker = total = 0
    cpu = child_cpu = 0.0
    kids: dict[int, float] = {}
    limit = float(os.environ.get("PRIMAFACIE_BENCH_MAX_MB", "inf")) * 2**20
    # PRIMAFACIE_BENCH_TRACE=file: the maxima so far, a line every 30 s (a run cut short
    # still says how far it got)
    trace, traced = os.environ.get("PRIMAFACIE_BENCH_TRACE"), time.perf_counter()
    while proc.poll() is None:
        try:
            rss = me.memory_info().rss
            t = me.cpu_times()
            cpu = t.user + t.system
            others = me.children(recursive=True)
        except psutil.Error:
            break
        sizes = []
        for p in others:
            try:
                sizes.append(p.memory_info().rss)
                c = p.cpu_times()
                kids[p.pid] = c.user + c.system
            except psutil.Error:
                pass
        client, worker = max(client, rss), max([worker, *sizes])
        total = max(total, rss + sum(sizes))
        if total > limit:  # a guard for the shared machine: stop before it runs out of memory
            for p in [*others, me]:
                try:
                    p.kill()
                except psutil.Error:
                    pass
        if trace and time.perf_counter() - traced > 30:
            traced = time.perf_counter()
            line = {"seconds": round(traced - t0), "cpu_s": round(cpu, 1),
                    "worker_cpu_s": round(sum(kids.values()), 1),
                    "client_mb": round(client / 2**20), "total_mb": round(total / 2**20),
                    "load": round(os.getloadavg()[0], 1)}  # fmt: skip
            with open(trace, "a") as f:
                f.write(json.dumps(line) + "\n")
        time.sleep(0.2)
    err = proc.communicate()[1]
    child_cpu = sum(kids.values())
    return {
        "rc": proc.returncode,
        "seconds": round(time.perf_counter() - t0, 1),
        "cpu_s": round(cpu, 1),
        "worker_cpu_s": round(child_cpu, 1),
        "client_mb": round(client / 2**20),
        "worker_mb": round(worker / 2**20),
        "total_mb": round(total / 2**20),
        "load": round(os.getloadavg()[0], 1),
        "stderr": err.strip().splitlines()[-1:] if proc.returncode else [],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=float, required=True)
    parser.add_argument("--dask", type=int, default=0, help="Dask workers (0: local backend)")
    parser.add_argument("--work", default="/tmp/primafacie-audit-bench")
    parser.add_argument("--out", default=None, help="output folder (default: a temporary one)")
    args = parser.parse_args()
    n = int(args.n)
    cfg = _inputs(n, Path(args.work), args.dask)
    out = args.out or str(Path(args.work) / f"out_{n}_{args.dask}")
    cmd = [sys.executable, "-m", "primafacie", "audit", str(cfg), "--out", out, "--no-progress"]
    row = {"n": n, "backend": f"dask{args.dask}" if args.dask else "local", **_measure(cmd)}
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
