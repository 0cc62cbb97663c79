"""Count the lines of glue issue 20 measures, and the whole package beside it.

Glue: the five analyses' ``params.py``, ``spec.py``, ``analysis.py``, ``results.py`` (and any
``section.py``/``result.py`` that replaces them), their ``commands/`` modules, ``_common.py``,
``_analysis.py`` (the generic analysis command they share) and ``_defaults.py`` (``wc -l``). The package total is printed too: glue that only moved to another
module is not glue removed.

With ``--kinds``, each line of the glue is also sorted by what it holds (:func:`kinds`):
docstrings, text (lines of string literals only: sentences, help, captions), comments, blank
lines, code that spells text (a call or f-string with a sentence in it) and code alone; and the
functions with the most code-alone lines are listed (``--top N``), so a clean-up can see where
the code, not the text, is.

Usage::

    python tools/glue_lines.py [--root src/primafacie] [--kinds [--top 20]]
"""

from __future__ import annotations

import argparse
import ast
import io
import tokenize
from collections import Counter
from pathlib import Path

ANALYSES = ("situation", "recourse", "principal", "certainty", "groups")
PER_ANALYSIS = ("params.py", "spec.py", "analysis.py", "results.py", "section.py", "result.py")
COMMON = ("_common.py", "_analysis.py", "_defaults.py")


def lines(path: Path) -> int:
    """``wc -l`` of one file (0 when it does not exist)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


def glue_files(root: Path) -> list[Path]:
    """The files issue 20 counts as glue, in a fixed order."""
    files = [root / a / name for a in ANALYSES for name in PER_ANALYSIS]
    files += [root / "commands" / f"{a}.py" for a in ANALYSES]
    files += [root / "commands" / name for name in COMMON]
    return [f for f in files if f.exists()]


#: The kinds of :func:`kinds`, in the order they are printed.
KINDS = ("docstring", "text", "comment", "blank", "code with text", "code")
_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_TEXT = {tokenize.STRING} | {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE",
                                                           "FSTRING_END") if hasattr(tokenize, n)}  # fmt: skip


def kinds(source: str) -> list[str]:
    """The kind of each line of ``source`` (one of :data:`KINDS`).

    A docstring is any string statement (module, class, function or attribute docstring);
    text, a line whose tokens are string literals with brackets, commas or operators around
    them; code with text, a line with a name and a string; code, a line with neither.

    Examples
    --------
    >>> kinds("'Doc.'\\nx = 1\\n\\n# why\\ny = f(\\n    'a sentence'\\n)\\nz = g('t')\\n")
    ['docstring', 'code', 'blank', 'comment', 'code', 'text', 'code', 'code with text']
    """
    lines = source.splitlines()
    out = ["code"] * len(lines)
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            out[node.lineno - 1 : node.end_lineno] = ["docstring"] * (
                node.end_lineno - node.lineno + 1
            )
    tokens: dict[int, set[int]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _LAYOUT:
            for row in range(tok.start[0], tok.end[0] + 1):
                tokens.setdefault(row - 1, set()).add(tok.type)
    for i, line in enumerate(lines):
        held = tokens.get(i, set())
        if out[i] == "docstring":
            continue
        if not line.strip():
            out[i] = "blank"
        elif held <= {tokenize.COMMENT}:
            out[i] = "comment"
        elif held & _TEXT:
            out[i] = "code with text" if tokenize.NAME in held else "text"
    return out


def functions(path: Path, root: Path) -> list[tuple[Counter, str]]:
    """Each function and method of ``path`` with the kinds of its lines."""
    source = path.read_text(encoding="utf-8")
    of_line, found = kinds(source), []

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = f"{path.relative_to(root)}:{node.lineno} {prefix}{node.name}"
                found.append((Counter(of_line[node.lineno - 1 : node.end_lineno]), where))

    walk(ast.parse(source).body, "")
    return found


def print_kinds(files: list[Path], root: Path, top: int) -> None:
    """The glue's lines by kind, then the ``top`` functions with the most code-alone lines."""
    counts = Counter(k for f in files for k in kinds(f.read_text(encoding="utf-8")))
    print("\nglue lines by kind:")
    for kind in KINDS:
        print(f"{counts[kind]:6d}  {kind}")
    found = sorted((f for path in files for f in functions(path, root)),
                   key=lambda f: (-f[0]["code"], f[1]))  # fmt: skip
    print(f"\nfunctions with the most code lines (of {len(found)}): code, code with text, "
          "text, docstring, all")  # fmt: skip
    for c, where in found[:top]:
        cols = (c["code"], c["code with text"], c["text"], c["docstring"], sum(c.values()))
        print("".join(f"{n:5d}" for n in cols) + f"  {where}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).parents[1] / "src/primafacie")
    parser.add_argument("--kinds", action="store_true", help="the glue's lines by kind")
    parser.add_argument("--top", type=int, default=20, help="functions listed with --kinds")
    args = parser.parse_args(argv)
    files = glue_files(args.root)
    for f in files:
        print(f"{lines(f):6d}  {f.relative_to(args.root)}")
    glue = sum(lines(f) for f in files)
    total = sum(lines(f) for f in args.root.rglob("*.py"))
    print(f"{glue:6d}  glue (issue 20 target: <= 5,282)")
    print(f"{total:6d}  every module of the package")
    if args.kinds:
        print_kinds(files, args.root, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
