"""``primafacie --help`` without typer: the root help page.

Importing typer (and click, and typer's rich helpers with markdown-it) costs about 0.35 CPU s,
more than the rest of ``primafacie --help``; building the fourteen commands cost as much
again. ``primafacie.launch.main`` (the console script and ``python -m primafacie``) therefore
answers a bare ``primafacie --help`` with :func:`print_root_help`: it reads each command's
one-line summary (the first paragraph of its module's ``HELP``) from the module's source
without importing it, and lays the page out with the same rich renderables, styles and
console settings as ``typer.rich_utils.rich_format_help``, so that the bytes are typer's,
plain or coloured, at any width (``tests/cli/test_startup.py`` compares them). Anything it
cannot reproduce exactly (a summary built by code, a usage line click would wrap) goes to
typer.
"""

from __future__ import annotations

import inspect
import os
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["ROOT_HELP", "COMMANDS", "print_root_help", "command_summaries"]

#: The application's help (``primafacie --help`` shows it above the options); ``cli.app``
#: is built with it.
ROOT_HELP = (
    "Audit automated and human decisions for discrimination.\n\n"
    "Start with `primafacie demo --out out/demo`, then open out/demo/report.html."
)

#: The commands, in the order ``primafacie --help`` lists them (``cli.COMMANDS`` is this).
COMMANDS: tuple[str, ...] = (
    "demo", "audit", "groups", "situation", "recourse", "principal", "certainty",
    "alternatives", "ll144", "reproduce", "schema", "dossier", "diff", "check",
)  # fmt: skip

_HELP_CONSTANT = re.compile(r'^HELP = (f?)"""(.*?)"""', re.S | re.M)


def command_summaries(commands: tuple[str, ...] = COMMANDS) -> dict[str, str] | None:
    """``{command: first paragraph of its HELP}`` read from ``commands/<name>.py``'s source.

    ``None`` when a module's ``HELP`` is not a plain string literal whose first paragraph
    needs no evaluation (no f-string field, no escape): then only typer knows the text.
    """
    folder = Path(__file__).parent / "commands"
    out = {}
    for name in commands:
        try:
            source = (folder / f"{name}.py").read_text(encoding="utf-8")
        except OSError:
            return None
        found = _HELP_CONSTANT.search(source)
        if found is None:
            return None
        first = inspect.cleandoc(found.group(2)).split("\n\n")[0]
        if "\\" in first or (found.group(1) and ("{" in first or "}" in first)):
            return None
        out[name] = first
    return out


def _program_name() -> str:
    """The program name click shows in the usage line (its ``_detect_program_name``)."""
    main_module = sys.modules["__main__"]
    path = sys.argv[0]
    package = getattr(main_module, "__package__", None)
    if package in {None, ""}:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def _usage_line() -> str | None:
    """Click's usage line of the application, or ``None`` when click would wrap it."""
    line = f"Usage: {_program_name()} [OPTIONS] COMMAND [ARGS]..."
    # click's HelpFormatter width: the terminal's columns capped at 80, minus 2, at least 50
    import shutil

    width = max(min(shutil.get_terminal_size().columns, 80) - 2, 50)
    return line if len(line) <= width else None


def _console_settings() -> dict[str, Any]:
    """typer.rich_utils' Console arguments, read from the same environment variables."""
    force = True if (os.getenv("GITHUB_ACTIONS") or os.getenv("FORCE_COLOR")
                     or os.getenv("PY_COLORS")) else None  # fmt: skip
    if os.getenv("_TYPER_FORCE_DISABLE_TERMINAL"):
        force = False
    width = os.getenv("TERMINAL_WIDTH")
    return dict(color_system="auto", force_terminal=force, width=int(width) if width else None)


def print_root_help() -> bool:
    """Print the root help page as typer would; ``False`` (nothing printed) when it cannot."""
    summaries = command_summaries()
    usage = _usage_line()
    if summaries is None or usage is None:
        return False
    # rich only (~0.1 s): the renderables typer.rich_utils builds for a group's help page
    from rich import box  # noqa: F401  (typer resolves its box style by name on this module)
    from rich.align import Align
    from rich.columns import Columns
    from rich.console import Console, group
    from rich.emoji import Emoji
    from rich.highlighter import RegexHighlighter
    from rich.markdown import Markdown
    from rich.padding import Padding
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text
    from rich.theme import Theme

    class OptionHighlighter(RegexHighlighter):
        highlights = [
            r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
            r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
            r"(?P<types>\<[^\>]+\>)",
            r"(?P<usage>Usage: )",
        ]

    class NegativeOptionHighlighter(RegexHighlighter):
        highlights = [
            r"(^|\W)(?P<negative_switch>\-\w+)(?![a-zA-Z0-9])",
            r"(^|\W)(?P<negative_option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
        ]

    class TypesHighlighter(RegexHighlighter):
        highlights = [
            r"^(?P<types_sep>(\[|<))",
            r"(?P<types_sep>\|)",
            r"(?P<types_sep>(\]|>))(\.\.\.)?$",
        ]

    highlighter, negative = OptionHighlighter(), NegativeOptionHighlighter()
    theme = Theme({"option": "bold cyan", "switch": "bold green",
                   "negative_option": "bold magenta", "negative_switch": "bold red",
                   "types": "bold yellow", "types_sep": "dim", "usage": "yellow"})  # fmt: skip
    console = Console(theme=theme, highlighter=highlighter, **_console_settings())

    def markdown(text: str, style: str = "") -> Markdown:
        return Markdown(Emoji.replace(inspect.cleandoc(text)), style=style)

    @group()
    def help_text() -> Any:
        first, *rest = inspect.cleandoc(ROOT_HELP).split("\n\n")
        yield markdown(first.strip())
        if rest:
            yield Text("")
            yield markdown("\n\n".join(rest), style="dim")

    table = {"show_lines": False, "leading": 0, "box": None, "border_style": None,
             "row_styles": None, "pad_edge": False, "padding": (0, 1), "show_header": False,
             "expand": True}  # fmt: skip
    options = Table(highlight=True, **table)
    types = Text(style="bold yellow", overflow="fold")
    types.append("<bool>")
    options.add_row(highlighter("--help"), highlighter(""), negative(""), negative(""),
                    TypesHighlighter()(types),
                    Columns([markdown("Show this message and exit.")]))  # fmt: skip
    commands = Table(highlight=False, **table)
    commands.add_column(style="bold cyan", no_wrap=True, width=max(map(len, summaries)))
    commands.add_column("Description", justify="left", no_wrap=False, ratio=10)
    for name, first in summaries.items():
        commands.add_row(Text(name), markdown(first.replace("\n", " ").strip()))

    console.print(Padding(highlighter(usage), 1), style="bold")
    console.print(Padding(Align(help_text(), pad=False), (0, 1, 1, 1)))
    console.print(Panel(options, border_style="dim", title="Options", title_align="left"))
    console.print(Panel(commands, border_style="dim", title="Commands", title_align="left"))
    # click then echoes the (empty) string the help formatter returned: one more line end
    sys.stdout.write("\n")
    sys.stdout.flush()
    return True
