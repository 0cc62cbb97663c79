"""Certainty of fairness per time window: each decision-maker's disparity, its interval, rank
and selection in every window (``time:`` in audit.yaml), as a trend table and figure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
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
    order = list(windows["window"])
    x_of = {w: i for i, w in enumerate(order)}
    fig, ax = plots._figure(7.0, 3.6)
    names = list(dict.fromkeys(ok["decision_maker"]))
    for j, name in enumerate(names):
        g = ok[ok["decision_maker"] == name]
        x = g["window"].map(x_of).to_numpy(float) + (j - len(names) / 2) * 0.04
        y = g["disparity"].to_numpy(float)
        err = np.vstack([y - g["disparity_low"].to_numpy(float),
                         g["disparity_high"].to_numpy(float) - y])  # fmt: skip
        line = ax.errorbar(x, y, yerr=np.clip(err, 0, None), marker="o", ms=4, capsize=2, lw=1,
                           label=str(name))  # fmt: skip
        small = g["window_small"].to_numpy(bool)
        ax.plot(x[small], y[small], "o", ms=7, mfc="white", color=line[0].get_color())
    small_w = set(windows.loc[windows["small"], "window"])
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels([f"{w}\n(small)" if w in small_w else w for w in order], fontsize=7,
                       rotation=45 if len(order) > 8 else 0)  # fmt: skip
    ax.set_ylabel("disparity (most − least privileged rate)")
    ax.legend(fontsize=7, frameon=False, loc="best")
    return fig
