"""Result objects of situation testing: per-complainant rows and a summary by method and k."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..jsonsafe import json_safe

__all__ = ["SituationResult", "summarize", "json_safe"]

_ORDER = {"st": 0, "cst": 1, "cst_centers": 2, "cf": 3}


_SUMMARY_COLUMNS = [
    "method",
    "k",
    "complainants",
    "denominator",
    "cases",
    "cases_share",
    "significant",
    "significant_share",
    "undefined",
    "mean_delta_cases",
    "mean_delta_significant",
]


def summarize(
    table: pd.DataFrame,
    denominator: int,
    methods: Any = None,
    ks: Any = None,
) -> pd.DataFrame:
    """Counts and shares of flagged and significant complainants by method and k.

    Parameters
    ----------
    table
        Per-complainant rows with columns method, k, delta, discriminated, significant.
    denominator
        Number of protected individuals the shares are taken of (e.g. all females).
    methods, ks
        The grid that was run; a (method, k) with no complainant (e.g. every protected row
        was accepted and only rejected ones were tested) gets a row with zero counts.

    Returns
    -------
    pandas.DataFrame
        method, k, complainants, denominator, cases, cases_share, significant,
        significant_share, undefined (NaN tests), mean_delta_cases, mean_delta_significant.
    """
    groups = {key: g for key, g in table.groupby(["method", "k"], sort=False)}
    if methods is not None and ks is not None:
        empty = table.iloc[:0]
        for m in methods:
            for k in ks:
                groups.setdefault((m, k), empty)
    rows = []
    for (method, k), g in groups.items():
        flag = g["discriminated"].to_numpy(dtype=bool)
        sig = g["significant"].to_numpy(dtype=bool)
        delta = g["delta"].to_numpy(dtype=float)
        rows.append(
            {
                "method": method,
                "k": int(k),
                "complainants": len(g),
                "denominator": int(denominator),
                "cases": int(flag.sum()),
                "cases_share": flag.sum() / denominator if denominator else np.nan,
                "significant": int(sig.sum()),
                "significant_share": sig.sum() / denominator if denominator else np.nan,
                "undefined": int(np.isnan(delta).sum()),
                "mean_delta_cases": float(delta[flag].mean()) if flag.any() else np.nan,
                "mean_delta_significant": float(delta[sig].mean()) if sig.any() else np.nan,
            }
        )
    out = pd.DataFrame(rows, columns=_SUMMARY_COLUMNS)
    if len(out):
        out = out.sort_values(
            ["method", "k"], key=lambda s: s.map(_ORDER) if s.name == "method" else s
        )
    return out.reset_index(drop=True)


@dataclass(frozen=True)
class SituationResult:
    """Per-complainant situation-testing results for every (method, k).

    Attributes
    ----------
    table
        One row per complainant and (method, k): method, k, row (position), id, k_c, k_t,
        neg_c, neg_t, p_c, p_t, delta, ci_low/ci_high (one-sided, ±inf on the open side),
        ci2_low/ci2_high (two-sided), discriminated, significant, decision (ŷ_c, 1 =
        favourable), cf_decision (ŷ_c^CF), cf_flag.
    params
        The settings of the run (methods, k, alpha, tau, direction, legacy, ties, ...).
    n_protected
        Denominator of every share: the number of protected individuals.
    n_complainants
        Number of complainants tested.
    ids
        Row identifiers of the data (to turn neighbour positions into ids).
    neighbors
        ``{(method, k): (control_rows, test_rows)}`` neighbour positions (-1 pads).
    """

    table: pd.DataFrame
    params: dict
    n_protected: int
    n_complainants: int
    ids: np.ndarray = field(repr=False)
    neighbors: dict = field(default_factory=dict, repr=False)

    def to_frame(self, neighbors: bool = False) -> pd.DataFrame:
        """Per-complainant table; ``neighbors=True`` adds control_ids and test_ids lists.

        Examples
        --------
        >>> # res.to_frame().query("method == 'cst' and significant")
        """
        out = self.table.copy()
        if neighbors and self.neighbors:
            ctrl_col, test_col = [], []
            for (method, k), g in out.groupby(["method", "k"], sort=False):
                ctrl, test = self.neighbors[(method, k)]
                ctrl_col.append(pd.Series(self._id_lists(ctrl), index=g.index))
                test_col.append(pd.Series(self._id_lists(test), index=g.index))
            out["control_ids"] = pd.concat(ctrl_col)
            out["test_ids"] = pd.concat(test_col)
        return out

    def _id_lists(self, rows: np.ndarray) -> list[list]:
        ids = self.ids
        return [ids[r[r >= 0]].tolist() for r in rows]

    def summary(self) -> pd.DataFrame:
        """Counts, shares (of ``n_protected``) and mean Δp by method and k."""
        return summarize(
            self.table, self.n_protected, self.params.get("methods"), self.params.get("k")
        )

    def to_dict(self, neighbors: bool = False) -> dict:
        """JSON-safe dict: params, summary rows and complainant rows (NaN→None, inf→"inf").

        ``neighbors=True`` adds each complainant's ``control_ids`` and ``test_ids`` lists.
        """
        rows = self.to_frame(neighbors=neighbors)
        return json_safe(
            {
                "params": self.params,
                "n_protected": self.n_protected,
                "n_complainants": self.n_complainants,
                "summary": self.summary().to_dict(orient="records"),
                "complainants": rows.astype(object).to_dict(orient="records"),
            }
        )

    def plot(self, ax: Any = None) -> Any:
        """Number of flagged (solid) and significant (dashed) complainants against k.

        Returns
        -------
        matplotlib.figure.Figure
        """
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        summary = self.summary()
        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 4))
        else:
            fig = ax.figure
        for method, g in summary.groupby("method", sort=False):
            line = ax.plot(g["k"], g["cases"], marker="o", label=f"{method}")[0]
            ax.plot(
                g["k"],
                g["significant"],
                marker="x",
                linestyle="--",
                color=line.get_color(),
                label=f"{method} (sig.)",
            )
        ax.set_xlabel("k")
        ax.set_ylabel(f"complainants flagged (of {self.n_protected})")
        ax.legend(fontsize="small")
        return fig
