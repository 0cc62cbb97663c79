"""Result of the score metrics (:mod:`primafacie.groups.scores`): tables, words and figures.

Every sentence is generated from the table it describes (:meth:`ScoreMetricsResult.sentences`);
the figures draw the same tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..jsonsafe import json_safe
from .params import FOUR_FIFTHS

__all__ = ["ScoreMetricsResult", "below_runs", "draw_thresholds", "draw_calibration"]

#: Groups drawn per figure (the tables hold them all).
MAX_DRAWN = 8


def _num(x: float) -> str:
    """A threshold as the sentences write it (``%g``: 5, 0.35, 1.2e+06)."""
    return f"{x:g}"


def below_runs(thresholds: np.ndarray, flags: np.ndarray) -> list[tuple[float, float]]:
    """Runs of consecutive thresholds (in the given order) where ``flags`` holds.

    Examples
    --------
    >>> below_runs(np.array([1, 2, 3, 4, 5.0]), np.array([0, 1, 1, 0, 1], bool))
    [(2.0, 3.0), (5.0, 5.0)]
    """
    flags = np.asarray(flags, dtype=bool)
    if not flags.any():
        return []
    edges = np.diff(np.concatenate([[0], flags.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    return [(float(thresholds[s]), float(thresholds[e])) for s, e in zip(starts, ends, strict=True)]


def _runs_text(runs: list[tuple[float, float]]) -> str:
    """``thresholds from 3 to 5 and 7`` (a run of one threshold is that threshold)."""
    parts = [_num(a) if a == b else f"from {_num(a)} to {_num(b)}" for a, b in runs]
    noun = "threshold" if len(runs) == 1 and runs[0][0] == runs[0][1] else "thresholds"
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{noun} {joined}"


@dataclass(frozen=True)
class ScoreMetricsResult:
    """Thresholds, AUC and calibration of a score, per group of each protected attribute.

    Attributes
    ----------
    score
        The score column.
    favorable
        ``above`` (favourable when score ≥ threshold) or ``below`` (score < threshold).
    thresholds
        :func:`~primafacie.groups.scores.threshold_table` of every attribute (``None`` when no
        threshold was asked for).
    auc, calibration
        :func:`~primafacie.groups.scores.auc_table` and
        :func:`~primafacie.groups.scores.calibration_table` of every attribute (``None``
        without the true outcome).
    grid
        How the thresholds were chosen: ``list`` (``thresholds: [..]``), ``sweep`` or ``none``.
    audited_threshold
        The audited threshold (``decision.threshold``), added to the grid; ``None`` if unknown.
    alpha, min_group
        The group metrics' settings.
    """

    score: str
    favorable: str
    thresholds: pd.DataFrame | None
    auc: pd.DataFrame | None
    calibration: pd.DataFrame | None
    grid: str = "none"
    audited_threshold: float | None = None
    alpha: float = 0.05
    min_group: int = 30

    @property
    def level(self) -> str:
        """The intervals' level as written (``95%``)."""
        return f"{100 * (1 - self.alpha):g}%"

    # ------------------------------------------------------------------ tables
    def to_frame(self) -> pd.DataFrame:
        """The thresholds table (a copy; empty when no threshold was asked for)."""
        return pd.DataFrame() if self.thresholds is None else self.thresholds.copy()

    def summary(self) -> pd.DataFrame:
        """One row per (attribute, protected group) of the thresholds table: thresholds where
        the ratio is defined, below 0.8, and wholly below 0.8 with its interval, the runs of
        thresholds where it is below, and the lowest ratio with its threshold."""
        cols = ["attribute", "group", "thresholds", "defined", "below", "wholly_below",
                "below_runs", "wholly_below_runs", "min_ratio", "min_ratio_threshold"]  # fmt: skip
        if self.thresholds is None:
            return pd.DataFrame(columns=cols)
        rows = []
        prot = self.thresholds[self.thresholds["role"] == "protected"]
        for (attr, group), g in prot.groupby(["attribute", "group"], sort=False):
            t = g["threshold"].to_numpy(float)
            ratio = g["ratio"].to_numpy(float)
            high = g["ratio_high"].to_numpy(float)
            below = np.nan_to_num(ratio, nan=np.inf) < FOUR_FIFTHS
            wholly = np.nan_to_num(high, nan=np.inf) < FOUR_FIFTHS
            defined = ~np.isnan(ratio)
            i = int(np.nanargmin(ratio)) if defined.any() else None
            rows.append((attr, group, len(t), int(defined.sum()), int(below.sum()),
                         int(wholly.sum()), below_runs(t, below), below_runs(t, wholly),
                         None if i is None else float(ratio[i]),
                         None if i is None else float(t[i])))  # fmt: skip
        return pd.DataFrame(rows, columns=cols)

    # ------------------------------------------------------------------ words
    def sentences(self) -> list[str]:
        """One sentence per protected group on the impact ratio over the thresholds, then one
        per protected group on its AUC; each is written from the numbers of the tables."""
        out = []
        for r in self.summary().itertuples(index=False):
            lead = f"{r.attribute} = {r.group}: "
            if r.defined == 0:
                out.append(lead + f"the impact ratio is undefined at all {r.thresholds} "
                           "thresholds (no favourable decision in the reference group)")  # fmt: skip
                continue
            if r.below == 0:
                text = (f"the impact ratio is at least {FOUR_FIFTHS:g} at every one of the "
                        f"{r.defined} thresholds where it is defined")  # fmt: skip
            else:
                text = (
                    f"the impact ratio is below {FOUR_FIFTHS:g} at {_runs_text(r.below_runs)} "
                    f"({r.below} of {r.defined} thresholds where it is defined); its "
                    f"{self.level} interval lies wholly below {FOUR_FIFTHS:g} at "
                    + (_runs_text(r.wholly_below_runs) + f" ({r.wholly_below})"
                       if r.wholly_below else "none of them")
                )  # fmt: skip
            if r.defined < r.thresholds:
                text += (f"; undefined at {r.thresholds - r.defined} (no favourable decision "
                         "in the reference group)")  # fmt: skip
            out.append(lead + text)
        return out + self.auc_sentences()

    def auc_sentences(self) -> list[str]:
        """``sex = f: AUC 0.712 (95% CI 0.650–0.774) vs 0.781 (…) for m; gap −0.069 (…)``."""
        if self.auc is None:
            return []
        out = []
        ref = self.auc[self.auc["role"] == "reference"].set_index("attribute")
        for r in self.auc[self.auc["role"] == "protected"].itertuples(index=False):
            if pd.isna(r.auc):
                continue
            q = ref.loc[r.attribute]
            text = f"{r.attribute} = {r.group}: AUC {_ci(r.auc, r.auc_low, r.auc_high, self.level)}"
            if not pd.isna(q["auc"]):
                text += f" vs {_ci(q['auc'], q['auc_low'], q['auc_high'], self.level)} for {r.reference}"
            if not pd.isna(r.diff_low):
                text += (f"; difference {r.auc_diff:+.3f} ({self.level} CI {r.diff_low:+.3f} "
                         f"to {r.diff_high:+.3f})")  # fmt: skip
            out.append(text)
        return out

    def headline(self) -> str:
        """How many protected groups fall below four-fifths at some threshold."""
        s = self.summary()
        if s.empty:
            return f"score {self.score}: no threshold measured"
        hit = int((s["below"] > 0).sum())
        return (f"score {self.score}: {hit} of {len(s)} protected group(s) have an impact ratio "
                f"below {FOUR_FIFTHS:g} at one or more of {s['thresholds'].max()} thresholds")  # fmt: skip

    def caveats(self) -> list[str]:
        """What the intervals and the grid do not say."""
        out = []
        if self.thresholds is not None:
            out.append(
                f"the intervals of the threshold curve are {self.level} at each threshold, not "
                "simultaneous over the thresholds: reading the whole curve, expect some "
                "thresholds' intervals to miss by chance"
            )
        if self.calibration is not None:
            out.append(
                "the calibration bins are the deciles of the score over all audited rows (each "
                "value its own bin when the score has at most ten; tied scores merge deciles); a "
                "group's rate in a bin with few members is imprecise"
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """Compact JSON-safe numbers: per protected group the runs of thresholds below 0.8 and
        the lowest ratio, and the AUCs (the full tables are CSVs)."""
        auc_cols = ["attribute", "group", "role", "positives", "negatives", "auc", "auc_low",
                    "auc_high", "auc_diff", "diff_low", "diff_high"]  # fmt: skip
        return json_safe({
            "score": self.score, "favorable": self.favorable, "grid": self.grid,
            "audited_threshold": self.audited_threshold,
            "thresholds": 0 if self.thresholds is None else int(self.thresholds["threshold"].nunique()),
            "below_four_fifths": [
                {k: (list(map(list, v)) if isinstance(v, list) else v) for k, v in r.items()}
                for r in self.summary().to_dict(orient="records")
            ],
            "auc": None if self.auc is None else self.auc[auc_cols].to_dict(orient="records"),
        })  # fmt: skip

    # ------------------------------------------------------------------ figures
    def plot_thresholds(self, attribute: str) -> Any:
        """Impact ratio and selection rates of ``attribute``'s groups over the thresholds."""
        if self.thresholds is None:
            return None
        frame = self.thresholds[self.thresholds["attribute"] == attribute]
        return draw_thresholds(frame, self.audited_threshold, self.level, self.score)

    def plot_calibration(self, attribute: str) -> Any:
        """Favourable-outcome rate against the mean score per bin, one line per group."""
        if self.calibration is None:
            return None
        frame = self.calibration[self.calibration["attribute"] == attribute]
        return draw_calibration(frame, self.level, self.score)


def _ci(est: float, low: float, high: float, level: str) -> str:
    if pd.isna(low):
        return f"{est:.3f}"
    return f"{est:.3f} ({level} CI {low:.3f}–{high:.3f})"


def _axes(n: int) -> tuple[Any, Any]:
    from ..report.plots import _plt

    plt = _plt()
    with plt.rc_context({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False}):
        fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.4), dpi=100)
    return fig, np.atleast_1d(axes)


def draw_thresholds(frame: pd.DataFrame, audited: float | None, level: str, score: str) -> Any:
    """Left: each protected group's impact ratio with its interval band, the 0.8 line and the
    audited threshold; right: every group's selection rate with its band."""
    from ..report.plots import PALETTE, tight_layout

    if frame.empty:
        return None
    fig, (left, right) = _axes(2)
    prot = frame[frame["role"] == "protected"]
    for j, (group, g) in enumerate(list(prot.groupby("group", sort=False))[:MAX_DRAWN]):
        c = PALETTE[j % len(PALETTE)]
        t = g["threshold"].to_numpy(float)
        left.fill_between(t, g["ratio_low"].to_numpy(float), g["ratio_high"].to_numpy(float),
                          color=c, alpha=0.18, lw=0)  # fmt: skip
        left.plot(
            t, g["ratio"].to_numpy(float), color=c, lw=1.4, marker="o", ms=2.5, label=str(group)
        )
    left.axhline(FOUR_FIFTHS, ls="--", lw=0.8, color="grey")
    left.set_ylabel(f"impact ratio ({level} interval)")
    shown = list(frame.groupby("group", sort=False))[: MAX_DRAWN + 1]
    for j, (group, g) in enumerate(shown):
        c = "black" if g["role"].iloc[0] == "reference" else PALETTE[j % len(PALETTE)]
        t = g["threshold"].to_numpy(float)
        right.fill_between(t, g["ci_low"].to_numpy(float), g["ci_high"].to_numpy(float),
                           color=c, alpha=0.12, lw=0)  # fmt: skip
        right.plot(t, g["rate"].to_numpy(float), color=c, lw=1.2, label=str(group))
    right.set_ylabel(f"selection rate ({level} interval)")
    right.set_ylim(-0.02, 1.02)
    for ax in (left, right):
        if audited is not None:
            ax.axvline(audited, ls=":", lw=0.9, color="black")
        ax.set_xlabel(f"threshold of {score}")
        ax.legend(fontsize=7, frameon=False, loc="best")
    tight_layout(fig)
    return fig


def draw_calibration(frame: pd.DataFrame, level: str, score: str) -> Any:
    """Favourable-outcome rate (Wilson interval) against the mean score of each bin, per group."""
    from ..report.plots import PALETTE, tight_layout

    data = frame[frame["members"] > 0]
    if data.empty:
        return None
    fig, (ax,) = _axes(1)
    for j, (group, g) in enumerate(list(data.groupby("group", sort=False))[:MAX_DRAWN]):
        c = "black" if g["role"].iloc[0] == "reference" else PALETTE[j % len(PALETTE)]
        x, y = g["mean_score"].to_numpy(float), g["outcome_rate"].to_numpy(float)
        err = np.clip(np.vstack([y - g["ci_low"].to_numpy(float),
                                 g["ci_high"].to_numpy(float) - y]), 0, None)  # fmt: skip
        ax.errorbar(x, y, yerr=err, color=c, marker="o", ms=3, lw=1.2, capsize=2, label=str(group))
    ax.set_xlabel(f"mean {score} in the bin (deciles of the score)")
    ax.set_ylabel(f"favourable-outcome rate ({level} interval)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, frameon=False, loc="best")
    tight_layout(fig)
    return fig
