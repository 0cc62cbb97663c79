"""Text from data, made safe for the terminal (rich consoles of the CLI and the progress bars)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["print_table", "rich_table", "terminal_text"]

#: C0 and C1 control characters but tab and newline: ANSI colours, OSC 8 links, cursor
#: moves and carriage returns in data would otherwise act on the auditor's terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: a cell that is a number (or the table's "—" for none), not a name
_NUMBER = re.compile(r"[-+]?[\d.,]+%?|—|")


def terminal_text(value: Any) -> str:
    """``value`` as text safe for a rich console: control characters removed and rich markup
    escaped, so data such as ``[/]``, ``[link=http://x]`` or ``\\x1b[31m`` print as typed.

    Examples
    --------
    >>> print(terminal_text(chr(27) + "[31mred[/] [link=http://x]a" + chr(13)))
    [31mred\\[/] \\[link=http://x]a
    """
    from rich.markup import escape

    from .formats import visible_bidi

    return escape(visible_bidi(_CONTROL.sub("", str(value))))


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

    table = Table(
        title=terminal_text(block["title"]),
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
    )
    rows = block["rows"]
    for i, name in enumerate(block["columns"]):
        numbers = any(row[i][1] != "" for row in rows)
        table.add_column(terminal_text(name), justify="right" if numbers else "left",
                         overflow="fold")  # fmt: skip
    for row in rows:
        table.add_row(*(terminal_text(text) for text, _ in row))
    return table


def print_table(console: Any, block: Any) -> None:
    """Print a report table block on ``console``, then the report's caption and, when the
    block leaves rows out, how many (they are in the CSV; the report's CSV name is left out:
    the command names its own files).

    Every cell prints whole on one line. A table that fits the console so prints as one
    table; a wider one is cut into parts of consecutive columns that fit, each repeating the
    leading columns that name a row (text, a rank, a k), as pandas prints a wide frame; if even one column
    does not fit beside them, each row prints as a record, a ``column  value`` line per cell.
    A number is never wrapped, broken or cut.

    Examples
    --------
    >>> import pandas as pd
    >>> from rich.console import Console
    >>> from primafacie.report.blocks import table
    >>> frame = pd.DataFrame({"group": ["a"], "rate": ["25.0% (1 of 4)"],
    ...                       "ratio [95% CI]": ["0.50 [0.10, 2.00]"]})
    >>> def show(width):
    ...     console = Console(width=width, force_terminal=False)
    ...     with console.capture() as out:
    ...         print_table(console, table(frame, "T"))
    ...     print("\\n".join(line.rstrip() for line in out.get().splitlines() if line.strip()))
    >>> show(30)
               T
     group  rate
     ─────────────────────
     a      25.0% (1 of 4)
          T (continued)
     group  ratio [95% CI]
     ────────────────────────
     a      0.50 [0.10, 2.00]
    >>> show(20)
    T
    ── 1 of 1 ──
      group           a
      rate            25.0% (1 of 4)
      ratio [95% CI]  0.50 [0.10, 2.00]
    """
    parts = _column_parts(console, block)
    if parts is None:
        _print_records(console, block)
    for part in parts or ():
        console.print(rich_table(part))
    note = block["note"].split("; full table")[0]
    said = [block["caption"], note if note.startswith("showing") else ""]
    if any(said):
        console.print(terminal_text(" ".join(filter(None, said))))


def _width(console: Any, block: Any) -> int:
    """The width of ``block``'s table with every cell on one line."""
    from rich.measure import Measurement

    wide = console.options.update_width(10**4)  # unclamped
    return Measurement.get(console, wide, rich_table(block)).maximum


def _column_parts(console: Any, block: Any) -> list[dict] | None:
    """``block`` as blocks of consecutive columns that each fit ``console``, the columns that
    name a row repeated in each; ``None`` when a column does not fit beside them."""
    names, rows = list(block["columns"]), block["rows"]
    if _width(console, block) <= console.width:
        return [block]

    # a row's name, repeated in every part: the leading columns of text (no sort key, not
    # numbers) or headed "rank" or "k", at most three
    def names_row(i: int) -> bool:
        cells = [row[i] for row in rows]
        if str(names[i]) in ("rank", "k"):
            return True
        return all(key == "" for _, key in cells) and not all(_NUMBER.fullmatch(text)
                                                              for text, _ in cells)  # fmt: skip

    lead = 0
    while lead < min(3, len(names) - 1) and names_row(lead):
        lead += 1
    lead = max(lead, 1)

    def part(cols: list[int], title: str) -> dict:
        return {**block, "title": title, "columns": [names[i] for i in cols],
                "rows": [[row[i] for i in cols] for row in rows]}  # fmt: skip

    def fits(cols: list[int]) -> bool:
        return _width(console, part(cols, block["title"] + " (continued)")) <= console.width

    for shown in range(lead, 0, -1):
        groups: list[list[int]] = [list(range(shown))]
        for i in range(shown, len(names)):
            if len(groups[-1]) > shown and not fits([*groups[-1], i]):
                groups.append(list(range(shown)))
            groups[-1].append(i)
        if all(fits(cols) for cols in groups):
            return [part(cols, block["title"] + (" (continued)" if j else ""))
                    for j, cols in enumerate(groups)]  # fmt: skip
    return None


def _print_records(console: Any, block: Any) -> None:
    """``block``'s rows as records (the expanded display of ``psql``): its title, then per row
    a ``── i of n ──`` line and one ``column  value`` line per cell, names aligned."""
    names = [_CONTROL.sub("", str(name)) for name in block["columns"]]
    pad = max((len(name) for name in names), default=0)
    rows = block["rows"]
    lines = [_CONTROL.sub("", str(block["title"]))]
    for i, row in enumerate(rows, start=1):
        lines.append(f"── {i} of {len(rows)} ──")
        lines += [f"  {name.ljust(pad)}  {_CONTROL.sub('', str(text))}"
                  for name, (text, _) in zip(names, row, strict=True)]  # fmt: skip
    # printed as plain text: no markup read, no wrapping, nothing cropped
    console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True, crop=False)
