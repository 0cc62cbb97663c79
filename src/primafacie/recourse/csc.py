"""Comparative Subgroup Counterfactuals (CSC): readable per-subgroup summaries (FACTS Fig. 2).

Text format (features sorted by name, only changed features after "Make")::

    If hours-per-week = FullTime, marital-status = Married-civ-spouse, occupation = Adm-clerical:
        Protected Subgroup = 'Male', 1.87% covered
            Make hours-per-week = OverTime, occupation = Exec-managerial with effectiveness 72.00%.
        Protected Subgroup = 'Female', 1.80% covered
            No recourses for this subgroup.
        Bias against Female due to Equal Cost of Effectiveness (threshold = 0.7). Unfairness score = inf.

Micro definitions print the cumulative effectiveness and `` and counterfactual cost = c``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..base import BaseResult, figure_axes
from ..errors import InputError
from ..validation import validate_params
from .params import PARAM_WHERE, RUN_CONSTRAINTS
from .results import EffectivenessCurves, format_score, json_safe, make_ranking

__all__ = ["CSCAction", "CSCGroup", "CSCRecord", "CSCResult", "make_csc", "SHOW_MODES"]

SHOW_MODES = ("relevant", "all")


@dataclass(frozen=True)
class CSCAction:
    """One action in a CSC: the changed features, its (cumulative) effectiveness and cost."""

    changes: dict[str, Any]
    effectiveness: float
    flipped: int
    n: int
    cost: float
    cumulative: bool


@dataclass(frozen=True)
class CSCGroup:
    """One protected group inside a CSC."""

    group: str
    n: int
    coverage: float
    difficulty: float
    actions: tuple[CSCAction, ...]


@dataclass(frozen=True)
class CSCRecord:
    """A subgroup's CSC under one definition."""

    subgroup: dict[str, Any]
    label: str
    rank: int
    score: float
    bias_against: str | None
    title: str
    groups: tuple[CSCGroup, ...]

    def text(self) -> str:
        """The CSC in the paper's text format."""
        ind = "    "
        items = ", ".join(f"{k} = {v}" for k, v in self.subgroup.items())
        lines = [f"If {items}:"]
        for g in self.groups:
            lines.append(f"{ind}Protected Subgroup = '{g.group}', {100 * g.coverage:.2f}% covered")
            if not g.actions:
                lines.append(f"{ind * 2}No recourses for this subgroup.")
            for a in g.actions:
                change = ", ".join(f"{k} = {v}" for k, v in a.changes.items())
                line = f"{ind * 2}Make {change} with effectiveness {100 * a.effectiveness:.2f}%"
                if a.cumulative:
                    line += f" and counterfactual cost = {a.cost:.2f}"
                lines.append(line + ".")
        if self.score == 0:
            lines.append(f"{ind}No bias!")
        else:
            lines.append(
                f"{ind}Bias against {self.bias_against} due to {self.title}. "
                f"Unfairness score = {format_score(self.score)}."
            )
        return "\n".join(lines)


_FRAME_COLUMNS = ["rank", "score", "bias_against", "subgroup", "group", "n", "coverage",
                  "difficulty", "action", "effectiveness", "flipped", "cost", "cumulative"]  # fmt: skip
_SUMMARY_COLUMNS = ("rank", "score", "bias_against", "subgroup")


@dataclass(frozen=True)
class CSCResult(BaseResult):
    """CSCs of several subgroups under one definition.

    Attributes
    ----------
    label, title
        The definition.
    records
        One :class:`CSCRecord` per subgroup, in rank order.
    curves
        Effectiveness curves of the audit's subgroups (for :meth:`plot`), or ``None``.
    """

    label: str
    title: str
    records: tuple[CSCRecord, ...] = field(repr=False)
    curves: EffectivenessCurves | None = field(default=None, repr=False, compare=False)

    def headline(self) -> str:
        """One sentence: how many subgroups are summarised and the first one's verdict.

        >>> CSCResult("Ma.7", "ECE", records=()).headline()
        'ECE: no subgroup is ranked as biased'
        """
        if not self.records:
            return f"{self.title}: no subgroup is ranked as biased"
        first = self.records[0]
        n = len(self.records)
        return (
            f"{self.title}: {n} subgroup{'' if n == 1 else 's'} summarised; #{first.rank} "
            f"'{first.label}' against {first.bias_against} (score {format_score(first.score)})"
        )

    def scope(self) -> str:
        """Which subgroups are summarised, under which definition.

        >>> CSCResult("Ma.7", "ECE", records=()).scope()
        'no subgroup summarised under ECE (Ma.7)'
        """
        n = len(self.records)
        if not n:
            return f"no subgroup summarised under {self.title} ({self.label})"
        return (
            f"the {n} top-ranked subgroup{'' if n == 1 else 's'} under {self.title} "
            f"({self.label}), each group's rejected members and the actions shown for them"
        )

    def caveats(self) -> list[str]:
        """None of its own: the caveats of the ranking it summarises apply
        (:meth:`RankingResult.caveats <primafacie.recourse.RankingResult.caveats>`)."""
        return []

    @property
    def text(self) -> str:
        """All CSCs, separated by blank lines."""
        if not self.records:
            return f"No subgroup is ranked as biased under {self.title}.\n"
        return "\n\n".join(r.text() for r in self.records) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """One row per (subgroup, group, action): rank, score, bias, changes, effectiveness, cost."""
        rows = []
        for r in self.records:
            for g in r.groups:
                base = {"rank": r.rank, "score": r.score, "bias_against": r.bias_against,
                        "subgroup": r.label, "group": g.group, "n": g.n, "coverage": g.coverage,
                        "difficulty": g.difficulty}  # fmt: skip
                if not g.actions:
                    rows.append({**base, "action": None, "effectiveness": None, "flipped": None,
                                 "cost": None, "cumulative": None})  # fmt: skip
                for a in g.actions:
                    rows.append({**base,
                                 "action": "; ".join(f"{k}={v}" for k, v in a.changes.items()),
                                 "effectiveness": a.effectiveness, "flipped": a.flipped,
                                 "cost": a.cost, "cumulative": a.cumulative})  # fmt: skip
        return pd.DataFrame(rows, columns=_FRAME_COLUMNS)

    def summary(self) -> pd.DataFrame:
        """One row per subgroup: rank, score, bias and per-group shown-action counts."""
        rows = []
        for r in self.records:
            row = {"rank": r.rank, "score": r.score, "bias_against": r.bias_against,
                   "subgroup": r.label}  # fmt: skip
            for g in r.groups:
                row[f"actions[{g.group}]"] = len(g.actions)
            rows.append(row)
        return pd.DataFrame(rows, columns=None if rows else list(_SUMMARY_COLUMNS))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe structured records (inf -> "inf")."""
        recs = []
        for r in self.records:
            recs.append({
                "subgroup": {k: str(v) for k, v in r.subgroup.items()},
                "label": r.label, "rank": r.rank or None, "score": r.score,
                "bias_against": r.bias_against, "title": r.title,
                "groups": [{"group": g.group, "n": g.n, "coverage": g.coverage,
                            "difficulty": g.difficulty,
                            "actions": [{"changes": {k: str(v) for k, v in a.changes.items()},
                                         "effectiveness": a.effectiveness, "flipped": a.flipped,
                                         "n": a.n, "cost": a.cost, "cumulative": a.cumulative}
                                        for a in g.actions]}
                           for g in r.groups],
            })  # fmt: skip
        return json_safe({"label": self.label, "title": self.title, "records": recs})

    def plot(self, index: int = 0):
        """Cumulative effectiveness step plot of one listed subgroup (default: the first)."""
        if not self.records:
            fig, ax = figure_axes(figsize=(5.2, 2.0))
            ax.axis("off")
            ax.text(0.5, 0.5, self.text.strip(), ha="center", va="center", wrap=True)
            return fig
        if self.curves is None:
            raise InputError("this CSCResult carries no effectiveness curves to plot")
        from .plots import plot_curves

        label = self.records[index].label
        return plot_curves(self.curves.frame(label), label)


def _changes(audit: Any, s: int, then: np.ndarray) -> dict[str, Any]:
    space = audit.space_
    items = audit.sub_items_[s]
    out = {}
    for j, item in enumerate(items):
        col = int(space.item_col[item])
        if int(then[j]) != int(space.item_code[item]):
            out[space.columns[col]] = space.values[col][int(then[j])]
    return dict(sorted(out.items()))


def csc_record(
    audit: Any, s: int, metric_out: dict, label: str, title: str, show: str = "relevant"
) -> CSCRecord:
    """CSC of subgroup ``s`` (index) from :meth:`RecourseFairness.scores` output."""
    validate_params("RecourseFairness.csc", {"show": RUN_CONSTRAINTS["show"]}, {"show": show})
    table = audit.table_
    spec = metric_out["spec"]
    vp = metric_out["viewpoint"]
    param = metric_out["param"]
    lo, hi = int(table.starts[s]), int(table.starts[s + 1])
    then_all = audit.sub_then_[s]
    micro = vp == "micro" and spec.key != "ECR"
    groups = []
    for i, g in enumerate(audit.groups_):
        n = int(table.n[s, i])
        d = float(metric_out["d"][s, i])
        acts: list[CSCAction] = []
        if micro:
            order = table.seq_order[lo:hi, i]
            cum = table.seq_cum[lo:hi, i]
            prev = 0
            reached = False
            for k, p in enumerate(order):
                c = float(table.cost[p])
                gain = int(cum[k]) - prev
                prev = int(cum[k])
                if show == "relevant":
                    if spec.key == "EEWB" and c > param:
                        break
                    if spec.key == "ECE":
                        if reached:
                            break
                        reached = cum[k] / n >= param
                    elif gain <= 0:
                        continue
                acts.append(CSCAction(_changes(audit, s, then_all[p - lo]), cum[k] / n,
                                      int(cum[k]), n, c, True))  # fmt: skip
            if show == "relevant" and spec.key == "ECE" and not reached:
                acts = []
        else:
            idx = np.arange(lo, hi)
            idx = idx[np.lexsort((table.eff[idx, i], table.cost[idx]))]
            for p in idx:
                e = int(table.eff[p, i])
                share = e / n
                c = float(table.cost[p])
                if show == "relevant":
                    if spec.key in ("ECR",) and not share >= param:
                        continue
                    if spec.key == "ECE" and not (share >= param and c == d):
                        continue
                    if spec.key == "EE" and not (share == d and e > 0):
                        continue
                    if spec.key == "EEWB" and not (c <= param and e > 0):
                        continue
                    if spec.key == "FECT" and e == 0:
                        continue
                acts.append(CSCAction(_changes(audit, s, then_all[p - lo]), share, e, n, c, False))
        groups.append(CSCGroup(str(g), n, n / int(audit.n_affected_[i]), d, tuple(acts)))
    a = int(metric_out["against"][s])
    return CSCRecord(
        subgroup={k: v for k, v in audit.space_.describe(audit.sub_items_[s]).items()},
        label=audit.subgroup_labels()[s],
        rank=int(metric_out["rank"][s]),
        score=float(metric_out["score"][s]),
        bias_against=str(audit.groups_[a]) if a >= 0 else None,
        title=title,
        groups=tuple(groups),
    )


def make_csc(
    audit: Any, metric: str, viewpoint: str | None, phi: float | None, budget: float | None,
    top: int, show: str, subgroups: Sequence[str] | None,
) -> CSCResult:  # fmt: skip
    """CSCs of the ``top`` ranked subgroups (or of the given subgroups) under one definition."""
    checked = {"show": show} if subgroups is not None else {"top": top, "show": show}
    validate_params("RecourseFairness.csc", RUN_CONSTRAINTS, checked, PARAM_WHERE)
    out = audit.scores(metric, viewpoint, phi=phi, budget=budget)
    ranking = make_ranking(audit, out)
    if subgroups is not None:
        idx = [audit.subgroup_index(s) for s in subgroups]
    else:
        ranked = ranking.ranked().head(int(top))
        idx = [audit.subgroup_index(s) for s in ranked["subgroup"]]
    recs = tuple(csc_record(audit, s, out, ranking.label, ranking.title, show) for s in idx)
    return CSCResult(label=ranking.label, title=ranking.title, records=recs, curves=audit.curves())
