"""The README's Python examples run as written, in order, in one namespace."""

from __future__ import annotations

import re

import matplotlib
import pytest

from primafacie.paths import PROJECT_ROOT

matplotlib.use("Agg")

README = PROJECT_ROOT / "README.md"


def _blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_examples_for_every_analysis():
    code = "\n".join(_blocks())
    for name in ("SituationTest", "RecourseAudit", "PrincipalFairness", "CertaintyAudit"):
        assert name in code, f"README has no Python example for {name}"


def test_readme_examples_run(capsys):
    blocks = _blocks()
    if not blocks:
        pytest.fail("README.md has no ```python blocks")
    namespace: dict = {}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"README.md:python-block-{i}", "exec"), namespace)  # noqa: S102
        except Exception as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"README python block {i} failed: {type(exc).__name__}: {exc}\n{block}")
    assert len(namespace["res"].to_frame()) > 0
    assert namespace["repair"] is not None
