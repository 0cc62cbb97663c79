"""One small demo audit shared by the report tests (the browser and the notebook checks)."""

from __future__ import annotations

import pytest

from tests.shared import demo_with_result


@pytest.fixture(scope="session")
def demo_audit():
    """``(folder, AuditResult)`` of ``run_demo`` on 200 people (seed 3), written once per run
    (tests/shared.py: one build for every xdist worker). The folder is shared: read it only."""
    return demo_with_result(n=200, seed=3)
