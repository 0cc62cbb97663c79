"""Terminal text from data (src/primafacie/terminal.py): no control character reaches the
terminal, rich markup prints as typed."""

from __future__ import annotations

import io

from rich.console import Console

from primafacie.terminal import terminal_text


def test_control_characters_are_removed_and_markup_escaped():
    osc8 = "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"
    text = terminal_text(f"\x1b[31mred\r [/] [link=http://x]a$ {osc8}\x07\x9b\tb\nc")
    assert "\x1b" not in text and "\r" not in text and "\x07" not in text and "\x9b" not in text
    assert "\t" in text and "\n" in text
    buf = io.StringIO()
    Console(file=buf, force_terminal=False, width=200).print(text)
    printed = buf.getvalue()
    assert "[/] [link=http://x]a$" in printed  # rich markup shown, not applied
    assert "\x1b" not in printed


def test_a_report_table_prints_whole_on_a_narrow_console_and_data_stays_inert():
    """The CLI prints the report's table blocks (terminal.print_table): every cell whole on
    one line however narrow the console, hostile cells as typed, the report's caption."""
    import pandas as pd

    from primafacie.report.blocks import rates, table
    from primafacie.terminal import print_table, rich_table

    frame = pd.DataFrame({"group": ["[red]x[/] \x1b[31m"], "rate": rates([1], [4]),
                          "ratio [95% CI]": ["0.50 [0.10, 2.00]"]})  # fmt: skip
    block = table(frame, "Each group", "Ratio = group rate / reference rate.", csv="t.csv")
    buf = io.StringIO()
    print_table(Console(file=buf, width=20, force_terminal=False), block)
    printed = buf.getvalue()
    assert "25.0% (1 of 4)" in printed and "0.50 [0.10, 2.00]" in printed
    assert "[red]x[/]" in printed and "\x1b" not in printed
    words = " ".join(printed.split())  # the caption wraps at the console's width
    assert "Each group" in words and "Ratio = group rate / reference rate." in words
    assert "t.csv" not in printed  # the CLI's files are named by the command, not the report
    assert [c.justify for c in rich_table(block).columns] == ["left", "right", "left"]
    many = table(pd.DataFrame({"n": range(60)}), "T")
    buf = io.StringIO()
    print_table(Console(file=buf, width=80), many)
    assert "showing the first 50 of 60 rows" in buf.getvalue() and " 49 " in buf.getvalue()
