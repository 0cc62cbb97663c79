"""tools/glue_lines.py: the line kinds of ``--kinds`` on a small source, the functions' counts,
and the report on this repository (every glue line counted once)."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load():
    spec = importlib.util.spec_from_file_location("glue_lines", ROOT / "tools" / "glue_lines.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gl = _load()

SOURCE = textwrap.dedent(
    '''\
    """Module doc."""

    X = 1  # a constant


    def f(a):
        """Doc
        on two lines."""
        # why
        b = a + 1
        return g(
            "a sentence "
            f"with {b}", b,
        )
    '''
)


def test_kinds_sorts_every_line():
    assert gl.kinds(SOURCE) == [
        "docstring", "blank", "code", "blank", "blank", "code", "docstring", "docstring",
        "comment", "code", "code", "text", "code with text", "code",
    ]  # fmt: skip


def test_functions_count_their_own_lines(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(SOURCE + "\n\nclass C:\n    def h(self):\n        return 1\n")
    found = {where.split(" ")[1]: counts for counts, where in gl.functions(path, tmp_path)}
    assert set(found) == {"f", "C.h"}
    assert found["f"]["code"] == 4 and found["f"]["docstring"] == 2 and found["f"]["text"] == 1
    assert sum(found["C.h"].values()) == 2


def test_kinds_of_the_glue_add_up(capsys):
    root = ROOT / "src" / "primafacie"
    assert gl.main(["--root", str(root), "--kinds", "--top", "3"]) == 0
    out = capsys.readouterr().out
    glue = int(next(line for line in out.splitlines() if "glue (issue 20" in line).split()[0])
    part = out.split("glue lines by kind:")[1].split("functions with")[0]
    by_kind = {line[6:].strip(): int(line[:6]) for line in part.splitlines() if line.strip()}
    assert set(by_kind) == set(gl.KINDS) and sum(by_kind.values()) == glue
    assert len(out.split("functions with the most code lines")[1].strip().splitlines()) == 4
