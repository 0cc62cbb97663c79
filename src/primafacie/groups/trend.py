"""Group metrics per time window: the selection rates and ratios of every protected group in
each window (``time:`` in audit.yaml), with their intervals, as a trend table and figure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..analysis import AnalysisRun
from ..overtime.windows import WindowTrend, window_rows

__all__ = ["trend", "TREND_COLUMNS", "draw_trend"]

_SUMMARY = ["attribute", "group", "reference", "selection_k", "selection_n", "reference_k",
            "reference_n", "selection_ratio", "selection_ratio_low", "selection_ratio_high",
            "selection_diff", "selection_diff_low", "selection_diff_high", "four_fifths",
            "small"]  # fmt: skip
TREND_COLUMNS = ["window", "window_n", "window_small", "status", *_SUMMARY, "selection_rate",
                 "rate_low", "rate_high"]  # fmt: skip

#: Groups drawn in the trend figure (the table holds them all).
MAX_DRAWN = 8


def trend(window_runs: Mapping[str, AnalysisRun], windows: pd.DataFrame) -> WindowTrend:
    """The trend Result of the group metrics over ``windows`` (one row per window and group;
    a window the engine could not measure keeps one row with its status)."""
    from ..intervals import wilson_interval, z_value

    def rows(run: AnalysisRun) -> pd.DataFrame:
        res = next(iter(run.results.values()))
        s = res.summary()[_SUMMARY].copy()
        low, high = wilson_interval(s["selection_k"], s["selection_n"],
                                    z_value(res.alpha, "two"))  # fmt: skip
        with np.errstate(divide="ignore", invalid="ignore"):
            s["selection_rate"] = s["selection_k"] / s["selection_n"]
        s["rate_low"], s["rate_high"] = low, high
        return s

    frame = window_rows(window_runs, windows, TREND_COLUMNS, rows)
    return WindowTrend(frame, windows, "Selection ratio per time window", draw_trend)


def draw_trend(frame: pd.DataFrame, windows: pd.DataFrame) -> Any:
    """Selection ratio of each protected group per window with its interval; the dashed line
    is the four-fifths threshold; small windows are labelled and drawn hollow."""
    from ..report import plots
    from .params import FOUR_FIFTHS

    ok = frame[frame["status"].eq("ok") & frame["selection_ratio"].notna()]
    if ok.empty:
        return None
    keys = list(dict.fromkeys(zip(ok["attribute"], ok["group"], strict=True)))[:MAX_DRAWN]
    series = [(f"{attr} = {group}", ok[(ok["attribute"] == attr) & (ok["group"] == group)])
              for attr, group in keys]  # fmt: skip
    return plots.window_trend(series, windows, "selection_ratio", "selection ratio to reference",
                              hline=FOUR_FIFTHS)  # fmt: skip
