"""Every command's --help has a worked example that pastes into a shell as printed."""

from __future__ import annotations

import pytest

from primafacie.cli import COMMAND_MODULES


def _examples(help_text: str) -> list[list[str]]:
    blocks, cur = [], []
    for line in help_text.splitlines():
        if line.startswith("    ") and (cur or line.strip().startswith("primafacie ")):
            cur.append(line.strip())
        elif cur:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    return blocks


@pytest.mark.parametrize("module", COMMAND_MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_help_example_is_copy_pasteable(module):
    name = module.__name__.rsplit(".", 1)[-1]
    blocks = _examples(module.HELP)
    assert blocks, f"{name} --help has no indented 'primafacie ...' example"
    for block in blocks:
        assert block[0].startswith(f"primafacie {name}") or block[0].startswith("primafacie ")
        for line in block[:-1]:
            assert line.endswith("\\"), f"{name}: continued line without a backslash: {line!r}"
        assert not block[-1].endswith("\\")
        for line in block:
            assert len(line) <= 72, f"{name}: example line wraps at 80 columns: {line!r}"
