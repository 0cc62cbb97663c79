"""Capture the k-NN searches of a credit-world situation test, then replay them alone.

``--capture N`` runs the situation case of ``benchmarks/scale.py`` (every method, k = 15, 30,
50, local) at N rows, with the 5,000-level postcode unless ``--no-postcode``, and saves the
queries, base and options of every :func:`primafacie.neighbors.knn` call it makes to
``DIR/call<i>.pkl``; it prints the CPU seconds spent inside the searches and in the whole run.
``--replay DIR`` runs those searches again (without the reducer: the full lists), printing
each one's CPU and wall seconds and a SHA-256 of its indices and distances, so that two
checkouts (``PYTHONPATH=src``) can be compared back to back on exactly the same searches and
their lists checked equal. Usage::

    PYTHONPATH=src python benchmarks/knn_replay.py --capture 1e6 --dir /tmp/knn-1e6-pc
    PYTHONPATH=src python benchmarks/knn_replay.py --replay /tmp/knn-1e6-pc
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _capture(n: int, postcode: bool, out: Path | None) -> None:
    from scale import KS, METHODS, _credit_data

    from primafacie.causal import SCM
    from primafacie.datasets.credit_world import CREDIT_EDGES
    from primafacie.situation import SituationTest
    from primafacie.situation import search as situation_search

    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    real = situation_search.knn
    spent = {"cpu": 0.0, "wall": 0.0, "calls": 0}

    def recording(centres, base, k, **opts):
        reduce = opts.pop("reduce", None)
        if out is not None:
            with open(out / f"call{spent['calls']}.pkl", "wb") as f:
                pickle.dump((centres, base, k, opts), f, protocol=pickle.HIGHEST_PROTOCOL)
        spent["calls"] += 1
        c0, t0 = time.process_time(), time.perf_counter()
        found = real(centres, base, k, **opts, reduce=reduce)
        spent["cpu"] += time.process_time() - c0
        spent["wall"] += time.perf_counter() - t0
        return found

    situation_search.knn = recording
    data, rule = _credit_data(n, postcode)
    c0, t0 = time.process_time(), time.perf_counter()
    scm = SCM(edges=CREDIT_EDGES).fit(data)
    test = SituationTest(methods=METHODS, k=KS, keep_neighbors=False)
    test.run(data, scm=scm, decider=rule).summary()
    print(f"n={n} postcode={int(postcode)} calls={spent['calls']} "
          f"knn cpu={spent['cpu']:.2f} wall={spent['wall']:.2f} | "
          f"run cpu={time.process_time() - c0:.2f} wall={time.perf_counter() - t0:.2f} "
          f"load={os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip


def _replay(folder: Path, threads: int) -> None:
    import numpy as np

    from primafacie.compute import Backend
    from primafacie.neighbors import knn

    calls = sorted(folder.glob("call*.pkl"), key=lambda p: int(p.stem[4:]))
    total_cpu = total_wall = 0.0
    every = hashlib.sha256()
    for path in calls:
        with open(path, "rb") as f:
            centres, base, k, opts = pickle.load(f)
        opts = {**opts, "backend": Backend(n_jobs=threads)}
        c0, t0 = time.process_time(), time.perf_counter()
        res = knn(centres, base, k, **opts)
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        total_cpu, total_wall = total_cpu + cpu, total_wall + wall
        h = hashlib.sha256()
        for a in (res.indices, res.distances):
            h.update(np.ascontiguousarray(a).tobytes())
        every.update(h.digest())
        print(f"{path.stem:>7} m={len(centres):>8} n={len(base):>8} k={k:>3} "
              f"cpu={cpu:7.2f} wall={wall:7.2f} {h.hexdigest()[:16]}", flush=True)  # fmt: skip
    print(f"  total cpu={total_cpu:.2f} wall={total_wall:.2f} lists={every.hexdigest()[:16]} "
          f"load={os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--capture", type=float, help="rows of the situation case to capture")
    parser.add_argument("--no-postcode", action="store_true")
    parser.add_argument("--dir", type=Path, help="folder of the captured searches")
    parser.add_argument("--replay", type=Path, help="replay the searches of this folder")
    parser.add_argument("--threads", type=int, default=1, help="local threads of a replay")
    args = parser.parse_args()
    if args.replay is not None:
        _replay(args.replay, args.threads)
    elif args.capture:
        _capture(int(args.capture), not args.no_postcode, args.dir)
    else:
        parser.error("give --capture N or --replay DIR")


if __name__ == "__main__":
    main()
