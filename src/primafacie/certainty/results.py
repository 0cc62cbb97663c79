"""Result object of a certainty audit: ranked decision-makers, per-group counts, the selection."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base import BaseResult, figure_axes
from ..formats import listing
from ..jsonsafe import json_safe
from .counts import E2_TEXT
from .utility import indifference_curve

__all__ = ["CertaintyResult", "plot_decision_makers"]

#: Indifference levels drawn by :meth:`CertaintyResult.plot` (u_topsis values).
DEFAULT_LEVELS = (-0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75)


@dataclass(frozen=True)
class CertaintyResult(BaseResult):
    """Decision-makers ranked by how certainly fair they are.

    Attributes
    ----------
    table
        One row per decision-maker, best first: ``decision_maker, rank`` (competition rank,
        ties share it), ``most_privileged, least_privileged`` (groups i*, j*),
        ``n_i, k_i, n_j, k_j, p_i, p_j`` (counts and rates of that pair), ``disparity,
        uncertainty, utility, utility_norm``, ``bayesian_disparity`` (max - min of the
        posterior means, whose extreme pair may differ from i*, j*), ``accuracy`` (NaN when no
        outcome) with its count ``accuracy_k`` (correct decisions) and denominator
        ``accuracy_n`` (rows; ``<NA>``/None when unknown), ``p_exceeds`` (posterior
        P(|p_i - p_j| > epsilon) for the pair i*, j*, NaN when no epsilon), ``tied`` (shares its rank), ``best`` (maximal utility), ``selected`` (best after
        the tie-breaker) and ``p_most_fair`` (posterior probability that its disparity is the
        smallest of those compared, a seeded Monte Carlo of ``n_draws`` draws, see
        :mod:`.probability`; NaN when ``n_draws`` is None).
    counts
        One row per (decision-maker, group): ``members`` (rows in the group), ``n, k``,
        ``rate`` (k/n, NaN when n = 0), posterior ``alpha, beta, post_mean``, normalised
        variance ``norm_var``, and the credible interval ``ci_low, ci_high``.
    selected
        Names chosen (several only when the tie-breaker also ties).
    n_draws, seed
        Monte Carlo draws and seed behind ``p_most_fair`` (``n_draws`` None: not computed).
    """

    table: pd.DataFrame
    counts: pd.DataFrame
    selected: tuple[str, ...]
    best: tuple[str, ...]
    criterion: str
    protected: tuple[str, ...]
    groups: tuple[str, ...]
    favorable: Any = 1
    disparity_kind: str = "frequentist"
    utility_name: str = "u_topsis"
    prior: tuple[float, float] = (1.0, 1.0)
    ties: str = "first"
    tie_breaker: str | None = None
    epsilon: float | None = None
    ci_level: float = 0.95
    warnings: tuple[str, ...] = field(default_factory=tuple)
    n_draws: int | None = None
    seed: int = 0

    #: :meth:`to_dict`: NaN is ``None`` (accuracy without an outcome, the rate of an empty
    #: group), infinities the strings ``"inf"``/``"-inf"``.
    dict_keys: ClassVar[tuple[str, ...]] = (
        "analysis", "criterion", "protected", "groups", "favorable=_favorable",
        "disparity_kind", "utility=utility_name", "prior", "ties", "tie_breaker", "epsilon",
        "ci_level", "n_draws", "seed", "selected", "best", "decision_makers=table", "counts",
        "warnings",
    )  # fmt: skip
    analysis: ClassVar[str] = "certainty"

    @property
    def _favorable(self) -> Any:
        # a value without a JSON form of its own (a numpy integer) is written as text
        plain = isinstance(self.favorable, (int, float, str, bool))
        return self.favorable if plain else str(self.favorable)

    # ------------------------------------------------------------------ words
    @property
    def n_people(self) -> int | None:
        """Rows scored (the group members of one decision-maker), None when built from counts."""
        members = self.counts["members"].to_numpy(dtype=float)[: len(self.groups)]
        return None if np.isnan(members).any() else int(members.sum())

    def headline(self) -> str:
        """One sentence: the selected decision-maker(s), with its disparity and uncertainty.

        The rates are given as counts ``k of n`` so the reader sees the denominators. With
        several decision-makers and ``p_most_fair`` computed, the sentence ends with the
        posterior probability that the selected one has the smallest disparity.

        Examples
        --------
        >>> from primafacie.certainty import score_counts
        >>> res = score_counts([[3, 0], [1, 0]], [[3, 3], [1, 1]], names=["A", "B"],
        ...                    groups=["yellow", "blue"])
        >>> res.headline()
        'Most certainly fair decision-maker (statistical parity): B — disparity 1.000 between yellow (1 of 1) and blue (0 of 1), uncertainty 1.0000; posterior probability that it has the smallest disparity 0.72 (10,000 draws)'
        """
        row = self.table[self.table["decision_maker"] == self.selected[0]].iloc[0]
        several = len(self.selected) > 1
        who, it = ("decision-makers", "one of them") if several else ("decision-maker", "it")
        text = (
            f"Most certainly fair {who} ({self.criterion.replace('_', ' ')}): "
            f"{', '.join(self.selected)} — disparity {row['disparity']:.3f} between "
            f"{row['most_privileged']} ({int(row['k_i'])} of {int(row['n_i'])}) and "
            f"{row['least_privileged']} ({int(row['k_j'])} of {int(row['n_j'])}), "
            f"uncertainty {row['uncertainty']:.4f}"
        )
        if self.n_draws is None or len(self.table) < 2:
            return text
        chosen = self.table["decision_maker"].isin(self.selected)
        p = float(self.table.loc[chosen, "p_most_fair"].sum())
        return text + (
            f"; posterior probability that {it} has the smallest disparity {p:.2f} "
            f"({self.n_draws:,} draws)"
        )

    def scope(self) -> str:
        """Who was scored: decision-makers, people, groups, the rates' denominator, left-outs.

        Examples
        --------
        >>> from primafacie.certainty import score_counts
        >>> score_counts([[3, 0]], [[3, 3]], names=["A"], groups=["y", "b"]).scope()
        '1 decision-maker(s) (A) in 2 groups (y, b); criterion statistical parity: each rate is k of n rows of a group'
        """
        names = self.table["decision_maker"].tolist()
        people = "" if self.n_people is None else f" on {self.n_people} people"
        of = f" of {' × '.join(self.protected)}" if self.protected else ""
        text = (
            f"{len(names)} decision-maker(s) ({listing(names, 10)}){people} in "
            f"{len(self.groups)} groups{of} ({listing(self.groups, 10)}); "
            f"criterion {self.criterion.replace('_', ' ')}: each rate is k of n "
            f"{E2_TEXT[self.criterion]} of a group"
        )
        empty = self.counts[self.counts["n"] == 0]
        if len(empty):
            pairs = (f"{r.decision_maker}: {r.group}" for r in empty.itertuples())
            text += (
                f"; left out: {len(empty)} empty group(s) with no {E2_TEXT[self.criterion]} "
                f"({listing(pairs, 5, '; ')})"
            )
        merged = [g for g in self.groups if g.startswith("merged: ")]
        if merged:
            text += f"; small groups pooled as {merged[0]!r}"
        return text

    def caveats(self) -> list[str]:
        """What limits the reading of the ranking: skipped groups, ties, many groups, extensions.

        Examples
        --------
        >>> from primafacie.certainty import score_counts
        >>> score_counts([[3, 0]], [[3, 3]], names=["A"]).caveats()
        []
        """
        out = list(self.warnings)
        if len(self.best) > 1:
            if self.tie_breaker is None:
                chosen = "no tie-breaker was given, so all are selected"
            elif len(self.selected) > 1:
                chosen = f"the {self.tie_breaker} tie-breaker ties as well: all are selected"
            else:
                chosen = f"the {self.tie_breaker} tie-breaker chose {self.selected[0]}"
            out.append(
                f"{len(self.best)} decision-makers share the best utility "
                f"({', '.join(self.best)}); {chosen}"
            )
        if len(self.groups) > 2:
            out.append(
                f"with {len(self.groups)} groups the disparity is the gap between the most and "
                "the least privileged group of each decision-maker; the other groups enter "
                "neither the disparity nor its uncertainty (see the group counts table)"
            )
        if self.disparity_kind == "bayesian":
            out.append(
                "the disparity is the gap between posterior means (an extension; the paper uses "
                "the frequentist rates)"
            )
        if tuple(self.prior) != (1.0, 1.0):
            out.append(
                f"prior Beta{tuple(self.prior)} instead of the paper's Beta(1, 1): the "
                "uncertainty is renormalised by the largest variance this prior allows"
            )
        return out

    def counts_frame(self) -> pd.DataFrame:
        """Per-group counts, posteriors and credible intervals (a copy)."""
        return self.counts.copy()

    def numbers(self) -> dict[str, Any]:
        """The numbers of ``results.json``: who is selected, the ranking (disparity,
        uncertainty, utility, P(most fair)) and the draws behind P(most fair)."""
        cols = ["decision_maker", "rank", "disparity", "uncertainty", "utility", "p_most_fair"]
        return {
            "selected": list(self.selected),
            "ranking": json_safe(self.table[cols].to_dict(orient="records")),
            "p_most_fair": {"n_draws": self.n_draws, "seed": self.seed},
        }

    def extra_tables(self) -> dict[str, pd.DataFrame]:
        """``group_counts``: per-group counts and posteriors (:meth:`counts_frame`)."""
        return {"group_counts": self.counts_frame()}

    def summary(self) -> pd.DataFrame:
        """Compact ranking: rank, name, groups, counts, DM point, utility, accuracy, selected."""
        cols = [
            "rank", "decision_maker", "most_privileged", "least_privileged", "n_i", "k_i",
            "n_j", "k_j", "disparity", "uncertainty", "utility", "accuracy", "selected",
            "p_most_fair",
        ]  # fmt: skip
        return self.table[cols].copy()

    def plot(self, ax=None, levels=DEFAULT_LEVELS):
        """Decision-makers in the (disparity, uncertainty) plane with u_topsis indifference
        curves; the selected one is circled. Returns the matplotlib Figure."""
        return plot_decision_makers(
            self.table["disparity"].to_numpy(),
            self.table["uncertainty"].to_numpy(),
            names=self.table["decision_maker"].tolist(),
            selected=self.table["selected"].to_numpy(),
            ax=ax,
            levels=levels,
            title=f"{self.criterion.replace('_', ' ')} — {self.utility_name}",
        )

    def __str__(self) -> str:
        return (
            f"CertaintyResult({self.criterion}, {len(self.table)} decision-makers, "
            f"{len(self.groups)} groups; selected: {', '.join(self.selected)})\n"
            + self.summary().to_string(index=False)
        )


def plot_decision_makers(
    disparity,
    uncertainty,
    names=None,
    selected=None,
    ax=None,
    levels=DEFAULT_LEVELS,
    title: str | None = None,
):
    """Scatter decision-makers in [0, 1]^2 with indifference curves of u_topsis.

    Parameters
    ----------
    disparity, uncertainty
        Coordinates of the decision-makers.
    names
        Optional labels (drawn when there are at most 30 points).
    selected
        Optional boolean mask of the selected decision-maker(s).
    ax
        Existing matplotlib Axes; a new Figure is created otherwise.
    levels
        Utility levels of the indifference curves.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = figure_axes(ax, figsize=(6, 5))
    for c in levels:
        d, s = indifference_curve(c)
        ax.plot(d, s, color="0.6", lw=0.8, ls="-" if c == 0 else "--", zorder=1)
        if len(d):
            ax.annotate(f"u={c:g}", (d[-1], s[-1]), fontsize=7, color="0.4",
                        ha="center", va="bottom")  # fmt: skip
    x, y = np.asarray(disparity, dtype=float), np.asarray(uncertainty, dtype=float)
    ax.scatter(
        x, y, s=18 if len(x) > 30 else 40, color="tab:blue", zorder=2, label="decision-makers"
    )
    if selected is not None:
        sel = np.asarray(selected, dtype=bool)
        ax.scatter(x[sel], y[sel], s=160, facecolors="none", edgecolors="tab:red", lw=2,
                   zorder=3, label="selected")  # fmt: skip
    if names is not None and len(x) <= 30:
        for xi, yi, name in zip(x, y, names, strict=True):
            ax.annotate(str(name), (xi, yi), textcoords="offset points", xytext=(5, 4), fontsize=8)
    ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.05), xlabel="disparity δ")
    ax.set(ylabel="uncertainty σ̄²", title=title or "decision-makers")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize=8, frameon=False)
    return fig
