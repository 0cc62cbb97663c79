"""What runs where in a Dask ``primafacie audit``: a timeline of the backend's maps.

Runs ``primafacie audit`` on the credit world (the inputs of ``audit_scale.py``) in this
process, on a 2-worker LocalCluster, and records at the start and end of every
:meth:`Backend.imap <primafacie.compute.Backend.imap>` (one stage of tasks: a search's
chunks, pass 1, pass 2): the wall clock, the client's CPU seconds, the workers' CPU seconds
(``getrusage`` on each worker), the client's RSS (and its maximum, sampled every 20 ms), the
bytes sent (the shared input scattered, the items) and the bytes returned. What lies between
two maps is client work. Prints one JSON line per stage, then the totals.

Usage::

    python benchmarks/dask_stages.py --n 2e5
    python benchmarks/dask_stages.py --n 1e6 --out /tmp/x
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def _worker_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _pickled(obj: object) -> int:
    """Bytes of ``obj`` pickled as Dask sends it (protocol 5, buffers out of band, counted
    without copying them)."""
    import cloudpickle

    sizes: list[int] = []
    head = cloudpickle.dumps(
        obj, protocol=5, buffer_callback=lambda b: sizes.append(b.raw().nbytes)
    )
    return len(head) + sum(sizes)


class _Peak(threading.Thread):
    """The client's RSS maximum since the last :meth:`take`, sampled every 20 ms."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        import psutil

        self.proc = psutil.Process()
        self.peak = 0
        self.stop = False

    def run(self) -> None:
        while not self.stop:
            self.peak = max(self.peak, self.proc.memory_info().rss)
            time.sleep(0.02)

    def take(self) -> int:
        rss = self.proc.memory_info().rss
        out, self.peak = max(self.peak, rss), rss
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=float, required=True)
    parser.add_argument("--work", default="/tmp/primafacie-audit-bench")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    n = int(args.n)
    from audit_scale import _inputs

    from primafacie import compute

    cfg = _inputs(n, Path(args.work), 2)
    out = args.out or str(Path(args.work) / f"stages_{n}")
    client = compute._dask_client(None, 2)
    t0 = time.perf_counter()
    peak = _Peak()
    peak.start()

    def state() -> dict:
        cpu = sum(client.run(_worker_cpu).values())
        return {"t": time.perf_counter() - t0, "cpu": time.process_time(), "wcpu": cpu,
                "rss": peak.proc.memory_info().rss, "peak": peak.take()}  # fmt: skip

    rows: list[dict] = []
    last = [state()]
    real = compute.Backend.imap

    def imap(self, fn, items, shared=compute._NOTHING):  # noqa: ANN001, ANN202
        items = list(items)
        if self.kind != "dask":
            yield from real(self, fn, items, shared=shared)
            return
        name = fn.__name__
        if name == "_post_chunk":
            name = f"knn:{shared[0].__name__}"
        start = state()
        _row("client", last[0], start)
        # a future item is already on the workers (Backend.keep): not sent again
        sent = (0 if shared is compute._NOTHING else _pickled(shared)) + sum(
            _pickled(x) for x in items if type(x).__name__ != "Future"
        )
        back = 0
        for res in real(self, fn, items, shared=shared):
            back += _pickled(res)
            yield res
        end = state()
        _row(name, start, end, tasks=len(items), sent_mb=sent / 2**20, back_mb=back / 2**20)
        last[0] = end

    def _row(name: str, a: dict, b: dict, **extra: float) -> None:
        row = {"stage": name, "t0": round(a["t"], 1), "wall_s": round(b["t"] - a["t"], 2),
               "client_cpu_s": round(b["cpu"] - a["cpu"], 2),
               "worker_cpu_s": round(b["wcpu"] - a["wcpu"], 2),
               "rss_mb": round(b["rss"] / 2**20), "peak_mb": round(b["peak"] / 2**20),
               **{k: round(v, 2) if isinstance(v, float) else v for k, v in extra.items()}}  # fmt: skip
        rows.append(row)
        print(json.dumps(row), flush=True)

    real_keep = compute.Backend.keep

    def keep(self, fn, items, shared=compute._NOTHING):  # noqa: ANN001, ANN202
        # tasks whose results stay on the workers: only what is sent is counted here (their
        # CPU falls in the stage that waits for them)
        items = list(items)
        if self.kind == "dask":
            sent = (0 if shared is compute._NOTHING else _pickled(shared)) + sum(
                _pickled(x) for x in items if type(x).__name__ != "Future"
            )
            rows.append(
                {"stage": f"keep:{fn.__name__}", "tasks": len(items), "sent_mb": sent / 2**20}
            )
        return real_keep(self, fn, items, shared=shared)

    compute.Backend.imap = imap
    compute.Backend.keep = keep
    sys.argv = ["primafacie", "audit", str(cfg), "--out", out, "--no-progress"]
    from primafacie.launch import main as cli

    try:
        cli()
    except SystemExit as exc:
        if exc.code:
            raise
    _row("client", last[0], state())
    total = {
        "n": n,
        "wall_s": round(time.perf_counter() - t0, 1),
        "client_cpu_s": round(sum(r.get("client_cpu_s", 0) for r in rows), 1),
        "worker_cpu_s": round(sum(r.get("worker_cpu_s", 0) for r in rows), 1),
        "client_peak_mb": max(r.get("peak_mb", 0) for r in rows),
        "sent_mb": round(sum(r.get("sent_mb", 0) for r in rows), 1),
        "back_mb": round(sum(r.get("back_mb", 0) for r in rows), 1),
        "load": round(os.getloadavg()[0], 1),
    }
    print(json.dumps(total), flush=True)


if __name__ == "__main__":
    main()
