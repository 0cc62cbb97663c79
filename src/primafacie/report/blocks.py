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

__all__ = ["figure", "table", "rate_cell", "heading", "text", "group", "section", "trend"]


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


def trend(
    result: Any, frame: pd.DataFrame, caption: str, title: str, table_caption: str, csv: str
) -> list[Any]:
    """The blocks of a trend over time windows (``time:`` in audit.yaml): a heading, the
    trend Result's figure (``caption``) and ``frame``, every window shown (up to 200).

    One layout for every analysis with a trend, so only the words differ between them.
    """
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
