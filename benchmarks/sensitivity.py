"""Benchmark of the sensitivity analysis (robustness of CST verdicts to the causal model).

On the demo world (``primafacie demo``'s credit world and audit.yaml settings: methods st, cst,
cst_centers, cf; k = 15, 30), for every protected attribute it times

* the main situation stage: the SCM fit plus ``SituationTest.run`` (what the audit runs once);
* the single-edge variants (each edge removed, each plausible missing edge added, at most 10):
  their total, and the time per variant (an SCM fit, a counterfactual generation and one
  test-group search each, the factual search spaces reused). Variants that cannot change the
  attribute's counterfactuals (an edge removed into a non-descendant) cost nothing and are
  counted, so the table also gives the time per variant that actually ran.

The target of issue 13: seconds per variant ≤ 2 × the main stage.

Usage::

    python benchmarks/sensitivity.py            # demo size (3000 rows)
    python benchmarks/sensitivity.py 10000      # other sizes
"""

from __future__ import annotations

import sys
import time


def _case(n: int) -> list[dict]:
    import numpy as np

    from primafacie.causal import SCM
    from primafacie.data import AuditData
    from primafacie.datasets.credit_world import (
        CREDIT_EDGES,
        CREDIT_FEATURES,
        CREDIT_PROTECTED,
        demo_config,
        generate_credit_world,
        train_decision_makers,
    )
    from primafacie.situation.engine import SituationTest
    from primafacie.situation.sensitivity import SensitivitySpec, run_sensitivity, variants

    frame = generate_credit_world(n, seed=0)
    model = train_decision_makers(frame, seed=0)["lr"]
    features = list(CREDIT_FEATURES)
    frame = frame.assign(decision=model.predict(frame[features]).astype(np.int64))
    data = AuditData(
        frame, features=CREDIT_FEATURES, protected=CREDIT_PROTECTED, decision="decision"
    )
    k = demo_config(n)["analyses"]["situation"]["k"]
    spec = SensitivitySpec(mechanisms=[])  # single-edge variants only
    rows = []
    for attribute in CREDIT_PROTECTED:
        t0 = time.perf_counter()
        scm = SCM(CREDIT_EDGES).fit(data)
        engine = SituationTest(methods=["st", "cst", "cst_centers", "cf"], k=k, attribute=attribute)
        res = engine.run(data, scm=scm, decider=model, keep_state=True)
        state = engine.state_
        main = time.perf_counter() - t0
        found = variants(CREDIT_EDGES, attribute, "linear", mechanisms=[])
        t0 = time.perf_counter()
        sens = run_sensitivity(spec, {attribute: (engine, res, state)}, scm, decider=model)
        total = time.perf_counter() - t0
        ran = sum(
            1 for v in found if v.kind == "edge added" or v.edge[1] in scm.descendants(attribute)
        )
        rows.append(
            {
                "attribute": attribute,
                "n": data.n,
                "variants": len(found),
                "ran": ran,
                "main_s": main,
                "total_s": total,
                "per_variant_s": total / len(found),
                "per_run_variant_s": total / max(ran, 1),
                "robust": int(sens.robust_counts()["robust"].iloc[-1]),
            }
        )
    return rows


def main(sizes: list[int]) -> None:
    head = (
        f"{'attribute':<10} {'n':>6} {'variants':>8} {'ran':>4} {'main s':>7} {'total s':>8} "
        f"{'s/variant':>9} {'s/ran':>6} {'ratio':>6} {'ratio ran':>9}"
    )
    print(head)
    for n in sizes:
        for r in _case(n):
            print(
                f"{r['attribute']:<10} {r['n']:>6} {r['variants']:>8} {r['ran']:>4} "
                f"{r['main_s']:>7.2f} {r['total_s']:>8.2f} {r['per_variant_s']:>9.2f} "
                f"{r['per_run_variant_s']:>6.2f} {r['per_variant_s'] / r['main_s']:>6.2f} "
                f"{r['per_run_variant_s'] / r['main_s']:>9.2f}"
            )
    print("target: s/variant <= 2 x main s (ratio <= 2)")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [3000])
