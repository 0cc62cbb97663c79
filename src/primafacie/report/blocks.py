"""Building blocks of report sections: figures (inline SVG), tables and rate cells.

Each analysis' ``section`` (in its ``analysis.py``) returns ``{"findings": [...], "blocks":
[...]}``, where a block is one of the dicts built here (``kind`` = ``figure``, ``table``,
``heading``, ``text``, ``cards`` or ``group``); the template renders them in order. A
``group`` holds blocks of its own and renders as a collapsible ``<details>`` element (one per
protected attribute, test or subgroup); :func:`section` opens the first group of a section.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from . import plots
from .html import rate_text, table_from_frame

__all__ = ["figure", "table", "columns", "rate_cell", "rates", "verdict", "heading", "text", "group",
           "section", "trend"]  # fmt: skip


def figure(fig: Any, title: str, caption: str) -> dict[str, Any] | None:
    """A figure block (the matplotlib figure as inline SVG), or None when there is no figure."""
    if fig is None:
        return None
    svg = plots.svg_of(fig, title)
    if svg is None:
        return None
    return {"kind": "figure", "title": title, "svg": svg, "caption": caption}


def table(
    frame: pd.DataFrame,
    title: str,
    caption: str = "",
    csv: str | None = None,
    max_rows: int = 50,
) -> dict[str, Any]:
    """A sortable table block; ``csv`` links the full table (use ``analysis.table_path``)."""
    return {"kind": "table", **table_from_frame(frame, title, caption, max_rows, csv)}


def columns(frame: pd.DataFrame, spec: dict[str, Any]) -> pd.DataFrame:
    """A table's shown columns, declared ``{heading: source}``: a column name is copied, a
    pair of count columns ``(k, n)`` becomes :func:`rates`, anything else is the values.

    >>> f = pd.DataFrame({"g": ["a"], "k": [1], "n": [4]})
    >>> columns(f, {"group": "g", "rate": ("k", "n"), "note": ["x"]}).iloc[0].tolist()
    ['a', ('25.0% (1 of 4)', 0.25), 'x']
    """

    def shown(source: Any) -> Any:
        if isinstance(source, str):
            return frame[source]
        if (
            isinstance(source, tuple)
            and len(source) == 2
            and all(isinstance(c, str) for c in source)
        ):
            return rates(frame[source[0]], frame[source[1]])
        return source

    return pd.DataFrame({heading: shown(source) for heading, source in spec.items()})


def trend(
    result: Any, frame: Any, caption: str, title: str, table_caption: str, csv: str
) -> list[Any]:
    """The blocks of a trend over time windows (``time:`` in audit.yaml): a heading, the
    trend Result's figure (``caption``) and ``frame`` (or ``frame(result)``), every window
    shown (up to 200); nothing when there is no trend Result.

    One layout for every analysis with a trend, so only the words differ between them.
    """
    if result is None:
        return []
    frame = frame(result) if callable(frame) else frame
    return [
        heading(f"Trend over {len(result.windows)} time windows"),
        figure(result.plot(), result.title, caption),
        table(frame, title, table_caption, csv=csv, max_rows=200),
    ]


def heading(text_: str) -> dict[str, Any]:
    """A sub-heading inside a section."""
    return {"kind": "heading", "text": text_}


def text(text_: str) -> dict[str, Any]:
    """A paragraph inside a section."""
    return {"kind": "text", "text": text_}


def rate_cell(k: Any, n: Any) -> tuple[str, float]:
    """A table cell showing ``k of n`` as a rate, sorted by the rate (NaN when n = 0)."""
    k, n = int(k), int(n)
    return rate_text(k, n), (k / n if n else float("nan"))


def rates(ks: Any, ns: Any) -> list[tuple[str, float]]:
    """A column of :func:`rate_cell`: ``k of n`` for each pair of counts.

    >>> rates([1, 0], [4, 0])
    [('25.0% (1 of 4)', 0.25), ('— (0 of 0)', nan)]
    """
    return [rate_cell(k, n) for k, n in zip(ks, ns, strict=True)]


def verdict(k: int, n: int, sentence: str, concern: str, clear: str) -> dict[str, Any]:
    """A section's badge: a concern when ``k`` of the ``n`` checks found something (its
    strength the share ``k / n``), else clear; ``sentence`` states the numbers.

    >>> verdict(1, 4, "1 of 4 groups", "below", "none below")["strength"]
    0.25
    """
    if k:
        return {"level": "concern", "badge": concern, "sentence": sentence, "strength": k / n}
    return {"level": "clear", "badge": clear, "sentence": sentence, "strength": 0.0}


def group(
    title: str, blocks: list[Any], summary: str = "", open: bool | None = None
) -> dict[str, Any] | None:
    """A collapsible group of blocks (``<details>``), or None when no block is left.

    Parameters
    ----------
    title
        What the group is about (a protected attribute, a test, a subgroup).
    blocks
        Its blocks; None entries are dropped.
    summary
        A few words shown beside the title while the group is closed (e.g. its headline number).
    open
        Whether the group starts open; None lets :func:`section` decide (the first group of a
        section opens, the others stay closed).

    Examples
    --------
    >>> g = group("gender", [text("a"), None])
    >>> g["kind"], g["open"], len(g["blocks"])
    ('group', None, 1)
    >>> group("empty", [None]) is None
    True
    """
    kept = [b for b in blocks if b]
    if not kept:
        return None
    return {"kind": "group", "title": title, "summary": summary, "open": open, "blocks": kept}


def section(findings: list[str], blocks: list[Any]) -> dict[str, Any]:
    """A section body: findings (sentences) and the blocks that are not None.

    The first :func:`group` whose ``open`` is undecided is opened and the others are closed,
    so a reader sees one attribute's details and can open the rest.

    Examples
    --------
    >>> body = section(["f"], [group("a", [text("x")]), None, group("b", [text("y")])])
    >>> [b["open"] for b in body["blocks"]]
    [True, False]
    """
    kept = [b for b in blocks if b]
    first = True
    for b in kept:
        if b.get("kind") == "group" and b.get("open") is None:
            b["open"], first = first, False
    return {"findings": findings, "blocks": kept}
