"""Write an audit: report.html, results.json and ``tables/*.csv`` into a (staging) folder."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..io import atomic_write_json, atomic_write_table, atomic_write_text
from .result import AuditResult

__all__ = ["write_audit"]


def write_audit(result: AuditResult, folder: str | Path) -> tuple[str, ...]:
    """Write report.html, results.json and ``tables/*.csv`` into ``folder``.

    ``folder`` is normally the staging folder of :func:`~primafacie.io.atomic_output_dir`.

    Returns
    -------
    tuple of str
        The written files, relative to ``folder`` (sorted).
    """
    from ..report import build_report
    from ..report.provenance import stamp
    from .registry import ANALYSES

    folder = Path(folder)
    tables = {
        f"tables/{stem}.csv": frame
        for run in result.runs.values()
        for stem, frame in run.tables.items()
    }
    # pages a Result writes beside the report (e.g. dossiers/<id>.html), by its pages()
    pages = {
        rel: text
        for run in result.runs.values()
        for res in run.results.values()
        if callable(getattr(res, "pages", None))
        for rel, text in res.pages().items()
    }
    # tables an analysis wrote into the staging folder while it ran (Parquet parts)
    written = [
        rel
        for run in result.runs.values()
        for res in run.results.values()
        for rel in getattr(res, "files", None) or ()
    ]
    files = tuple(sorted([*tables, *pages, *written, "report.html", "results.json"]))
    final = replace(result, files=files)
    for rel, frame in tables.items():
        atomic_write_table(folder / rel, frame)
    for rel, text in pages.items():
        # a page that can be filed carries the provenance of the audit that made it
        page = stamp(text, result.provenance) if rel.endswith(".html") else text
        atomic_write_text(folder / rel, page)
    atomic_write_json(folder / "results.json", final.to_dict())
    atomic_write_text(folder / "report.html", build_report(final, ANALYSES))
    return files
