"""Shared CLI plumbing: error -> exit code mapping, consoles, atomic output folders."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import traceback
import typing
from collections.abc import Callable
from typing import Any, Optional, TypeVar

import typer
from rich.console import Console

from ..errors import AnalysisError, DataMissingError, InputError
from ..terminal import terminal_text as escape

F = TypeVar("F", bound=Callable[..., Any])

#: stdout for results/tables, stderr for errors and progress.
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

EXIT_ANALYSIS = 1
EXIT_INPUT = 2

# ------------------------------------------------------------- options several commands share
#: ``--progress/--no-progress`` of the commands that run an audit (audit, demo).
PROGRESS = typer.Option(True, "--progress/--no-progress", help="Progress bars on stderr.")
#: The audit.yaml argument of the commands that run a configuration (audit, dossier).
AUDIT_YAML = typer.Argument(..., help="The audit.yaml configuration file.")


def date_option(printed: str = "in the provenance (default: none)") -> Any:
    """``--date YYYY-MM-DD`` (checked by :func:`~primafacie.audit.inputs.check_date`): no date
    by default, so that the same inputs give byte-identical files."""
    return typer.Option(None, "--date", help=f"Date YYYY-MM-DD printed {printed}.")


def out_next_to(default: str, what: str = "the file") -> Any:
    """``--out``/``-o`` of a command that writes next to its input by default."""
    return typer.Option(
        None, "--out", "-o", help=f"Output folder (default: {default} next to {what})."
    )


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that staging folders are removed and nothing half-written
    is left behind."""


#: Set when SIGTERM arrived: an extension module whose initialisation the signal interrupted
#: re-raises it as its own error ("ImportError: initialization failed"), which is still a
#: termination, not an internal error.
_TERMINATED = threading.Event()


def _raise_terminated(signum: int, frame: Any) -> None:
    _TERMINATED.set()
    raise Terminated()


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Within the block, SIGTERM raises :class:`Terminated` (a KeyboardInterrupt).

    Only the main thread can install signal handlers; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def guarded(fn: F) -> F:
    """Run a command body and turn our exceptions into one-line messages and exit codes
    (:func:`exit_code`)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _committed_outputs().clear()
        _TERMINATED.clear()
        try:
            with sigterm_as_interrupt():
                return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - no bare traceback
            # a one-analysis command (situation, principal, ...) names its analysis
            raise typer.Exit(exit_code(exc, getattr(fn, "__name__", ""))) from None

    return wrapper  # type: ignore[return-value]


def exit_code(exc: BaseException, command: str = "") -> int:
    """Print the one-line message of an exception a command body raised; its exit code.

    Exit codes: 2 bad input, 1 analysis failure or internal error, 130 Ctrl-C, 143 SIGTERM
    (handled like Ctrl-C: the output folder is left as it was).
    """
    if isinstance(exc, Terminated):
        return _say(f"terminated; {_what_was_written()}", 143)
    if isinstance(exc, (InputError, DataMissingError)):
        return _say(f"[bold red]error:[/] {escape(str(exc))}", EXIT_INPUT)
    if isinstance(exc, OSError) and exc.filename is None:  # not about a file: a real bug
        return _internal_error(exc)
    if isinstance(exc, OSError):
        # an input that cannot be read or an output that cannot be written (permissions,
        # a folder where a file was expected, a full disk) is the user's to fix
        return _say(
            f"[bold red]error:[/] cannot access {escape(str(exc.filename))}: "
            f"{escape(exc.strerror or type(exc).__name__)}",
            EXIT_INPUT,
        )
    if isinstance(exc, AnalysisError):
        return _say(f"[bold red]analysis failed:[/] {escape(str(exc))}", EXIT_ANALYSIS)
    if isinstance(exc, MemoryError):  # the run is too large for this machine: the user's to fix
        from ..budget import SETTINGS, memory_error_message

        message = memory_error_message(command if command in SETTINGS else None, exc)
        return _say(f"[bold red]error:[/] {escape(message)}", EXIT_INPUT)
    if isinstance(exc, KeyboardInterrupt):
        return _say(f"interrupted; {_what_was_written()}", 130)
    if _TERMINATED.is_set():  # SIGTERM surfaced as another error (see _TERMINATED)
        return _say(f"terminated; {_what_was_written()}", 143)
    return _internal_error(exc)


def _say(message: str, code: int) -> int:
    err_console.print(message)
    return code


def _committed_outputs() -> list:
    """The output folders whose swap committed (``primafacie.io`` is not imported for this:
    when it was never loaded, nothing was written)."""
    io = sys.modules.get("primafacie.io")
    return getattr(io, "committed_outputs", []) if io is not None else []


def _what_was_written() -> str:
    """How an interrupted command left its outputs: complete, or untouched."""
    done = list(dict.fromkeys(str(p) for p in _committed_outputs()))
    if not done:
        return "nothing was written"
    return f"the outputs in {escape(', '.join(done))} had been written completely before it"


def _internal_error(exc: BaseException) -> int:
    """A real bug: one line, the traceback on request, exit 1."""
    if os.environ.get("PRIMAFACIE_DEBUG"):
        traceback.print_exception(exc)
    return _say(
        f"[bold red]internal error:[/] {type(exc).__name__}: {escape(str(exc))} "
        "(set PRIMAFACIE_DEBUG=1 for the traceback and please report it)",
        EXIT_ANALYSIS,
    )


def spec_from_flags(spec_cls: type, **values: Any) -> Any:
    """An ``analyses.<name>`` spec from command-line values; its errors become one InputError,
    each headed by its flag (``--alpha: alpha must be ... (--alpha, analyses.groups.alpha)``,
    the tail from the engine's constraints). A choice error echoes the value given and lists
    the choices (``--method knn: expected one of st, cst, cst_centers, cf``); any other keeps
    its message (pydantic's own wording never names an internal model)."""
    import re

    from pydantic import ValidationError

    flags = {p.config_key: p.flag for p in getattr(spec_cls, "params", ()) if p.flag}
    try:
        return spec_cls(**values)
    except ValidationError as exc:
        msgs = []
        for e in exc.errors():
            key, msg = str(e["loc"][0]) if e.get("loc") else "", str(e["msg"])
            flag = flags.get(key) or "--" + key.replace("_", "-")
            choices = re.findall(r"'([^']*)'", str((e.get("ctx") or {}).get("expected", "")))
            if key and e.get("type") in ("literal_error", "enum") and choices:
                msg = f"{flag} {e.get('input')}: expected one of {', '.join(choices)}"
            elif key:
                msg = f"{flag}: {msg.removeprefix('Value error, ')}"
            msgs.append(msg.removeprefix("Value error, "))
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


#: What a command's help says of its ``--model`` files (situation, recourse, certainty).
MODEL_FILES_HELP = (
    "A --model file is .skops or .onnx; a pickle/joblib file runs its author's code when loaded "
    "and is refused unless --trust-pickle is given (docs/security.md)."
)

#: Help of ``--trust-pickle``, the one way a command loads a pickle/joblib ``--model`` file.
TRUST_PICKLE_HELP = (
    "Load a pickle/joblib --model file. Unpickling runs any code its author put in it: only "
    "for a file you trust; better, convert it to .skops (skops.io.dump)."
)
#: Help of ``--trusted-type``.
TRUSTED_TYPE_HELP = "A type in a .skops --model to trust beyond scikit-learn's classes (repeat)."


def load_cli_model(path: Any, trust_pickle: bool, trusted_types: list[str] | None) -> Any:
    """The estimator in a ``--model`` file: skops or ONNX, a pickle only with --trust-pickle."""
    from ..decisions import load_model

    trust = "pickle" if trust_pickle else None
    return load_model(path, trust=trust, trusted_types=list(trusted_types or ()))


# ---------------------------------------------------------------------- options from declarations
def _plain(t: Any) -> Any:
    """A type typer can parse: a Literal as str, Optional kept, anything else as str."""
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is typing.Literal:
        return str
    if origin in (list, dict):  # a repeated option (a mapping as COL=VALUE items)
        return list[_plain(args[0]) if origin is list and args else str]
    if origin is typing.Union:
        inner = [a for a in args if a is not type(None)]
        return Optional[_plain(inner[0])] if len(inner) == 1 else str
    return t if t in (int, float, str, bool) else str


def _cli_type(param: Any) -> Any:
    """The Python type typer parses a declared parameter's flag as (a list as one string,
    ``15,30,50``, split by the command)."""
    from ..params import annotation

    return str if param.cli == "list" else _plain(annotation(param))


def option(param: Any, **overrides: Any) -> Any:
    """The typer option of a declared parameter: its flag, default and help (with the values
    it accepts), so the command line and ``audit.yaml`` cannot disagree."""
    text = overrides.pop("help", param.help)
    options = [v for c in param.constraints for v in getattr(c, "values", ())]
    if options and not all(str(v) in text for v in options):  # the choices, when not said
        text = f"{text} ({param.describe()})"
    repeated = _cli_type(param)
    if typing.get_origin(repeated) is typing.Union:
        repeated = typing.get_args(repeated)[0]
    if typing.get_origin(repeated) is list:  # how to repeat it, and a mapping's items
        mapping = "dict" in str(param.type)
        text = f"COL=VALUE (repeat): {text}" if mapping else f"{text} (repeat)"
    default = param.cli_default()
    if isinstance(default, bool) and _cli_type(param) is not bool:  # as audit.yaml spells it
        default = str(default).lower()
    return typer.Option(
        None if isinstance(default, dict) else default, param.flag, help=text, **overrides
    )
