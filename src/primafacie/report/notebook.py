"""Results that render in a notebook: ``_repr_html_`` for every Result and the audit.

One implementation: :func:`result_html` turns a Result's ``headline()``, ``summary()`` and
``plot()`` into the report's own blocks (:mod:`primafacie.report.blocks`) and renders them with
the report's macros (``templates/fragment.html.j2``), so a notebook shows the same table and
figure markup as report.html. The fragment is self-contained: a scoped ``<style>``, inline
SVG, no script and no external reference (notebook viewers strip scripts, and an audit must
render offline).

Every Result gets ``_repr_html_`` from its base (:class:`primafacie.base.BaseResult`), which
calls :func:`result_html` on first display; :func:`audit_html` renders an
:class:`~primafacie.audit.AuditResult` from its runs, reading the registered analyses.

Examples
--------
>>> import pandas as pd
>>> class Toy:
...     def headline(self): return "3 of 10 cases"
...     def summary(self): return pd.DataFrame({"k": [3], "n": [10]})
>>> html = result_html(Toy())
>>> "3 of 10 cases" in html and "<script" not in html
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from . import blocks as rb
from .html import readable_bins, render_fragment

__all__ = ["result_html", "audit_html", "SUMMARY_ROWS"]

#: Rows of a summary table shown inline; the full table is ``result.summary()``.
SUMMARY_ROWS = 12


_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_XMLNS = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')


def _offline(block: dict[str, Any] | None) -> dict[str, Any] | None:
    """A figure block without the SVG's RDF metadata and namespace URLs: inline SVG in HTML
    needs neither, and a notebook fragment then holds no web address at all."""
    if block is None or block.get("kind") != "figure":
        return block
    return {**block, "svg": _XMLNS.sub("", _METADATA.sub("", block["svg"]))}


def _text(result: Any, method: str) -> str:
    fn = getattr(result, method, None)
    return str(fn()) if callable(fn) else ""


def result_html(result: Any, title: str | None = None, max_rows: int = SUMMARY_ROWS) -> str:
    """A Result as an HTML fragment: its headline, a compact summary table, its main plot.

    Parameters
    ----------
    result
        Any object with ``headline()``; ``summary()`` (a DataFrame), ``scope()``,
        ``caveats()`` and ``plot()`` (a matplotlib Figure) are used when present.
    title
        Heading of the fragment (default: the class name).
    max_rows
        Rows of the summary table shown.

    Returns
    -------
    str
        A ``<div class="primafacie">`` fragment with inline SVG and no script.
    """
    name = title or type(result).__name__
    blocks: list[Any] = []
    summ = result.summary() if callable(getattr(result, "summary", None)) else None
    if isinstance(summ, pd.DataFrame):
        blocks.append(rb.table(summ, "Summary", "result.summary()", max_rows=max_rows))
    plot = getattr(result, "plot", None)
    if callable(plot):
        blocks.append(_offline(rb.figure(plot(), f"{name}: main plot", "result.plot()")))
    caveats = getattr(result, "caveats", None)
    return render_fragment(
        {
            "title": name,
            "headline": readable_bins(_text(result, "headline")),
            "facts": [("Scope", s) for s in [readable_bins(_text(result, "scope"))] if s],
            "caveats": [str(c) for c in caveats()] if callable(caveats) else [],
            "blocks": [b for b in blocks if b],
        }
    )


def audit_html(result: Any, analyses: Sequence[Any]) -> str:
    """An :class:`~primafacie.audit.AuditResult` as an HTML fragment: one row per analysis
    (status, headline number, headline) and the audit's overview plot.

    Parameters
    ----------
    result
        The audit result (``runs``, ``data_info``, ``plot()``).
    analyses
        The registered :class:`~primafacie.analysis.Analysis` definitions.

    Returns
    -------
    str
        A ``<div class="primafacie">`` fragment with inline SVG and no script.
    """
    from .sections import STATUS_TEXT, headline_number

    by_name: Mapping[str, Any] = {a.name: a for a in analyses}
    rows = []
    for name, run in result.runs.items():
        analysis = by_name[name]
        rows.append(
            {
                "analysis": analysis.title,
                "status": STATUS_TEXT.get(run.status, run.status),
                "headline number": headline_number(analysis, run),
                "finding": readable_bins(run.headline if run.status == "ok" else run.message),
            }
        )
    frame = pd.DataFrame(rows, columns=["analysis", "status", "headline number", "finding"])
    info = result.data_info
    blocks = [
        rb.table(
            frame,
            "Analyses",
            "result.summary() has the same rows; result.to_html(path) writes the full report.",
            max_rows=len(frame) or 1,
        ),  # fmt: skip
        _offline(rb.figure(result.plot(), "Audit overview", "result.plot()")),
    ]
    n = int(info.get("n", 0))
    protected = "; ".join(f"{k} ({', '.join(map(str, v))})"
                          for k, v in info.get("protected", {}).items())  # fmt: skip
    numbers = [h for h in (r["headline number"] for r in rows) if h]
    return render_fragment(
        {
            "title": "primafacie audit",
            "headline": " · ".join(numbers),
            "facts": [("People audited", f"{n} decisions"), ("Protected", protected)],
            "caveats": [],
            "blocks": [b for b in blocks if b],
        }
    )
