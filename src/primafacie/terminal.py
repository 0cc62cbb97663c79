"""Text from data, made safe for the terminal (rich consoles of the CLI and the progress bars)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["print_table", "rich_table", "terminal_text"]

#: C0 and C1 control characters but tab and newline: ANSI colours, OSC 8 links, cursor
#: moves and carriage returns in data would otherwise act on the auditor's terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_text(value: Any) -> str:
    """``value`` as text safe for a rich console: control characters removed and rich markup
    escaped, so data such as ``[/]``, ``[link=http://x]`` or ``\\x1b[31m`` print as typed.

    Examples
    --------
    >>> print(terminal_text(chr(27) + "[31mred[/] [link=http://x]a" + chr(13)))
    [31mred\\[/] \\[link=http://x]a
    """
    from rich.markup import escape

    return escape(_CONTROL.sub("", str(value)))


def rich_table(block: Any) -> Any:
    """A report table block (:func:`primafacie.report.blocks.table`) as a rich table: the
    report's title, columns and cells, so the terminal and the page cannot disagree. A column
    of numbers (a cell with a sort key) is right-aligned; a long cell folds, never cut.

    Examples
    --------
    >>> import pandas as pd
    >>> from primafacie.report.blocks import table
    >>> t = rich_table(table(pd.DataFrame({"g": ["a"], "k": [1]}), "T", "cap"))
    >>> t.title, [c.header for c in t.columns], list(t.columns[1].cells), t.columns[1].justify
    ('T', ['g', 'k'], ['1'], 'right')
    """
    from rich import box
    from rich.table import Table

    table = Table(title=terminal_text(block["title"]), box=box.SIMPLE_HEAD)
    rows = block["rows"]
    for i, name in enumerate(block["columns"]):
        numbers = any(row[i][1] != "" for row in rows)
        table.add_column(terminal_text(name), justify="right" if numbers else "left",
                         overflow="fold")  # fmt: skip
    for row in rows:
        table.add_row(*(terminal_text(text) for text, _ in row))
    return table


def print_table(console: Any, block: Any) -> None:
    """Print a report table block on ``console``: the table (:func:`rich_table`) at least as
    wide as its widest row, so no number is wrapped on a narrow terminal or in a pipe, then
    the report's caption and, when the block leaves rows out, how many (they are in the CSV;
    the report's CSV name is left out: the command names its own files)."""
    from rich.measure import Measurement

    table = rich_table(block)
    widest = Measurement.get(console, console.options.update_width(10**4), table).maximum
    if widest > console.width:
        table.width = widest
    console.print(table, crop=False)
    note = block["note"].split("; full table")[0]
    said = [block["caption"], note if note.startswith("showing") else ""]
    if any(said):
        console.print(terminal_text(" ".join(filter(None, said))))
