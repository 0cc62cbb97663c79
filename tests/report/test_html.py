"""Tests of report HTML helpers: number formats, rates with denominators, Wilson intervals,
sortable tables and autoescaping."""

from __future__ import annotations

import pandas as pd
import pytest

from primafacie.report.html import (
    format_number,
    rate_text,
    render_report,
    table_from_frame,
    wilson_interval,
)


def test_format_number():
    assert format_number(0.123456) == "0.123"
    assert format_number(3) == "3"
    assert format_number(2.0) == "2"
    assert format_number(None) == "—"
    assert format_number(float("nan")) == "—"
    assert format_number(float("inf")) == "∞"
    assert format_number(True) == "yes"


def test_rate_text_carries_count_and_denominator():
    assert rate_text(25, 200) == "12.5% (25 of 200)"
    assert rate_text(0, 0) == "— (0 of 0)"


def test_wilson_interval_by_hand():
    # 5 of 10: centre (5 + z²/2)/(10 + z²) = 0.5, half = z/(10+z²)·sqrt(2.5 + z²/4) = 0.26344
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.236593, abs=1e-6) and hi == pytest.approx(0.763407, abs=1e-6)
    lo, hi = wilson_interval(0, 20)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.161125, abs=1e-6)
    assert rate_text(5, 10, ci=True) == "50.0% (5 of 10; 95% Wilson CI 23.7–76.3%)"


def test_table_sort_keys_and_note():
    frame = pd.DataFrame({"name": ["a", "b"], "rate": [("50.0% (1 of 2)", 0.5), ("10.0% (1 of 10)", 0.1)],
                          "n": [2, 10]})  # fmt: skip
    t = table_from_frame(frame, "My table", max_rows=1, csv="tables/x.csv")
    assert t["id"] == "my-table"
    assert t["rows"] == [[("a", ""), ("50.0% (1 of 2)", "0.5"), ("2", "2.0")]]
    assert "first 1 of 2" in t["note"] and "tables/x.csv" in t["note"]


def _context(text: str) -> dict:
    table = table_from_frame(pd.DataFrame({"a": [1]}), "t")
    return {
        "title": "T", "subtitle": "s", "lead": text, "overview": [("k", text)],
        "headlines": [{"id": "sec-x", "title": "h", "status": "ok", "status_text": "completed",
                       "number": text, "text": text}],
        "scopes": [("Situation testing", text)],
        "groups": table, "assumptions": [text], "reading_guide": "",
        "sections": [{"id": "sec-x", "title": "X", "status": "unavailable",
                      "status_text": "not available in this build", "message": text, "lead": "",
                      "number": text, "caveats": [text], "findings": [], "blocks": []}],
        "appendix": {"scm_text": "", "scm_svg": None, "scm_caption": "", "parameters": table,
                     "notes": []},
        "footer": {"generated": "", "inputs": [], "versions": []},
    }  # fmt: skip


def test_render_escapes_text_and_is_self_contained():
    html = render_report(_context("<script>alert(1)</script>"))
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "not available in this build" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html
    assert "Content-Security-Policy" in html
