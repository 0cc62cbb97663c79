"""The ``primafacie`` command line (typer).

Every command has ``--help`` with a worked example. Exit codes: 0 ok, 1 the analysis failed,
2 bad input (a wrong flag, column, key or file). Errors are one readable message, never a
bare traceback (set ``PRIMAFACIE_DEBUG=1`` to see the traceback).
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="primafacie",
    help=(
        "Audit automated and human decisions for discrimination.\n\n"
        "Start with `primafacie demo --out out/demo`, then open out/demo/report.html."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)


@app.callback()
def _root() -> None:
    """Audit automated and human decisions for discrimination."""


# One module per command; each exposes ``register(app)``. Plain imports, so a missing module
# is an error, never a silently absent command.
from .commands import (  # noqa: E402
    alternatives,
    audit,
    certainty,
    check,
    demo,
    diff,
    dossier,
    groups,
    ll144,
    principal,
    recourse,
    reproduce,
    schema,
    situation,
)

COMMAND_MODULES = (
    demo,
    audit,
    groups,
    situation,
    recourse,
    principal,
    certainty,
    alternatives,
    ll144,
    reproduce,
    schema,
    dossier,
    diff,
    check,
)
for _module in COMMAND_MODULES:
    _module.register(app)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
