"""The audit report: one self-contained HTML file with inline SVG figures, and the JSON Schema
of results.json.

>>> from primafacie.report import RESULTS_SCHEMA
>>> RESULTS_SCHEMA["title"]
'primafacie results.json'
"""

from __future__ import annotations

from typing import Any

from .html import render_report, table_from_frame
from .schema import RESULTS_SCHEMA, validate_results

__all__ = [
    "build_report",
    "render_report",
    "table_from_frame",
    "RESULTS_SCHEMA",
    "validate_results",
]


def build_report(result: Any, analyses: Any) -> str:
    """report.html for an :class:`~primafacie.audit.AuditResult` (deterministic bytes);
    ``analyses`` are the registered analysis definitions that build the sections."""
    from .sections import build_context

    return render_report(build_context(result, analyses))
