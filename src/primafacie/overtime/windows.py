"""Time windows in one audit: cut the decision log into windows and run the analyses that
measure per window (those whose :class:`~primafacie.analysis.Analysis` has a ``trend``) once
per window, beside the whole-period run.

``time: {column: decided_at, window: month}`` cuts a date column into calendar windows (day,
ISO week, month, quarter, year); ``time: {by: batch}`` uses the values of a categorical column.
Every window is kept: one with fewer than ``min_decisions`` decisions is flagged ``small``, and
one the analysis cannot measure (e.g. no member of a protected group in it) is recorded with
its reason, never dropped. The per-window counts add up to the whole period by construction
(each row falls in exactly one window).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import Analysis, AnalysisRun, Context
from ..errors import InputError
from ..jsonsafe import json_safe

__all__ = [
    "trend_frame",
    "window_labels",
    "window_table",
    "run_windows",
    "label_rows",
    "WindowTrend",
    "WINDOW_COLUMNS",
]

WINDOW_COLUMNS = ["window", "n", "small", "status", "message"]

_FORMATS = {"day": "%Y-%m-%d", "month": "%Y-%m", "year": "%Y"}


def window_labels(values: pd.Series, window: str | None, name: str) -> pd.Series:
    """The window of each row as sortable text (``2024-03``, ``2024Q1``, ``2024-W09``...).

    Parameters
    ----------
    values
        The time column (or the categorical ``by`` column when ``window`` is None).
    window
        ``day``, ``week``, ``month``, ``quarter``, ``year`` or None (values are windows).
    name
        The column's name, for error messages.

    Raises
    ------
    InputError
        A missing value, or a value that is not a date (naming the row and the value).

    Examples
    --------
    >>> window_labels(pd.Series(["2024-01-31", "2024-02-01"]), "month", "t").tolist()
    ['2024-01', '2024-02']
    >>> window_labels(pd.Series(["2024-01-01", "2024-12-30"]), "week", "t").tolist()
    ['2024-W01', '2025-W01']
    """
    missing = values.isna().to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InputError(f"time column {name!r}: row {row} has no value; every decision needs "
                         "its window")  # fmt: skip
    if window is None:
        return values.astype(str)
    stamps = pd.to_datetime(values, errors="coerce", utc=True, format="mixed")
    bad = stamps.isna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"time column {name!r}: row {row} value {values.iloc[row]!r} is not a "
                         "date or time (expected e.g. 2024-03-31 or 2024-03-31T14:05:00)")  # fmt: skip
    if window == "week":
        iso = stamps.dt.isocalendar()
        return iso["year"].astype(str) + "-W" + iso["week"].astype(str).str.zfill(2)
    if window == "quarter":
        return stamps.dt.year.astype(str) + "Q" + stamps.dt.quarter.astype(str)
    return stamps.dt.strftime(_FORMATS[window])


def window_table(labels: pd.Series, min_decisions: int) -> pd.DataFrame:
    """One row per window in order: its decisions ``n`` and whether it is ``small``."""
    counts = labels.value_counts(sort=False).sort_index()
    return pd.DataFrame({
        "window": counts.index.astype(str),
        "n": counts.to_numpy(dtype=int),
        "small": counts.to_numpy() < min_decisions,
        "status": "ok",
        "message": "",
    })  # fmt: skip


def _window_run(analysis: Analysis, spec: Any, ctx: Context, frame: pd.DataFrame) -> AnalysisRun:
    """Run ``analysis`` on one window; a window it cannot measure is recorded, not fatal."""
    try:
        data = ctx.data.replace(frame=frame)
        if analysis.reference_rows:  # the window's rows of the comparisons
            data = data.compared()
        return analysis.run(spec, replace(ctx, data=data))
    except Exception as exc:  # noqa: BLE001 - one window never stops the audit; its reason is shown
        return AnalysisRun(analysis.name, "unavailable", f"{type(exc).__name__}: {exc}")


def run_windows(
    cfg: Any,
    ctx: Context,
    analyses: Sequence[Analysis],
    runs: Mapping[str, AnalysisRun],
    tick: Callable[[str], None] = lambda note: None,
) -> dict[str, AnalysisRun]:
    """Run every analysis with a ``trend`` once per window and attach its trend Result.

    Returns
    -------
    dict
        ``runs`` with each trended analysis' run extended by ``results["trend"]``,
        ``tables["<name>_trend"]`` and ``numbers["trend"]``.
    """
    from ..analysis import table_stem

    tspec = cfg.time
    frame = ctx.data.frame
    if tspec.source not in frame.columns:
        raise InputError(f"[time] column {tspec.source!r} is not in the data; columns: "
                         f"{', '.join(map(str, frame.columns))}")  # fmt: skip
    labels = window_labels(frame[tspec.source], tspec.window if tspec.column else None,
                           tspec.source)  # fmt: skip
    windows = window_table(labels, tspec.min_decisions)
    out = label_rows(runs, labels.to_numpy())
    for analysis in analyses:
        run = runs.get(analysis.name)
        if analysis.trend is None or run is None or run.status != "ok":
            continue
        spec = getattr(cfg.analyses, analysis.name)
        per_window = {}
        for w in windows["window"]:
            tick(f"{analysis.name} {w}")
            per_window[w] = _window_run(analysis, spec, ctx, frame[labels.to_numpy() == w])
        table = windows.copy()
        table["status"] = [per_window[w].status for w in table["window"]]
        table["message"] = [per_window[w].message for w in table["window"]]
        trend = analysis.trend(per_window, table)
        out[analysis.name] = replace(
            run,
            results={**run.results, "trend": trend},
            tables={**run.tables, table_stem(analysis.name, "trend"): trend.to_frame()},
            numbers={**run.numbers, "trend": trend.numbers()},
            caveats=(*run.caveats, *trend.caveats()),
        )
    return out


def label_rows(runs: Mapping[str, AnalysisRun], labels: np.ndarray) -> dict[str, AnalysisRun]:
    """Add each person's ``window`` to the per-person tables of the whole-period runs (those
    with a ``row`` column: the position in the audited data, e.g. one row per complainant), so
    a complainant's window is read beside the verdict."""
    out = {}
    for name, run in runs.items():
        tables = dict(run.tables)
        for stem, table in run.tables.items():
            rows = table.get("row")
            if rows is None or "window" in table.columns or not len(table):
                continue
            pos = pd.to_numeric(rows, errors="coerce").to_numpy()
            if np.isnan(pos).any() or pos.min() < 0 or pos.max() >= len(labels):
                continue
            at = table.columns.get_loc("id" if "id" in table.columns else "row") + 1
            tables[stem] = table.copy()
            tables[stem].insert(at, "window", labels[pos.astype(int)])
        out[name] = replace(run, tables=tables)
    return out


def window_rows(
    window_runs: Mapping[str, Any],
    windows: pd.DataFrame,
    columns: list[str],
    rows: Callable[[Any], pd.DataFrame],
) -> pd.DataFrame:
    """The trend table of an analysis: ``rows(run)`` of each window whose run is ``ok``, with
    its window and status first; a window whose run is not ok keeps one row with its status
    (shown, never dropped). Then :func:`trend_frame`."""
    parts = []
    for w in windows.itertuples(index=False):
        run = window_runs[w.window]
        if run.status != "ok":
            parts.append(pd.DataFrame({"window": [w.window], "status": [run.status]}))
            continue
        part = rows(run)
        part.insert(0, "window", w.window)
        part.insert(1, "status", "ok")
        parts.append(part)
    return trend_frame(parts, windows, columns)


def trend_frame(
    parts: list[pd.DataFrame], windows: pd.DataFrame, columns: list[str]
) -> pd.DataFrame:
    """The per-window rows of a trend, each with its window's size and small flag, in
    ``columns`` order (an empty frame with those columns when no window was measured)."""
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)
    sizes = windows.set_index("window")
    frame["window_n"] = frame["window"].map(sizes["n"]).astype(int)
    frame["window_small"] = frame["window"].map(sizes["small"]).astype(bool)
    return frame.reindex(columns=columns)


@dataclass(frozen=True)
class WindowTrend:
    """A trend over time windows: one row per window (and per group or decision-maker).

    Attributes
    ----------
    frame
        The trend table (``tables/<analysis>_trend.csv``).
    windows
        :data:`WINDOW_COLUMNS`: each window's decisions, ``small`` flag and status.
    title
        What the trend shows (used as the figure title).
    draw
        ``draw(frame, windows) -> Figure | None``: the trend figure with intervals.
    """

    frame: pd.DataFrame
    windows: pd.DataFrame
    title: str
    draw: Callable[[pd.DataFrame, pd.DataFrame], Any] | None = None

    def to_frame(self) -> pd.DataFrame:
        """The trend table."""
        return self.frame

    def summary(self) -> pd.DataFrame:
        """The window table (decisions, small flag, status per window)."""
        return self.windows

    def numbers(self) -> dict[str, Any]:
        """JSON-safe headline numbers: windows, their sizes and which are small or unmeasured."""
        w = self.windows
        return json_safe({
            "windows": int(len(w)),
            "small_windows": w.loc[w["small"], "window"].tolist(),
            "unmeasured_windows": w.loc[w["status"] != "ok", "window"].tolist(),
            "decisions": dict(zip(w["window"], w["n"].astype(int), strict=True)),
        })  # fmt: skip

    def caveats(self) -> list[str]:
        """Sentences about small and unmeasured windows, from the window table."""
        w, out = self.windows, []
        small = w.loc[w["small"], "window"].tolist()
        if small:
            out.append(f"{len(small)} of {len(w)} time window(s) hold fewer decisions than the "
                       f"minimum and are flagged as small: {', '.join(small)}.")  # fmt: skip
        gone = w.loc[w["status"] != "ok", "window"].tolist()
        if gone:
            out.append(f"{len(gone)} time window(s) could not be measured (see the trend "
                       f"table): {', '.join(gone)}.")  # fmt: skip
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe record: the window table and the trend rows."""
        return json_safe({"title": self.title, "windows": self.windows.to_dict(orient="records"),
                          "rows": self.frame.to_dict(orient="records")})  # fmt: skip

    def plot(self) -> Any:
        """The trend figure (None when nothing can be drawn)."""
        return self.draw(self.frame, self.windows) if self.draw is not None else None
