"""Result of :class:`~primafacie.ll144.LL144Tables`: the rule's tables and their summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base import BaseResult, figure_axes, laid_out

__all__ = ["LL144Result"]


@dataclass(frozen=True)
class LL144Result(BaseResult):
    """Selection (or scoring) rates and impact ratios per category.

    Attributes
    ----------
    table
        One row per category of each dimension and of the intersection: ``dimension``,
        ``category``, ``n`` (individuals assessed in it), ``k`` (selected, or scoring above the
        median), ``rate`` (k / n), ``share`` (n over the individuals of known category),
        ``excluded`` (share below ``exclude_below``: left out of the ratios), ``impact_ratio``
        (rate / highest rate among the categories not excluded), ``highest``.
    unknown
        ``{dimension: individuals of unknown category}`` (left out of that dimension's rates).
    n
        Individuals assessed.
    scoring
        Scoring rates (score above the median) rather than selection rates.
    median
        The sample median score (scoring rates only).
    """

    table: pd.DataFrame
    unknown: dict[str, int]
    n: int
    scoring: bool
    median: float | None
    exclude_below: float
    categories: dict[str, str] = field(default_factory=dict)

    #: :meth:`to_dict`: settings, the table, unknown counts.
    dict_keys: ClassVar[tuple[str, ...]] = (
        "analysis", "n", "scoring", "median_score=median", "exclude_below", "categories",
        "unknown", "lowest_impact_ratio=_lowest_ratios", "rates=table",
    )  # fmt: skip
    analysis: ClassVar[str] = "ll144"

    def _lowest_ratios(self) -> dict[str, dict[str, Any]]:
        return {
            r.dimension: {"category": r.category, "impact_ratio": r.impact_ratio}
            for r in self.lowest().itertuples()
        }

    @property
    def rate_name(self) -> str:
        """``scoring rate`` or ``selection rate``."""
        return "scoring rate" if self.scoring else "selection rate"

    def lowest(self) -> pd.DataFrame:
        """Per dimension, the category with the lowest impact ratio (excluded ones left out)."""
        t = self.table.dropna(subset=["impact_ratio"])
        idx = t.groupby("dimension", sort=False)["impact_ratio"].idxmin()
        return t.loc[idx.to_numpy()].reset_index(drop=True)

    def headline(self) -> str:
        """The lowest impact ratio of each dimension, with its counts."""
        parts = []
        for r in self.lowest().itertuples():
            parts.append(
                f"{r.dimension}: {r.category} {r.impact_ratio:.2f} ({100 * r.rate:.1f}%, "
                f"{r.k} of {r.n})"
            )
        what = "scoring-rate" if self.scoring else "selection-rate"
        return f"Lowest {what} impact ratio per category: " + "; ".join(parts)

    def scope(self) -> str:
        """Who was counted and who was left out."""
        unknown = "; ".join(f"{d}: {k}" for d, k in self.unknown.items())
        excluded = self.table[self.table["excluded"]]
        text = f"{self.n} individuals assessed; unknown category (left out of the rates): {unknown}"
        if len(excluded):
            text += (
                f"; {len(excluded)} categories under {100 * self.exclude_below:g}% of the data "
                "are excluded from the impact ratios (their counts and rates are shown)"
            )
        if self.scoring:
            text += f"; scoring rate = share scoring above the sample median ({self.median:g})"
        return text

    def caveats(self) -> list[str]:
        """What the rule's tables do not say."""
        out = [
            "impact ratios are point estimates, as the rule asks; they carry no interval and no "
            "test (see the group metrics for intervals and the four-fifths reading)",
        ]
        small = self.table[(self.table["n"] < 30) & ~self.table["excluded"]]
        if len(small):
            out.append(
                f"{len(small)} categories have fewer than 30 individuals; their rates are imprecise"
            )
        return out

    def summary(self) -> pd.DataFrame:
        """Individuals of unknown category per dimension."""
        return pd.DataFrame(
            {"dimension": list(self.unknown), "unknown": list(self.unknown.values())}
        )

    def numbers(self) -> dict[str, Any]:
        """The numbers of ``results.json``: individuals, unknowns, ratios below four-fifths
        of the categories rated, and the lowest ratio of each dimension (the audit adds the
        dates and the data source the user gave)."""
        return {
            "individuals": self.n,
            "scoring": self.scoring,
            "unknown": self.unknown,
            "below_four_fifths": int((self.table["impact_ratio"] < 0.8).sum()),
            "categories_rated": int(self.table["impact_ratio"].notna().sum()),
            "lowest": {
                r.dimension: {"category": r.category, "impact_ratio": float(r.impact_ratio)}
                for r in self.lowest().itertuples()
            },
        }

    def plot(self, ax: Any = None) -> Any:
        """Impact ratio per category (excluded categories left out), 0.8 marked."""
        t = self.table.dropna(subset=["impact_ratio"])
        fig, ax = figure_axes(ax, figsize=(6.4, 0.28 * len(t) + 1.2), dpi=100)
        y = np.arange(len(t))
        ax.barh(y, t["impact_ratio"], color="#8aa1b8")
        ax.axvline(0.8, color="#c53030", ls="--", lw=1)
        labels = [f"{d}: {c}" for d, c in zip(t["dimension"], t["category"], strict=True)]
        ax.set_yticks(y, labels=labels)
        ax.invert_yaxis()
        ax.set_xlabel("impact ratio")
        return laid_out(fig)  # category labels come from the data: never mathtext
