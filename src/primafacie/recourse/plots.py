"""Cumulative effectiveness (micro ecd) step plot of one subgroup (FACTS Fig. 1b)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..base import figure_axes, laid_out

__all__ = ["ecd_steps", "plot_cumulative", "plot_curves"]


def ecd_steps(audit: Any, s: int, group: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct action costs of subgroup ``s`` and the micro ecd of ``group`` at each.

    Returns
    -------
    (costs, ecd)
        Increasing costs (starting at 0) and the share of the group with recourse cost <= c.
    """
    return audit.curves().steps(s, group)


def plot_curves(frame: pd.DataFrame, title: str):
    """Matplotlib Figure of ``group, n, cost, effectiveness`` steps (one line per group).

    Parameters
    ----------
    frame
        As returned by :meth:`~primafacie.recourse.FactsResult.effectiveness_curves`.
    title
        The subgroup's label (cut at 90 characters).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = figure_axes(figsize=(6, 4))
    for g, part in frame.groupby("group", sort=False):
        n = int(part["n"].iloc[0])
        ax.step(part["cost"], 100 * part["effectiveness"], where="post", label=f"{g} (n={n})")
    ax.set_xlabel("Cost of change")
    ax.set_ylabel("Effectiveness percentage")
    ax.set_ylim(-2, 102)
    ax.set_title(title[:90], fontsize=8)
    ax.legend()
    return laid_out(fig)


def plot_cumulative(audit: Any, subgroup: str | int):
    """Matplotlib Figure: ecd_micro per protected group, step (post) over cost.

    Parameters
    ----------
    audit
        A fitted :class:`~primafacie.recourse.RecourseFairness`.
    subgroup
        Label (``a=x; b=y``) or index.

    Returns
    -------
    matplotlib.figure.Figure
    """
    s = audit.subgroup_index(subgroup)
    return plot_curves(audit.curves().frame(s), audit.subgroup_labels()[s])
