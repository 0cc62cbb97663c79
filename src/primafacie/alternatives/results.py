"""Result of :class:`~primafacie.alternatives.AlternativeSearch`: every candidate, the verdict."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ..base import BaseResult, figure_axes, laid_out
from ..jsonsafe import json_safe

__all__ = ["AlternativesResult", "UTILITY_LABELS", "DISPARITY_LABELS", "DISPARITY_READS"]

UTILITY_LABELS = {"auc": "AUC", "accuracy": "accuracy", "balanced_accuracy": "balanced accuracy"}
DISPARITY_LABELS = {
    "impact_ratio": "impact ratio (capped at parity)",
    "selection_difference": "selection-rate difference",
    "equal_opportunity": "equal-opportunity (TPR) gap",
}

#: How each measure reads (the report's candidate table), keyed as :data:`DISPARITY_LABELS`.
DISPARITY_READS = {
    "impact_ratio": "lowest, over the protected attributes, of the protected group's selection "
    "rate over the other group's, capped at 1 (higher is less disparity)",
    "selection_difference": "largest, over the protected attributes, of the other group's "
    "selection rate minus the protected group's, floored at 0 (lower is less disparity)",
    "equal_opportunity": "largest, over the protected attributes, of the other group's true "
    "positive rate minus the protected group's, floored at 0 (lower is less disparity)",
}


def _interval(reps: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided percentile interval of bootstrap replicates (rows), per column."""
    return (np.nanquantile(reps, alpha / 2, axis=0), np.nanquantile(reps, 1 - alpha / 2, axis=0))


@dataclass(frozen=True)
class AlternativesResult(BaseResult):
    """Every candidate tried, the chosen alternative and the verdict.

    Attributes
    ----------
    table
        One row per candidate (the audited model, refitted, first): ``candidate``,
        ``description``, ``dropped``, ``estimator``, ``params``, ``threshold``; cross-validated
        (``cv_``) and held-out (``holdout_``) utility and disparity with their bootstrap
        intervals (``_low``, ``_high``); ``within_tolerance`` (cross-validated utility within
        the tolerance of the audited model's); ``less_disparity_cv``; ``certainty_rank`` and
        ``p_most_fair`` (certainty ranking of the candidates within tolerance); ``chosen``;
        ``qualifies`` (the chosen candidate passed both held-out tests); ``status``.
    test
        The held-out comparison of the chosen candidate with the audited model: disparity
        reduction and utility difference with their intervals, and both verdicts (empty when
        no candidate was chosen).
    settings
        The search's settings, split sizes and each feature's association with the protected
        attribute(s).
    baseline_gap
        Per protected attribute, the audited model's held-out signed gap (protected −
        reference rate: selection, or TPR for equal opportunity) with its interval.
    """

    table: pd.DataFrame
    test: dict[str, Any]
    settings: dict[str, Any]
    baseline_gap: dict[str, dict[str, float]]

    @classmethod
    def build(cls, candidates, thresholds, u_cv, d_cv, u_h, d_h, within, improves, rank,
              p_most_fair, chosen, settings, baseline_gap) -> AlternativesResult:  # fmt: skip
        """Assemble the table and the held-out test from the search's arrays (row 0 of each
        ``u_``/``d_`` array is the point estimate, the others bootstrap replicates)."""
        alpha = settings["alpha"]
        cols: dict[str, Any] = {
            "candidate": np.arange(len(candidates)),
            "description": [c.describe() for c in candidates],
            "dropped": ["; ".join(c.dropped) for c in candidates],
            "estimator": [c.estimator for c in candidates],
            "params": [", ".join(f"{k}={v!r}" for k, v in c.params) for c in candidates],
            "threshold": thresholds,
        }
        for prefix, u, d in (("cv", u_cv, d_cv), ("holdout", u_h, d_h)):
            for name, arr in (("utility", u), ("disparity", d)):
                lo, hi = _interval(arr[1:], alpha)
                cols[f"{prefix}_{name}"] = arr[0]
                cols[f"{prefix}_{name}_low"], cols[f"{prefix}_{name}_high"] = lo, hi
        cols["within_tolerance"] = within
        cols["less_disparity_cv"] = improves
        cols["certainty_rank"] = pd.array(
            [pd.NA if np.isnan(r) else int(r) for r in rank], dtype="Int64"
        )
        cols["p_most_fair"] = p_most_fair
        cols["chosen"] = np.arange(len(candidates)) == (-1 if chosen is None else chosen)
        test = {} if chosen is None else _held_out_test(settings, u_h, d_h, chosen)
        cols["qualifies"] = cols["chosen"] & bool(test.get("qualifies", False))
        table = pd.DataFrame(cols)
        table["status"] = [_status(r) for r in table.itertuples()]
        return cls(table=table, test=test, settings=settings, baseline_gap=baseline_gap)

    # ------------------------------------------------------------------ numbers
    @property
    def lda_found(self) -> bool:
        """Whether the chosen candidate is a less discriminatory alternative."""
        return bool(self.test.get("qualifies", False))

    @cached_property
    def baseline(self) -> pd.Series:
        """The audited model's row (refitted as audited)."""
        return self.table.iloc[0]

    @cached_property
    def best(self) -> pd.Series | None:
        """The chosen candidate's row, or None when none was within tolerance and less unfair."""
        rows = self.table[self.table["chosen"]]
        return None if rows.empty else rows.iloc[0]

    @cached_property
    def closest(self) -> pd.DataFrame:
        """Up to three candidates nearest to qualifying: within tolerance with the lowest
        cross-validated disparity, else the highest utility."""
        t = self.table.iloc[1:]
        asc = self.settings["disparity"] != "impact_ratio"
        pool = t[t["within_tolerance"]] if t["within_tolerance"].any() else t
        return pool.sort_values("cv_disparity", ascending=asc, kind="stable").head(3)

    def nothing_to_improve(self) -> bool:
        """Every protected attribute's held-out gap interval (audited model) contains 0."""
        return all(g["gap_low"] <= 0 <= g["gap_high"] for g in self.baseline_gap.values())

    # ------------------------------------------------------------------ words
    def _u(self) -> str:
        u = self.settings["utility"]
        return UTILITY_LABELS.get(u, "mean profit") if isinstance(u, str) else "mean profit"

    def headline(self) -> str:
        """The verdict in one sentence, with the numbers behind it."""
        n = len(self.table) - 1
        dname = DISPARITY_LABELS[self.settings["disparity"]]
        b = self.baseline
        if self.lda_found:
            t, best = self.test, self.best
            return (
                f"Less discriminatory alternative found among {n} candidates: {best['description']} "
                f"has a held-out {dname} of {best['holdout_disparity']:.3f} against "
                f"{b['holdout_disparity']:.3f} for the audited model (improvement "
                f"{t['disparity_gain']:+.3f}, {self._level()} CI {t['disparity_gain_low']:+.3f} to "
                f"{t['disparity_gain_high']:+.3f}), with a held-out {self._u()} of {best['holdout_utility']:.3f} "
                f"against {b['holdout_utility']:.3f} (non-inferior within {self.settings['tolerance']:g})"
            )
        why = self._why_none()
        return f"No less discriminatory alternative found among {n} candidates: {why}"

    def _level(self) -> str:
        return f"{100 * (1 - self.settings['alpha']):g}%"

    def _why_none(self) -> str:
        b, dname = self.baseline, DISPARITY_LABELS[self.settings["disparity"]]
        base = (
            f"the audited model's held-out {dname} is {b['holdout_disparity']:.3f} "
            f"({self._level()} CI {b['holdout_disparity_low']:.3f}–{b['holdout_disparity_high']:.3f})"
        )
        if self.nothing_to_improve():
            gaps = "; ".join(
                f"{a}: {g['gap']:+.3f} ({g['gap_low']:+.3f} to {g['gap_high']:+.3f})"
                for a, g in self.baseline_gap.items()
            )
            return (
                f"the audited model shows no significant disparity to reduce (held-out gap, "
                f"protected − reference, {self._level()} CI: {gaps})"
            )
        if self.best is None:
            return (
                "no candidate within the utility tolerance "
                f"({self.settings['tolerance']:g} of {self._u()}) had less disparity in "
                "cross-validation; " + base
            )
        t = self.test
        reasons = []
        if not t["disparity_better"]:
            reasons.append(
                f"its disparity improvement {t['disparity_gain']:+.3f} ({self._level()} CI "
                f"{t['disparity_gain_low']:+.3f} to {t['disparity_gain_high']:+.3f}) includes 0"
            )
        if not t["non_inferior"]:
            reasons.append(
                f"its {self._u()} may be lower by more than {self.settings['tolerance']:g} "
                f"(lower bound of the difference {t['utility_diff_bound']:+.3f})"
            )
        return (
            f"the most certainly fair candidate within tolerance, {self.best['description']}, "
            "failed on the held-out rows: " + "; ".join(reasons)
        )

    def scope(self) -> str:
        """The rows, the split and the search space."""
        s = self.settings
        n = len(self.table) - 1
        if s.get("train") == "file":
            return (
                f"candidates refitted on the training data file: its {s['n_search']} rows with "
                f"their true outcome, searched with {s['folds']}-fold cross-validation; the "
                f"{s['n_holdout']} audited rows, which played no part in the choice, for the "
                f"final comparison; {n} candidates ({self.search_space()})"
            )
        return (
            f"candidates refitted on the audited rows (no training data file): "
            f"{s['n_search'] + s['n_holdout']} rows with their true outcome, {s['n_search']} "
            f"searched with {s['folds']}-fold cross-validation, {s['n_holdout']} held out "
            f"({s['holdout']:g}) for the final comparison; {n} candidates "
            f"({self.search_space()})"
        )

    def search_space(self) -> str:
        """The search space in words, with its size."""
        s, t = self.settings, self.table.iloc[1:]
        parts = []
        drops = t[(t["estimator"] == "audited") & (t["params"] == "") & (t["dropped"] != "")]
        singles = int((~drops["dropped"].str.contains("; ", regex=False)).sum())
        if singles:
            parts.append(f"{singles} with one feature neutralised")
        if len(drops) - singles:
            parts.append(
                f"{len(drops) - singles} with a pair among the {s['pairs']} features most "
                "associated with the protected attribute neutralised"
            )
        other = t[t["estimator"] != "audited"]
        if len(other):
            parts.append(
                f"{len(other)} other estimators ({', '.join(dict.fromkeys(other['estimator']))})"
            )
        grid = t[(t["estimator"] == "audited") & (t["params"] != "")]
        if len(grid):
            parts.append(f"{len(grid)} settings of the audited model's hyperparameters")
        return "; ".join(parts) or "the audited model alone"

    def caveats(self) -> list[str]:
        """What the search cannot prove, and how it chose."""
        return [
            "an alternative outside the search space may exist: 'none found' is about these "
            "candidates only",
            "the protected attributes are never an input of a candidate, and every candidate "
            "has one decision threshold for everyone (group-specific thresholds or inputs "
            "would be disparate treatment)",
            "the choice used cross-validation on the search rows only; the held-out rows "
            "served only for the final comparison, so the verdict is not a selection artefact",
            "intervals are percentile bootstrap intervals of the held-out rows "
            f"({self.settings['n_boot']} replicates, paired across candidates)",
        ]

    # ------------------------------------------------------------------ export
    def summary(self) -> pd.DataFrame:
        """The audited model and the chosen candidate side by side: held-out utility and
        disparity with their intervals, and whether the candidate qualifies."""
        rows = [r for r in (self.baseline, self.best) if r is not None]
        cols = ["description", "holdout_utility", "holdout_utility_low", "holdout_utility_high",
                "holdout_disparity", "holdout_disparity_low", "holdout_disparity_high",
                "qualifies"]  # fmt: skip
        return pd.DataFrame([r.reindex(cols) for r in rows]).reset_index(drop=True)

    def numbers(self) -> dict[str, Any]:
        """The numbers of ``results.json``: verdict, count, baseline and best."""

        def side(row: pd.Series | None, extra: bool) -> dict[str, Any] | None:
            if row is None:
                return None
            out = {
                "utility": row["holdout_utility"],
                "utility_ci": [row["holdout_utility_low"], row["holdout_utility_high"]],
                "disparity": row["holdout_disparity"],
                "disparity_ci": [row["holdout_disparity_low"], row["holdout_disparity_high"]],
            }
            if extra:
                out |= {
                    "description": row["description"],
                    "dropped": [d for d in row["dropped"].split("; ") if d],
                    "estimator": row["estimator"],
                    "params": row["params"],
                    "qualifies": bool(row["qualifies"]),
                    "threshold": row["threshold"],
                    "certainty_rank": row["certainty_rank"],
                    "p_most_fair": row["p_most_fair"],
                }
            return out

        return json_safe(
            {
                "lda_found": self.lda_found,
                "candidates": int(len(self.table) - 1),
                "train": self.settings.get("train", "audited rows"),
                "baseline": side(self.baseline, False),
                "best": side(self.best, True),
                "test": self.test,
                "nothing_to_improve": self.nothing_to_improve(),
                "baseline_gap": self.baseline_gap,
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: settings, summary and every candidate."""
        return json_safe(
            {
                "analysis": "alternatives",
                "settings": self.settings,
                **self.numbers(),
                "candidates_table": self.table.to_dict(orient="records"),
            }
        )

    def plot(self, ax: Any = None) -> Any:
        """Utility–disparity plane: every candidate (cross-validated), the Pareto frontier, the
        audited model and the chosen candidate marked. Returns the Figure."""
        fig, ax = figure_axes(ax, figsize=(6.4, 4.2), dpi=100)
        t = self.table
        x, yv = t["cv_disparity"].to_numpy(float), t["cv_utility"].to_numpy(float)
        ax.scatter(x[1:], yv[1:], s=18, color="#8aa1b8", label="candidate")
        front = _pareto(x, yv, self.settings["disparity"] == "impact_ratio")
        ax.plot(x[front], yv[front], color="#2b6cb0", lw=1.2, label="Pareto frontier")
        ax.scatter(x[:1], yv[:1], s=60, marker="s", color="#c53030", label="audited model")
        if self.best is not None:
            c = int(self.best["candidate"])
            ax.scatter(x[c], yv[c], s=80, marker="*", color="#2f855a", label="chosen")
        ax.set_xlabel(f"{DISPARITY_LABELS[self.settings['disparity']]} (cross-validated)")
        ax.set_ylabel(f"{self._u()} (cross-validated)")
        ax.legend(fontsize=8, frameon=False)
        return laid_out(fig)


def _pareto(x: np.ndarray, y: np.ndarray, higher_x_better: bool) -> np.ndarray:
    """Indices of the Pareto frontier (higher utility, better disparity), sorted by x."""
    xx = x if higher_x_better else -x
    order = np.lexsort((-y, -xx))  # best disparity first, then best utility
    best_y, keep = -np.inf, []
    for i in order:  # a few dozen candidates
        if y[i] > best_y:
            keep.append(i)
            best_y = y[i]
    keep = np.array(keep, dtype=int)
    return keep[np.argsort(x[keep], kind="stable")]


def _held_out_test(settings: dict[str, Any], u_h: np.ndarray, d_h: np.ndarray, c: int) -> dict:
    """Disparity reduction (two-sided interval excludes 0) and utility non-inferiority."""
    alpha, tol = settings["alpha"], settings["tolerance"]
    sign = 1.0 if settings["disparity"] == "impact_ratio" else -1.0
    gain = sign * (d_h[:, c] - d_h[:, 0])
    diff = u_h[:, c] - u_h[:, 0]
    lo, hi = np.nanquantile(gain[1:], [alpha / 2, 1 - alpha / 2])
    bound = float(np.nanquantile(diff[1:], alpha))
    return {
        "candidate": int(c),
        "disparity_gain": float(gain[0]),
        "disparity_gain_low": float(lo),
        "disparity_gain_high": float(hi),
        "disparity_better": bool(lo > 0),
        "utility_diff": float(diff[0]),
        "utility_diff_bound": bound,
        "non_inferior": bool(bound > -tol),
        "qualifies": bool(lo > 0 and bound > -tol),
    }


def _status(r: Any) -> str:
    if r.candidate == 0:
        return "audited model"
    if r.chosen:
        return "chosen: qualifies" if r.qualifies else "chosen: failed on held-out rows"
    if not r.within_tolerance:
        return "utility below tolerance"
    return "within tolerance" + ("" if r.less_disparity_cv else ", not less disparity")
