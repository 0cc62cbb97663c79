"""tools/glue_history.py: its path pattern is the glue of tools/glue_lines.py, its list of
behaviour commits parses, and (where the clone has the history) the sum of the commits is the
count today."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str):
    sys.path.insert(0, str(ROOT / "tools"))  # glue_history imports glue_lines
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "tools"))


gh = _load("glue_history")


def test_pattern_is_the_glue_of_glue_lines():
    src = ROOT / "src" / "primafacie"
    glue = {f.relative_to(ROOT).as_posix() for f in gh.glue_files(src)}
    everything = {f.relative_to(ROOT).as_posix() for f in src.rglob("*.py")}
    assert glue and {p for p in everything if gh.PATTERN.match(p)} == glue
    assert gh.PATTERN.match("src/primafacie/commands/_defaults.py")  # deleted since, counted
    assert not gh.PATTERN.match("src/primafacie/situation/engine.py")


def test_behaviour_list_parses(tmp_path):
    listed = gh.behaviour()
    assert len(listed) > 40 and all(len(h) == 7 and why for h, why in listed.items())
    tsv = tmp_path / "b.tsv"
    tsv.write_text("# comment\nabc1234\tissue 9: a feature\n")
    assert gh.behaviour(tsv) == {"abc1234": "issue 9: a feature"}


def _has_history() -> bool:
    done = subprocess.run(["git", "cat-file", "-e", f"{gh.FILED}^{{commit}}"], cwd=ROOT,
                          capture_output=True)  # fmt: skip
    return done.returncode == 0


@pytest.mark.skipif(not _has_history(), reason="a shallow clone: no commit of issue 20's filing")
def test_report_adds_up(capsys):
    assert gh.main([]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    filed, struct, residual, beh, now, same = (int(r) for r in rows)
    assert filed == gh.FILED_GLUE and filed + struct + residual + beh == now
    assert same == now - beh and abs(residual) < 50
