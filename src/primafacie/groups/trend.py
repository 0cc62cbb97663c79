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
    order = list(windows["window"])
    x_of = {w: i for i, w in enumerate(order)}
    fig, ax = plots._figure(7.0, 3.6)
    keys = list(dict.fromkeys(zip(ok["attribute"], ok["group"], strict=True)))[:MAX_DRAWN]
    for j, (attr, group) in enumerate(keys):
        g = ok[(ok["attribute"] == attr) & (ok["group"] == group)]
        x = g["window"].map(x_of).to_numpy(float) + (j - len(keys) / 2) * 0.04
        y = g["selection_ratio"].to_numpy(float)
        err = np.vstack([y - g["selection_ratio_low"].to_numpy(float),
                         g["selection_ratio_high"].to_numpy(float) - y])  # fmt: skip
        line = ax.errorbar(x, y, yerr=np.clip(err, 0, None), marker="o", ms=4, capsize=2,
                           lw=1, label=f"{attr} = {group}")  # fmt: skip
        small = g["window_small"].to_numpy(bool)
        ax.plot(x[small], y[small], "o", ms=7, mfc="white", color=line[0].get_color())
    ax.axhline(FOUR_FIFTHS, ls="--", lw=0.8, color="grey")
    small_w = set(windows.loc[windows["small"], "window"])
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels([f"{w}\n(small)" if w in small_w else w for w in order], fontsize=7,
                       rotation=45 if len(order) > 8 else 0)  # fmt: skip
    ax.set_ylabel("selection ratio to reference")
    ax.legend(fontsize=7, frameon=False, loc="best")
    return fig
