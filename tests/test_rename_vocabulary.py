"""tools/rename_vocabulary.py: on a tiny tree it renames what it must and nothing else, a second
run changes nothing, ``--check`` changes nothing and exits 1 listing the changes; on this
repository ``--check`` is clean (the rename is applied)."""

# rename_vocabulary: skip-file (the fixtures spell the old names on purpose)

from __future__ import annotations

import hashlib
import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load():
    spec = importlib.util.spec_from_file_location("rename_vocabulary", ROOT / "tools" /
                                                  "rename_vocabulary.py")  # fmt: skip
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


rv = _load()

#: path -> text of the tiny tree (dedented)
TREE = {
    "src/primafacie/__init__.py": '''
        """:class:`RecourseAudit` and :class:`CertaintyAudit`."""
        from .audit import AuditResult, run_audit
        _LAZY = {"RecourseAudit": "recourse", "AuditResult": "audit"}
        ''',
    "src/primafacie/audit/__init__.py": '''
        """The orchestration keeps its name."""
        from .run import run_audit
        ''',
    "src/primafacie/recourse/__init__.py": """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .audit import RecourseAudit
            from .csc import CSCResult
        _LAZY = {"RecourseAudit": "audit", "CSCResult": "csc", "audit_log": "csc"}
        """,
    "src/primafacie/recourse/audit.py": '''
        """The FACTS engine."""
        STAGES = ("mining",)
        class RecourseAudit:
            """See :class:`~.audit.RecourseAudit`; ``self.audit`` stays."""
        ''',
    "src/primafacie/recourse/stability.py": '''
        """Follows a fitted :class:`~.audit.RecourseAudit` (élan: a multibyte character)."""
        from . import audit
        from .audit import STAGES, RecourseAudit as Engine
        _é = 1; from .audit import STAGES as S2  # ast counts columns in UTF-8 bytes
        def f(x):
            from .audit import RecourseAudit
            return x.audit, audit.STAGES, RecourseAudit
        ''',
    "src/primafacie/certainty/audit.py": """
        class CertaintyAudit:
            pass
        """,
    "src/primafacie/principal/fairness.py": """
        class PrincipalFairness:
            pass
        """,
    "src/primafacie/principal/spec.py": """
        def build():
            from .fairness import PrincipalFairness
            return PrincipalFairness, "fairness"
        """,
    "src/primafacie/ll144/engine.py": """
        class LL144Audit:
            pass
        class LL144AuditLike:
            pass
        """,
    "src/primafacie/commands/recourse.py": """
        from ..audit import run_audit
        from .audit import print_summary
        def stages():
            from ..recourse.audit import STAGES
            from primafacie.certainty.audit import CertaintyAudit
            import primafacie.principal.fairness as pf
            return STAGES, CertaintyAudit, pf
        """,
    "tests/recourse/test_audit.py": """
        from primafacie.recourse.audit import RecourseAudit  # the engine's tests
        """,
    "tests/test_other.py": """
        MODULES = ["primafacie.principal.fairness", "primafacie.audit", "primafacie.recourse.audits"]
        KEPT = "RecourseAudit"  # rename_vocabulary: keep
        # see tests/recourse/test_audit.py and tests/test_audit.py
        """,
    "README.md": """
        Use `RecourseAudit` (src/primafacie/recourse/audit.py).

        <!-- rename_vocabulary: off -->
        | `RecourseAudit` | `RecourseFairness` |
        <!-- rename_vocabulary: on -->
        `LL144Audit` and the `audit` command.
        """,
}

#: path -> expected text after the rename (only the files that change)
EXPECTED = {
    "src/primafacie/__init__.py": '''
        """:class:`RecourseFairness` and :class:`CertaintyRanking`."""
        from .audit import AuditResult, run_audit
        _LAZY = {"RecourseFairness": "recourse", "AuditResult": "audit"}
        ''',
    "src/primafacie/recourse/__init__.py": """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .engine import RecourseFairness
            from .csc import CSCResult
        _LAZY = {"RecourseFairness": "engine", "CSCResult": "csc", "audit_log": "csc"}
        """,
    "src/primafacie/recourse/engine.py": '''
        """The FACTS engine."""
        STAGES = ("mining",)
        class RecourseFairness:
            """See :class:`~.engine.RecourseFairness`; ``self.audit`` stays."""
        ''',
    "src/primafacie/recourse/stability.py": '''
        """Follows a fitted :class:`~.engine.RecourseFairness` (élan: a multibyte character)."""
        from . import engine as audit
        from .engine import STAGES, RecourseFairness as Engine
        _é = 1; from .engine import STAGES as S2  # ast counts columns in UTF-8 bytes
        def f(x):
            from .engine import RecourseFairness
            return x.audit, audit.STAGES, RecourseFairness
        ''',
    "src/primafacie/certainty/engine.py": """
        class CertaintyRanking:
            pass
        """,
    "src/primafacie/principal/engine.py": """
        class PrincipalFairness:
            pass
        """,
    "src/primafacie/principal/spec.py": """
        def build():
            from .engine import PrincipalFairness
            return PrincipalFairness, "fairness"
        """,
    "src/primafacie/ll144/engine.py": """
        class LL144Tables:
            pass
        class LL144AuditLike:
            pass
        """,
    "src/primafacie/commands/recourse.py": """
        from ..audit import run_audit
        from .audit import print_summary
        def stages():
            from ..recourse.engine import STAGES
            from primafacie.certainty.engine import CertaintyRanking
            import primafacie.principal.engine as pf
            return STAGES, CertaintyRanking, pf
        """,
    "tests/recourse/test_engine.py": """
        from primafacie.recourse.engine import RecourseFairness  # the engine's tests
        """,
    "tests/test_other.py": """
        MODULES = ["primafacie.principal.engine", "primafacie.audit", "primafacie.recourse.audits"]
        KEPT = "RecourseAudit"  # rename_vocabulary: keep
        # see tests/recourse/test_engine.py and tests/test_audit.py
        """,
    "README.md": """
        Use `RecourseFairness` (src/primafacie/recourse/engine.py).

        <!-- rename_vocabulary: off -->
        | `RecourseAudit` | `RecourseFairness` |
        <!-- rename_vocabulary: on -->
        `LL144Tables` and the `audit` command.
        """,
}


def _text(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")


def _tree(root: Path) -> Path:
    for rel, text in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_text(text), encoding="utf-8")
    (root / "tools").mkdir()
    (root / rv.SHIM).write_bytes((ROOT / rv.SHIM).read_bytes())
    return root


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}  # fmt: skip


def test_the_rename_on_a_tiny_tree(tmp_path, capsys):
    root = _tree(tmp_path)
    assert rv.main(["--root", str(root), "--no-ruff"]) == 0
    printed = capsys.readouterr().out
    assert "moved src/primafacie/recourse/audit.py -> src/primafacie/recourse/engine.py" in printed
    for rel, text in EXPECTED.items():
        assert (root / rel).read_text(encoding="utf-8") == _text(text), rel
    unchanged = set(TREE) - set(EXPECTED) - {"src/primafacie/recourse/audit.py",
                                             "src/primafacie/certainty/audit.py",
                                             "src/primafacie/principal/fairness.py",
                                             "tests/recourse/test_audit.py"}  # fmt: skip
    assert unchanged == {"src/primafacie/audit/__init__.py"}
    for rel in unchanged:
        assert (root / rel).read_text(encoding="utf-8") == _text(TREE[rel])
    shim = (ROOT / rv.SHIM).read_bytes()
    for rel in ("src/primafacie/recourse/audit.py", "src/primafacie/certainty/audit.py",
                "src/primafacie/principal/fairness.py"):  # fmt: skip
        assert (root / rel).read_bytes() == shim, rel
    assert not (root / "tests/recourse/test_audit.py").exists()


def test_an_installs_egg_info_and_hidden_folders_are_left_alone(tmp_path, capsys):
    # pip install -e writes src/<pkg>.egg-info/SOURCES.txt listing the old module paths
    root = _tree(tmp_path)
    written = {"src/primafacie.egg-info/SOURCES.txt": "src/primafacie/recourse/audit.py\n",
               "src/.cache/notes.md": "RecourseAudit\n"}  # fmt: skip
    for rel, text in written.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    assert rv.main(["--root", str(root), "--no-ruff"]) == 0
    for rel, text in written.items():
        assert (root / rel).read_text(encoding="utf-8") == text, rel
    capsys.readouterr()
    assert rv.main(["--root", str(root), "--check"]) == 0


def test_a_second_run_changes_nothing(tmp_path, capsys):
    root = _tree(tmp_path)
    assert rv.main(["--root", str(root), "--no-ruff"]) == 0
    before = _snapshot(root)
    capsys.readouterr()
    assert rv.main(["--root", str(root), "--no-ruff"]) == 0
    assert capsys.readouterr().out.strip() == "vocabulary: nothing to rename"
    assert _snapshot(root) == before
    assert rv.main(["--root", str(root), "--check"]) == 0


def test_check_lists_the_changes_and_changes_nothing(tmp_path, capsys):
    root = _tree(tmp_path)
    before = _snapshot(root)
    assert rv.main(["--root", str(root), "--check"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "would move tests/recourse/test_audit.py -> tests/recourse/test_engine.py" in out
    assert "would edit src/primafacie/ll144/engine.py: 1 replacement(s)" in out
    assert "would edit tests/recourse/test_engine.py: 2 replacement(s)" in out
    assert not any("audit/__init__.py" in line for line in out)
    assert _snapshot(root) == before


def test_an_old_module_beside_its_engine_is_refused(tmp_path, capsys):
    root = _tree(tmp_path)
    (root / "src/primafacie/certainty/engine.py").write_text("X = 1\n", encoding="utf-8")
    before = _snapshot(root)
    assert rv.main(["--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "both src/primafacie/certainty/audit.py and src/primafacie/certainty/engine.py" in err
    assert _snapshot(root) == before


def test_a_missing_shim_is_refused(tmp_path, capsys):
    root = _tree(tmp_path)
    (root / rv.SHIM).unlink()
    assert rv.main(["--root", str(root), "--no-ruff"]) == 2
    assert "the shim tools/rename_vocabulary_shim.py is missing" in capsys.readouterr().err
    assert (root / "src/primafacie/recourse/audit.py").read_text().startswith('"""The FACTS')


@pytest.mark.parametrize(("text", "rel", "expected"), [
    ("from .audit import X\n", "src/primafacie/recourse/x.py", "from .engine import X\n"),
    ("from .audit import X\n", "src/primafacie/commands/x.py", "from .audit import X\n"),
    ("from .audit import X\n", "src/primafacie/x.py", "from .audit import X\n"),
    ("from . import fairness\n", "src/primafacie/principal/x.py",
     "from . import engine as fairness\n"),
    ("from primafacie.recourse import audit as a\n", "tests/x.py",
     "from primafacie.recourse import engine as a\n"),
    ("x = CertaintyAuditor\n", "tests/x.py", "x = CertaintyAuditor\n"),
    ("see primafacie.certainty.audit_notes\n", "docs/x.md",
     "see primafacie.certainty.audit_notes\n"),
])  # fmt: skip
def test_rename_text_rules(text, rel, expected):
    assert rv.rename_text(text, Path(rel))[0] == expected


def test_the_repository_is_renamed(capsys):
    """``--check`` on this repository is clean; if it fails, run the script (other branches
    may have brought old names back) and commit its output."""
    assert rv.main(["--root", str(ROOT), "--check"]) == 0, capsys.readouterr().out
