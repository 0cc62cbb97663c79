"""Render the audit report: one self-contained HTML file (inline CSS, SVG and a tiny sort script).

The page is built from a plain context mapping (see :func:`render_report`) with jinja2 and
autoescaping on; only SVG produced by :mod:`primafacie.report.plots` is marked safe. Nothing is
fetched over the network when the page is opened.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from .. import formats, intervals
from ..formats import visible_controls

__all__ = [
    "render_report",
    "render_fragment",
    "template_environment",
    "table_from_frame",
    "format_number",
    "rate_text",
    "wilson_interval",
    "readable_bins",
    "CSP",
    "content_security_policy",
    "fixed_decimals",
]

#: The Content-Security-Policy of every page primafacie writes: nothing is fetched (no
#: network, no frame, no form target), only inline styles and ``data:`` images render.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n (two-sided, 95% by default) as two floats,
    NaN for an empty group (:func:`primafacie.intervals.wilson_interval` of one count).

    Examples
    --------
    >>> lo, hi = wilson_interval(5, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.2366, 0.7634)
    """
    if n <= 0:
        return float("nan"), float("nan")
    lo, hi = intervals.wilson_interval(k, n, z)
    return float(lo), float(hi)


def format_number(value: Any, digits: int = 3) -> str:
    """Human display of a cell: integers as is, floats to ``digits`` decimals, missing as "—".

    Examples
    --------
    >>> format_number(0.123456), format_number(12), format_number(None), format_number(float("nan"))
    ('0.123', '12', '—', '—')
    """
    if value is None:
        return "—"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "—"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        if v == int(v) and abs(v) < 1e15 and digits >= 0 and abs(v) >= 1:
            return f"{int(v)}"
        return formats.fixed(v, digits)
    return str(value)


def rate_text(k: int, n: int, digits: int = 1, ci: bool = False) -> str:
    """A rate with its count and denominator, e.g. ``"12.5% (25 of 200)"``
    (:func:`primafacie.formats.rate_text`, the one formatter of shares).

    ``ci=True`` adds the 95% Wilson interval of the rate.

    Examples
    --------
    >>> rate_text(25, 200)
    '12.5% (25 of 200)'
    >>> rate_text(5, 10, ci=True)
    '50.0% (5 of 10; 95% Wilson CI 23.7–76.3%)'
    >>> rate_text(0, 0)
    '— (0 of 0)'
    """
    interval = wilson_interval(k, n) if ci and n > 0 else None
    return formats.rate_text(k, n, digits, interval, level="95% Wilson")  # the method named


#: A right-closed interval label as pandas writes it (``(21.999, 33]``, ``(-1.5, 2e+03]``).
_INTERVAL = re.compile(r"\((-?[0-9.]+(?:e[+-]?[0-9]+)?), (-?[0-9.]+(?:e[+-]?[0-9]+)?)\]")


def _bin_edge(text: str) -> str:
    # two decimals are enough to tell bins apart on screen, and they absorb the 0.1% that
    # pandas.qcut subtracts from the lowest edge (21.999 → 22)
    # + 0.0 turns the -0.0 of a rounded tiny negative edge into 0 ("savings=-0–3" → "0–3")
    return f"{round(float(text), 2) + 0.0:g}"


def readable_bins(text: str) -> str:
    """Interval labels of binned features written for people: ``(21.999, 33]`` → ``22–33``.

    Only the display changes; tables, CSV files and results.json keep the exact labels (the
    paper reproductions compare them). A bin includes its upper end.

    Examples
    --------
    >>> readable_bins("age=(21.999, 33]; job=temporary")
    'age=22–33; job=temporary'
    >>> readable_bins("loan_amount=(7.199, 12.58]"), readable_bins("no bins here")
    ('loan_amount=7.2–12.58', 'no bins here')
    >>> readable_bins("savings=(-0.001, 3.0]")
    'savings=0–3'
    """
    return _INTERVAL.sub(lambda m: f"{_bin_edge(m.group(1))}–{_bin_edge(m.group(2))}", text)


def _sort_key(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        return "" if math.isnan(v) else repr(v)
    return ""


def fixed_decimals(column: pd.Series) -> int | None:
    """One number of decimals for a column of measured quantities (issue 23: "20.500" beside
    "16" read as twenty thousand); None for a column that is not floats. Whole-valued floats
    (counts stored as floats) get 0; shares and p-values (all within ±1) keep 3 decimals;
    others 3 significant digits of the column's largest value."""
    if not pd.api.types.is_float_dtype(column.dtype):
        return None
    values = column.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    if finite.size == 0 or np.all(finite == np.round(finite)):
        return 0
    if np.all(np.abs(finite) <= 1):
        return 3
    return formats.column_decimals(finite)


def _cell(value: Any, decimals: int | None = None) -> tuple[str, str]:
    """(display text, numeric sort key); a ``(text, number)`` tuple sorts by the number; a
    float of a column with fixed ``decimals`` is written with exactly that many."""
    if isinstance(value, tuple) and len(value) == 2:
        return str(value[0]), _sort_key(value[1])
    if hasattr(value, "__html__"):  # markup built by a section (e.g. a link): kept as is
        return value, ""
    if decimals is not None and isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isfinite(v):
            return formats.fixed(v, decimals), _sort_key(value)
    return format_number(value), _sort_key(value)


def table_from_frame(
    frame: pd.DataFrame,
    title: str,
    caption: str = "",
    max_rows: int = 50,
    csv: str | None = None,
    table_id: str | None = None,
    wrap: bool = False,
) -> dict[str, Any]:
    """A table for the template: column names, display cells with numeric sort keys, a note.

    Parameters
    ----------
    frame
        The table (its index is dropped unless named). A cell may be a ``(text, number)``
        tuple: the text is shown and the number is the sort key (e.g. a rate with its
        denominator).
    title, caption
        Heading and one-line explanation.
    max_rows
        Rows shown in the page; the note points to the full CSV.
    csv
        File name of the full table in the output folder.
    table_id
        HTML id (defaults to a slug of the title).
    wrap
        Let long cells wrap (for tables of settings or long labels).

    Returns
    -------
    dict
        ``{"id", "title", "caption", "columns", "rows": [[(text, sort_key), ...]], "note"}``.
    """
    df = frame.reset_index() if frame.index.name else frame
    shown = df.head(max_rows)
    decimals = [fixed_decimals(shown[c]) for c in shown.columns]
    rows = [
        [_cell(v, d) for v, d in zip(rec, decimals, strict=True)]
        for rec in shown.itertuples(index=False, name=None)
    ]
    note = f"{len(df)} row(s)"
    if len(df) > max_rows:
        note = f"showing the first {max_rows} of {len(df)} rows"
    if csv:
        note += f"; full table: {csv}"
    slug = table_id or "".join(ch if ch.isalnum() else "-" for ch in title.lower()).strip("-")
    return {
        "id": slug,
        "title": title,
        "caption": caption,
        "columns": [str(c) for c in df.columns],
        "rows": rows,
        "note": note,
        "wrap": wrap,
    }


def template_environment(**filters: Any) -> Any:
    """The jinja2 environment of the report's and the dossiers' templates.

    Autoescaping on, an undefined name is an error, whitespace trimmed as the templates
    expect; ``filters`` are added by name (e.g. ``num`` formats a number).

    Parameters
    ----------
    **filters
        ``name=function`` pairs made available to the templates.

    Returns
    -------
    jinja2.Environment

    Examples
    --------
    >>> env = template_environment(num=format_number)
    >>> env.from_string("{{ x | num }} {{ y }}").render(x=0.12345, y="<b>")
    '0.123 &lt;b&gt;'
    """
    import jinja2

    templates = resources.files("primafacie.report").joinpath("templates")
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: templates.joinpath(name).read_text("utf-8")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_controls_shown,
    )
    env.filters.update(filters)
    return env


def _controls_shown(value: Any) -> Any:
    """Every value a template prints, control and direction characters shown as code points
    (:func:`~primafacie.formats.visible_controls`): a data value with U+202E reversed the
    sentence it was in, numbers included."""
    if not isinstance(value, str):
        return value
    shown = visible_controls(value)
    if shown == value:
        return value
    # Markup stays Markup: the marker holds no <, > or &, the same text escaped or not
    return type(value)(shown) if hasattr(value, "__html__") else shown


def content_security_policy(*scripts: str) -> str:
    """:data:`CSP`, allowing exactly the given inline scripts by their SHA-256 (no
    ``'unsafe-inline'`` for scripts, so an injected ``<script>`` could not run).

    Parameters
    ----------
    *scripts
        The exact text between ``<script>`` and ``</script>`` of each inline script.

    Returns
    -------
    str
        The policy, for a ``<meta http-equiv="Content-Security-Policy">`` tag.

    Examples
    --------
    >>> content_security_policy()
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    >>> content_security_policy("x()").startswith(CSP + "; script-src 'sha256-")
    True
    """
    import base64
    import hashlib

    if not scripts:
        return CSP
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'"
        for s in scripts
    )
    return f"{CSP}; script-src {hashes}"


def _sort_script() -> str:
    """The report's only script, read from the package: sortable tables, and every collapsible
    opened for printing (one inline block, allowed by its hash)."""
    folder = resources.files("primafacie.report").joinpath("templates")
    return "\n".join(folder.joinpath(name).read_text("utf-8") for name in ("sort.js", "print.js"))


def _environment() -> Any:
    from markupsafe import Markup

    # only SVG made by report.plots is marked safe
    return template_environment(svg=lambda s: Markup(s or ""), num=format_number)


def render_report(context: Mapping[str, Any]) -> str:
    """Render report.html from a context mapping.

    Parameters
    ----------
    context
        Keys used by ``templates/report.html.j2``: ``title``, ``overview`` (list of
        ``(label, value)``), ``groups`` (table dict), ``assumptions`` (list of str),
        ``headlines`` (list of ``{"title", "status", "status_text", "text"}``), ``scopes``
        (list of ``(analysis title, what was tested)``), ``sections`` (list of
        ``{"id", "title", "status", "message", "lead", "findings", "figures", "tables"}``;
        figures are ``{"title", "svg", "caption"}``), ``appendix`` (``{"scm_svg", "parameters",
        "notes"}``) and ``footer`` (``{"versions", "inputs"}``).

    Returns
    -------
    str
        The complete HTML document.
    """
    from markupsafe import Markup

    script = _sort_script()
    page = {**context, "script": Markup(script), "csp": content_security_policy(script)}
    return _environment().get_template("report.html.j2").render(**page)


def render_fragment(context: Mapping[str, Any]) -> str:
    """An HTML fragment for a notebook (``templates/fragment.html.j2``): a headline, blocks
    rendered by the same macros as the report, no script and no external reference.

    Parameters
    ----------
    context
        ``title``, ``headline`` (str), ``facts`` (list of ``(label, value)``) and ``blocks``
        (report blocks, see :mod:`primafacie.report.blocks`).

    Returns
    -------
    str
        A ``<div class="primafacie">`` element with a scoped ``<style>``.
    """
    page = {**context, "csp": CSP}
    return _environment().get_template("fragment.html.j2").render(**page)
