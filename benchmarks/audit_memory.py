"""Where the client's memory goes in ``primafacie audit``: a ledger per stage (issue 22).

Runs ``primafacie audit CONFIG --out OUT`` in this process with the functions of each stage
wrapped, and prints one JSON line per stage end: the resident memory (RSS) then and its
maximum during the stage (a thread samples every 10 ms), what ``tracemalloc`` traces
(Python objects and numpy's arrays, which numpy reports to it), what pyarrow's memory pool
holds (pandas' text columns), and glibc's own account (``mallinfo2``: bytes in use, and bytes
free but kept in its arenas, i.e. retained by the allocator). RSS minus those is code,
libraries and memory no allocator above reports (scipy's trees, other C buffers). With
``--top N`` each stage end also lists the N largest traced allocations by source line.

Usage::

    python benchmarks/audit_memory.py CONFIG.yaml OUT_DIR [--top 6] [--trace]
    python benchmarks/audit_memory.py --scale 1e6 [--top 6] [--trace]

``--scale N`` records instead ``benchmarks/scale.py``'s base case at N rows (the engine,
``SituationTest.run`` with every method at k = 15, 30, 50 on the credit world, local; the
data generated in this process as there), with the engine's own stages (:data:`ENGINE`).

``--trace`` turns tracemalloc on (slower: every allocation is recorded); without it the
traced columns are 0. ``--stacks MB`` prints, each time the RSS rises ``MB`` above its last
recorded high, where each thread was then (its innermost package frames): the line that
holds the peak, which a stage's end cannot name (at 10^7 the peak was in the report's write). ``benchmarks/audit_scale.py`` writes the configurations (credit world).
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import importlib
import json
import os
import sys
import threading
import time
import traceback
import tracemalloc
from typing import Any

#: (stage, module, attribute path): the functions whose ends are recorded.
STAGES = [
    ("read data + decisions", "primafacie.config_reading", "DataReading.audit_data"),
    ("causal model fit", "primafacie.causal.scm", "SCM.fit"),
    ("plan", "primafacie.situation.planning", "Planner.plan"),
    ("counterfactuals", "primafacie.situation.planning", "Planner.counterfactual_stage"),
    # the audit's stages 2 and 3 (counterfactuals as backend tasks, then the space inside)
    ("counterfactuals + space", "primafacie.situation.planning", "Planner.counterfactual_space"),
    ("gower space", "primafacie.situation.search", "GroupSearch.space"),
    ("k-NN searches", "primafacie.situation.search", "GroupSearch.search"),
    ("statistics parts", "primafacie.situation.partitioned", "run_parts"),
    ("statistics in memory", "primafacie.situation.statistics", "Statistics.run"),
    ("top rows' members", "primafacie.situation.partitioned", "_top_members"),
    ("analysis: situation", "primafacie.situation.analysis", "run"),
    ("write: report.html", "primafacie.report", "build_report"),
]

#: The stages of ``benchmarks/scale.py``'s case (``--scale``), recorded besides ``STAGES``.
ENGINE = [
    ("generate the credit world", "scale", "_credit_data"),
    ("situation test (engine)", "primafacie.situation.engine", "SituationTest._run"),
    ("statistics + table", "primafacie.situation.statistics", "Statistics.run"),
    ("result", "primafacie.situation.engine", "SituationTest._result"),
    ("summary", "primafacie.situation.results", "SituationResult.summary"),
]

MB = 2**20


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]  # fmt: skip


def _glibc() -> dict[str, float]:
    """glibc's heap: bytes handed out (``uordblks`` + mmapped ``hblkhd``) and free bytes kept
    in the arenas (``fordblks``), in MB; empty where glibc has no ``mallinfo2``."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _Mallinfo2
        m = libc.mallinfo2()
    except (OSError, AttributeError):
        return {}
    return {"malloc_used_mb": round((m.uordblks + m.hblkhd) / MB, 1),
            "malloc_free_kept_mb": round(m.fordblks / MB, 1)}  # fmt: skip


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _Sampler(threading.Thread):
    def __init__(self, stacks_mb: float = 0.0) -> None:
        super().__init__(daemon=True)
        self.peak = self.stage_peak = 0
        self.stop = False
        self.step = stacks_mb * MB
        self.main = threading.main_thread().ident
        self.noted = 0

    def run(self) -> None:
        while not self.stop:
            r = _rss()
            self.peak, self.stage_peak = max(self.peak, r), max(self.stage_peak, r)
            if self.step and r > self.noted + self.step:
                self.noted = r
                self._where(r)
            time.sleep(0.01)

    def _where(self, r: int) -> None:
        """Print each thread's innermost frames of the package (and the frame below them)."""
        where = {}
        for ident, frame in sys._current_frames().items():
            if ident == self.ident:
                continue
            stack = traceback.extract_stack(frame)
            ours = [f for f in stack if "primafacie" in f.filename]
            if not ours:
                continue
            lines = [
                f"{f.filename.split('primafacie/')[-1]}:{f.lineno} {f.name}" for f in ours[-4:]
            ]
            if stack[-1] not in ours[-1:]:
                lines.append(
                    f"{stack[-1].filename.split('/')[-1]}:{stack[-1].lineno} {stack[-1].name}"
                )
            where["main" if ident == self.main else str(ident)] = lines
        print(json.dumps({"rss_mb": round(r / MB, 1), "where": where}), flush=True)


def _pool_mb() -> float:
    try:
        import pyarrow as pa
    except ImportError:
        return 0.0
    return round(pa.total_allocated_bytes() / MB, 1)


def _wrap(stage: str, func: Any, sampler: _Sampler, top: int) -> Any:
    @functools.wraps(func)
    def recorded(*args: Any, **kwargs: Any) -> Any:
        before = _rss()
        # a stage inside another: the outer stage's maximum so far is kept for it
        outer, sampler.stage_peak = sampler.stage_peak, before
        try:
            return func(*args, **kwargs)
        finally:
            row: dict[str, Any] = {
                "stage": stage,
                "rss_before_mb": round(before / MB, 1),
                "rss_after_mb": round(_rss() / MB, 1),
                "rss_max_mb": round(max(sampler.stage_peak, _rss()) / MB, 1),
                "traced_mb": round(tracemalloc.get_traced_memory()[0] / MB, 1),
                "arrow_pool_mb": _pool_mb(),
                **_glibc(),
            }
            if top and tracemalloc.is_tracing():
                stats = tracemalloc.take_snapshot().statistics("lineno")[:top]
                row["top"] = [
                    f"{s.size / MB:.1f} MB {s.traceback[0].filename.split('/')[-1]}:"
                    f"{s.traceback[0].lineno}"
                    for s in stats
                ]
            print(json.dumps(row), flush=True)
            sampler.stage_peak = max(outer, sampler.stage_peak)

    return recorded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config", nargs="?")
    parser.add_argument("out", nargs="?")
    parser.add_argument("--scale", type=float, help="scale.py's base case at N rows instead")
    parser.add_argument("--top", type=int, default=0)
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--stacks", type=float, default=0.0, metavar="MB",
                        help="print where the main thread is at each new RSS high (+MB)")  # fmt: skip
    args = parser.parse_args()
    if args.trace:
        tracemalloc.start(1)
    sampler = _Sampler(args.stacks)
    sampler.start()
    if args.scale:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    for stage, module, attr in STAGES + (ENGINE if args.scale else []):
        owner: Any = importlib.import_module(module)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        if not hasattr(owner, name):  # a stage an older tree does not have
            continue
        setattr(owner, name, _wrap(stage, getattr(owner, name), sampler, args.top))
    from primafacie.audit import registry

    for analysis in registry.ANALYSES:
        module = importlib.import_module(analysis.run.__module__)
        wrapped = getattr(module, analysis.run.__name__, None)
        if wrapped is not None and wrapped is not analysis.run and hasattr(wrapped, "__wrapped__"):
            object.__setattr__(analysis, "run", wrapped)
    t0 = time.perf_counter()
    if args.scale:
        import scale

        print(json.dumps(scale._situation_case(int(args.scale), False, "auto")), flush=True)
    else:
        from primafacie.cli import app

        try:
            app(["audit", args.config, "--out", args.out, "--no-progress"], standalone_mode=False)
        except SystemExit as exc:  # pragma: no cover - the CLI's exit
            if exc.code:
                raise
    sampler.stop = True
    end = {"stage": "end", "peak_mb": round(sampler.peak / MB, 1),
           "wall_s": round(time.perf_counter() - t0, 1), "load": round(os.getloadavg()[0], 1)}  # fmt: skip
    print(json.dumps(end), flush=True)


if __name__ == "__main__":
    main()
