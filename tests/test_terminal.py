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


def _printed(block, width):
    from primafacie.terminal import print_table

    buf = io.StringIO()
    print_table(Console(file=buf, width=width, force_terminal=False), block)
    return buf.getvalue()


def test_a_wide_table_prints_in_parts_that_fit_each_repeating_the_row_names():
    """No line wider than the console; each part repeats the columns that name a row (text,
    then k); every cell whole; the caption once, after the last part."""
    import pandas as pd

    from primafacie.report.blocks import rates, table

    frame = pd.DataFrame({"test": ["gender", "race"], "method": ["CST with centres", "ST"],
                          "k": [15, 30], "cases": rates([560, 17], [1526, 1197]),
                          "significant": rates([231, 1], [1526, 1197]),
                          "before adjustment": rates([422, 198], [1526, 1197])})  # fmt: skip
    block = table(frame, "Counts", "Cases among the complainants.")
    whole = _printed(block, 200)
    assert "(continued)" not in whole and whole.count("gender") == 1
    printed = _printed(block, 70)
    lines = printed.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 70
    assert printed.count("(continued)") >= 1 and "── 1 of" not in printed
    parts = printed.count("(continued)") + 1
    assert printed.count("CST with centres") == parts  # the names repeated in every part
    assert sum(" 15 " in line for line in lines) == parts  # and k with them
    for cell in ("36.7% (560 of 1526)", "15.1% (231 of 1526)", "16.5% (198 of 1197)"):
        assert cell in printed  # whole, on one line
    assert printed.count("Cases among the complainants.") == 1


def test_a_table_whose_columns_cannot_fit_prints_one_record_per_row():
    import pandas as pd

    from primafacie.report.blocks import table

    frame = pd.DataFrame({"group": ["[b]x[/b]", "y"], "reason": ["a long reason " * 3, "z"]})
    printed = _printed(table(frame, "T"), 30)
    assert "── 1 of 2 ──" in printed and "── 2 of 2 ──" in printed
    assert "  reason  " + "a long reason " * 2 in printed  # the cell whole on its line
    assert "[b]x[/b]" in printed  # markup printed as typed
