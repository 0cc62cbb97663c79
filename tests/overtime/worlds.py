"""Audits the over-time tests share, computed once per test session (they take seconds).

``demo_audit``: the demo at n = 200 (every analysis). ``biased_audits``: two audits of one
generated credit world (same people, same ids) whose loan officer docks women by 0.5 in the
old world and by 2.0 in the new one; decision = the officer, group metrics and ST at k = 10.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from primafacie.audit.run import run_audit, run_demo
from primafacie.config import load_config
from primafacie.datasets.credit_world import CREDIT_FEATURES, generate_credit_world

_CACHE: dict[str, object] = {}


def demo_audit(root: Path) -> Path:
    """The demo (n = 200, seed 2) audited into a folder under ``root`` (once per session)."""
    if "demo" not in _CACHE:
        out = root / "demo"
        run_demo(out, n=200, seed=2, progress=False)
        _CACHE["demo"] = out
    return _CACHE["demo"]  # type: ignore[return-value]


def audit_world(folder: Path, bias: float, n: int = 800, seed: int = 5) -> Path:
    """Audit the credit world whose officer docks women by ``bias``; the audit folder."""
    folder.mkdir(parents=True, exist_ok=True)
    generate_credit_world(n, seed=seed, officer_bias=bias).to_csv(folder / "world.csv", index=False)
    cfg = {
        "data": "world.csv",
        "id": "id",
        "decision": {"column": "human"},
        "favorable": 1,
        "features": CREDIT_FEATURES,
        "protected": {"gender": "female"},
        "analyses": {
            "groups": {"min_group": 30},
            "situation": {"k": [10], "methods": ["st"], "dimensions": ["single"]},
        },
    }
    (folder / "audit.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    run_audit(load_config(folder / "audit.yaml"), folder / "out", progress=False)
    return folder / "out"


def biased_audits(root: Path) -> tuple[Path, Path]:
    """(old, new) audit folders: officer bias 0.5 then 2.0 (once per session)."""
    if "biased" not in _CACHE:
        _CACHE["biased"] = (audit_world(root / "old", 0.5), audit_world(root / "new", 2.0))
    return _CACHE["biased"]  # type: ignore[return-value]
