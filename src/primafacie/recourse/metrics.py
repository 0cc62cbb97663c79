"""Effectiveness-cost distributions and the six FACTS fairness-of-recourse definitions.

Everything works on a :class:`RecourseTable`: per (subgroup, action) pair its cost and integer
flip counts per protected group, and per (subgroup, group) the micro ("cumulative") numbers
obtained from the flip bit-vectors (see :func:`micro_from_flips`). All definitions are
evaluated for every subgroup at once with segmented numpy reductions (pairs of one subgroup are
contiguous).

Semantics (FACTS paper §2–4 and the reference code):

* score = max_i d_i - min_i d_i (= |d_0 - d_1| for two groups); one d at +inf gives +inf; all
  at +inf gives NaN, which becomes 0, i.e. "Fair";
* a score of 0 is "Fair" and gets no rank; the others are dense-ranked by decreasing score
  (+inf first);
* bias is against the group with the worst d (lowest effectiveness / most choices missing,
  highest cost); for FECT the group with the lower ecd at the arg-max cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

__all__ = [
    "METRICS",
    "MetricSpec",
    "RecourseTable",
    "micro_from_flips",
    "difficulty",
    "unfairness",
    "fect",
    "definition_scores",
    "definition_rank",
    "COST_RTOL",
    "dense_rank",
    "exact_scores",
    "ks_critical_value",
    "auto_budgets",
    "conditional_mean_recourse",
    "micro_ecd",
    "macro_ecd",
    "ecd_inverse",
    "resolve_metric",
]


@dataclass(frozen=True)
class MetricSpec:
    """One definition: key, display name, allowed viewpoints, parameter name, direction."""

    key: str
    name: str
    viewpoints: tuple[str, ...]
    default_viewpoint: str
    param: str | None  # "phi", "budget" or None
    higher_is_better: bool
    short: str


METRICS: dict[str, MetricSpec] = {
    "EE": MetricSpec("EE", "Equal Effectiveness", ("micro", "macro"), "micro", None, True, "EE"),
    "ECR": MetricSpec("ECR", "Equal Choice for Recourse", ("macro",), "macro", "phi", True, "C"),
    "EEWB": MetricSpec(
        "EEWB",
        "Equal Effectiveness within Budget",
        ("micro", "macro"),
        "micro",
        "budget",
        True,
        "B",
    ),
    "ECE": MetricSpec(
        "ECE", "Equal Cost of Effectiveness", ("macro", "micro"), "macro", "phi", False, "M"
    ),
    "FECT": MetricSpec(
        "FECT", "Fair Effectiveness-Cost Trade-Off", ("micro", "macro"), "micro", None, False, "KS"
    ),
    "ECMR": MetricSpec(
        "ECMR", "Equal (Conditional) Mean Recourse", ("micro",), "micro", None, False, "MR"
    ),
}

_ALIASES = {
    "ee": "EE", "equal-effectiveness": "EE", "equal_effectiveness": "EE",
    "ecr": "ECR", "equal-choice-for-recourse": "ECR",
    "eewb": "EEWB", "equal-effectiveness-within-budget": "EEWB",
    "ece": "ECE", "equal-cost-of-effectiveness": "ECE",
    "fect": "FECT", "ks": "FECT", "fair-effectiveness-cost-trade-off": "FECT",
    "ecmr": "ECMR", "e(c)mr": "ECMR", "emr": "ECMR", "equal-mean-recourse": "ECMR",
    "mr": "ECMR",
}  # fmt: skip


def resolve_metric(metric: str, viewpoint: str | None = None) -> tuple[MetricSpec, str]:
    """Canonical metric and viewpoint; a clear error for unknown names or viewpoints.

    Examples
    --------
    >>> spec, vp = resolve_metric("ece")
    >>> spec.key, vp
    ('ECE', 'macro')
    """
    key = _ALIASES.get(str(metric).strip().lower(), str(metric).strip().upper())
    if key not in METRICS:
        raise InputError(f"unknown recourse metric {metric!r}; choose one of {', '.join(METRICS)}")
    spec = METRICS[key]
    vp = spec.default_viewpoint if viewpoint is None else str(viewpoint).lower()
    if vp not in spec.viewpoints:
        raise InputError(
            f"metric {spec.key} has no {vp!r} viewpoint; allowed: {', '.join(spec.viewpoints)}"
        )
    return spec, vp


@dataclass(frozen=True)
class RecourseTable:
    """Flip counts and micro numbers for every (subgroup, action, group).

    Attributes
    ----------
    groups : tuple
        Protected group labels (K).
    n : ndarray (S, K) int
        |G_{p,i}|.
    starts : ndarray (S + 1,) int
        Pairs of subgroup s are ``starts[s]:starts[s+1]`` (never empty).
    cost : ndarray (P,)
        cost(p, a).
    eff : ndarray (P, K) int
        Members of G_{p,i} flipped by action a alone.
    cum : ndarray (P, K) int
        Members of G_{p,i} whose recourse cost is <= cost(p, a) (micro ecd numerator).
    n_rec : ndarray (S, K) int
        Members with at least one effective action.
    rc_sum : ndarray (S, K) float
        Sum of recourse costs over members with recourse.
    seq_order : ndarray (P, K) int
        Position k of subgroup s in group i's (cost, eff_i) order -> pair index.
    seq_cum : ndarray (P, K) int
        Cumulative flips along that order (the reference code's list).
    """

    groups: tuple
    n: np.ndarray
    starts: np.ndarray
    cost: np.ndarray
    eff: np.ndarray
    cum: np.ndarray
    n_rec: np.ndarray
    rc_sum: np.ndarray
    seq_order: np.ndarray
    seq_cum: np.ndarray

    @property
    def n_subgroups(self) -> int:
        return int(self.n.shape[0])

    @property
    def n_pairs(self) -> int:
        return int(self.cost.shape[0])

    @property
    def pair_subgroup(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_subgroups), np.diff(self.starts))

    def pair_n(self) -> np.ndarray:
        return self.n[self.pair_subgroup]


# ---------------------------------------------------------------------------- per-subgroup pieces
def micro_from_flips(
    flips: np.ndarray, group_of_row: np.ndarray, n_groups: int, cost: np.ndarray
) -> dict[str, np.ndarray]:
    """Micro ("cumulative") numbers of one subgroup from its flip matrix, no model calls.

    Parameters
    ----------
    flips
        Boolean (A, G): action a flips member x.
    group_of_row
        Group index (0..K-1) of each member.
    n_groups
        K.
    cost
        (A,) cost of each action.

    Returns
    -------
    dict
        ``eff`` (A, K), ``cum`` (A, K), ``n_rec`` (K,), ``rc_sum`` (K,), ``seq_order`` (A, K)
        local action indices in each group's (cost, eff) order and ``seq_cum`` (A, K).

    Examples
    --------
    >>> f = np.array([[1, 0, 0, 1], [1, 1, 0, 0]], bool)
    >>> out = micro_from_flips(f, np.array([0, 0, 1, 1]), 2, np.array([2.0, 1.0]))
    >>> out["eff"].tolist(), out["cum"].tolist(), out["rc_sum"].tolist()
    ([[1, 1], [2, 0]], [[2, 1], [2, 0]], [2.0, 2.0])
    """
    A = flips.shape[0]
    eff = np.zeros((A, n_groups), dtype=np.int64)
    cum = np.zeros((A, n_groups), dtype=np.int64)
    n_rec = np.zeros(n_groups, dtype=np.int64)
    rc_sum = np.zeros(n_groups, dtype=float)
    seq_order = np.zeros((A, n_groups), dtype=np.int64)
    seq_cum = np.zeros((A, n_groups), dtype=np.int64)
    for i in range(n_groups):
        cols = group_of_row == i
        fi = flips[:, cols]
        e = fi.sum(axis=1)
        eff[:, i] = e
        order = np.lexsort((e, cost))  # by cost, then the group's own effectiveness
        fs = fi[order]
        has = fs.any(axis=0)
        first = np.argmax(fs, axis=0)[has]  # position of the first flipping action
        rc = cost[order][first]
        n_rec[i] = int(has.sum())
        rc_sum[i] = float(rc.sum())
        rc_sorted = np.sort(rc)
        cum[:, i] = np.searchsorted(rc_sorted, cost, side="right")
        seq_order[:, i] = order
        seq_cum[:, i] = np.cumsum(np.bincount(first, minlength=A))
    return {
        "eff": eff,
        "cum": cum,
        "n_rec": n_rec,
        "rc_sum": rc_sum,
        "seq_order": seq_order,
        "seq_cum": seq_cum,
    }


# ---------------------------------------------------------------------------- plain distributions
def micro_ecd(rc: np.ndarray, n: int, c: float) -> float:
    """ecd_micro(c): share of the n members whose recourse cost is <= c (inf = no recourse).

    Examples
    --------
    >>> micro_ecd(np.array([1, 2, 2, 2.5, 2.5]), 5, 2.0)
    0.6
    """
    return float(np.sum(np.asarray(rc) <= c)) / n if n else 0.0


def macro_ecd(cost: np.ndarray, eff_counts: np.ndarray, n: int, c: float) -> float:
    """ecd_macro(c): best single-action effectiveness among actions costing <= c.

    Examples
    --------
    >>> macro_ecd(np.array([1.0, 2.0]), np.array([1, 2]), 3, 1.5)
    0.3333333333333333
    """
    ok = np.asarray(cost) <= c
    return float(np.max(np.asarray(eff_counts)[ok])) / n if ok.any() and n else 0.0


def ecd_inverse(breaks: np.ndarray, values: np.ndarray, phi: float) -> float:
    """Generalised inverse min{c : ecd(c) >= phi} of a step ecd (inf if never reached).

    ``breaks`` are the costs at which the step function jumps to ``values``.

    Examples
    --------
    >>> ecd_inverse(np.array([1.0, 2.0, 6.0]), np.array([0.2, 0.8, 1.0]), 0.5)
    2.0
    >>> ecd_inverse(np.array([1.0]), np.array([0.2]), 0.5)
    inf
    """
    breaks = np.asarray(breaks, dtype=float)
    values = np.asarray(values, dtype=float)
    ok = values >= phi
    return float(breaks[ok].min()) if ok.any() else float("inf")


def conditional_mean_recourse(rc: np.ndarray) -> float:
    """Mean recourse cost over members that have recourse (+inf when none has).

    Examples
    --------
    >>> conditional_mean_recourse(np.array([1, 1, 1, 2, 6]))
    2.2
    """
    rc = np.asarray(rc, dtype=float)
    ok = np.isfinite(rc)
    return float(rc[ok].mean()) if ok.any() else float("inf")


# ---------------------------------------------------------------------------- all subgroups
def _seg(ufunc: np.ufunc, values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return ufunc.reduceat(values, starts[:-1], axis=0)


def difficulty(
    table: RecourseTable, metric: str, viewpoint: str | None = None, param: float | None = None
) -> np.ndarray:
    """d_i(p) of every subgroup and group, shape (S, K).

    Parameters
    ----------
    table
        The recourse table.
    metric
        ``EE``, ``ECR``, ``EEWB``, ``ECE`` or ``ECMR`` (FECT: use :func:`fect`).
    viewpoint
        ``micro`` or ``macro`` (default per metric: EE/EEWB micro, ECR/ECE macro, ECMR micro).
    param
        φ for ECR/ECE, the budget c for EEWB.

    Returns
    -------
    ndarray (S, K) float
        Effectiveness shares (EE, EEWB), counts (ECR), costs (ECE, ECMR; +inf when unreachable).
    """
    spec, vp = resolve_metric(metric, viewpoint)
    if spec.param is not None and param is None:
        raise InputError(f"metric {spec.key} needs its parameter ({spec.param})")
    n = table.n.astype(float)
    pn = table.pair_n().astype(float)
    starts = table.starts
    if spec.key == "EE":
        if vp == "micro":
            return table.n_rec / n
        return _seg(np.maximum, table.eff, starts) / n
    if spec.key == "ECR":
        ok = (table.eff / pn) >= param
        return _seg(np.add, ok.astype(np.int64), starts).astype(float)
    if spec.key == "EEWB":
        within = (table.cost <= param)[:, None]
        src = table.cum if vp == "micro" else table.eff
        return _seg(np.maximum, np.where(within, src, 0), starts) / n
    if spec.key == "ECE":
        src = table.cum if vp == "micro" else table.eff
        ok = (src / pn) >= param
        vals = np.where(ok, table.cost[:, None], np.inf)
        return _seg(np.minimum, vals, starts)
    if spec.key == "ECMR":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(table.n_rec > 0, table.rc_sum / np.maximum(table.n_rec, 1), np.inf)
    raise InputError("FECT has no per-group difficulty; use fect()")


def unfairness(d: np.ndarray, higher_is_better: bool) -> tuple[np.ndarray, np.ndarray]:
    """Score max - min over groups and the index of the worst group (-1 when Fair).

    Examples
    --------
    >>> s, a = unfairness(np.array([[np.inf, 3.0], [np.inf, np.inf], [2.0, 2.0]]), False)
    >>> s.tolist(), a.tolist()
    ([inf, 0.0, 0.0], [0, -1, -1])
    >>> unfairness(np.array([[0.6, 0.8]]), True)[1].tolist()
    [0]
    """
    d = np.asarray(d, dtype=float)
    with np.errstate(invalid="ignore"):
        score = d.max(axis=1) - d.min(axis=1)
    score = np.where(np.isnan(score), 0.0, score)
    worst = np.argmin(d, axis=1) if higher_is_better else np.argmax(d, axis=1)
    against = np.where(score > 0, worst, -1)
    return score, against


def _macro_ecd_at_breaks(table: RecourseTable) -> tuple[np.ndarray, np.ndarray]:
    """Macro ecd of every group at every pair's cost, and the pair order used."""
    sub = table.pair_subgroup
    order = np.lexsort((table.cost, sub))
    share = table.eff[order] / table.pair_n()[order]
    shift = 2.0 * sub[order][:, None]
    running = np.maximum.accumulate(share + shift, axis=0) - shift
    key_sub, key_cost = sub[order], table.cost[order]
    last = np.ones(len(order), dtype=bool)
    last[:-1] = (key_sub[1:] != key_sub[:-1]) | (key_cost[1:] != key_cost[:-1])
    run_end = np.flatnonzero(last)
    pos = np.searchsorted(run_end, np.arange(len(order)))
    values = np.empty_like(running)
    values[order] = running[run_end[pos]]
    return values, order


def fect(
    table: RecourseTable, viewpoint: str = "micro", legacy: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kolmogorov–Smirnov distance between the groups' ecds for every subgroup.

    Parameters
    ----------
    table
        The recourse table.
    viewpoint
        ``micro`` (cumulative ecd, the paper's tables) or ``macro``.
    legacy
        Micro only: compare each group's cumulative list index by index, each list sorted by
        (cost, that group's effectiveness), as the reference code does.

    Returns
    -------
    (score, against, ecd_at_max)
        score (S,), worst group index (-1 when 0) and (S, K) ecd of each group at the arg-max.
    """
    _, vp = resolve_metric("FECT", viewpoint)
    pn = table.pair_n().astype(float)
    if legacy:
        if vp != "micro":
            raise InputError("legacy FECT exists only for the micro viewpoint")
        values = table.seq_cum / pn
    elif vp == "micro":
        values = table.cum / pn
    else:
        values, _ = _macro_ecd_at_breaks(table)
    gap = values.max(axis=1) - values.min(axis=1)
    starts = table.starts
    score = _seg(np.maximum, gap, starts)
    sub = table.pair_subgroup
    hit = np.flatnonzero(gap == score[sub])
    _, first = np.unique(sub[hit], return_index=True)
    at = hit[first]
    ecd_at = values[at]
    against = np.where(score > 0, np.argmin(ecd_at, axis=1), -1)
    return score, against, ecd_at


def definition_scores(
    table: RecourseTable,
    spec: MetricSpec,
    viewpoint: str,
    param: float | None = None,
    legacy: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every subgroup's unfairness score under one definition (the engine's ranking and the
    bootstrap's re-ranking both score through here).

    Parameters
    ----------
    table
        The recourse table (fitted or re-weighted).
    spec, viewpoint
        The definition, as :func:`resolve_metric` returns it.
    param
        φ or the budget (None for EE, ECMR and FECT).
    legacy
        FECT only: the reference code's micro lists (see :func:`fect`).

    Returns
    -------
    (score, against, d)
        score (S,), the index of the group it is against (-1 when Fair) and the (S, K)
        per-group values it compares (for FECT, each group's ecd at the arg-max).
    """
    if spec.key == "FECT":
        return fect(table, viewpoint, legacy=legacy and viewpoint == "micro")
    d = difficulty(table, spec.key, viewpoint, param)
    score, against = unfairness(d, spec.higher_is_better)
    return score, against, d


def definition_rank(key: str, d: np.ndarray, score: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Dense rank (1 = most unfair, 0 = Fair) where equal scores share a rank: shares of
    counts (EE, EEWB, FECT) and counts (ECR) compared as exact fractions, costs (ECE, ECMR)
    within :data:`COST_RTOL` relative.

    Parameters
    ----------
    key
        The definition's key (``MetricSpec.key``).
    d, score
        As :func:`definition_scores` returns them.
    n
        (S, K) group sizes, the denominators of the shares.

    Returns
    -------
    numpy.ndarray
        (S,) int64 dense ranks.

    Examples
    --------
    >>> d = np.array([[25 / 28, 39 / 44], [32 / 33, 41 / 42], [0.5, 0.5]])
    >>> n = np.array([[28, 44], [33, 42], [2, 2]])
    >>> definition_rank("EE", d, d.max(axis=1) - d.min(axis=1), n).tolist()  # an exact tie
    [1, 1, 0]
    """
    if key in ("EE", "EEWB", "FECT"):
        return dense_rank(score, exact=exact_scores(d, n))
    if key == "ECR":
        return dense_rank(score, exact=exact_scores(d, np.ones_like(n)))
    return dense_rank(score, rtol=COST_RTOL)


def ks_critical_value(n0: np.ndarray, n1: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """FECT threshold: fair at level α when KS < sqrt(-ln(α/2) · (n0 + n1) / (2 n0 n1)).

    Examples
    --------
    >>> round(float(ks_critical_value(100, 100, 0.05)), 4)
    0.1921
    """
    n0 = np.asarray(n0, dtype=float)
    n1 = np.asarray(n1, dtype=float)
    return np.sqrt(-np.log(alpha / 2.0) * (n0 + n1) / (2.0 * n0 * n1))


#: Relative tolerance of a tie between cost-based scores (ECE, ECMR), which are differences of
#: float sums of feature costs rather than fractions of counts.
COST_RTOL = 1e-9


def exact_scores(d: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The score ``max_i d_i - min_i d_i`` of every subgroup as an exact fraction.

    Each ``d[s, i]`` is a share ``count / n[s, i]`` of integer counts (EE, EEWB, FECT; ECR
    counts with ``n = 1``); the counts are recovered as ``rint(d * n)`` and the score is
    ``(c_max * n_min - c_min * n_max) / (n_max * n_min)``, reduced by the gcd.

    Parameters
    ----------
    d
        (S, K) shares.
    n
        (S, K) their integer denominators (group sizes).

    Returns
    -------
    (numerator, denominator)
        int64 arrays (S,); the denominator is 0 where the score is not such a fraction (a
        non-finite share, an empty group, or a share that is not ``count / n``).

    Examples
    --------
    >>> d = np.array([[25 / 28, 39 / 44], [32 / 33, 41 / 42]])  # 25/28 - 39/44 = 41/42 - 32/33
    >>> n = np.array([[28, 44], [33, 42]])
    >>> num, den = exact_scores(d, n)
    >>> num.tolist(), den.tolist()
    ([1, 1], [154, 154])
    """
    d = np.asarray(d, dtype=float)
    n = np.asarray(n, dtype=np.int64)
    rows = np.arange(d.shape[0])
    with np.errstate(invalid="ignore"):
        counts = np.rint(d * n)
        ok = np.isfinite(d).all(axis=1) & (n > 0).all(axis=1)
        # a share recomputed from the recovered count must be the share given (float noise of
        # the caller's arithmetic is far below one count)
        ok &= (np.abs(d * n - counts) < 1e-3).all(axis=1)
    hi = np.argmax(np.where(np.isfinite(d), d, -np.inf), axis=1)
    lo = np.argmin(np.where(np.isfinite(d), d, np.inf), axis=1)
    c = np.where(np.isfinite(counts), counts, 0).astype(np.int64)
    num = c[rows, hi] * n[rows, lo] - c[rows, lo] * n[rows, hi]
    den = n[rows, hi] * n[rows, lo]
    num = np.where(ok, num, 0)
    den = np.where(ok, den, 0)
    g = np.gcd(num, den)
    g = np.where(g == 0, 1, g)
    return num // g, den // g


def dense_rank(
    score: np.ndarray,
    exact: tuple[np.ndarray, np.ndarray] | None = None,
    rtol: float = 0.0,
) -> np.ndarray:
    """Dense rank by decreasing score (+inf first); 0 for Fair (score 0 or NaN).

    Equal scores share a rank. Scores are differences of fractions, so float noise (~1e-16)
    could split two equal scores and shift every rank below by one; two remedies:

    * ``exact`` (``numerator, denominator`` from :func:`exact_scores`): where the denominator
      is positive, two scores tie exactly when their reduced fractions are equal, a score is
      Fair exactly when its numerator is 0, and the order is that of the fractions (exact for
      group sizes below 2**26; the other rows keep their float score);
    * ``rtol`` (for cost-based scores, which are not fractions of counts): sorted scores
      closer than ``rtol`` times their magnitude join the same rank (a chain rule).

    Parameters
    ----------
    score
        (S,) scores (NaN = Fair, +inf = recourse out of reach for one group).
    exact
        Optional exact fractions of the scores.
    rtol
        Relative tolerance of a tie when ``exact`` does not cover a score.

    Returns
    -------
    ndarray (S,) int64
        1 for the largest score, 0 for Fair.

    Examples
    --------
    >>> dense_rank(np.array([0.5, np.inf, 0.5, 0.0, 0.1])).tolist()
    [2, 1, 2, 0, 3]
    >>> s = np.array([25 / 28 - 39 / 44, 41 / 42 - 32 / 33, 0.5])  # both exactly 1/154
    >>> bool(s[0] == s[1])
    False
    >>> dense_rank(s).tolist()
    [2, 3, 1]
    >>> dense_rank(s, exact=(np.array([1, 1, 1]), np.array([154, 154, 2]))).tolist()
    [2, 2, 1]
    """
    score = np.nan_to_num(np.asarray(score, dtype=float), nan=0.0, posinf=np.inf)
    num = np.zeros(len(score), dtype=np.int64)
    den = np.zeros(len(score), dtype=np.int64)
    if exact is not None:
        num = np.asarray(exact[0], dtype=np.int64)
        den = np.asarray(exact[1], dtype=np.int64)
        has = den > 0
        # the value of the exact fraction: equal fractions give identical floats
        score = np.where(has, num / np.where(has, den, 1), score)
        score = np.where(has & (num == 0), 0.0, score)
    rank = np.zeros(len(score), dtype=np.int64)
    live = np.flatnonzero(score > 0)
    if live.size == 0:
        return rank
    order = live[np.lexsort((den[live], num[live], -score[live]))]
    v, nu, de = score[order], num[order], den[order]
    new = np.ones(len(order), dtype=bool)
    same_value = v[1:] == v[:-1]
    if rtol > 0:
        finite = np.isfinite(v[1:]) & np.isfinite(v[:-1])
        with np.errstate(invalid="ignore"):  # inf - inf where two scores are +inf
            close = np.abs(v[:-1] - v[1:]) <= rtol * np.maximum(np.abs(v[:-1]), np.abs(v[1:]))
        same_value |= finite & close & (de[1:] == 0) & (de[:-1] == 0)
    new[1:] = ~(same_value & (nu[1:] == nu[:-1]) & (de[1:] == de[:-1]))
    new[1:] &= ~(same_value & (de[1:] == 0) & (de[:-1] == 0))
    if exact is not None:
        new, order = _order_float_collisions(order, new, v, nu, de)
    rank[order] = np.cumsum(new)
    return rank


def _order_float_collisions(
    order: np.ndarray, new: np.ndarray, v: np.ndarray, nu: np.ndarray, de: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct fractions that round to the same float (only with huge denominators) are put
    in exact decreasing order with Python fractions; the loop runs over those few only."""
    from fractions import Fraction

    clash = np.flatnonzero((v[1:] == v[:-1]) & new[1:] & (de[1:] > 0) & (de[:-1] > 0))
    if clash.size == 0:
        return new, order
    order, new = order.copy(), new.copy()
    for value in np.unique(v[clash]):
        block = np.flatnonzero((v == value) & (de > 0))  # contiguous: v is sorted
        fr = [Fraction(int(nu[i]), int(de[i])) for i in block]
        perm = sorted(range(len(block)), key=lambda j: fr[j], reverse=True)
        order[block] = order[block][perm]
        fr = [fr[j] for j in perm]
        new[block[1:]] = [a != b for a, b in zip(fr[1:], fr[:-1], strict=True)]
    return new, order


def auto_budgets(
    table: RecourseTable, phi: float = 0.5, percentiles: Sequence[float] = (30, 60, 90)
) -> list[float]:
    """The paper's automatic budgets: percentiles of the finite micro ECE(φ) of all (p, i).

    Returns
    -------
    list of float
        Unique values of ``numpy.percentile`` (linear interpolation) at 30/60/90.
    """
    d = difficulty(table, "ECE", "micro", phi)
    finite = d[np.isfinite(d)]
    if finite.size == 0:
        return []
    values = np.percentile(finite, list(percentiles))
    return sorted({float(v) for v in values})
