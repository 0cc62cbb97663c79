"""When each core works in a Dask ``primafacie audit``: the stages' timeline and idle cores.

Runs ``primafacie audit`` on the credit world (the inputs of ``audit_scale.py``) in this
process on a 2-worker LocalCluster, and samples every ``--every`` seconds (0.1 by default):

* the client's CPU seconds (this process: every thread) and the workers' (every descendant
  process: the nannies and the worker processes), from ``psutil``;
* how many tasks the workers are running (Dask's task stream: each task's start and stop);
* the stage the client is in: the audit's stages (read, fit, the situation test of each
  protected attribute, the write) and inside a situation test its steps (the counterfactual
  stage, the searches, the statistics' passes, the report's top rows), each a wrapped call.

From the samples, per stage: the wall seconds, the client's and the workers' CPU seconds, the
**idle core-seconds** ``Σ max(0, cores - busy) Δt`` where ``busy`` is the CPU seconds all the
run's processes used in the sample divided by its length (the core-seconds the run left
unused; ``wall - CPU / cores`` when no sample used more than ``cores``), the **seconds with
fewer than two busy cores** (``busy < cores - 0.5``) and the **seconds with a worker
without a task** (from the task stream: a measure that other processes' load does not
distort, as it does not depend on how fast a task runs). A run's wall above its CPU floor is
its idle core-seconds divided by the cores. Prints one JSON line per stage in the order the
client entered them, then the totals; ``--json PATH`` also writes the samples.

Usage::

    python benchmarks/audit_timeline.py --n 2e6
    python benchmarks/audit_timeline.py --n 1e7 --json /tmp/timeline_1e7.json

Inputs are those of ``audit_scale.py`` (generated once into ``--work``, then reused).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

#: The calls whose time is a step of its own: (module, owner, attribute, label). A step's label
#: is prefixed with the situation test's attribute when one runs.
STEPS = (
    ("primafacie.audit.run", None, "_fitted_scm", "fit"),
    ("primafacie.situation.planning", "Planner", "counterfactual_space", "counterfactuals+space"),
    ("primafacie.situation.search", "GroupSearch", "search", "searches"),
    ("primafacie.situation.partitioned", None, "run_parts", "statistics"),
    ("primafacie.situation.partitioned", None, "_top_members", "top rows"),
    ("primafacie.audit.run", None, "write_audit", "write"),
)


class Timeline:
    """The stage the client is in (a stack of labels) and the samples taken meanwhile."""

    def __init__(self, every: float, cores: int) -> None:
        import psutil

        self.proc = psutil.Process()
        self.every, self.cores = every, cores
        self.stage = "read"  # the audit's stage
        # per thread: its situation test's attribute and its steps (the audit overlaps two
        # tests in two threads: a sample taken then is labelled "a | b")
        self.attribute: dict[int, str] = {}
        self.steps: dict[int, list[str]] = {}
        self.samples: list[tuple[float, float, float, str]] = []
        self.t0 = time.perf_counter()
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def label(self) -> str:
        tops = [steps[-1] for steps in list(self.steps.values()) if steps]
        return " | ".join(tops) if tops else self.stage

    def _cpu(self) -> tuple[float, float]:
        own = self.proc.cpu_times()
        workers = 0.0
        for child in self.proc.children(recursive=True):
            try:
                t = child.cpu_times()
            except Exception:  # a process that ended between the listing and the read
                continue
            workers += t.user + t.system
        return own.user + own.system, workers

    def _run(self) -> None:
        while not self.stop:
            client, workers = self._cpu()
            self.samples.append((time.perf_counter() - self.t0, client, workers, self.label()))
            time.sleep(self.every)

    def wrap(self, module: str, owner: str | None, attr: str, label: str) -> None:
        """Make every call of ``module.owner.attr`` a step named ``label``."""
        mod = importlib.import_module(module)
        holder = getattr(mod, owner) if owner else mod
        real = getattr(holder, attr)

        @functools.wraps(real)
        def step(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            me = threading.get_ident()
            attribute = self.attribute.get(me, "")
            steps = self.steps.setdefault(me, [])
            steps.append(f"{attribute}: {label}" if attribute else label)
            try:
                return real(*args, **kwargs)
            finally:
                steps.pop()

        setattr(holder, attr, step)


def _busy_tasks(stream: list[dict], t0_wall: float, grid: list[float]) -> list[float]:
    """Tasks running at each time of ``grid`` (seconds since the run began)."""
    import numpy as np

    starts, stops = [], []
    for task in stream:
        for span in task.get("startstops", ()):
            if span.get("action") == "compute":
                starts.append(span["start"] - t0_wall)
                stops.append(span["stop"] - t0_wall)
    g = np.asarray(grid)
    if not starts:
        return [0.0] * len(grid)
    s, e = np.sort(starts), np.sort(stops)
    return (np.searchsorted(s, g, "right") - np.searchsorted(e, g, "right")).tolist()


def _table(tl: Timeline, tasks: list[float]) -> list[dict]:
    """One row per stage (in the order first entered): the sums over its samples."""
    rows: dict[str, dict] = {}
    cores = tl.cores
    for i in range(1, len(tl.samples)):
        t, client, workers, _ = tl.samples[i]
        tp, cp, wp, label = tl.samples[i - 1]
        dt = t - tp
        if dt <= 0:
            continue
        dc, dw = client - cp, workers - wp
        busy = (dc + dw) / dt
        row = rows.setdefault(label, {"stage": label, "t0": round(tp, 1), "wall_s": 0.0,
                                      "client_cpu_s": 0.0, "worker_cpu_s": 0.0,
                                      "idle_core_s": 0.0, "under_2_busy_s": 0.0,
                                      "worker_without_task_s": 0.0})  # fmt: skip
        row["wall_s"] += dt
        row["client_cpu_s"] += dc
        row["worker_cpu_s"] += dw
        row["idle_core_s"] += max(0.0, cores - busy) * dt
        row["under_2_busy_s"] += dt if busy < cores - 0.5 else 0.0
        row["worker_without_task_s"] += max(0.0, cores - tasks[i - 1]) * dt
    return [{k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()}
            for r in rows.values()]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=float, required=True)
    parser.add_argument("--work", default="/tmp/primafacie-audit-bench")
    parser.add_argument("--out", default=None, help="the audit's output folder")
    parser.add_argument("--every", type=float, default=0.1, help="seconds between samples")
    parser.add_argument("--json", default=None, help="also write the samples here")
    args = parser.parse_args()
    n = int(args.n)
    from audit_scale import _inputs
    from distributed import get_task_stream

    from primafacie import compute

    cfg = _inputs(n, Path(args.work), 2)
    out = args.out or str(Path(args.work) / f"timeline_{n}")
    client = compute._dask_client(None, 2)
    cores = len(client.scheduler_info()["workers"])
    tl = Timeline(args.every, cores)
    for step in STEPS:
        tl.wrap(*step)
    from primafacie.audit import progress

    real_step = progress.Stages.step

    def step(self, name, completed, total, note=""):  # noqa: ANN001, ANN202
        tl.attribute[threading.get_ident()] = note  # the test's label ("gender", "race")
        return real_step(self, name, completed, total, note)

    progress.Stages.step = step
    real_start = progress.Stages.start

    def start(self, name):  # noqa: ANN001, ANN202
        tl.stage = "read" if name == "load data" else name
        if name == "write report":
            tl.attribute.clear()
        return real_start(self, name)

    progress.Stages.start = start
    sys.argv = ["primafacie", "audit", str(cfg), "--out", out, "--no-progress"]
    from primafacie.launch import main as cli

    t0_wall = time.time()
    tl.t0 = time.perf_counter()
    tl.thread.start()
    with get_task_stream(client) as ts:
        try:
            cli()
        except SystemExit as exc:
            if exc.code:
                raise
        tl.stop = True
        tl.thread.join()
        stream = ts.data
    tasks = _busy_tasks(list(stream), t0_wall, [s[0] for s in tl.samples])
    rows = _table(tl, tasks)
    for row in rows:
        print(json.dumps(row), flush=True)
    total = {"stage": "total", "n": n, "cores": cores}
    for key in ("wall_s", "client_cpu_s", "worker_cpu_s", "idle_core_s", "under_2_busy_s",
                "worker_without_task_s"):  # fmt: skip
        total[key] = round(sum(r[key] for r in rows), 1)
    total["floor_s"] = round((total["client_cpu_s"] + total["worker_cpu_s"]) / cores, 1)
    total["load"] = round(os.getloadavg()[0], 1)
    print(json.dumps(total), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "total": total,
                                               "samples": tl.samples, "tasks": tasks}))  # fmt: skip


if __name__ == "__main__":
    main()
