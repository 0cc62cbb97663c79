"""Result objects of a FACTS audit: ranked tables, cross-definition tables and analyses.

JSON encoding (``to_dict``): +inf scores/costs are the string ``"inf"``, NaN is ``None``, a
Fair subgroup has ``rank`` 0 in frames and ``None`` in dicts, ``bias_against`` ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..jsonsafe import json_safe

__all__ = [
    "RankingResult",
    "FactsResult",
    "make_ranking",
    "metric_label",
    "json_safe",
    "format_score",
]


def format_score(x: float) -> str:
    """``inf``, an integer without decimals, else 3 significant decimals (paper style).

    Examples
    --------
    >>> format_score(float("inf")), format_score(6.0), format_score(0.11111)
    ('inf', '6', '0.111')
    """
    if math.isinf(x):
        return "inf"
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.3f}".rstrip("0").rstrip(".")


def _fmt_param(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def metric_label(key: str, viewpoint: str, param: float | None) -> str:
    """Column label used in the paper's appendix tables (``Ma.3``, ``C.7``, ``B10``, ``KS``).

    Examples
    --------
    >>> metric_label("ECE", "macro", 0.3), metric_label("EEWB", "micro", 5.0833)
    ('Ma.3', 'B5.08')
    """

    def phi_txt(p: float) -> str:
        return f"{p:.2f}".rstrip("0").lstrip("0") or "0"

    if key == "ECE":
        return ("Ma" if viewpoint == "macro" else "Mi") + phi_txt(param)
    if key == "ECR":
        return "C" + phi_txt(param)
    if key == "EEWB":
        return ("B" if viewpoint == "micro" else "BMa") + _fmt_param(param)
    if key == "EE":
        return "EE" if viewpoint == "micro" else "EEMa"
    if key == "FECT":
        return "KS" if viewpoint == "micro" else "KSMa"
    return "MR"


def metric_title(
    key: str, name: str, viewpoint: str, param: float | None, spec_param: str | None
) -> str:
    """Definition name as printed in a CSC, e.g. ``Equal Cost of Effectiveness (threshold = 0.7)``."""
    title = name
    if key == "ECE" and viewpoint == "micro":
        title += " (Micro)"
    if key in ("EE", "EEWB", "FECT") and viewpoint == "macro":
        title += " (Macro)"
    if spec_param == "phi":
        title += f" (threshold = {_fmt_param(param)})"
    elif spec_param == "budget":
        title += f" (budget = {_fmt_param(param)})"
    return title


@dataclass(frozen=True)
class RankingResult:
    """All subgroups under one definition, ranked.

    Attributes
    ----------
    metric, viewpoint, param, label, title
        The definition (``label`` as in the paper's tables, e.g. ``Ma.7``).
    groups
        Protected group labels.
    table
        One row per subgroup sorted by rank (Fair last): rank (0 = Fair), score, bias_against,
        subgroup, then ``n[g]``, ``cov[g]`` (share of the group's affected rows) and ``d[g]``
        (the group's difficulty: effectiveness, count or cost; FECT: ecd at the arg-max, plus
        the two-sample KS critical value and test decision at α = 0.05).
    """

    metric: str
    viewpoint: str
    param: float | None
    label: str
    title: str
    groups: tuple[str, ...]
    table: pd.DataFrame = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """Copy of the ranked table."""
        return self.table.copy()

    def ranked(self) -> pd.DataFrame:
        """Only the non-Fair rows."""
        return self.table[self.table["rank"] > 0].copy()

    def rank1_count(self) -> int:
        """Number of subgroups tied at rank 1."""
        return int((self.table["rank"] == 1).sum())

    def top_bias_counts(self, share: float = 0.1) -> dict[str, int]:
        """Bias tallies among the first ⌊share·(non-Fair count)⌋ ranked subgroups."""
        ranked = self.ranked()
        k = int(math.floor(share * len(ranked)))
        top = ranked.iloc[:k]
        return {g: int((top["bias_against"] == g).sum()) for g in self.groups}

    def summary(self, share: float = 0.1) -> pd.DataFrame:
        """One-row summary: subgroups, Fair count, rank-1 ties and top-share bias tallies.

        The tally columns are ``top{100·share}_against[group]`` (``top10_…`` by default).
        """
        if not 0 < share <= 1:
            raise InputError(f"share must be in (0, 1], got {share!r}")
        row = {
            "metric": self.label,
            "definition": self.title,
            "subgroups": len(self.table),
            "fair": int((self.table["rank"] == 0).sum()),
            "rank1": self.rank1_count(),
        }
        for g, c in self.top_bias_counts(share).items():
            row[f"top{100 * share:g}_against[{g}]"] = c
        return pd.DataFrame([row])

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (see module docstring for the inf/NaN encoding)."""
        rows = self.table.to_dict(orient="records")
        for r in rows:
            r["rank"] = None if r["rank"] == 0 else int(r["rank"])
        return json_safe(
            {
                "metric": self.metric,
                "viewpoint": self.viewpoint,
                "param": self.param,
                "label": self.label,
                "title": self.title,
                "groups": list(self.groups),
                "summary": self.summary().iloc[0].to_dict(),
                "rows": rows,
            }
        )

    def plot(self, top: int = 20):
        """Horizontal bar chart of the top scores (inf drawn at 1.1 × the largest finite)."""
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        ranked = self.ranked().head(top)
        fig, ax = plt.subplots(figsize=(8, max(2.0, 0.35 * len(ranked) + 1)))
        scores = ranked["score"].to_numpy(dtype=float)
        finite = scores[np.isfinite(scores)]
        cap = (finite.max() if finite.size else 1.0) * 1.1
        shown = np.where(np.isinf(scores), cap, scores)
        ax.barh(range(len(ranked)), shown, color="tab:red")
        ax.set_yticks(range(len(ranked)))
        ax.set_yticklabels([s[:60] for s in ranked["subgroup"]], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("unfairness score (inf drawn as the longest bar)")
        ax.set_title(self.title)
        fig.tight_layout()
        return fig


def make_ranking(audit: Any, out: Mapping[str, Any]) -> RankingResult:
    """Build a :class:`RankingResult` from :meth:`RecourseAudit.scores` output."""
    spec = out["spec"]
    vp = out["viewpoint"]
    param = out["param"]
    groups = tuple(str(g) for g in audit.groups_)
    labels = audit.subgroup_labels()
    n = audit.table_.n
    data: dict[str, Any] = {
        "rank": out["rank"],
        "score": out["score"],
        "bias_against": [groups[a] if a >= 0 else None for a in out["against"]],
        "subgroup": labels,
    }
    for i, g in enumerate(groups):
        data[f"n[{g}]"] = n[:, i]
        data[f"cov[{g}]"] = n[:, i] / audit.n_affected_[i]
    for i, g in enumerate(groups):
        data[f"d[{g}]"] = out["d"][:, i]
    if spec.key == "FECT" and len(groups) == 2:
        from .metrics import ks_critical_value

        # two-sample KS test at α = 0.05 on the subgroup's two protected groups
        data["ks_critical[0.05]"] = ks_critical_value(n[:, 0], n[:, 1], 0.05)
        data["ks_reject[0.05]"] = out["score"] >= data["ks_critical[0.05]"]
    frame = pd.DataFrame(data)
    key = np.where(frame["rank"] == 0, np.iinfo(np.int64).max, frame["rank"])
    frame = frame.assign(_k=key).sort_values(["_k", "subgroup"], kind="stable").drop(columns="_k")
    frame = frame.reset_index(drop=True)
    return RankingResult(
        metric=spec.key,
        viewpoint=vp,
        param=None if param is None else float(param),
        label=metric_label(spec.key, vp, param),
        title=metric_title(spec.key, spec.name, vp, param, spec.param),
        groups=groups,
        table=frame,
    )


@dataclass(frozen=True)
class FactsResult:
    """Every definition of the paper's tables for one audit.

    Attributes
    ----------
    groups, protected
        The compared groups and their attribute.
    rankings
        ``{label: RankingResult}`` in the paper's column order.
    budgets
        EEWB budgets used.
    stats
        Mining statistics (Table 12 layout) and counts.
    timings
        Seconds per stage.
    """

    groups: tuple[str, ...]
    protected: str
    rankings: dict[str, RankingResult] = field(repr=False)
    budgets: tuple[float, ...] = ()
    stats: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """Long table: metric, viewpoint, param, rank, score, bias_against, subgroup (ranked rows)."""
        parts = []
        for r in self.rankings.values():
            t = r.ranked()[["rank", "score", "bias_against", "subgroup"]]
            t.insert(0, "param", r.param)
            t.insert(0, "viewpoint", r.viewpoint)
            t.insert(0, "metric", r.metric)
            parts.append(t)
        if not parts:
            return pd.DataFrame(columns=["metric", "viewpoint", "param", "rank", "score",
                                         "bias_against", "subgroup"])  # fmt: skip
        return pd.concat(parts, ignore_index=True)

    def ranking_analysis(self, share: float = 0.1) -> pd.DataFrame:
        """Rank-1 tie counts and top-share bias tallies per definition (Tables 15, 17, …)."""
        return pd.concat([r.summary(share) for r in self.rankings.values()], ignore_index=True)

    def cross_table(self, subgroups: Sequence[str]) -> pd.DataFrame:
        """Table 1 layout: rows = definitions; per subgroup its rank, bias and score."""
        rows = []
        for lab, r in self.rankings.items():
            t = r.table
            key = {"; ".join(sorted(p.strip() for p in s.split(";"))): i
                   for i, s in enumerate(t["subgroup"])}  # fmt: skip
            row: dict[str, Any] = {"definition": r.title, "label": lab}
            for j, sg in enumerate(subgroups, start=1):
                k = "; ".join(sorted(p.strip() for p in sg.split(";")))
                if k not in key:
                    raise InputError(f"subgroup {sg!r} is not among the audited subgroups")
                rec = t.iloc[key[k]]
                fair = rec["rank"] == 0
                row[f"SG{j} rank"] = "Fair" if fair else int(rec["rank"])
                row[f"SG{j} bias"] = "-" if fair else rec["bias_against"]
                row[f"SG{j} score"] = format_score(float(rec["score"])) if not fair else "0"
            rows.append(row)
        return pd.DataFrame(rows)

    def aggregated_rankings(self) -> pd.DataFrame:
        """Cell (i, j): mean rank under j of metric i's rank-1 subgroups, over (max_rank_j + 1).

        A Fair subgroup counts as max_rank_j + 1. Rounded as the reference code does (mean to
        1 decimal, ratio to 3 decimals). Diagonal is NaN.
        """
        labels = list(self.rankings)
        aligned = {}
        for lab, r in self.rankings.items():
            aligned[lab] = r.table.set_index("subgroup")["rank"]
        out = pd.DataFrame(index=labels, columns=labels, dtype=float)
        for i in labels:
            top = aligned[i].index[aligned[i].to_numpy() == 1]
            for j in labels:
                if i == j or len(top) == 0:
                    continue
                rj = aligned[j]
                max_rank = int(rj.max())
                ranks = rj.loc[top].to_numpy()
                ranks = np.where(ranks == 0, max_rank + 1, ranks)
                out.loc[i, j] = round(round(float(ranks.mean()), 1) / (max_rank + 1), 3)
        return out

    def summary(self) -> pd.DataFrame:
        """Ranking analysis with the statistics attached as attributes."""
        return self.ranking_analysis()

    def stats_frame(self, timings: bool = False) -> pd.DataFrame:
        """statistic,value table: Table 12 statistics and budgets.

        ``timings=True`` adds the stage seconds (``seconds[...]``); they vary run to run, so
        files written by the CLI and the reproductions leave them out (byte-identical outputs).
        """
        rows = [(k, v) for k, v in self.stats.items()]
        rows += [(f"budget[{i}]", b) for i, b in enumerate(self.budgets)]
        if timings:
            rows += [(f"seconds[{k}]", round(v, 3)) for k, v in self.timings.items()]
        return pd.DataFrame(rows, columns=["statistic", "value"])

    def to_dict(self, timings: bool = False) -> dict[str, Any]:
        """JSON-safe dict: statistics, budgets, ranking analysis and aggregated rankings.

        ``timings=True`` adds the stage seconds (left out by default: they vary run to run).
        """
        agg = self.aggregated_rankings()
        return json_safe(
            {
                "protected": self.protected,
                "groups": list(self.groups),
                "budgets": list(self.budgets),
                "stats": self.stats,
                **({"timings": self.timings} if timings else {}),
                "ranking_analysis": self.ranking_analysis().to_dict(orient="records"),
                "aggregated_rankings": {
                    i: {j: agg.loc[i, j] for j in agg.columns} for i in agg.index
                },
            }
        )

    def plot(self):
        """Heat map of the aggregated rankings (0 = agree, 1 = top subgroups look fair)."""
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        agg = self.aggregated_rankings()
        fig, ax = plt.subplots(figsize=(7, 6))
        im = ax.imshow(agg.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis")
        ax.set_xticks(range(len(agg.columns)))
        ax.set_xticklabels(agg.columns, rotation=90)
        ax.set_yticks(range(len(agg.index)))
        ax.set_yticklabels(agg.index)
        ax.set_title("Aggregated rankings (row: rank-1 of metric, column: re-ranked)")
        fig.colorbar(im, ax=ax)
        fig.tight_layout()
        return fig
