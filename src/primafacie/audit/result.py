"""The whole audit's result: configuration, data description and one run per analysis."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..analysis import AnalysisRun
from ..data import AuditData
from ..io import atomic_write_text
from ..jsonsafe import json_safe

__all__ = ["AuditResult", "RESULTS_SCHEMA_VERSION"]

RESULTS_SCHEMA_VERSION = "1"


@dataclass(frozen=True)
class AuditResult:
    """The whole audit: configuration, data description, one :class:`AnalysisRun` per analysis.

    ``to_dict()`` is the content of results.json (validated by
    :data:`primafacie.report.schema.RESULTS_SCHEMA`); ``summary()`` is the terminal table.
    """

    config: Mapping[str, Any]
    data_info: Mapping[str, Any]
    runs: Mapping[str, AnalysisRun]
    inputs: tuple[Mapping[str, str], ...]
    versions: Mapping[str, str]
    seeds: Mapping[str, int]
    data: AuditData | None = None
    scm: Any = None
    out_dir: Path | None = None
    files: tuple[str, ...] = ()
    #: Version, configuration and input hashes, seeds, corrections, date (see
    #: :func:`primafacie.audit.inputs.provenance`); printed on the report and every dossier.
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe content of results.json (no timestamps, no absolute paths)."""
        return json_safe(
            {
                "schema_version": RESULTS_SCHEMA_VERSION,
                "config": self.config,
                "data": self.data_info,
                "inputs": list(self.inputs),
                "versions": self.versions,
                "seeds": self.seeds,
                "provenance": self.provenance,
                "analyses": {name: run.to_dict() for name, run in self.runs.items()},
                "files": list(self.files),
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row per analysis: status, headline (or the reason it did not run), seconds."""
        rows = [
            {
                "analysis": name,
                "status": run.status,
                "finding": run.headline if run.status == "ok" else run.message,
                "seconds": round(run.seconds, 1),
            }
            for name, run in self.runs.items()
        ]
        return pd.DataFrame(rows, columns=["analysis", "status", "finding", "seconds"])

    to_frame = summary

    def plot(self) -> Any:
        """Overview figure: the first completed analysis that draws one (e.g. situation-testing
        cases by test, method and k), else the status of each analysis. A matplotlib Figure."""
        from ..report import plots
        from .registry import get

        for name, run in self.runs.items():
            overview = get(name).overview
            fig = overview(run) if run.status == "ok" and overview is not None else None
            if fig is not None:
                return fig
        fig, ax = plots._figure(6.0, 0.4 * max(len(self.runs), 1) + 0.8)
        for i, (name, run) in enumerate(self.runs.items()):
            ax.text(0.0, -i, f"{name}: {run.status}", fontsize=10, va="center")
        ax.set_ylim(-len(self.runs), 1)
        ax.set_axis_off()
        return fig

    def _repr_html_(self) -> str:
        """Notebook display: one row per analysis (status, headline number, finding) and the
        overview plot, rendered like the report (no script, no external reference)."""
        from ..report.notebook import audit_html
        from .registry import ANALYSES

        return audit_html(self, ANALYSES)

    def to_html(self, path: str | Path) -> Path:
        """Write the audit report (the same bytes as ``report.html`` of the run) to ``path``.

        Parameters
        ----------
        path
            The HTML file to write; its folder is created when missing.

        Returns
        -------
        pathlib.Path
            The file written.

        Examples
        --------
        >>> from primafacie.audit import run_demo  # doctest: +SKIP
        >>> run_demo("out/demo").to_html("out/demo/copy.html")  # doctest: +SKIP
        PosixPath('out/demo/copy.html')
        """
        from ..report import build_report
        from .registry import ANALYSES

        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, build_report(self, ANALYSES))
        return target

    @property
    def failed(self) -> list[str]:
        """Names of analyses that failed (only possible with ``keep_going``)."""
        return [n for n, r in self.runs.items() if r.status == "failed"]
