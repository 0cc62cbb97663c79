"""Text from data, made safe for the terminal (rich consoles of the CLI and the progress bars)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["terminal_text"]

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
