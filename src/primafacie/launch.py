"""The console script ``primafacie`` and ``python -m primafacie``: a bare ``--help`` is
answered by :mod:`primafacie.cli_help` (no typer, ~0.2 s less), the plain forms of
``reproduce`` by :func:`primafacie.commands.reproduce.run_plain` (no typer: ~0.3 s of a ~1 s
reproduction), everything else by typer (:mod:`primafacie.cli`)."""

from __future__ import annotations

import sys
from pathlib import Path

from .cli_help import print_root_help

__all__ = ["main", "plain_reproduce"]

#: The options of ``reproduce`` that :func:`plain_reproduce` parses: flag -> keyword.
_VALUES = {"--out": "out", "--data-dir": "data_dir"}
_FLAGS = {"--legacy": "legacy", "--positive": "positive"}


def plain_reproduce(args: list[str]) -> dict | None:
    """The keywords of :func:`~primafacie.commands.reproduce.run_plain` for
    ``reproduce NAME [--out DIR] [--data-dir DIR] [--legacy] [--positive]`` (the arguments
    after ``reproduce``; each option at most once, after NAME, ``--opt VALUE`` or
    ``--opt=VALUE``), or ``None`` for anything else: typer parses it and gives its messages.

    Examples
    --------
    >>> plain_reproduce(["cst-loan", "--out=o", "--legacy"])
    {'name': 'cst-loan', 'out': PosixPath('o'), 'legacy': True}
    >>> plain_reproduce(["cst-loan", "--tau", "0.05"]) is None  # typer's
    True
    """
    if not args or args[0].startswith("-"):
        return None
    found: dict = {"name": args[0], "out": Path("out/reproduce")}
    seen: set[str] = set()
    rest = iter(args[1:])
    for arg in rest:
        flag, eq, value = arg.partition("=")
        if flag in seen:
            return None  # click keeps the last; typer decides
        seen.add(flag)
        if flag in _VALUES:
            value = value if eq else next(rest, "")
            # an empty value or one that looks like an option: typer's message or meaning
            if not value or value.startswith("-"):
                return None
            found[_VALUES[flag]] = Path(value)
        elif arg in _FLAGS:
            found[_FLAGS[arg]] = True
        else:
            return None
    return found


def main() -> None:
    """Console-script entry point: ``primafacie --help`` and the plain ``reproduce`` forms
    here, everything else by typer."""
    args = sys.argv[1:]
    if args == ["--help"] and print_root_help():
        return
    plain = plain_reproduce(args[1:]) if args[:1] == ["reproduce"] else None
    if plain is not None:
        from .commands.reproduce import run_plain

        code = run_plain(**plain)
        if code:
            sys.exit(code)
        return
    from .cli import main as typer_main

    typer_main()
