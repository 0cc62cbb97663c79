"""One audit, one report: configuration -> analyses -> results -> report.html, results.json, CSVs.

The package is split by job: :mod:`~primafacie.audit.registry` (the analyses, defined once),
:mod:`~primafacie.audit.run` (orchestration), :mod:`~primafacie.audit.progress` (progress
bars), :mod:`~primafacie.audit.inputs` (what was read), :mod:`~primafacie.audit.result`
(:class:`AuditResult`) and :mod:`~primafacie.audit.write` (the output files).

Names are loaded on first use: :mod:`primafacie.config` reads the registry while it is being
imported, and the orchestration itself imports the configuration.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ANALYSES",
    "AnalysisRun",
    "AuditResult",
    "compute_audit",
    "run_audit",
    "run_demo",
    "write_audit",
    "json_safe",
]


def __getattr__(name: str) -> Any:
    # Plain imports (no importlib): readers and type checkers see every dependency.
    if name == "ANALYSES":
        from .registry import ANALYSES

        return ANALYSES
    if name == "AnalysisRun":
        from ..analysis import AnalysisRun

        return AnalysisRun
    if name == "AuditResult":
        from .result import AuditResult

        return AuditResult
    if name in ("compute_audit", "run_audit", "run_demo"):
        from . import run

        return getattr(run, name)
    if name == "write_audit":
        from .write import write_audit

        return write_audit
    if name == "json_safe":
        from ..jsonsafe import json_safe

        return json_safe
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
