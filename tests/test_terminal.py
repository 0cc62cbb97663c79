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
