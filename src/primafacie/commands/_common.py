"""Shared CLI plumbing: error -> exit code mapping, consoles, atomic output folders."""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from ..errors import AnalysisError, DataMissingError, InputError

F = TypeVar("F", bound=Callable[..., Any])

#: stdout for results/tables, stderr for errors and progress.
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

EXIT_ANALYSIS = 1
EXIT_INPUT = 2


def guarded(fn: F) -> F:
    """Run a command body and turn our exceptions into one-line messages and exit codes."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except (InputError, DataMissingError) as exc:
            err_console.print(f"[bold red]error:[/] {escape(str(exc))}")
            raise typer.Exit(EXIT_INPUT) from None
        except AnalysisError as exc:
            err_console.print(f"[bold red]analysis failed:[/] {escape(str(exc))}")
            raise typer.Exit(EXIT_ANALYSIS) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; nothing was written")
            raise typer.Exit(130) from None
        except Exception as exc:  # noqa: BLE001 - last line of defence: no bare traceback
            if os.environ.get("PRIMAFACIE_DEBUG"):
                traceback.print_exc()
            err_console.print(
                f"[bold red]internal error:[/] {type(exc).__name__}: {escape(str(exc))} "
                "(set PRIMAFACIE_DEBUG=1 for the traceback and please report it)"
            )
            raise typer.Exit(EXIT_ANALYSIS) from None

    return wrapper  # type: ignore[return-value]


def given_flags(ctx: typer.Context, params: dict[str, str]) -> list[str]:
    """The flags among ``params`` (``{parameter: flag}``) typed on the command line.

    With ``--config`` a command builds its analysis from the file alone, exactly as the audit
    does; a flag that would change it is refused rather than silently mixed in.
    """
    # by name: typer may vendor its own click, whose ParameterSource is another enum
    return [
        flag
        for name, flag in params.items()
        if getattr(ctx.get_parameter_source(name), "name", None) == "COMMANDLINE"
    ]


def config_section(
    ctx: typer.Context, config: Any, name: str, flags: dict[str, str]
) -> tuple[Any, Any]:
    """The configuration and its ``analyses.<name>`` spec, for a command's ``--config``.

    ``flags`` (``{parameter: flag}``) would change the analysis; given with ``--config`` they
    are refused, so the command builds exactly what ``primafacie audit`` builds.
    """
    from ..audit.registry import spec_of
    from ..config import load_config

    given = given_flags(ctx, flags)
    if given:
        raise InputError(
            f"--config builds the analysis from {config} alone (as `primafacie audit` does); "
            f"drop {', '.join(given)} or set the keys of analyses.{name} in the file"
        )
    cfg = load_config(config)
    try:
        return cfg, spec_of(cfg, name)
    except InputError as exc:
        raise InputError(f"{config}: {exc}") from None


def spec_from_flags(spec_cls: type, **values: Any) -> Any:
    """An ``analyses.<name>`` spec from command-line values; its errors become one InputError
    (each names the flag and the audit.yaml key, through the engine's constraints)."""
    from pydantic import ValidationError

    try:
        return spec_cls(**values)
    except ValidationError as exc:
        msgs = (str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise InputError("\n".join(dict.fromkeys(msgs))) from None


def parse_pairs(
    values: list[str] | None, flag: str, what: str = "NAME=VALUE"
) -> list[tuple[str, str]]:
    """Parse repeated ``--flag NAME=VALUE`` options; a malformed one is an InputError naming it."""
    out = []
    for item in values or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise InputError(f"{flag} expects {what}, got {item!r}")
        out.append((name.strip(), value.strip()))
    return out
