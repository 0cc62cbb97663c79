"""Audits the over-time tests share, computed once per test run (they take seconds).

``demo_audit``: the demo at n = 200 (every analysis). ``biased_audits``: two audits of one
generated credit world (same people, same ids) whose loan officer docks women by 0.5 in the
old world and by 2.0 in the new one; decision = the officer, group metrics and ST at k = 10.
Both are shared builds (tests/shared.py): one per run for every module and xdist worker, so
callers read them and never write into them.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from primafacie.audit.run import run_audit
from primafacie.config import load_config
from primafacie.datasets.credit_world import CREDIT_FEATURES, generate_credit_world
from tests.shared import build_once, cli_demo


def demo_audit() -> Path:
    """The demo (n = 200, seed 2) audit folder. ``primafacie demo`` writes the same folder as
    ``run_demo(out, n=200, seed=2)``, so this is the build tests/cli/test_audit_cli.py reads."""
    return cli_demo(n=200, seed=2)[0]


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


def biased_audits() -> tuple[Path, Path]:
    """(old, new) audit folders: officer bias 0.5 then 2.0."""

    def build(folder: Path) -> None:
        audit_world(folder / "old", 0.5)
        audit_world(folder / "new", 2.0)

    folder = build_once("biased-audits-n800-seed5", build)
    return folder / "old" / "out", folder / "new" / "out"
