"""Where the k-NN cost per query grows with n: the stages of one exact search, timed.

The situation test's cost slope (CPU seconds against rows) was 1.46 from 10^6 to 10^7 rows
(``docs/scaling.md``). This script separates its causes on the credit world: a fixed set of
``--queries`` complainants (women, the first ones) searched among the men (the ST test group)
at k = 51 (k_max + 1) with the default ``auto`` backend (KD-trees per stratum), for growing n,
on one thread. It times (CPU seconds of this process) the strata and their trees (built once
per search: O(n log n)), the tree queries of the k + 8 nearest, the radius searches of the
queries whose ties at the k-th distance reach past k + 8 (and how many rows they fetch),
the canonical distances of the candidates and their ranking. With a fixed number of queries,
a stage whose cost per query is flat in n is linear in n over a whole run (the complainants
grow with n); one that grows with n is what makes the whole run super-linear.

Usage::

    python benchmarks/slope.py --n 2e5 1e6 2e6 --queries 20000
    python benchmarks/slope.py --n 2e5 1e6 --share 0.2 [--no-z]   # queries grow with n
    python benchmarks/slope.py --n 2e5 1e6 --share 0.2 --off levels zbase   # causes, one by one
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

import numpy as np


def _timed(module, name: str, acc: dict, counts: dict) -> None:
    """Replace ``module.name`` by a wrapper adding its CPU seconds to ``acc[name]``."""
    fn = getattr(module, name)

    def wrapper(*args, **kwargs):
        c0 = time.process_time()
        out = fn(*args, **kwargs)
        acc[name] += time.process_time() - c0
        counts[name] += 1
        return out

    setattr(module, name, wrapper)


def one(n: int, queries: int, k: int, zblock: bool = False, z: bool = True, off=()) -> dict:
    from primafacie import compute
    from primafacie.data import AuditData
    from primafacie.datasets.credit_world import CREDIT_FEATURES, generate_credit_world
    from primafacie.neighbors import GowerTransformer, gower, knn
    from primafacie.neighbors import search as S

    world = generate_credit_world(n=n, seed=0)
    data = AuditData(world, features=CREDIT_FEATURES, protected={"gender": "female"},
                     decision="approved" if "approved" in world else "human")  # fmt: skip
    tf = GowerTransformer(data.features, scale="range").fit(data.frame)
    X = tf.transform(data.frame)
    women = np.flatnonzero(world["gender"].to_numpy() == "female")
    men = np.flatnonzero(world["gender"].to_numpy() != "female")
    if zblock:  # queries consecutive in the Z order of all women: a chunk of a sorted run
        plain = S._embed(X[women], [], None, 1.0)
        z = women[S._z_order(plain)]
        start = (len(z) - queries) // 2
        q = X[np.sort(z[start : start + queries])]
    else:
        q = X[women[:queries]]
    b = X[men]
    acc: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    stats = {"radius_queries": 0, "radius_rows": 0, "tree_queries": 0, "trees": 0}
    # the tree's own calls: k + 8 nearest and the radius search, counted and timed
    real_index = S._tree_index

    def tree_index(emb, maxabs):
        c0 = time.process_time()
        idx = real_index(emb, maxabs)
        acc["tree build"] += time.process_time() - c0
        stats["trees"] += 1

        def search(e, kq):
            c0 = time.process_time()
            out = idx.search(e, kq)
            acc["tree query"] += time.process_time() - c0
            stats["tree_queries"] += len(e)
            return out

        def radius(e, r):
            c0 = time.process_time()
            out = idx.radius(e, r)
            acc["tree radius"] += time.process_time() - c0
            stats["radius_queries"] += len(e)
            stats["radius_rows"] += int(sum(len(a) for a in out))
            return out

        return S._Index(search=search, tol=idx.tol, radius=radius)

    S._tree_index = tree_index
    from primafacie.neighbors import layout, levels

    for name in off:  # switch one cause off: its threshold beyond any index
        {"levels": levels, "zbase": layout}[name].MIN_ROWS = 10**18
    if not z:  # the queries in data order, as before the Z order
        S._z_order = lambda e: np.arange(len(e))
    _timed(S, "_strata", acc, counts)
    _timed(S, "select_pairs", acc, counts)
    _timed(S, "merge_ranked", acc, counts)
    _timed(S, "_sums_within", acc, counts)
    _timed(S, "_unseen", acc, counts)
    _timed(S, "_gather", acc, counts)
    _timed(S, "_brute", acc, counts)
    S.canonical_sums = _wrap(gower.canonical_sums, acc, "canonical distances")
    c0 = time.process_time()
    knn(q, b, k, divisor=tf.divisor, decimals=12, backend=compute.Backend("local", n_jobs=1),
        algorithm="tree")  # fmt: skip
    total = time.process_time() - c0
    out = {"n": n, "base": len(b), "queries": len(q), "k": k, "cpu_s": round(total, 2)}
    out.update({name: round(v, 2) for name, v in sorted(acc.items())})
    out.update(stats)
    out["us_per_query_excl_strata"] = round(1e6 * (total - acc["_strata"]) / len(q), 1)
    return out


def _wrap(fn, acc: dict, name: str):
    def wrapper(*args, **kwargs):
        c0 = time.process_time()
        out = fn(*args, **kwargs)
        acc[name] += time.process_time() - c0
        return out

    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=float, nargs="+", default=[2e5, 1e6])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--k", type=int, default=51)
    parser.add_argument("--zblock", action="store_true", help="queries adjacent in Z order")
    parser.add_argument("--share", type=float, default=0.0,
                        help="queries: this share of the women (overrides --queries)")  # fmt: skip
    parser.add_argument("--no-z", action="store_true", help="tree queries in data order")
    parser.add_argument("--off", nargs="*", default=[], choices=["levels", "zbase"],
                        help="no split by levels / tree rows in data order")  # fmt: skip
    args = parser.parse_args()
    one(2_000, 100, args.k)  # pay the imports (scikit-learn's trees) before any clock
    for n in args.n:
        m = int(args.share * n / 2) if args.share else args.queries
        out = one(int(n), m, args.k, args.zblock, not args.no_z, tuple(args.off))
        print(json.dumps({**out, "off": args.off}), flush=True)


if __name__ == "__main__":
    main()
