"""The ``primafacie`` command line (typer).

Every command has ``--help`` with a worked example. Exit codes: 0 ok, 1 the analysis failed,
2 bad input (a wrong flag, column, key or file). Errors are one readable message, never a
bare traceback (set ``PRIMAFACIE_DEBUG=1`` to see the traceback).

Start-up: a command's module (``primafacie.commands.<name>``) is imported, and its options
built, only when that command is looked up: ``primafacie reproduce ...`` loads one command
module, not fourteen. ``primafacie --help`` lists every command: ``launch.main`` renders
it (``cli_help``) without typer or the command modules.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from types import ModuleType
from typing import Any

import typer
from typer.core import TyperGroup

from . import cli_help

#: The commands, in the order ``primafacie --help`` lists them; each is registered by the
#: module of the same name in ``primafacie.commands`` (its ``register(app)``). Declared in
#: ``cli_help``, which renders ``primafacie --help`` without typer.
COMMANDS: tuple[str, ...] = cli_help.COMMANDS

#: Settings shared by the application and each command's own one-command Typer, so that a
#: command built on demand renders exactly as one registered on the application.
_SETTINGS: dict[str, Any] = dict(
    add_completion=False, pretty_exceptions_enable=False, rich_markup_mode="markdown"
)


def command_module(name: str) -> ModuleType:
    """The module of command ``name``, imported on first use (a missing one is an error,
    never a silently absent command)."""
    # One plain import per command, so that readers, type checkers and the import-graph test
    # see every dependency; only the one asked for runs.
    if name == "demo":
        from .commands import demo as module
    elif name == "audit":
        from .commands import audit as module
    elif name == "groups":
        from .commands import groups as module
    elif name == "situation":
        from .commands import situation as module
    elif name == "recourse":
        from .commands import recourse as module
    elif name == "principal":
        from .commands import principal as module
    elif name == "certainty":
        from .commands import certainty as module
    elif name == "alternatives":
        from .commands import alternatives as module
    elif name == "ll144":
        from .commands import ll144 as module
    elif name == "reproduce":
        from .commands import reproduce as module
    elif name == "schema":
        from .commands import schema as module
    elif name == "dossier":
        from .commands import dossier as module
    elif name == "diff":
        from .commands import diff as module
    elif name == "check":
        from .commands import check as module
    else:
        raise KeyError(name)
    return module


def _build(name: str) -> Any:
    """The click command of ``name``, built by typer from the module's ``register``."""
    single = typer.Typer(**_SETTINGS)
    command_module(name).register(single)
    command = typer.main.get_command(single)
    if command.name != name:  # a module must register the command it is listed under
        raise RuntimeError(f"primafacie.commands.{name} registers {command.name!r}")
    return command


class _LazyCommands(MutableMapping):
    """``{name: click command}`` whose keys are :data:`COMMANDS` (plus any command added
    directly) and whose values are built on first access."""

    def __init__(self, eager: MutableMapping) -> None:
        self._built: dict[str, Any] = dict(eager)

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = _build(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMANDS
        yield from (n for n in self._built if n not in COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS) + sum(n not in COMMANDS for n in self._built)

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._built


class _LazyGroup(TyperGroup):
    """The application's group: its commands are a :class:`_LazyCommands` (names known
    up front for listings and "did you mean", each command built when looked up)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.commands = _LazyCommands(self.commands)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)


app = typer.Typer(
    name="primafacie",
    cls=_LazyGroup,
    help=cli_help.ROOT_HELP,
    no_args_is_help=True,
    **_SETTINGS,
)


@app.callback()
def _root() -> None:
    """Audit automated and human decisions for discrimination."""


def __getattr__(name: str) -> Any:
    # COMMAND_MODULES: every command module in listing order (imports them all; for tests
    # and tools that inspect the commands, never on the start-up path)
    if name == "COMMAND_MODULES":
        return tuple(command_module(n) for n in COMMANDS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run the command line with typer (``launch.main``, the console script, answers a bare
    ``primafacie --help`` with ``cli_help`` before importing this module)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
