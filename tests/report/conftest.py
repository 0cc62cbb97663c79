"""One small demo audit shared by the report tests (the browser and the notebook checks)."""

from __future__ import annotations

import pytest

from primafacie.audit import run_demo


@pytest.fixture(scope="session")
def demo_audit(tmp_path_factory):
    """``(folder, AuditResult)`` of ``run_demo`` on 200 people (seed 3), written once."""
    out = tmp_path_factory.mktemp("demo") / "demo"
    result = run_demo(out, n=200, seed=3, progress=False)
    return out, result
