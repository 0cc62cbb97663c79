"""The audit's causal fit (src/primafacie/audit/run.py, ``_fitted_scm``): the SCM's nodes are
fitted on the audit's compute backend (the local default when none is configured)."""

from __future__ import annotations

import pytest
import yaml

from primafacie.audit.run import compute_audit
from primafacie.causal import SCM
from primafacie.compute import Backend
from primafacie.config import load_config
from primafacie.datasets.credit_world import (
    CREDIT_EDGES,
    CREDIT_FEATURES,
    CREDIT_PROTECTED,
    SCORECARD_RULE,
    generate_credit_world,
)


@pytest.mark.parametrize("compute", [None, {"backend": "local", "n_jobs": 2}])
def test_the_audit_fits_its_scm_on_the_compute_backend(tmp_path, monkeypatch, compute):
    generate_credit_world(400, seed=0).to_csv(tmp_path / "world.csv", index=False)
    cfg = {
        "data": "world.csv", "id": "id", "decision": {"rule": SCORECARD_RULE},
        "features": dict(CREDIT_FEATURES), "protected": dict(CREDIT_PROTECTED),
        "causal": {"edges": [list(e) for e in CREDIT_EDGES]},
        "analyses": {"situation": {"k": [5], "methods": ["cst"]}},
    }  # fmt: skip
    if compute is not None:
        cfg["compute"] = compute
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    seen = []
    fit = SCM.fit

    def spy(self, data, backend=None):
        seen.append(backend)
        return fit(self, data, backend=backend)

    monkeypatch.setattr(SCM, "fit", spy)
    res = compute_audit(load_config(tmp_path / "audit.yaml"))
    assert res.runs["situation"].status == "ok"
    assert len(seen) == 1 and isinstance(seen[0], Backend) and seen[0].kind == "local"
    assert seen[0].n_jobs == (2 if compute else Backend().n_jobs)
