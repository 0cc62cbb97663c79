"""One vocabulary (issue 20, item 6): rename the engines and their main modules, idempotently.

"Audit" means only the orchestration (the ``audit`` command, :mod:`primafacie.audit`,
``AuditConfig``, ``AuditData``); an engine is named for what it computes, and the main module
of every engine package is ``engine.py``. Other branches edit these files in parallel, so the
rename is this script, re-run on the merged tree rather than merged by hand:

* engine classes (:data:`CLASSES`): every whole-word use in ``src/``, ``tests/``,
  ``benchmarks/``, ``docs/``, ``tools/``, ``README.md`` and ``conftest.py``;
* engine modules (:data:`MODULES`): the file moves to ``engine.py`` and the hand-written shim
  :data:`SHIM` takes its old path (it warns on import and re-exports the engine); imports are
  rewritten with ``ast`` (relative ones resolved against the importing module, and the lazy
  ``_LAZY`` tables of the package ``__init__``), dotted names (``primafacie.recourse.audit``),
  Sphinx references (``~.audit.X`` inside the package) and paths (``recourse/audit.py``) as text;
* the engines' test files (:data:`TEST_MOVES`) follow their modules.

A file holding ``rename_vocabulary: skip-file`` is never edited (the shims, the deprecated-name
table, their tests); a line holding ``rename_vocabulary: keep`` is left as it is, and so is a
Markdown region between ``<!-- rename_vocabulary: off -->`` and ``<!-- rename_vocabulary: on
-->`` (the README's table of renamed names). Changed Python files are then import-sorted and
formatted with ruff, when it is found, so the tree stays ruff-clean.

Usage (from the repository root)::

    python tools/rename_vocabulary.py            # apply; a second run changes nothing
    python tools/rename_vocabulary.py --check    # exit 1 listing what would change, else 0

Exit status: 0 done (or nothing to do), 1 ``--check`` found changes, 2 a state the script will
not guess about (an old module and its ``engine.py`` both exist, or the shim is missing).
"""

# rename_vocabulary: skip-file

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: Engine classes: old name -> new name.
CLASSES: dict[str, str] = {
    "RecourseAudit": "RecourseFairness",
    "CertaintyAudit": "CertaintyRanking",
    "LL144Audit": "LL144Tables",
}

#: Engine main modules: old dotted name -> new dotted name (same package, new last part).
MODULES: dict[str, str] = {
    "primafacie.recourse.audit": "primafacie.recourse.engine",
    "primafacie.certainty.audit": "primafacie.certainty.engine",
    "primafacie.principal.fairness": "primafacie.principal.engine",
}

#: Test files of the moved modules (``tests/<package>/test_<module>.py``).
TEST_MOVES: dict[str, str] = {
    "tests/recourse/test_audit.py": "tests/recourse/test_engine.py",
    "tests/certainty/test_audit.py": "tests/certainty/test_engine.py",
    "tests/principal/test_fairness.py": "tests/principal/test_engine.py",
}

#: The hand-written shim installed at each old module's path (relative to the root).
SHIM = "tools/rename_vocabulary_shim.py"

#: What the script reads and edits (relative to the root), and the text files among them.
SCOPE = ("src", "tests", "benchmarks", "docs", "tools", "README.md", "conftest.py")
SUFFIXES = frozenset({".py", ".md", ".rst", ".txt", ".toml", ".yaml", ".yml", ".json", ".cfg",
                      ".ini", ".html", ".j2", ".ipynb"})  # fmt: skip

SKIP_FILE = "rename_vocabulary: skip-file"
KEEP_LINE = "rename_vocabulary: keep"
REGION_OFF = "<!-- rename_vocabulary: off -->"
REGION_ON = "<!-- rename_vocabulary: on -->"


class RenameError(Exception):
    """A tree state the script does not resolve by itself (exit 2)."""


@dataclass
class Plan:
    """What a run does: file moves, then new texts keyed by their final path."""

    moves: list[tuple[Path, Path, bool]] = field(default_factory=list)  # (old, new, shim?)
    edits: dict[Path, tuple[str, int]] = field(default_factory=dict)  # path -> (text, count)

    def lines(self, root: Path, verb: str) -> list[str]:
        out = []
        for old, new, shim in self.moves:
            note = " (the deprecated shim takes the old path)" if shim else ""
            out.append(f"{verb[0]} {old.relative_to(root)} -> {new.relative_to(root)}{note}")
        for path, (_, count) in sorted(self.edits.items()):
            out.append(f"{verb[1]} {path.relative_to(root)}: {count} replacement(s)")
        return out


# ---------------------------------------------------------------------------- text rules
def _last(dotted: str) -> str:
    return dotted.rpartition(".")[2]


def _text_rules(module: str | None) -> list[tuple[re.Pattern[str], str]]:
    """The regular-expression rules for a file of dotted ``module`` (None outside ``src/``)."""
    rules = [(re.compile(rf"\b{old}\b"), new) for old, new in CLASSES.items()]
    for old, new in MODULES.items():
        package, old_last, new_last = old.rpartition(".")[0], _last(old), _last(new)
        short = _last(package)
        # primafacie.recourse.audit, ..recourse.audit (not someone.recourse.audit_x)
        rules.append((re.compile(rf"(?<![\w.])(primafacie\.|\.+){short}\.{old_last}(?!\w)"),
                      rf"\g<1>{short}.{new_last}"))  # fmt: skip
        rules.append((re.compile(rf"\b{short}/{old_last}\.py\b"), f"{short}/{new_last}.py"))
        if module is not None and (module == package or module.startswith(package + ".")):
            # a Sphinx reference relative to the package: :class:`~.audit.RecourseAudit`
            rules.append((re.compile(rf"(?<=~)\.{old_last}(?=\.)"), f".{new_last}"))
    for old, new in TEST_MOVES.items():
        old_rel, new_rel = old.removeprefix("tests/"), new.removeprefix("tests/")
        rules.append((re.compile(rf"\b{re.escape(old_rel)}\b"), new_rel))
        old_dot, new_dot = (p.removesuffix(".py").replace("/", ".") for p in (old, new))
        rules.append((re.compile(rf"\b{re.escape(old_dot)}\b"), new_dot))
    return rules


def _literals() -> tuple[str, ...]:
    """Substrings that every match of a text rule contains (a fast test before the rules)."""
    out = list(CLASSES)
    for old in MODULES:
        short, old_last = _last(old.rpartition(".")[0]), _last(old)
        out += [f"{short}.{old_last}", f"{short}/{old_last}.py", f"~.{old_last}."]
    for old in TEST_MOVES:
        out += [old.removeprefix("tests/"), old.removesuffix(".py").replace("/", ".")]
    return tuple(out)


_LITERALS = _literals()


def _regex_edit(text: str, module: str | None) -> tuple[str, int]:
    """Apply the text rules line by line, skipping kept lines and Markdown regions."""
    if not any(literal in text for literal in _LITERALS):
        return text, 0
    rules = _text_rules(module)
    if KEEP_LINE not in text and REGION_OFF not in text:  # the whole text at once (fast)
        count = 0
        for pattern, repl in rules:
            text, n = pattern.subn(repl, text)
            count += n
        return text, count
    out, count, off = [], 0, False
    for line in text.splitlines(keepends=True):
        if REGION_OFF in line:
            off = True
        elif REGION_ON in line:
            off = False
        if not off and KEEP_LINE not in line:
            for pattern, repl in rules:
                line, n = pattern.subn(repl, line)
                count += n
        out.append(line)
    return "".join(out), count


# ---------------------------------------------------------------------------- ast rules
def _module_of(rel: Path) -> str | None:
    """The dotted module of a file under ``src/`` (a package for ``__init__.py``), else None."""
    if rel.parts[0] != "src" or rel.suffix != ".py":
        return None
    parts = list(rel.with_suffix("").parts[1:])
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, module: str | None, is_package: bool) -> str | None:
    """The absolute module an ``from ... import`` names (None when it cannot be resolved)."""
    if node.level == 0:
        return node.module
    if module is None:
        return None
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


class _Offsets:
    """Character offsets of ``ast`` positions (whose columns count UTF-8 bytes)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def __call__(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8"))


def _import_edits(tree: ast.AST, text: str, at: _Offsets, module: str | None,
                  is_package: bool) -> list[tuple[int, int, str]]:  # fmt: skip
    """``(start, end, replacement)`` for every import of a moved module."""
    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        target = _absolute(node, module, is_package)
        if target is None:
            continue
        if target in MODULES:
            match = re.compile(r"from\s+\.*([\w.]+)").match(text, at(node.lineno, node.col_offset))
            if match:
                named = match.group(1).split(".")
                new = ".".join([*named[:-1], _last(MODULES[target])])
                edits.append((match.start(1), match.end(1), new))
        for alias in node.names:
            moved = MODULES.get(f"{target}.{alias.name}")
            if moved is not None:
                start = at(alias.lineno, alias.col_offset)
                new = _last(moved) + ("" if alias.asname else f" as {alias.name}")
                edits.append((start, start + len(alias.name), new))
    return edits


def _lazy_edits(tree: ast.Module, text: str, at: _Offsets,
                package: str) -> list[tuple[int, int, str]]:  # fmt: skip
    """The ``_LAZY`` table of a package ``__init__``: a value naming a moved module."""
    edits = []
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if not (isinstance(target, ast.Name) and target.id == "_LAZY"):
            continue
        if not isinstance(node.value, ast.Dict):
            continue
        for value in node.value.values:
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                continue
            moved = MODULES.get(f"{package}.{value.value}")
            if moved is not None:
                start = at(value.lineno, value.col_offset)
                end = at(value.end_lineno or value.lineno, value.end_col_offset or 0)
                edits.append((start, end, text[start:end].replace(value.value, _last(moved))))
    return edits


_OLD_LAST = "|".join(sorted({_last(m) for m in MODULES}))
#: A file can import a moved module only if it spells one of these (parsing every file with
#: ``ast`` costs seconds): ``from ...audit import``, ``from x import audit`` (also inside
#: parentheses), or, in a package ``__init__``, the string ``"audit"`` (a ``_LAZY`` value).
_MAY_IMPORT = re.compile(
    rf"^\s*from\s+[\w.]*\b(?:{_OLD_LAST})\s+import\b"
    rf"|^\s*from\s+[\w.]+\s+import\s+(?:[^#\n(]*|\([^)]*)\b(?:{_OLD_LAST})\b",
    re.M,
)
_MAY_LAZY = re.compile(rf"[\"'](?:{_OLD_LAST})[\"']")


def _ast_edit(text: str, rel: Path) -> tuple[str, int]:
    """Rewrite the imports (and ``_LAZY`` values) that name a moved module."""
    if not (_MAY_IMPORT.search(text) or rel.name == "__init__.py" and _MAY_LAZY.search(text)):
        return text, 0
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text, 0  # not Python that parses: the text rules still apply
    module, is_package = _module_of(rel), rel.name == "__init__.py"
    at = _Offsets(text)
    edits = _import_edits(tree, text, at, module, is_package)
    if is_package and module is not None:
        edits += _lazy_edits(tree, text, at, module)
    for start, end, new in sorted(set(edits), reverse=True):
        text = text[:start] + new + text[end:]
    return text, len(set(edits))


def rename_text(text: str, rel: Path) -> tuple[str, int]:
    """The renamed text of the file at ``rel`` (relative to the root) and the number of
    replacements; a ``skip-file`` file is returned unchanged.

    Parameters
    ----------
    text
        The file's content.
    rel
        Its path relative to the root, after any move (it places relative imports).
    """
    if SKIP_FILE in text:
        return text, 0
    count = 0
    if rel.suffix == ".py":
        text, count = _ast_edit(text, rel)
    text, n = _regex_edit(text, _module_of(rel))
    return text, count + n


# ---------------------------------------------------------------------------- the plan
def _is_shim(path: Path) -> bool:
    return SKIP_FILE in path.read_text(encoding="utf-8")


def _module_path(root: Path, dotted: str) -> Path:
    return root / "src" / Path(*dotted.split(".")).with_suffix(".py")


def _moves(root: Path) -> list[tuple[Path, Path, bool]]:
    moves = []
    pairs = [(_module_path(root, o), _module_path(root, n), True) for o, n in MODULES.items()]
    pairs += [(root / o, root / n, False) for o, n in TEST_MOVES.items()]
    for old, new, shim in pairs:
        if not old.exists() or (shim and _is_shim(old)):
            continue  # moved already (or not in this tree)
        if new.exists():
            raise RenameError(f"both {old.relative_to(root)} and {new.relative_to(root)} exist: "
                              "merge them by hand, then run the script again")  # fmt: skip
        moves.append((old, new, shim))
    return moves


def _generated(part: str) -> bool:
    """A folder that tools write, not people: an install's ``*.egg-info`` (its SOURCES.txt
    lists the old module paths), caches and hidden folders."""
    return part == "__pycache__" or part.endswith(".egg-info") or part.startswith(".")


def _files(root: Path) -> list[Path]:
    out = []
    for name in SCOPE:
        top = root / name
        if top.is_file():
            out.append(top)
        elif top.is_dir():
            out += [p for p in top.rglob("*") if p.is_file() and p.suffix in SUFFIXES
                    and not any(_generated(part) for part in p.relative_to(root).parts)]  # fmt: skip
    return sorted(out)


def plan(root: Path) -> Plan:
    """Everything a run would do on the tree at ``root``, without changing it."""
    result = Plan(moves=_moves(root))
    final = {old: new for old, new, _ in result.moves}
    for path in _files(root):
        dest = final.get(path, path)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new, count = rename_text(text, dest.relative_to(root))
        if new != text:
            result.edits[dest] = (new, count)
    return result


def _ruff(root: Path, files: list[Path]) -> None:
    """Sort the imports and format the changed Python files (renamed modules sort anew)."""
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None or not files:
        return
    names = [str(p.relative_to(root)) for p in files]
    quiet = ["--no-cache", "--quiet"]  # and no .ruff_cache left in the tree
    subprocess.run([ruff, "check", *quiet, "--select", "I", "--fix", *names], cwd=root, check=False)
    subprocess.run([ruff, "format", *quiet, *names], cwd=root, check=False)


def apply(root: Path, todo: Plan, ruff: bool = True) -> None:
    """Move the files (installing the shim at each old module path), then write the edits."""
    shim = root / SHIM
    if any(s for *_, s in todo.moves) and not shim.is_file():
        raise RenameError(f"the shim {SHIM} is missing")
    for old, new, is_module in todo.moves:
        old.rename(new)
        if is_module:
            shutil.copyfile(shim, old)
    for path, (text, _) in todo.edits.items():
        path.write_text(text, encoding="utf-8")
    if ruff:
        _ruff(root, sorted(p for p in todo.edits if p.suffix == ".py"))


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring); returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(__file__).resolve().parent.parent,
        help="repository root (default: this script's repository)",
    )
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 listing what would change"
    )
    parser.add_argument("--no-ruff", action="store_true",
                        help="do not sort imports and format the changed files")  # fmt: skip
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        todo = plan(root)
        if args.check:
            lines = todo.lines(root, ("would move", "would edit"))
            print("\n".join(lines) if lines else "vocabulary: nothing to rename")
            return 1 if lines else 0
        apply(root, todo, ruff=not args.no_ruff)
    except RenameError as exc:
        print(f"rename_vocabulary: {exc}", file=sys.stderr)
        return 2
    lines = todo.lines(root, ("moved", "edited"))
    print("\n".join(lines) if lines else "vocabulary: nothing to rename")
    return 0


if __name__ == "__main__":
    sys.exit(main())
