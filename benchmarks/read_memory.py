"""Peak resident memory of the audit's read stage (issue 22): one configuration's data read
as ``primafacie audit`` reads it, in a process of its own.

Usage::

    python benchmarks/read_memory.py CONFIG.yaml [--stage read|audit_data]

``read`` times :meth:`~primafacie.config_reading.DataReading.read_frame` (``encoded=True``:
the audit's call, the used columns only); ``audit_data`` the whole stage that
``benchmarks/audit_memory.py`` calls "read data + decisions" (read, ``where``, ``dropna``,
compaction and the rule's decisions). The configuration is parsed and the libraries are
imported before the measurement. Prints one JSON line: wall and CPU seconds (every thread),
the RSS before, the peak during the stage (a thread samples every 5 ms, and ``ru_maxrss``
when it is above the RSS before), the RSS after, the frame's own bytes and the 1-minute load.
``benchmarks/audit_scale.py`` writes the configurations (credit world) into
``/tmp/primafacie-audit-bench/``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import threading
import time

MB = 2**20


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _Sampler(threading.Thread):
    """The largest RSS seen, every 5 ms, until ``stop``."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0
        self.stop = False

    def run(self) -> None:
        while not self.stop:
            self.peak = max(self.peak, _rss())
            time.sleep(0.005)


def main() -> None:
    """Measure the stage named by ``--stage`` on CONFIG and print it as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config")
    parser.add_argument("--stage", choices=("read", "audit_data"), default="read")
    args = parser.parse_args()

    import pandas  # noqa: F401  imported before the measurement
    import pyarrow.dataset  # noqa: F401

    from primafacie.config import load_config

    cfg = load_config(args.config)
    before = _rss()
    sampler = _Sampler()
    sampler.start()
    t0, c0 = time.perf_counter(), os.times()
    if args.stage == "read":
        frame = cfg.read_frame(encoded=True)
    else:
        frame = cfg.audit_data().frame
    c1 = os.times()
    wall = time.perf_counter() - t0
    sampler.stop = True
    sampler.join()
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    peak = max(sampler.peak, _rss(), maxrss if maxrss > before else 0)
    row = {
        "config": os.path.basename(args.config),
        "stage": args.stage,
        "rows": len(frame),
        "wall_s": round(wall, 2),
        "cpu_s": round((c1.user - c0.user) + (c1.system - c0.system), 2),
        "rss_before_mb": round(before / MB, 1),
        "peak_mb": round(peak / MB, 1),
        "peak_over_before_mb": round((peak - before) / MB, 1),
        "rss_after_mb": round(_rss() / MB, 1),
        "frame_mb": round(frame.memory_usage(deep=True).sum() / MB, 1),
        "load": os.getloadavg()[0],
    }
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
