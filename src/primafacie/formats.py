"""Numbers written for people, in one place (issue 23: there were four "k of n" formatters).

Every share is a percentage with its count and denominator, ``"12.5% (25 of 200)"``; counts
are integers; measured quantities in a table column share one number of decimals, chosen for
a fixed number of significant digits of the column's largest value; no ``-0``. CSV files and
results.json keep full precision: these functions only write the words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from itertools import islice
from typing import Any

__all__ = ["rate_text", "listing", "column_decimals", "fixed", "no_negative_zero", "interval_text",
           "visible_bidi", "visible_controls"]  # fmt: skip

#: Unicode's invisible direction controls (marks, embeddings, overrides, isolates): in a data
#: value they would reorder the text around them, the report's own numbers included.
_BIDI_CHARS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_BIDI = re.compile(f"[{_BIDI_CHARS}]")
#: C0 and C1 controls but tab and newline, with the direction controls: nothing a font draws.
_CONTROLS = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI_CHARS}]")


def rate_text(
    k: Any,
    n: Any,
    digits: int = 1,
    ci: tuple[float, float] | None = None,
    level: str = "95%",
) -> str:
    """A share with its count and denominator, e.g. ``"12.5% (25 of 200)"``.

    Parameters
    ----------
    k, n
        Count and denominator (integers).
    digits
        Decimals of the percentage.
    ci
        An interval of the share ``(low, high)`` in [0, 1], written after the counts.
    level
        Its confidence level, as written (``"95%"``).

    Examples
    --------
    >>> rate_text(25, 200), rate_text(0, 0), rate_text(1, 4, ci=(0.046, 0.699))
    ('12.5% (25 of 200)', '— (0 of 0)', '25.0% (1 of 4; 95% CI 4.6–69.9%)')
    """
    k, n = int(k), int(n)
    if n <= 0:
        return f"— ({k} of {n})"
    pct = no_negative_zero(f"{100 * k / n:.{digits}f}")
    if ci is None or ci[0] is None or math.isnan(float(ci[0])):
        return f"{pct}% ({k:,} of {n:,})" if n >= 10_000 else f"{pct}% ({k} of {n})"
    lo, hi = (no_negative_zero(f"{100 * float(v):.{digits}f}") for v in ci)
    return f"{pct}% ({k} of {n}; {level} CI {lo}–{hi}%)"


def listing(items: Iterable[Any], most: int, sep: str = ", ") -> str:
    """The first ``most`` items joined by ``sep``, then ``" …"`` when there are more (only
    ``most + 1`` items are read, so ``items`` may be a lazy walk over a large table).

    Examples
    --------
    >>> listing(["a", "b", "c"], 2), listing(["a", "b"], 2), listing(iter(range(9)), 3, "; ")
    ('a, b …', 'a, b', '0; 1; 2 …')
    """
    first = list(islice(items, most + 1))
    return sep.join(map(str, first[:most])) + (" …" if len(first) > most else "")


def column_decimals(values: Any, significant: int = 3) -> int:
    """Decimals that give the largest absolute value of a column ``significant`` digits
    (at least 0, at most 6), so every cell of the column has the same decimals.

    Examples
    --------
    >>> column_decimals([20.5, 16.0]), column_decimals([0.01234, 0.5]), column_decimals([1234.5])
    (1, 3, 0)
    """
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    top = max(finite, default=0.0)
    if top == 0.0:
        return 0
    return max(0, min(6, significant - 1 - math.floor(math.log10(top))))


def fixed(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, never ``-0``.

    Examples
    --------
    >>> fixed(-0.0001, 2), fixed(20.5, 1), fixed(16.0, 1)
    ('0.00', '20.5', '16.0')
    """
    return no_negative_zero(f"{value:.{decimals}f}")


def no_negative_zero(text: str) -> str:
    """Drop the sign of a number that rounds to zero (``-0.00`` → ``0.00``, ``-0`` → ``0``).

    Examples
    --------
    >>> no_negative_zero("-0.00"), no_negative_zero("-0"), no_negative_zero("-0.01")
    ('0.00', '0', '-0.01')
    """
    if text.startswith("-") and text[1:].replace(".", "").strip("0") == "":
        return text[1:]
    return text


def interval_text(value: Any, digits: int, low: Any = None, high: Any = None) -> str:
    """``0.60 [0.56, 0.65]``, the value alone when its interval is undefined, or ``—`` when
    the value is (the report's and the terminal's estimate cells).

    Examples
    --------
    >>> interval_text(0.6, 2, 0.561, 0.649), interval_text(-0.267, 3), interval_text(None, 2)
    ('0.60 [0.56, 0.65]', '-0.267', '—')
    """
    import pandas as pd  # NaN and pd.NA alike; every caller holds a table already

    if pd.isna(value):
        return "—"
    text = f"{value:.{digits}f}"
    return text if low is None or pd.isna(low) else f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def visible_bidi(text: str) -> str:
    r"""``text`` with each invisible direction control written as its code point, ``⟨U+202E⟩``,
    so a data value can neither reverse the words and numbers around it nor hide that it
    holds one (report pages and the terminal).

    Examples
    --------
    >>> visible_bidi("urban\u202e 55.2% (213 of 386)")
    'urban⟨U+202E⟩ 55.2% (213 of 386)'
    """
    return _BIDI.sub(_code_point, text)


def visible_controls(text: str) -> str:
    r"""``text`` with control characters (BEL, ESC, CR, ...) and direction controls written as
    their code points, as :func:`visible_bidi` does: for a figure's labels, where a font has
    no glyph for them (matplotlib's warning then printed the raw BEL, ESC or CR to the
    terminal).

    Examples
    --------
    >>> visible_controls("a\x07b\rc\u202e")
    'a⟨U+0007⟩b⟨U+000D⟩c⟨U+202E⟩'
    """
    return _CONTROLS.sub(_code_point, text)


def _code_point(match: re.Match) -> str:
    return f"⟨U+{ord(match.group()):04X}⟩"  # no <, > or &: the same text in HTML, escaped or not
