"""Scaling benchmark of exact k-NN situation testing: rows, features and categorical levels.

Situation-testing cases run every method (st, cst, cst_centers, cf) at k = 15, 30, 50 on the
credit world (:mod:`primafacie.datasets.credit_world`: 4 numeric, 1 ordinal and 2 categorical
features, women protected, decisions by the scorecard rule, counterfactuals from the fitted
SCM) at growing n. The ``postcode`` cases add an exogenous categorical feature with 5,000
levels (uniform), the many-level case of issue 10: it must cost at most 2x the same table
without it. Each case runs in its own subprocess, so the peak resident memory (``ru_maxrss``,
as in ``benchmarks/situation.py``) is that case's own; ``seconds`` covers the SCM fit, the
counterfactuals and the tests (not the data generation); ``cpu s`` is the process CPU time
of the same span (the machine is shared: wall seconds vary with the load, CPU seconds less).

``--dask W`` runs the situation cases on a ``LocalCluster`` of W worker processes (one thread
each; the cluster is started before the clock, the scattered index and the chunk tasks are
inside it; ``peak MB`` is then the client process only, the workers' peak is ``worker MB``;
``total MB`` is the peak of the summed memory of the process and all its children, workers,
nannies and scheduler included, sampled every 0.2 s).
``--recourse`` times FACTS on the Adult test split replicated 10x (``$PRIMAFACIE_DATA``;
support 0.01, the paper's setting of :func:`primafacie.experiments.facts.run_adult_audit`).
Every line also prints the 1-minute load average at its end (the machine is shared).

``--calibrate`` instead times :func:`primafacie.neighbors.knn` itself per backend (wall
seconds, index building included) for m queries among n rows of uniform data rounded to 3
decimals, on shapes either side of the ``auto`` rule's thresholds (the table in the docstring
of :mod:`primafacie.neighbors`); brute force is timed on m / 10 queries and scaled by 10.

Usage::

    python benchmarks/scale.py                 # 10^4 and 10^5 rows, with and without postcode
    python benchmarks/scale.py --max-n 1e6     # also 10^6 rows (minutes)
    python benchmarks/scale.py --calibrate     # per-backend k-NN timings
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

METHODS = ["st", "cst", "cst_centers", "cf"]
KS = [15, 30, 50]
POSTCODE_LEVELS = 5_000


def _credit_data(n: int, postcode: bool):
    """The credit world as AuditData, decided by the scorecard rule; optionally a postcode."""
    from primafacie.data import AuditData
    from primafacie.datasets.credit_world import (
        CREDIT_FEATURES,
        SCORECARD_RULE,
        generate_credit_world,
    )
    from primafacie.decisions import Rule

    world = generate_credit_world(n=n, seed=0)
    rule = Rule(SCORECARD_RULE)
    world["approved"] = rule.predict(world)
    features = dict(CREDIT_FEATURES)
    if postcode:
        rng = np.random.default_rng(1)
        world["postcode"] = np.char.add("p", rng.integers(0, POSTCODE_LEVELS, n).astype(str))
        features["postcode"] = "categorical"
    # Newer AuditData refuses more than max_levels (default 1,000) levels: raise it here.
    limit = {"max_levels": 2 * POSTCODE_LEVELS}
    if "max_levels" not in inspect.signature(AuditData).parameters:
        limit = {}
    data = AuditData(
        world, features=features, protected={"gender": "female"}, decision="approved", **limit
    )
    return data, rule


def _worker_peak_mb(backend) -> float:
    """Largest peak resident memory among the Dask workers (0 when local)."""
    if backend is None:
        return 0.0
    from primafacie.compute import _dask_client

    client = _dask_client(backend.address, backend.n_jobs)
    peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return round(max(peaks.values()), 1)


class _TreeMemory:
    """Peak of the summed resident memory of this process and all its descendants (the Dask
    workers, nannies and scheduler of a LocalCluster), sampled every 0.2 s in a thread: the
    "in total" of a run's memory, which no single process's peak gives."""

    def __init__(self) -> None:
        import threading

        import psutil

        self.peak = 0
        self._me = psutil.Process()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _total(self) -> int:
        total = 0
        for proc in [self._me, *self._me.children(recursive=True)]:
            try:
                total += proc.memory_info().rss
            except Exception:  # a process that just ended
                pass
        return total

    def _sample(self) -> None:
        # A guard for shared machines: stop the whole tree before it exhausts the memory.
        limit = float(os.environ.get("PRIMAFACIE_BENCH_MAX_MB", "inf")) * 2**20
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, self._total())
            if self.peak > limit:
                print(f"stopped: {self.peak / 2**20:.0f} MB in total exceeds "
                      f"PRIMAFACIE_BENCH_MAX_MB", file=sys.stderr, flush=True)  # fmt: skip
                for proc in self._me.children(recursive=True):
                    proc.kill()
                os._exit(3)

    def stop_mb(self) -> float:
        self._stop.set()
        self._thread.join()
        return round(max(self.peak, self._total()) / 2**20, 1)


def _situation_case(n: int, postcode: bool, algorithm: str, workers: int = 0) -> dict:
    from primafacie.causal import SCM
    from primafacie.compute import Backend
    from primafacie.datasets.credit_world import CREDIT_EDGES
    from primafacie.situation import SituationTest

    backend = Backend("dask", n_jobs=workers) if workers else None
    if workers == 1:  # _dask_client starts >= 2 workers: a 1-worker cluster explicitly
        from distributed import Client, LocalCluster

        from primafacie import compute

        cluster = LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0")
        compute._CLIENTS[(None, 1)] = Client(cluster)
    data, rule = _credit_data(n, postcode)
    # Pay the lazy imports (scipy.stats, scikit-learn trees) before the clock starts.
    small, _ = _credit_data(300, postcode)
    warm = SituationTest(
        methods=METHODS, k=[5], keep_neighbors=False, algorithm=algorithm, backend=backend
    )
    warm.run(small, scm=SCM(edges=CREDIT_EDGES).fit(small), decider=rule)
    tree = _TreeMemory()
    t0, c0 = time.perf_counter(), time.process_time()
    scm = SCM(edges=CREDIT_EDGES).fit(data)
    test = SituationTest(
        methods=METHODS, k=KS, keep_neighbors=False, algorithm=algorithm, backend=backend
    )
    test.run(data, scm=scm, decider=rule).summary()
    seconds = time.perf_counter() - t0
    cpu = time.process_time() - c0
    total = tree.stop_mb()
    wpeak = _worker_peak_mb(backend)
    levels = sum(len(data.frame[c].unique()) for c, k in data.features.items()
                 if getattr(k, "kind", k) == "categorical")  # fmt: skip
    return {
        "case": f"situation{'+postcode' if postcode else ''}/{algorithm}"
        + (f"/dask{workers}" if workers else ""),
        "n": n,
        "features": len(data.features),
        "levels": levels,
        "seconds": round(seconds, 2),
        "cpu_s": round(cpu, 2),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rows_s": round(n / seconds),
        "worker_mb": wpeak,
        "total_mb": total,
        "load": round(os.getloadavg()[0], 1),
    }


def _recourse_case(reps: int) -> dict:
    """FACTS on the Adult test split replicated ``reps`` times, support 0.01: the whole
    ``run`` (mining, flip counts and every definition scored; ``fit`` alone is deprecated)."""
    import pandas as pd

    from primafacie.experiments.facts import ADULT_WEIGHTS, fit_adult_model
    from primafacie.recourse import RecourseFairness

    model, _, X_test, _, _ = fit_adult_model(None, seed=131313, protected="sex")
    big = pd.concat([X_test] * reps, ignore_index=True)
    features = {c: "categorical" for c in big.columns}
    features.update({"education-num": {"ordinal": list(range(1, 17))},
                     "capital-gain": "numeric", "capital-loss": "numeric",
                     "hours-per-week": {"ordinal": list(big["hours-per-week"].cat.categories)},
                     "age": {"ordinal": list(big["age"].cat.categories)}})  # fmt: skip
    t0, c0 = time.perf_counter(), time.process_time()
    audit = RecourseFairness(
        model, protected="sex", support=0.01, feature_weights=ADULT_WEIGHTS,
        immutable=["sex", "race"], monotone=["age", "education-num"],
        max_step={"age": 2, "education-num": 2}, binary_cost=["age"], features=features,
        normalize=["capital-gain", "capital-loss"],
    )  # fmt: skip
    audit.run(big)
    seconds = time.perf_counter() - t0
    return {
        "case": f"recourse/adult x{reps}",
        "n": len(big),
        "features": big.shape[1] - 1,
        "levels": int(sum(big[c].nunique() for c in big.columns)),
        "seconds": round(seconds, 2),
        "cpu_s": round(time.process_time() - c0, 2),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "rows_s": round(len(big) / seconds),
        "worker_mb": 0.0,
        "load": round(os.getloadavg()[0], 1),
        "subgroups": audit.stats_["subgroups"],
    }


def _slopes() -> None:
    """CPU seconds of the default k-NN (``auto``) for 2·10^4 queries among 10^5 rows, varying
    k (5 numeric columns, two 3-level categoricals) and the numeric columns (k = 51): the
    points the cost slopes of ``docs/scaling.md`` are fitted on."""
    from primafacie.neighbors import GowerMatrix, knn

    def one(p: int, k: int, n: int = 100_000, m: int = 20_000) -> float:
        rng = np.random.default_rng(0)
        num = np.round(rng.random((n + m, p)), 3)
        codes = rng.integers(0, 3, (n + m, 2))
        X = GowerMatrix(num, codes, (3, 3))
        q, b = X[np.arange(m)], X[np.arange(m, n + m)]
        c0 = time.process_time()
        knn(q, b, k, divisor=p + 2)
        return time.process_time() - c0

    print(f"{'p':>3} {'k':>4} {'cpu s':>7}")
    for p, k in [(5, 16), (5, 31), (5, 51), (3, 51), (7, 51), (10, 51)]:
        print(f"{p:>3} {k:>4} {one(p, k):>7.2f}", flush=True)


def _calibrate_shape(n: int, p: int, levels: tuple[int, ...], m: int, k: int) -> dict:
    """Seconds of knn per backend for m queries among n random rows of the given shape."""
    from primafacie.neighbors import GowerMatrix, choose_algorithm, knn

    rng = np.random.default_rng(0)
    num = np.round(rng.random((n + m, p)), 3)  # rounded: ties, as in real tables
    codes = np.column_stack([rng.integers(0, v, n + m) for v in levels]) if levels else None
    codes = codes if codes is not None else np.zeros((n + m, 0), dtype=np.int64)
    X = GowerMatrix(num, codes, levels)
    q, b = X[np.arange(m)], X[np.arange(m, n + m)]
    out = {"n": n, "p": p, "levels": list(levels), "m": m, "k": k}
    ref = None
    for algorithm in ("brute", "tree", "faiss"):
        # brute force costs m·n: time a tenth of the queries and scale up
        sub = m // 10 if algorithm == "brute" else m
        t0 = time.perf_counter()
        res = knn(q[np.arange(sub)], b, k, algorithm=algorithm, divisor=p + len(levels))
        out[algorithm] = round((time.perf_counter() - t0) * m / sub, 2)
        ref = res.indices if ref is None else ref
        assert np.array_equal(ref, res.indices[: len(ref)]), algorithm
    out["auto"] = choose_algorithm(n, p, levels, k)
    return out


def _run(args: list[str]) -> dict | None:
    out = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        print(f"{args} failed: {out.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--case", help="run one case (internal): n,postcode,algorithm")
    parser.add_argument("--shape", help="calibrate one shape (internal): n,p,levels,m,k")
    parser.add_argument("--max-n", type=float, default=1e5)
    parser.add_argument("--algorithm", default="auto", help="knn backend of the situation cases")
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--dask", type=int, default=0, help="situation on W Dask workers")
    parser.add_argument("--min-n", type=float, default=1e4)
    parser.add_argument("--no-postcode", action="store_true")
    parser.add_argument("--recourse", action="store_true", help="FACTS on Adult x10")
    parser.add_argument("--slopes", action="store_true", help="knn seconds vs k and columns")
    args = parser.parse_args()
    if args.case:
        n, pc, algorithm, *w = args.case.split(",")
        workers = int(w[0]) if w else 0
        print(json.dumps(_situation_case(int(float(n)), pc == "1", algorithm, workers)))
        return
    if args.recourse:
        _print_row(_recourse_case(10), header=True)
        return
    if args.slopes:
        _slopes()
        return
    if args.shape:
        n, p, levels, m, k = args.shape.split(",")
        lv = tuple(int(v) for v in levels.split("-") if v)
        print(json.dumps(_calibrate_shape(int(float(n)), int(p), lv, int(m), int(k))))
        return
    if args.calibrate:
        shapes = [
            "2e4,5,3-3,10000,51", "1e5,3,3-3,20000,51", "1e5,5,3-3,20000,51",
            "1e5,5,3-3-5000,20000,51", "1e5,7,3-3,20000,51", "1e5,10,3-3,20000,51",
            "1e5,20,,20000,51",
        ]  # fmt: skip
        print(f"{'n':>8} {'p':>3} {'levels':<18} {'m':>5} {'brute':>7} {'tree':>7} "
              f"{'faiss':>7}  auto")  # fmt: skip
        for shape in shapes:
            r = _run(["--shape", shape])
            if r:
                lv = "-".join(map(str, r["levels"])) or "-"
                print(f"{r['n']:>8} {r['p']:>3} {lv:<18} {r['m']:>5} {r['brute']:>7.2f} "
                      f"{r['tree']:>7.2f} {r['faiss']:>7.2f}  {r['auto']}")  # fmt: skip
        return
    _print_row(None, header=True)
    for n in (1e4, 1e5, 1e6, 1e7):
        if n > args.max_n or n < args.min_n:
            continue
        for pc in ("0",) if args.no_postcode else ("0", "1"):
            _print_row(_run(["--case", f"{n},{pc},{args.algorithm},{args.dask}"]))


def _print_row(r: dict | None, header: bool = False) -> None:
    """One line of the table (and the header first when asked)."""
    if header:
        print(f"{'case':<30} {'n':>8} {'features':>8} {'levels':>7} {'seconds':>8} "
              f"{'cpu s':>8} {'peak MB':>8} {'worker MB':>9} {'total MB':>9} {'rows/s':>8} "
              f"{'load':>5}")  # fmt: skip
    if r:
        print(f"{r['case']:<30} {r['n']:>8} {r['features']:>8} {r['levels']:>7} "
              f"{r['seconds']:>8.2f} {r['cpu_s']:>8.2f} {r['peak_mb']:>8.1f} "
              f"{r['worker_mb']:>9.1f} {r.get('total_mb', 0.0):>9.1f} {r['rows_s']:>8} "
              f"{r['load']:>5}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
