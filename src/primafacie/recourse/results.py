"""Result objects of a FACTS audit: ranked tables, cross-definition tables and analyses.

JSON encoding (``to_dict``): +inf scores/costs are the string ``"inf"``, NaN is ``None``, a
Fair subgroup has ``rank`` 0 in frames and ``None`` in dicts, ``bias_against`` ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from numbers import Real
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base import BaseResult, figure_axes, laid_out
from ..errors import InputError
from ..formats import rate_text
from ..jsonsafe import json_safe
from ..validation import Interval, validate_params
from .metrics import METRICS, MetricSpec

__all__ = [
    "RankingResult",
    "FactsResult",
    "FactsScope",
    "EffectivenessCurves",
    "make_ranking",
    "metric_label",
    "json_safe",
    "format_score",
    "format_param",
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


#: Fewer rejected members of a group in a subgroup than this earn a caveat (shares in steps
#: larger than 10%).
SMALL_GROUP = 10

_SHARE = {"share": [Interval(Real, 0, 1, closed="right")]}


def _label_key(label: str) -> str:
    """A subgroup label with its ``feature=value`` items sorted (labels match in any order)."""
    return "; ".join(sorted(part.strip() for part in str(label).split(";")))


def _n(count: int, noun: str) -> str:
    """``1 subgroup``, ``3 subgroups``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def format_param(x: float) -> str:
    """A definition's φ or budget as its title writes it: 2 decimals at most (``0.7``, ``5.08``)."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def metric_label(key: str, viewpoint: str, param: float | None) -> str:
    """Column label used in the paper's appendix tables (``Ma.3``, ``C.7``, ``B10``, ``KS``):
    the metric's ``short`` stem (``Mi``/``Ma`` for ECE), ``Ma`` after it for the metric's
    unusual viewpoint, then φ as ``.3`` or the budget.

    Examples
    --------
    >>> metric_label("ECE", "macro", 0.3), metric_label("EEWB", "micro", 5.0833)
    ('Ma.3', 'B5.08')
    """
    spec = METRICS[key]
    if key == "ECE":
        stem = spec.short + ("i" if viewpoint == "micro" else "a")
    else:
        stem = spec.short + ("" if viewpoint == spec.default_viewpoint else "Ma")
    if spec.param == "phi":  # φ = 0.3 as .3
        return stem + (f"{param:.2f}".rstrip("0").lstrip("0") or "0")
    return stem + (format_param(param) if spec.param == "budget" else "")


def metric_title(spec: MetricSpec, viewpoint: str, param: float | None) -> str:
    """Definition name as printed in a CSC, e.g. ``Equal Cost of Effectiveness (threshold = 0.7)``."""
    # the viewpoint is named when it is not the metric's usual one
    usual = viewpoint == spec.default_viewpoint
    title = spec.name + ("" if usual else f" ({viewpoint.title()})")
    word = {"phi": "threshold", "budget": "budget"}.get(spec.param or "")
    return title + (f" ({word} = {format_param(param)})" if word else "")


@dataclass(frozen=True)
class RankingResult(BaseResult):
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

    #: :meth:`to_dict` (see the module docstring for the inf/NaN encoding).
    dict_keys: ClassVar[tuple[str, ...]] = (
        "metric", "viewpoint", "param", "label", "title", "groups", "summary=_summary_row",
        "rows=_rows",
    )  # fmt: skip

    @property
    def _summary_row(self) -> dict[str, Any]:
        return self.summary().iloc[0].to_dict()

    def definition(self) -> dict[str, Any]:
        """``metric``, ``viewpoint`` and ``phi``/``budget``: this ranking's definition as
        :meth:`RecourseFairness.rank` and :meth:`~RecourseFairness.csc` take it.

        >>> t = pd.DataFrame(columns=["rank", "score", "bias_against", "subgroup"])
        >>> RankingResult("ECE", "micro", 0.7, "Mi.7", "ECE", ("a", "b"), t).definition()
        {'metric': 'ECE', 'viewpoint': 'micro', 'phi': 0.7}
        """
        out: dict[str, Any] = {"metric": self.metric, "viewpoint": self.viewpoint}
        name = getattr(METRICS.get(self.metric), "param", None)  # "phi", "budget" or None
        return {**out, name: self.param} if name else out

    def ranked(self) -> pd.DataFrame:
        """Only the non-Fair rows."""
        return self.table[self.table["rank"] > 0].copy()

    def rank1_count(self) -> int:
        """Number of subgroups tied at rank 1."""
        return int((self.table["rank"] == 1).sum())

    def summary(self, share: float = 0.1) -> pd.DataFrame:
        """One-row summary: subgroups, Fair count, rank-1 ties and top-share bias tallies.

        The tally columns are ``top{100·share}_against[group]`` (``top10_…`` by default).
        """
        validate_params("RankingResult.summary", _SHARE, {"share": share})
        row = {
            "metric": self.label,
            "definition": self.title,
            "subgroups": len(self.table),
            "fair": int((self.table["rank"] == 0).sum()),
            "rank1": self.rank1_count(),
        }
        ranked = self.ranked()  # bias tallies among the first ⌊share·(non-Fair count)⌋
        top = ranked["bias_against"].iloc[: math.floor(share * len(ranked))]
        row |= {f"top{100 * share:g}_against[{g}]": int((top == g).sum()) for g in self.groups}
        return pd.DataFrame([row])

    def headline(self) -> str:
        """One sentence: how many subgroups differ and the most unfair one.

        Examples
        --------
        >>> t = pd.DataFrame({"rank": [1, 0], "score": [2.0, 0.0], "bias_against": ["b", None],
        ...                   "subgroup": ["x=lo", "x=mid"]})
        >>> RankingResult("ECE", "macro", 0.5, "Ma.5", "ECE", ("a", "b"), t).headline()
        "ECE: 1 of 2 subgroups differ between groups; first 'x=lo', against b (score 2)"
        """
        ranked = self.ranked()
        head = f"{self.title}: {len(ranked)} of {len(self.table)} subgroups differ between groups"
        if not len(ranked):
            return head + " (every subgroup is Fair)"
        top, ties = ranked.iloc[0], self.rank1_count()
        score = format_score(float(top["score"])).replace("inf", "∞")
        tie = f", tied with {ties - 1} other(s)" if ties > 1 else ""
        return (
            f"{head}; first '{top['subgroup']}', against {top['bias_against']} (score {score}{tie})"
        )

    def scope(self) -> str:
        """Which subgroups were ranked, with the denominator."""
        fair = int((self.table["rank"] == 0).sum())
        return (
            f"{len(self.table)} subgroups scored under {self.title} "
            f"({self.viewpoint} viewpoint); {fair} Fair (score 0, no rank), "
            f"{len(self.table) - fair} ranked"
        )

    def caveats(self) -> list[str]:
        """What a reader should keep in mind about this ranking."""
        out = []
        ties = self.rank1_count()
        if ties > 1:
            out.append(f"{ties} subgroups tie at rank 1 under {self.title}.")
        n_inf = int(np.isinf(self.table["score"].to_numpy(dtype=float)).sum())
        if n_inf:
            out.append(
                f"{n_inf} subgroup(s) score ∞: one group has no action meeting the definition, "
                "so the score says 'out of reach', not how far."
            )
        return out

    @property
    def _rows(self) -> list[dict[str, Any]]:
        # a Fair subgroup (rank 0) has no rank
        return [{**r, "rank": int(r["rank"]) or None} for r in self.table.to_dict(orient="records")]

    def plot(self, top: int = 20):
        """Horizontal bar chart of the top scores (inf drawn at 1.1 × the largest finite)."""
        ranked = self.ranked().head(top)
        fig, ax = figure_axes(figsize=(8, max(2.0, 0.35 * len(ranked) + 1)))
        scores = ranked["score"].to_numpy(dtype=float)
        finite = scores[np.isfinite(scores)]
        cap = (finite.max() if finite.size else 1.0) * 1.1
        shown = np.where(np.isinf(scores), cap, scores)
        ax.barh(range(len(ranked)), shown, color="tab:red")
        ax.set_yticks(range(len(ranked)), [s[:60] for s in ranked["subgroup"]], fontsize=7)
        ax.invert_yaxis()
        ax.set(xlabel="unfairness score (inf drawn as the longest bar)", title=self.title)
        return laid_out(fig)


def make_ranking(audit: Any, out: Mapping[str, Any]) -> RankingResult:
    """Build a :class:`RankingResult` from :meth:`RecourseFairness.scores` output."""
    spec, vp, param = out["spec"], out["viewpoint"], out["param"]
    groups = tuple(str(g) for g in audit.groups_)
    n = audit.table_.n
    data: dict[str, Any] = {
        "rank": out["rank"],
        "score": out["score"],
        "bias_against": [groups[a] if a >= 0 else None for a in out["against"]],
        "subgroup": audit.subgroup_labels(),
    }
    for i, g in enumerate(groups):
        data[f"n[{g}]"] = n[:, i]
        data[f"cov[{g}]"] = n[:, i] / audit.n_affected_[i]
    data.update({f"d[{g}]": out["d"][:, i] for i, g in enumerate(groups)})
    if spec.key == "FECT" and len(groups) == 2:
        from .metrics import ks_critical_value

        # two-sample KS test at α = 0.05 on the subgroup's two protected groups
        data["ks_critical[0.05]"] = ks_critical_value(n[:, 0], n[:, 1], 0.05)
        data["ks_reject[0.05]"] = out["score"] >= data["ks_critical[0.05]"]
    frame = pd.DataFrame(data)
    key = np.where(frame["rank"] == 0, np.iinfo(np.int64).max, frame["rank"])
    frame = frame.assign(_k=key).sort_values(["_k", "subgroup"], kind="stable", ignore_index=True)
    return RankingResult(
        metric=spec.key,
        viewpoint=vp,
        param=None if param is None else float(param),
        label=metric_label(spec.key, vp, param),
        title=metric_title(spec, vp, param),
        groups=groups,
        table=frame.drop(columns="_k"),
    )


@dataclass(frozen=True)
class FactsScope:
    """Who a FACTS audit covered, with the denominators (built by :meth:`RecourseFairness.evaluate`).

    Attributes
    ----------
    protected, groups
        The audited attribute and its groups (in the audit's order).
    protected_values
        The groups the data names as protected (empty when fitted on a plain table).
    rows, dropped_rows
        Rows audited; rows left out because their protected value is missing or unknown.
    rejected, accepted
        Per group: rows with the unfavourable (affected) and favourable decision.
    in_subgroups
        Per group: rejected rows that belong to at least one audited subgroup.
    support
        Minimum support: a subgroup holds at least this share of *every* group's rejected rows.
    common_subgroups, subgroups
        Subgroups frequent in every group; of them, those with a feasible action (audited).
    no_recourse
        Per group: audited subgroups in which no action helps any member of that group.
    smallest
        Per group: the fewest rejected members the group has in an audited subgroup.
    definitions
        Labels of the definitions scored.
    auto_budgets, legacy, exact_features
        How the EEWB budgets were chosen and which conventions were used.
    """

    protected: str
    groups: tuple[str, ...]
    protected_values: tuple[str, ...]
    rows: int
    dropped_rows: int
    rejected: tuple[int, ...]
    accepted: tuple[int, ...]
    in_subgroups: tuple[int, ...]
    support: float
    common_subgroups: int
    subgroups: int
    no_recourse: tuple[int, ...]
    smallest: tuple[int, ...]
    definitions: tuple[str, ...]
    auto_budgets: bool = True
    legacy: bool = False
    exact_features: bool = True

    def to_frame(self) -> pd.DataFrame:
        """One row per group: rejected, accepted, rejected in a subgroup (count and share) and
        audited subgroups where the group has no recourse."""
        rejected = np.asarray(self.rejected, dtype=np.int64)
        inside = np.asarray(self.in_subgroups, dtype=np.int64)
        return pd.DataFrame(
            {
                "group": list(self.groups),
                "protected": [g in self.protected_values for g in self.groups],
                "rejected": rejected,
                "accepted": np.asarray(self.accepted, dtype=np.int64),
                "rejected_in_subgroups": inside,
                "share_in_subgroups": inside / np.maximum(rejected, 1),
                "subgroups_without_recourse": np.asarray(self.no_recourse, dtype=np.int64),
                "subgroups": self.subgroups,
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field."""
        return json_safe({k: getattr(self, k) for k in self.__dataclass_fields__})


@dataclass(frozen=True)
class EffectivenessCurves:
    """Micro cumulative effectiveness (ecd) of every audited subgroup and group.

    For subgroup ``s`` and group ``g``: the share of g's rejected members of s whose cheapest
    effective action costs at most ``c``, as a step function of ``c`` (FACTS Fig. 1b). Built
    from the fitted table at evaluate time; arrays are read-only.

    Attributes
    ----------
    subgroups, groups
        Subgroup labels (``a=x; b=y``) and group labels.
    n
        (S, K) rejected members of each group in each subgroup.
    starts, cost, cum
        The actions of subgroup ``s`` are ``starts[s]:starts[s+1]``, with their cost and, per
        group, how many members have recourse at cost ≤ that action's cost.
    """

    subgroups: tuple[str, ...]
    groups: tuple[str, ...]
    n: np.ndarray = field(repr=False)
    starts: np.ndarray = field(repr=False)
    cost: np.ndarray = field(repr=False)
    cum: np.ndarray = field(repr=False)

    def index(self, subgroup: str | int) -> int:
        """Position of a subgroup given by label (items in any order) or index."""
        if isinstance(subgroup, (int, np.integer)) and not isinstance(subgroup, bool):
            if not 0 <= int(subgroup) < len(self.subgroups):
                raise InputError(
                    f"subgroup index {subgroup} out of range (0..{len(self.subgroups) - 1})"
                )
            return int(subgroup)
        key = _label_key(str(subgroup))
        if key not in self._keys:
            raise InputError(f"subgroup {subgroup!r} is not among the audited subgroups")
        return self._keys[key]

    @cached_property
    def _keys(self) -> dict[str, int]:
        return {_label_key(lab): i for i, lab in enumerate(self.subgroups)}

    def steps(self, subgroup: str | int, group: int) -> tuple[np.ndarray, np.ndarray]:
        """Distinct action costs (starting at 0) and the ecd of ``group`` at each."""
        s = self.index(subgroup)
        lo, hi = int(self.starts[s]), int(self.starts[s + 1])
        costs, first = np.unique(self.cost[lo:hi], return_index=True)
        values = self.cum[lo:hi, group][first] / self.n[s, group]
        return np.concatenate([[0.0], costs]), np.concatenate([[0.0], values])

    def frame(self, subgroup: str | int) -> pd.DataFrame:
        """Long table ``group, n, cost, effectiveness`` (one step per distinct cost and group)."""
        s = self.index(subgroup)
        steps = ((g, int(self.n[s, i]), *self.steps(s, i)) for i, g in enumerate(self.groups))
        parts = [pd.DataFrame({"group": g, "n": n, "cost": x, "effectiveness": y})
                 for g, n, x, y in steps]  # fmt: skip
        return pd.concat(parts, ignore_index=True)


@dataclass(frozen=True)
class FactsResult(BaseResult):
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
    audited
        Who was audited (:class:`FactsScope`), or ``None`` for a result built by hand.
    curves
        Effectiveness curves of every subgroup (:class:`EffectivenessCurves`), or ``None``.
    """

    groups: tuple[str, ...]
    protected: str
    rankings: dict[str, RankingResult] = field(repr=False)
    budgets: tuple[float, ...] = ()
    stats: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    audited: FactsScope | None = field(default=None, repr=False, compare=False)
    curves: EffectivenessCurves | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ words about the result
    def top_subgroups(self) -> pd.DataFrame:
        """Per definition with a ranked subgroup: its first subgroup, bias and score.

        Columns ``definition`` (label), ``title``, ``subgroup``, ``bias_against``, ``score``; in
        the order of :attr:`rankings`. Definitions where every subgroup is Fair are left out.
        """
        firsts = ((label, r.title, r.ranked()) for label, r in self.rankings.items())
        rows = [(label, title, str(top["subgroup"].iloc[0]), top["bias_against"].iloc[0],
                 float(top["score"].iloc[0])) for label, title, top in firsts if len(top)]  # fmt: skip
        return pd.DataFrame(
            rows, columns=["definition", "title", "subgroup", "bias_against", "score"]
        )

    def headline(self) -> str:
        """One sentence: in how many definitions the most unfair subgroup is biased against the
        protected group (or, without protected values, against each group), with an example.
        """
        top = self.top_subgroups()
        n_def = len(self.rankings)
        a = self.audited
        n_sub = a.subgroups if a else next((len(r.table) for r in self.rankings.values()), 0)
        pv = list(a.protected_values) if a else []
        if not len(top):
            return (
                f"no recourse definition finds a subgroup where recourse differs between the "
                f"groups of {self.protected} ({_n(n_def, 'definition')}; {_n(n_sub, 'subgroup')} "
                "audited)"
            )
        if pv:
            n_against = int(top["bias_against"].isin(pv).sum())
            head = (
                f"{n_against} of {n_def} recourse definitions rank first a subgroup biased "
                f"against the protected group ({', '.join(pv)}) of {self.protected}"
            )
        else:
            counts = ", ".join(f"{g}: {int((top['bias_against'] == g).sum())}"
                               for g in self.groups)  # fmt: skip
            head = (
                f"{len(top)} of {n_def} recourse definitions rank first a subgroup where "
                f"recourse is harder for one group of {self.protected} (against {counts})"
            )
        label, _, subgroup, against, score = top.iloc[0]
        said = f"score {score:.3g}"
        if math.isinf(score):  # out of reach: how far the best action gets
            said = "score ∞: " + self.unreachable_text(label, subgroup, against)
        ties = self.rankings[label].rank1_count()
        tie = f"; {ties} subgroups tie at rank 1 under {label}" if ties > 1 else ""
        return (
            f"{head}; {_n(n_sub, 'subgroup')} audited; e.g. {label}: "
            f"'{subgroup}' against {against} ({said}){tie}"
        )

    def unreachable_text(self, label: str, subgroup: str, group: Any) -> str:
        """What a score of ∞ means, from the effectiveness curves (issue 23: "out of reach"
        read as "no recourse" while 24% of the group obtained it).

        For ECE (the cost for φ of the group): no action reaches φ of the group's rejected
        members of the subgroup, and the best action's share with its count and cost; for
        another definition: no action meets it. Without curves for the subgroup, the
        definition's own words.

        Examples
        --------
        A result built by :func:`~primafacie.recourse.facts_audit` gives, e.g., "no action
        reaches φ = 30% of the rejected female of that subgroup; the most any action reaches
        is 24.0% (12 of 50), at cost 0.194".
        """
        ranking = self.rankings.get(label)
        if ranking is None or ranking.metric != "ECE" or ranking.param is None:
            return f"no action meets {label} for {group}"
        phi = float(ranking.param)
        text = f"no action reaches φ = {100 * phi:g}% of the rejected {group} of that subgroup"
        try:
            curve = self.effectiveness_curves(subgroup)
        except (InputError, KeyError, ValueError, IndexError):
            return text
        mine = curve[curve["group"].astype(str) == str(group)]
        if mine.empty:
            return text
        best = mine["effectiveness"].to_numpy(dtype=float)
        at = int(np.argmax(best))  # the first (cheapest) cost at which the best share holds
        n = int(mine["n"].iloc[at])
        k = int(round(best[at] * n))
        if k == 0:
            return text + "; no action gives any of them the favourable decision"
        cost = float(mine["cost"].iloc[at])
        return text + f"; the most any action reaches is {rate_text(k, n)}, at cost {cost:.3g}"

    def scope(self) -> str:
        """Who was audited, with denominators, and who was left out."""
        a = self.audited
        if a is None:
            return f"{self.protected} ({', '.join(self.groups)}); {len(self.rankings)} definitions"
        rejected = ", ".join(f"{n} {g}" for g, n in zip(a.groups, a.rejected, strict=True))
        counts = zip(a.groups, a.in_subgroups, a.rejected, strict=True)
        inside = ", ".join(f"{rate_text(k, n)} {g}" for g, k, n in counts)
        text = f"rejected applicants by {a.protected}: {rejected} (of {a.rows} rows"
        if a.dropped_rows:
            text += f"; {_n(a.dropped_rows, 'row')} with a missing {a.protected} left out"
        text += (
            f"); {_n(a.subgroups, 'subgroup')} (support ≥ {a.support:g} of every group's rejected"
        )
        left = a.common_subgroups - a.subgroups
        if left:
            text += f"; {left} of {a.common_subgroups} without a feasible action left out"
        text += f") hold {inside} of the rejected; {len(a.definitions)} definitions"
        return text

    def scope_frame(self) -> pd.DataFrame:
        """Per group: rejected, accepted, rejected in a subgroup, subgroups without recourse."""
        if self.audited is None:
            raise InputError("this FactsResult carries no scope (built without an audit)")
        return self.audited.to_frame()

    def caveats(self) -> list[str]:
        """What a reader must keep in mind before acting on these rankings."""
        out = [
            "Actions change only the features they name (FACTS is not causal): a change of "
            "one feature does not move the features it would influence in the world."
        ]
        a = self.audited
        if a is not None:
            counts = zip(a.groups, a.in_subgroups, a.rejected, strict=True)
            outside = [f"{n - k} {g}" for g, k, n in counts if n > k]
            if outside:
                out.append(
                    f"Rejected applicants in no audited subgroup ({', '.join(outside)}) are not "
                    "covered by any ranking."
                )
            if a.common_subgroups > a.subgroups:
                out.append(
                    f"{a.common_subgroups - a.subgroups} frequent subgroup(s) have no feasible "
                    "action and are not ranked."
                )
            if a.dropped_rows:
                out.append(f"{a.dropped_rows} row(s) with a missing {a.protected} were left out.")
            unreached = [f"{k} for {g}" for g, k in zip(a.groups, a.no_recourse, strict=True) if k]
            if unreached:
                out.append(
                    "Subgroups where no action helps any rejected member of a group: "
                    f"{', '.join(unreached)} (of {a.subgroups}). Where another group has "
                    "recourse the score is ∞ under ECE and E(C)MR; where no group has any, the "
                    "subgroup is Fair."
                )
            small = min(a.smallest, default=0)
            if 0 < small < SMALL_GROUP:
                out.append(
                    f"Some subgroups hold as few as {small} rejected member(s) of one group: "
                    f"there an effectiveness share moves in steps of 1/{small} "
                    f"({100 / small:.1f}%); read small subgroups with care."
                )
            if a.auto_budgets and any(r.metric == "EEWB" for r in self.rankings.values()):
                out.append(
                    "EEWB budgets were chosen from the data (30/60/90th percentiles of the "
                    "finite micro ECE at φ = 0.5), not set by policy."
                )
            if a.legacy:
                out.append("Legacy mode: FECT follows the reference code's index-by-index lists.")
        if any(r.metric == "FECT" for r in self.rankings.values()) and len(self.groups) == 2:
            out.append(
                "The KS test of FECT (ks_reject[0.05]) is per subgroup at α = 0.05, not "
                "corrected for testing many subgroups."
            )
        ties = [lab for lab, r in self.rankings.items() if r.rank1_count() > 1]
        if ties:
            out.append(f"Several subgroups tie at rank 1 under {', '.join(ties)}.")
        return out

    def effectiveness_curves(self, subgroup: str | int) -> pd.DataFrame:
        """Cumulative effectiveness of one subgroup, per group: ``group, n, cost, effectiveness``.

        ``effectiveness`` is the share of the group's rejected members of the subgroup who
        obtain the favourable decision with an action costing at most ``cost`` (a step
        function: each row holds until the next cost). Subgroup by label (any item order) or
        index.
        """
        if self.curves is None:
            raise InputError("this FactsResult carries no effectiveness curves")
        return self.curves.frame(subgroup)

    def plot_cumulative(self, subgroup: str | int):
        """Step plot of :meth:`effectiveness_curves` (FACTS Fig. 1b)."""
        from .plots import plot_curves

        frame = self.effectiveness_curves(subgroup)
        return plot_curves(frame, self.curves.subgroups[self.curves.index(subgroup)])

    def to_frame(self) -> pd.DataFrame:
        """Long table: metric, viewpoint, param, rank, score, bias_against, subgroup (ranked rows)."""
        cols = ["metric", "viewpoint", "param", "rank", "score", "bias_against", "subgroup"]
        parts = [r.ranked().assign(metric=r.metric, viewpoint=r.viewpoint, param=r.param)[cols]
                 for r in self.rankings.values()]  # fmt: skip
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)

    def ranking_analysis(self, share: float = 0.1) -> pd.DataFrame:
        """Rank-1 tie counts and top-share bias tallies per definition (Tables 15, 17, …)."""
        if not self.rankings:
            return pd.DataFrame(columns=["metric", "definition", "subgroups", "fair", "rank1"])
        return pd.concat([r.summary(share) for r in self.rankings.values()], ignore_index=True)

    def cross_table(self, subgroups: Sequence[str]) -> pd.DataFrame:
        """Table 1 layout: rows = definitions; per subgroup its rank, bias and score."""
        rows = []
        for lab, r in self.rankings.items():
            key = {_label_key(s): i for i, s in enumerate(r.table["subgroup"])}
            row: dict[str, Any] = {"definition": r.title, "label": lab}
            for j, sg in enumerate(subgroups, start=1):
                k = _label_key(sg)
                if k not in key:
                    raise InputError(f"subgroup {sg!r} is not among the audited subgroups")
                rec = r.table.iloc[key[k]]
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
        aligned = {lab: r.table.set_index("subgroup")["rank"] for lab, r in self.rankings.items()}
        out = pd.DataFrame(index=labels, columns=labels, dtype=float)
        for i in labels:
            top = aligned[i].index[aligned[i].to_numpy() == 1]
            for j in labels:
                if i == j or len(top) == 0:
                    continue
                last = int(aligned[j].max()) + 1  # where a Fair subgroup counts
                ranks = aligned[j].loc[top].to_numpy()
                mean = float(np.where(ranks == 0, last, ranks).mean())
                out.loc[i, j] = round(round(mean, 1) / last, 3)
        return out

    _summary = ranking_analysis  # summary(): the ranking analysis at share 0.1, cached

    def stats_frame(self, timings: bool = False) -> pd.DataFrame:
        """statistic,value table: Table 12 statistics and budgets.

        ``timings=True`` adds the stage seconds (``seconds[...]``); they vary run to run, so
        files written by the CLI and the reproductions leave them out (byte-identical outputs).
        """
        rows = list(self.stats.items())
        rows += [(f"budget[{i}]", b) for i, b in enumerate(self.budgets)]
        if timings:
            rows += [(f"seconds[{k}]", round(v, 3)) for k, v in self.timings.items()]
        return pd.DataFrame(rows, columns=["statistic", "value"])

    def numbers(self) -> dict[str, Any]:
        """The numbers of ``results.json``: the protected attribute, the statistics and each
        definition's first-ranked subgroup."""
        return {
            "protected": self.protected,
            "stats": json_safe(self.stats),
            "top_by_definition": json_safe(self.top_subgroups().to_dict(orient="records")),
        }

    #: :meth:`to_dict`'s keys (``timings`` goes after ``stats`` when asked for).
    dict_keys: ClassVar[tuple[str, ...]] = (
        "protected", "groups", "budgets", "stats", "scope=audited?", "ranking_analysis",
        "aggregated_rankings=_aggregated",
    )  # fmt: skip

    def _aggregated(self) -> dict[str, dict[str, Any]]:
        return self.aggregated_rankings().to_dict(orient="index")

    def to_dict(self, timings: bool = False) -> dict[str, Any]:
        """JSON-safe dict: statistics, budgets, ranking analysis and aggregated rankings.

        ``timings=True`` adds the stage seconds (left out by default: they vary run to run).
        """
        return self._record((*self.dict_keys[:4], *("timings",) * timings, *self.dict_keys[4:]))

    def plot(self):
        """Heat map of the aggregated rankings (0 = agree, 1 = top subgroups look fair)."""
        agg = self.aggregated_rankings()
        fig, ax = figure_axes(figsize=(7, 6))
        im = ax.imshow(agg.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis")
        ax.set_xticks(range(len(agg.columns)), agg.columns, rotation=90)
        ax.set_yticks(range(len(agg.index)), agg.index)
        ax.set_title("Aggregated rankings (row: rank-1 of metric, column: re-ranked)")
        fig.colorbar(im, ax=ax)
        return laid_out(fig)
