"""Certainty of fairness per time window: each decision-maker's disparity, its interval, rank
and selection in every window (``time:`` in audit.yaml), as a trend table and figure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..analysis import AnalysisRun
from ..overtime.windows import WindowTrend, window_rows

__all__ = ["trend", "TREND_COLUMNS", "draw_trend"]

_RANKING = ["decision_maker", "rank", "selected", "most_privileged", "least_privileged", "k_i",
            "n_i", "k_j", "n_j", "disparity", "uncertainty"]  # fmt: skip
TREND_COLUMNS = ["window", "window_n", "window_small", "status", *_RANKING, "disparity_low",
                 "disparity_high"]  # fmt: skip


def trend(window_runs: Mapping[str, AnalysisRun], windows: pd.DataFrame) -> WindowTrend:
    """The trend Result of the certainty ranking over ``windows``: one row per window and
    decision-maker, the frequentist disparity p_i - p_j with its 95% Newcombe interval (a
    window the ranking could not be made in keeps one row with its status)."""
    from ..intervals import newcombe_bounds, z_value

    def rows(run: AnalysisRun) -> pd.DataFrame:
        t = next(iter(run.results.values())).to_frame().reindex(columns=_RANKING)
        low, high = newcombe_bounds(t["k_i"], t["n_i"], t["k_j"], t["n_j"], z_value(0.05, "two"))
        t["disparity_low"], t["disparity_high"] = low, high
        return t

    frame = window_rows(window_runs, windows, TREND_COLUMNS, rows)
    return WindowTrend(frame, windows, "Disparity per decision-maker and time window", draw_trend)


def draw_trend(frame: pd.DataFrame, windows: pd.DataFrame) -> Any:
    """Each decision-maker's disparity per window with its interval; small windows hollow."""
    from ..report import plots

    ok = frame[frame["status"].eq("ok") & frame["disparity"].notna()]
    if ok.empty:
        return None
    series = [(str(name), ok[ok["decision_maker"] == name])
              for name in dict.fromkeys(ok["decision_maker"])]  # fmt: skip
    return plots.window_trend(series, windows, "disparity",
                              "disparity (most − least privileged rate)")  # fmt: skip
