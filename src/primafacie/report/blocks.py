"""Building blocks of report sections: figures (inline SVG), tables and rate cells.

Each analysis' ``section`` (in its ``analysis.py``) returns ``{"findings": [...], "blocks":
[...]}``, where a block is one of the dicts built here (``kind`` = ``figure``, ``table``,
``heading``, ``text`` or ``cards``); the template renders them in order.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from . import plots
from .html import rate_text, table_from_frame

__all__ = ["figure", "table", "rate_cell", "heading", "text", "section"]


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


def section(findings: list[str], blocks: list[Any]) -> dict[str, Any]:
    """A section body: findings (sentences) and the blocks that are not None."""
    return {"findings": findings, "blocks": [b for b in blocks if b]}
