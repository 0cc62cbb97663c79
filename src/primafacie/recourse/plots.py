"""Cumulative effectiveness (micro ecd) step plot of one subgroup (FACTS Fig. 1b)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["ecd_steps", "plot_cumulative"]


def ecd_steps(audit: Any, s: int, group: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct action costs of subgroup ``s`` and the micro ecd of ``group`` at each.

    Returns
    -------
    (costs, ecd)
        Increasing costs (starting at 0) and the share of the group with recourse cost <= c.
    """
    t = audit.table_
    lo, hi = int(t.starts[s]), int(t.starts[s + 1])
    costs, first = np.unique(t.cost[lo:hi], return_index=True)
    values = t.cum[lo:hi, group][first] / t.n[s, group]
    return np.concatenate([[0.0], costs]), np.concatenate([[0.0], values])


def plot_cumulative(audit: Any, subgroup: str | int):
    """Matplotlib Figure: ecd_micro per protected group, step (post) over cost.

    Parameters
    ----------
    audit
        A fitted :class:`~primafacie.recourse.RecourseAudit`.
    subgroup
        Label (``a=x; b=y``) or index.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    s = audit.subgroup_index(subgroup)
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, g in enumerate(audit.groups_):
        x, y = ecd_steps(audit, s, i)
        ax.step(x, 100 * y, where="post", label=f"{g} (n={int(audit.table_.n[s, i])})")
    ax.set_xlabel("Cost of change")
    ax.set_ylabel("Effectiveness percentage")
    ax.set_ylim(-2, 102)
    ax.set_title(audit.subgroup_labels()[s][:90], fontsize=8)
    ax.legend()
    fig.tight_layout()
    return fig
