"""Count the lines of glue issue 20 measures, and the whole package beside it.

Glue: the five analyses' ``params.py``, ``spec.py``, ``analysis.py``, ``results.py`` (and any
``section.py``/``result.py`` that replaces them), their ``commands/`` modules, ``_common.py``,
``_analysis.py`` (the generic analysis command they share) and ``_defaults.py`` (``wc -l``). The package total is printed too: glue that only moved to another
module is not glue removed.

Usage::

    python tools/glue_lines.py [--root src/primafacie]
"""

from __future__ import annotations

import argparse
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).parents[1] / "src/primafacie")
    args = parser.parse_args(argv)
    files = glue_files(args.root)
    for f in files:
        print(f"{lines(f):6d}  {f.relative_to(args.root)}")
    glue = sum(lines(f) for f in files)
    total = sum(lines(f) for f in args.root.rglob("*.py"))
    print(f"{glue:6d}  glue (issue 20 target: <= 5,282)")
    print(f"{total:6d}  every module of the package")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
