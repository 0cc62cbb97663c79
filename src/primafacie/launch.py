"""The console script ``primafacie`` and ``python -m primafacie``: a bare ``--help`` is
answered by :mod:`primafacie.cli_help` (no typer, ~0.2 s less), everything else by typer
(:mod:`primafacie.cli`)."""

from __future__ import annotations

import sys

from .cli_help import print_root_help

__all__ = ["main"]


def main() -> None:
    """Console-script entry point: ``primafacie --help`` here, everything else by typer."""
    if sys.argv[1:] == ["--help"] and print_root_help():
        return
    from .cli import main as typer_main

    typer_main()
