"""CPU seconds of each stage of ``primafacie audit`` (issue 22: the write path, measured).

Runs ``primafacie audit CONFIG --out OUT`` in this process with the functions of each stage
wrapped by a timer that adds up the process's CPU seconds (``time.process_time``) spent in
them, and prints one JSON line: the CPU seconds of every stage, the whole run's CPU and wall
seconds, and the load. Meant for a configuration with ``compute: {backend: local, n_jobs: 1}``
(the audit's tasks then run in this thread, so a stage's process CPU is its own; with more
threads a stage's seconds include the others' work done meanwhile).

Stages nest (``parts: parquet write`` is inside ``statistics pass 2``); ``other`` is the run's
CPU outside the top-level stages (imports, configuration, checks, the progress display).

Usage::

    python benchmarks/audit_stages.py CONFIG.yaml OUT_DIR

``benchmarks/audit_scale.py`` writes such a configuration (add ``n_jobs: 1`` under
``compute``); the credit world at 2·10^5 and 10^6 rows is the issue's case.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
import time
from collections import defaultdict
from typing import Any

#: (stage, module, attribute path, top level?): the functions timed, inclusive.
STAGES = [
    ("read data + decisions", "primafacie.config_reading", "DataReading.audit_data", True),
    ("causal model fit", "primafacie.causal.scm", "SCM.fit", True),
    ("analysis: situation", "primafacie.situation.analysis", "run", True),
    ("analysis: groups", "primafacie.groups.analysis", "run", True),
    ("  counterfactuals", "primafacie.situation.planning", "Planner.counterfactual_stage", False),
    ("  k-NN searches", "primafacie.situation.search", "GroupSearch.search", False),
    ("  statistics pass 1 (histograms)", "primafacie.situation.partitioned", "_histograms", False),
    ("  statistics pass 2 + parts", "primafacie.situation.partitioned", "_write_partition", False),
    ("    statistics (every block)", "primafacie.situation.statistics", "Statistics.test", False),
    ("    part frames", "primafacie.situation.statistics", "block_frame", False),
    ("    parquet write", "primafacie.situation.partitioned", "_PartFile.write", False),
    ("  statistics, table in memory", "primafacie.situation.statistics", "Statistics.run", False),
    ("  top rows' members", "primafacie.situation.partitioned", "_top_members", False),
    ("write: CSV tables", "primafacie.audit.write", "atomic_write_table", True),
    ("write: results.json dict", "primafacie.audit.result", "AuditResult.to_dict", True),
    ("write: results.json text", "primafacie.audit.write", "atomic_write_json", True),
    ("write: report.html", "primafacie.report", "build_report", True),
    ("  report: parts read (strongest)", "primafacie.situation.partitioned",
     "PartitionedResult.strongest", False),
    ("  report: parts read (block)", "primafacie.situation.partitioned",
     "PartitionedResult.block", False),
    ("write: manifest hashes", "primafacie.io", "file_sha256", True),
]  # fmt: skip


def _wrap(cpu: dict, calls: dict, stage: str, func: Any) -> Any:
    depth = {"n": 0}

    @functools.wraps(func)
    def timed(*args: Any, **kwargs: Any) -> Any:
        # a recursive or nested call of the same stage is counted once
        depth["n"] += 1
        t0 = time.process_time()
        try:
            return func(*args, **kwargs)
        finally:
            depth["n"] -= 1
            if depth["n"] == 0:
                cpu[stage] += time.process_time() - t0
                calls[stage] += 1

    return timed


def _install(cpu: dict, calls: dict) -> None:
    for stage, module, attr, _ in STAGES:
        try:
            owner: Any = importlib.import_module(module)
        except ImportError:
            continue
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part, None)
        if owner is None or not hasattr(owner, name):
            continue
        setattr(owner, name, _wrap(cpu, calls, stage, getattr(owner, name)))


def main() -> None:
    cfg, out = sys.argv[1], sys.argv[2]
    c0, t0 = time.process_time(), time.perf_counter()
    cpu: dict = defaultdict(float)
    calls: dict = defaultdict(int)
    _install(cpu, calls)
    # the registry holds each Analysis' run function: re-point it at the timed one
    from primafacie.audit import registry

    for analysis in registry.ANALYSES:
        module = importlib.import_module(analysis.run.__module__)
        timed = getattr(module, analysis.run.__name__, None)
        if timed is not None and timed is not analysis.run and hasattr(timed, "__wrapped__"):
            object.__setattr__(analysis, "run", timed)
    from primafacie.cli import app

    try:
        app(["audit", cfg, "--out", out, "--no-progress"], standalone_mode=False)
    except SystemExit as exc:  # pragma: no cover - the CLI's exit
        if exc.code:
            raise
    total = time.process_time() - c0
    top = sum(v for (s, *_, t) in STAGES if t for v in [cpu.get(s, 0.0)])
    row = {s: round(cpu[s], 2) for s, *_ in STAGES if s in cpu}
    row["other"] = round(total - top, 2)
    row["total CPU s"] = round(total, 2)
    row["wall s"] = round(time.perf_counter() - t0, 1)
    row["load"] = round(os.getloadavg()[0], 1)
    print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
