"""Benchmark: FACTS on Adult (sex) at support 0.1, 0.05 and 0.01, and German credit at 0.04.

Each case runs in a fresh process (so the peak resident memory is the case's own) and prints
seconds per stage: data + model fit, mining (frequent itemsets of both groups and of the
unaffected), actions (valid pairs and costs), effectiveness (batched, de-duplicated predict),
micro pass (cumulative numbers from the flip bit-vectors), scoring (all 12 definitions of the
paper's tables) and the end-to-end total. Rows marked ``loose`` use the looser action variant
(``exact_features=False``: actions over any subset of the subgroup's features). A last row times the same mining with mlxtend's
FP-growth for comparison.

Measured 2026-11-22 (2 cores shared with five other engineers' jobs, so times are noisy; the
mlxtend row was skipped; seconds, peak RSS in MB)::

    case                   | subgroups | pairs  | predicted | mining | actions | effect. | micro | scoring | total | peak_MB
    adult-sex s=0.1        |       436 |    606 |    51,536 |   0.12 |    0.10 |    0.30 |  0.15 |    0.03 |  5.75 |  262
    adult-sex s=0.05       |     1,396 |  3,205 |   149,816 |   0.17 |    0.22 |    0.75 |  0.37 |    0.11 |  4.35 |  329
    adult-sex s=0.05 loose |     1,671 | 13,634 |   149,816 |   0.17 |    0.91 |    1.32 |  0.41 |    0.07 |  4.99 |  364
    adult-sex s=0.01       |    12,804 | 99,967 |   902,352 |   1.17 |    1.70 |   11.91 |  5.05 |    0.81 | 23.10 |  456
    german-sex s=0.04      |    28,366 |101,720 |    21,010 |  11.43 |    3.14 |    1.28 |  2.68 |    1.00 | 22.34 |  432

German credit (FACTS App. B; Table 11: 689 s for the authors) mines unbinned numeric attributes,
so 41 affected men give 440,547 frequent itemsets at 4% (Table 12: 244,777; its split was
random_state=None, so counts differ run to run).

The loose variant has 4.3× the valid pairs but predicts no new row: a loose action changing a
subset S of p's features is an exact action of the sub-subgroup p|S (frequent by downward
closure) on the same members, so the prediction cache already holds every modified row.

Usage: ``python benchmarks/recourse.py [--data-dir DIR] [--supports 0.1,0.05,0.01]
[--loose-supports 0.05]``
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time


def _row(case: str, audit, t0: float, t_fit: float, t_end: float) -> dict:
    """One table row: counts from ``audit.stats_``, stage seconds and this process's peak RSS."""
    tm = audit.timings_
    return {
        "case": case,
        "n": audit.stats_["rows"],
        "subgroups": audit.stats_["subgroups"],
        "pairs": audit.stats_["valid_pairs"],
        "predicted": audit.stats_["predicted_rows"],
        "model+data": t_fit - t0 - tm["fit_total"],
        "mining": tm["mining"],
        "actions": tm["actions"],
        "effect.": tm["effectiveness"],
        "micro": tm["micro"],
        "scoring": t_end - t_fit,
        "total": t_end - t0,
        "peak_MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _case(support: float, data_dir: str | None, exact: bool, queue) -> None:
    import warnings

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    from primafacie.experiments.facts import run_adult_audit

    audit, *_ = run_adult_audit(data_dir, support=support, exact_features=exact)
    t_fit = time.perf_counter()
    audit.evaluate(phi=(0.3, 0.7), budgets="auto")
    t_end = time.perf_counter()
    queue.put(_row(f"adult-sex s={support}" + ("" if exact else " loose"), audit, t0, t_fit, t_end))


def _german_case(support: float, data_dir: str | None, queue) -> None:
    """German credit as in FACTS App. B (Table 11: 689 s for the authors at support 0.04):
    numeric attributes unbinned (every distinct value an item), all weights 1, no feasibility
    rules; LogisticRegression on a stratified 70/30 split (seed 131313; the paper's notebook
    used random_state=None)."""
    import warnings

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import Pipeline

    from primafacie.datasets.german import GERMAN_NUMERIC, german_features, load_german_credit
    from primafacie.experiments.facts import OneHotCodes
    from primafacie.recourse import RecourseFairness

    df = load_german_credit(data_dir)
    y = df.pop("target")
    X_tr, X_te, y_tr, _ = train_test_split(df, y, train_size=0.7, stratify=y, random_state=131313)
    model = Pipeline(
        [("onehot", OneHotCodes(numeric=GERMAN_NUMERIC)),
         ("lr", LogisticRegression(max_iter=1500, solver="newton-cholesky"))]
    ).fit(X_tr, y_tr)  # fmt: skip
    X_te = X_te.reset_index(drop=True)
    kinds = german_features()
    audit = RecourseFairness(
        model, protected="sex", support=support, features=kinds,
        feature_weights=dict.fromkeys(kinds, 1), immutable=["sex"],
    ).fit(X_te)  # fmt: skip
    t_fit = time.perf_counter()
    audit.evaluate(phi=(0.3, 0.7), budgets="auto")
    t_end = time.perf_counter()
    queue.put(_row(f"german-sex s={support}", audit, t0, t_fit, t_end))


def _mlxtend_case(support: float, data_dir: str | None, queue) -> None:
    import warnings

    import numpy as np

    warnings.simplefilter("ignore")
    from primafacie.experiments.facts import fit_adult_model
    from primafacie.recourse.items import ItemSpace, frequent_itemsets

    model, _, X, _, _ = fit_adult_model(data_dir)
    aff = np.flatnonzero(model.predict(X) == 0)
    space = ItemSpace(X, list(X.columns))
    out = {}
    for method in ("bitset", "mlxtend"):
        t = time.perf_counter()
        n = 0
        for g in ("Female", "Male"):
            rows = aff[X["sex"].to_numpy()[aff] == g]
            n += len(
                frequent_itemsets(space, rows, support, exclude_columns=["sex"], method=method)
            )
        out[method] = (time.perf_counter() - t, n)
    queue.put(
        {
            "case": f"mining only s={support}: bitset {out['bitset'][0]:.2f}s vs mlxtend "
            f"fpgrowth {out['mlxtend'][0]:.2f}s ({out['bitset'][1]} = {out['mlxtend'][1]} itemsets)",
            "peak_MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
    )


def _run(target, *args):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    row = queue.get()
    proc.join()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--supports", default="0.1,0.05,0.01")
    parser.add_argument(
        "--loose-supports", default="0.05",
        help="supports for the looser action variant (exact_features=False); '' for none",
    )  # fmt: skip
    parser.add_argument("--german-support", default="0.04", help="'' to skip German credit")
    parser.add_argument("--skip-mlxtend", action="store_true")
    args = parser.parse_args()
    cols = ["case", "n", "subgroups", "pairs", "predicted", "model+data", "mining", "actions",
            "effect.", "micro", "scoring", "total", "peak_MB"]  # fmt: skip
    print(" | ".join(cols))
    plan = [(float(x), True) for x in args.supports.split(",") if x.strip()]
    plan += [(float(x), False) for x in args.loose_supports.split(",") if x.strip()]
    for s, exact in plan:
        row = _run(_case, s, args.data_dir, exact)
        print(" | ".join(f"{row[c]:.2f}" if isinstance(row[c], float) else str(row[c]) for c in cols),
              flush=True)  # fmt: skip
    if args.german_support.strip():
        row = _run(_german_case, float(args.german_support), args.data_dir)
        print(" | ".join(f"{row[c]:.2f}" if isinstance(row[c], float) else str(row[c]) for c in cols),
              flush=True)  # fmt: skip
    if not args.skip_mlxtend:
        row = _run(_mlxtend_case, 0.01, args.data_dir)
        print(f"{row['case']} | peak_MB {row['peak_MB']:.0f}")


if __name__ == "__main__":
    main()
