"""Rank stability of the FACTS top subgroups: a seeded bootstrap of the audited rows.

FACTS ranks hundreds of subgroups; a reader must know whether the top of a ranking is a finding
or an accident of the sample. Each resample draws the audited rows with replacement (a
multinomial weight per row, ``bincount`` of ``n`` uniform row indices) and re-ranks every
subgroup under each definition; a top subgroup is *stable* when it stays in the top 10 in most
resamples.

Re-use of the fit
-----------------
The expensive part of FACTS is mining and the model calls behind the flip matrix (which action
flips which member). A bootstrap of rows changes neither who a row is nor what an action does
to it, only how many times each row counts. Every number of the
:class:`~.metrics.RecourseTable` is a sum over members, so a resample is a *weighted* sum over
the flip matrices kept by the fit (bit-packed, ``RecourseFairness.flips_``):

* ``n[s, g]`` = Σ w over the group's members, ``eff[a, g]`` = Σ w · flip(a, x) (one matrix
  product for all resamples of a block);
* each member's recourse cost (cheapest flipping action) is fixed, so ``n_rec``, ``rc_sum`` and
  the micro ``cum`` are weighted counts of members by recourse cost (a cumulative sum of
  weights in cost order, looked up with ``searchsorted``).

The scores and ranks are then those of :meth:`RecourseFairness.rank`, computed by the same metric
functions (a test checks they agree on the fitted table). No model call and no mining is
repeated; a test compares the result with a slow reference that refits FACTS on each resample.

What it conditions on
---------------------
The subgroups and actions are those mined on the full data: a resample changes their members'
weights, not which itemsets are frequent or which actions exist, so the bootstrap measures the
sampling variability of the ranking *given* the subgroups and actions, and understates the
variability of mining itself. A subgroup that loses every member of one group in a resample
cannot be scored there (its share is 0/0): it counts as "absent", not in the top.

"In the top 10" in a resample means a competition rank ≤ 10 (one plus the number of subgroups
with a strictly higher score), so a tie straddling the 10th place counts as in; the original
top subgroups are the first 10 rows of the ranking (non-Fair, by rank then label).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ..base import BaseResult, figure_axes, laid_out
from ..errors import InputError
from ..report.html import readable_bins
from ..validation import Interval, validate_params
from .metrics import RecourseTable, definition_rank, definition_scores, resolve_metric
from .params import PARAM_WHERE

__all__ = [
    "DEFAULT_TOP",
    "STABLE_SHARE",
    "RankStabilityResult",
    "bootstrap_weights",
    "competition_rank",
    "rank_stability",
    "score_table",
    "weighted_tables",
]

#: "Stays in the top ``DEFAULT_TOP``".
DEFAULT_TOP = 10

#: A top subgroup is called stable when it stays in the top in at least this share of resamples.
STABLE_SHARE = 0.9

#: Largest number of (resample × pair × group) counts held at once (~32 MB per array).
MAX_BLOCK = 4_000_000

_CONSTRAINTS: dict[str, list[Any]] = {
    "n_boot": [Interval(Integral, 1, None)],
    "seed": [Interval(Integral, 0, None)],
    "top": [Interval(Integral, 1, None)],
}


# ---------------------------------------------------------------------------- resampling
def bootstrap_weights(
    n_rows: int, n_boot: int, seed: int = 0, block: int | None = None
) -> Iterator[np.ndarray]:
    """Multinomial bootstrap weights of ``n_rows`` rows, ``block`` resamples at a time.

    Resample b draws ``n_rows`` row indices uniformly with replacement; the weight of a row is
    how many times it was drawn (``bincount``). Blocks consume one generator in order, so the
    weights do not depend on ``block``.

    Parameters
    ----------
    n_rows
        Rows resampled.
    n_boot
        Resamples.
    seed
        Seed of ``numpy.random.default_rng``.
    block
        Resamples per yielded array (default: all).

    Yields
    ------
    numpy.ndarray
        (resamples in the block, n_rows) int64 weights; each row sums to ``n_rows``.

    Examples
    --------
    >>> w = np.concatenate(list(bootstrap_weights(5, 3, seed=1, block=2)))
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    """
    rng = np.random.default_rng(seed)
    block = n_boot if block is None else max(1, int(block))
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        idx = rng.integers(0, n_rows, size=(size, n_rows))
        flat = (idx + (np.arange(size) * n_rows)[:, None]).ravel()
        yield np.bincount(flat, minlength=size * n_rows).reshape(size, n_rows)


# ---------------------------------------------------------------------------- weighted tables
def _group_pieces(F, W, cost, need_seq):
    """Weighted numbers of one (subgroup, group) for every resample of a block.

    ``F`` (A, M) flips of the group's members, ``W`` (B, M) their weights, ``cost`` (A,).
    Returns ``n (B,), eff (B, A), cum (B, A), n_rec (B,), rc_sum (B,)`` and, when
    ``need_seq``, the legacy ``seq_order, seq_cum`` (B, A).
    """
    B, A = W.shape[0], F.shape[0]
    n = W.sum(axis=1)
    # float64 matmul goes through BLAS (numpy's integer matmul does not); sums of integer
    # weights below 2**53 are exact, so rint recovers the counts
    eff = np.rint(W.astype(np.float64) @ F.T.astype(np.float64)).astype(np.int64)
    # a member's recourse cost: its cheapest flipping action (the same in every resample)
    rc = np.where(F, cost[:, None], np.inf).min(axis=0) if F.size else np.empty(0)
    has = np.isfinite(rc)
    Wh, rch = W[:, has], rc[has]
    order = np.argsort(rch, kind="stable")
    cw = np.concatenate([np.zeros((B, 1), np.int64), np.cumsum(Wh[:, order], axis=1)], axis=1)
    cum = cw[:, np.searchsorted(rch[order], cost, side="right")]
    seq = None
    if need_seq:
        # the reference code's per-group order (cost, then effectiveness) moves with the
        # weights, so this legacy list is built per resample
        seq_order = np.zeros((B, A), np.int64)
        seq_cum = np.zeros((B, A), np.int64)
        Fh = F[:, has]
        for b in range(B):
            o = np.lexsort((eff[b], cost))
            first = np.argmax(Fh[o], axis=0)
            seq_order[b] = o
            seq_cum[b] = np.cumsum(np.bincount(first, weights=Wh[b], minlength=A)).astype(np.int64)
        seq = (seq_order, seq_cum)
    return n, eff, cum, Wh.sum(axis=1), Wh @ rch, seq


def weighted_tables(audit: Any, weights: np.ndarray, need_seq: bool = False) -> list[RecourseTable]:
    """The :class:`~.metrics.RecourseTable` of each resample, from the fitted flip matrices.

    Parameters
    ----------
    audit
        A fitted :class:`~.engine.RecourseFairness` (it keeps ``flips_``, ``members_``,
        ``affected_rows_`` and ``affected_groups_``).
    weights
        (B, rows of ``audit.frame_``) integer weights of the audited rows.
    need_seq
        Also rebuild the legacy per-group lists (``seq_order``, ``seq_cum``) used by
        ``legacy`` micro FECT.

    Returns
    -------
    list of RecourseTable
        One per resample; with all weights 1 it equals ``audit.table_`` (``rc_sum`` up to the
        order of a float sum).
    """
    t = audit.table_
    S, K = t.n.shape
    P, B = t.n_pairs, weights.shape[0]
    W = np.asarray(weights, dtype=np.int64)[:, audit.affected_rows_]
    n = np.zeros((B, S, K), np.int64)
    n_rec = np.zeros((B, S, K), np.int64)
    rc_sum = np.zeros((B, S, K))
    eff, cum = np.zeros((B, P, K), np.int64), np.zeros((B, P, K), np.int64)
    seq_order = np.broadcast_to(t.seq_order, (B, P, K)).copy()
    seq_cum = np.broadcast_to(t.seq_cum, (B, P, K)).copy()
    # one pass over subgroups, as the fit's micro pass; each step is vectorised over the
    # resamples, actions and members
    for q in range(S):
        mem = audit.members_[q]
        grp = audit.affected_groups_[mem]
        lo, hi = int(t.starts[q]), int(t.starts[q + 1])
        F = np.unpackbits(audit.flips_[q], axis=1, count=len(mem)).astype(bool)
        Wq = W[:, mem]
        for k in range(K):
            cols = grp == k
            nk, ek, ck, rk, sk, seq = _group_pieces(
                F[:, cols], Wq[:, cols], t.cost[lo:hi], need_seq
            )
            n[:, q, k], eff[:, lo:hi, k], cum[:, lo:hi, k] = nk, ek, ck
            n_rec[:, q, k], rc_sum[:, q, k] = rk, sk
            if seq is not None:
                seq_order[:, lo:hi, k] = seq[0] + lo
                seq_cum[:, lo:hi, k] = seq[1]
    return [
        replace(
            t,
            n=n[b],
            eff=eff[b],
            cum=cum[b],
            n_rec=n_rec[b],
            rc_sum=rc_sum[b],
            seq_order=seq_order[b],
            seq_cum=seq_cum[b],
        )  # fmt: skip
        for b in range(B)
    ]


# ---------------------------------------------------------------------------- scoring
def score_table(
    table: RecourseTable, metric: str, viewpoint: str, param: float | None, legacy: bool = False
) -> np.ndarray:
    """Dense rank (1 = most unfair, 0 = Fair) of every subgroup of ``table`` under a definition.

    The same scores and tie rules as :meth:`RecourseFairness.scores` / ``rank`` (exact fractions
    for shares and counts, a relative tolerance for costs).

    Parameters
    ----------
    table
        A recourse table (fitted or re-weighted).
    metric, viewpoint, param
        The definition (``param``: φ or the budget; None for EE, ECMR, FECT).
    legacy
        The reference code's micro FECT lists.

    Returns
    -------
    numpy.ndarray
        (S,) int64 dense ranks.
    """
    spec, vp = resolve_metric(metric, viewpoint)
    with np.errstate(divide="ignore", invalid="ignore"):
        score, _, d = definition_scores(table, spec, vp, param, legacy)
        return definition_rank(spec.key, d, score, table.n)


def competition_rank(dense: np.ndarray) -> np.ndarray:
    """Competition rank (1 + number of strictly better subgroups) from dense ranks; 0 stays 0.

    Examples
    --------
    >>> competition_rank(np.array([1, 2, 2, 0, 3])).tolist()
    [1, 2, 2, 0, 4]
    """
    dense = np.asarray(dense, dtype=np.int64)
    cnt = np.bincount(dense, minlength=int(dense.max(initial=0)) + 1)
    cnt[0] = 0
    before = np.cumsum(cnt) - cnt
    return np.where(dense > 0, before[dense] + 1, 0)


# ---------------------------------------------------------------------------- result
@dataclass(frozen=True)
class RankStabilityResult(BaseResult):
    """How often each top subgroup of each definition stays in the top over bootstrap resamples.

    Attributes
    ----------
    table
        One row per (definition, original top subgroup): ``definition`` (label), ``title``,
        ``rank`` (its dense rank on the data, as in the ranking), ``competition_rank`` (1 +
        the number of subgroups scoring strictly higher on the data, the scale of the
        resample ranks), ``subgroup``, ``bias_against``, ``in_top``
        (share of resamples with competition rank ≤ ``top``), ``median_rank``, ``rank_q05``,
        ``rank_q95`` (competition rank over the resamples where it is ranked), ``fair_share``
        (resamples where it scores 0) and ``absent_share`` (resamples where one group has no
        member of it).
    n_boot, seed, top
        Resamples, their seed and the size of the top.
    n_rows
        Rows resampled (the audited rows).
    """

    table: pd.DataFrame = field(repr=False)
    n_boot: int
    seed: int
    top: int
    n_rows: int

    #: :meth:`to_dict` (NaN → None, inf → "inf").
    dict_keys: ClassVar[tuple[str, ...]] = ("n_boot", "seed", "top", "n_rows", "summary",
                                            "rows=table")  # fmt: skip

    def summary(self) -> pd.DataFrame:
        """One row per definition: top subgroups, how many are stable, the least stable share."""
        g = self.table.groupby("definition", sort=False)
        return pd.DataFrame(
            {
                "definition": list(g.groups),
                "top_subgroups": g.size().to_numpy(),
                f"stable (in_top >= {STABLE_SHARE:g})": g["in_top"]
                .apply(lambda s: int((s >= STABLE_SHARE).sum()))
                .to_numpy(),
                "min_in_top": g["in_top"].min().to_numpy(),
                "mean_in_top": g["in_top"].mean().to_numpy(),
            }
        )

    def headline(self) -> str:
        """One sentence on the first definition's top subgroups.

        Examples
        --------
        >>> t = pd.DataFrame({"definition": ["EE"] * 2, "title": ["EE"] * 2, "rank": [1, 2],
        ...                   "subgroup": ["x=a", "x=b"], "in_top": [1.0, 0.4]})
        >>> RankStabilityResult(t, n_boot=50, seed=0, top=10, n_rows=200).headline()
        "Rank stability (50 bootstrap resamples of 200 rows): 1 of the 2 top subgroups under EE stay in the top 10 in at least 90% of resamples; least stable 'x=b' (40%)"
        """
        head = f"Rank stability ({self.n_boot} bootstrap resamples of {self.n_rows} rows)"
        if not len(self.table):
            return head + ": no subgroup is ranked under any definition"
        first = self.table[self.table["definition"] == self.table["definition"].iloc[0]]
        stable = int((first["in_top"] >= STABLE_SHARE).sum())
        worst = first.loc[first["in_top"].idxmin()]
        return (
            f"{head}: {stable} of the {len(first)} top subgroups under {first['title'].iloc[0]} "
            f"stay in the top {self.top} in at least {100 * STABLE_SHARE:.0f}% of resamples; "
            f"least stable '{worst['subgroup']}' ({100 * worst['in_top']:.0f}%)"
        )

    def scope(self) -> str:
        """What was resampled and which subgroups are followed."""
        n_def = self.table["definition"].nunique()
        return (
            f"{self.n_boot} resamples (seed {self.seed}) of the {self.n_rows} audited rows, drawn "
            f"with replacement; the first {self.top} ranked subgroups of each of {n_def} "
            f"definition(s), {len(self.table)} (definition, subgroup) pairs"
        )

    def caveats(self) -> list[str]:
        """What limits the reading of the shares."""
        out = [
            "subgroups and actions are those mined on the full data; the bootstrap re-weights "
            "their members, so it does not include the variability of mining itself",
            f"with {self.n_boot} resamples a share is known to about "
            f"±{100 / (2 * np.sqrt(self.n_boot)):.0f} points (one Monte Carlo standard error "
            "at most; a 95% interval is about twice that)",
        ]
        cut = self.table.get("tied_not_followed", pd.Series(0, index=self.table.index)) > 0
        for label, rows in self.table[cut].groupby("definition", sort=False):
            n, rank = int(rows["tied_not_followed"].iloc[0]), rows["rank"].iloc[-1]
            out.append(
                f"{label}: the top {self.top} cuts through a tie: {n} more subgroup(s) share rank "
                f"{rank} with the last one followed; those followed are the first by label, so "
                "'stays in the top' is about them, not about the tie"
            )
        absent = self.table[self.table.get("absent_share", pd.Series(dtype=float)) > 0]
        if len(absent):
            out.append(
                f"{len(absent)} top subgroup(s) lose every member of a group in some resamples "
                "(counted as out of the top): they are small"
            )
        return out

    def plot(self, definition: str | None = None):
        """Horizontal bars: share of resamples each top subgroup stays in the top (one
        definition, the first by default). Returns the matplotlib Figure."""
        label = definition or (self.table["definition"].iloc[0] if len(self.table) else None)
        rows = self.table[self.table["definition"] == label]
        fig, ax = figure_axes(figsize=(7, max(2.0, 0.35 * len(rows) + 1)))
        ax.barh(range(len(rows)), rows["in_top"], color="tab:blue")
        ax.axvline(STABLE_SHARE, color="0.5", ls="--", lw=0.8)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([f"#{r}: {readable_bins(s)[:50]}" for r, s in zip(rows["rank"], rows["subgroup"],
                                                                strict=True)], fontsize=7)  # fmt: skip
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel(f"share of {self.n_boot} resamples in the top {self.top}")
        ax.set_title(f"Rank stability: {rows['title'].iloc[0] if len(rows) else ''}")
        return laid_out(fig)


# ---------------------------------------------------------------------------- driver
# over 80 lines only through its numpy-style docstring; the body is under 50
def rank_stability(
    audit: Any,
    rankings: Mapping[str, Any] | Any,
    n_boot: int,
    seed: int = 0,
    top: int = DEFAULT_TOP,
    weights: np.ndarray | None = None,
) -> RankStabilityResult:
    """Share of bootstrap resamples in which each top subgroup stays in the top ``top``.

    Parameters
    ----------
    audit
        The fitted :class:`~.engine.RecourseFairness` whose rankings are followed.
    rankings
        ``{label: RankingResult}`` or a :class:`~.results.FactsResult` (its rankings).
    n_boot
        Resamples (>= 1).
    seed
        Seed of the resampling.
    top
        Size of the top.
    weights
        Explicit (B, rows) weights instead of drawing them (tests; ``n_boot`` is then B).

    Returns
    -------
    RankStabilityResult

    Examples
    --------
    >>> import pandas as pd
    >>> from primafacie.decisions import Rule
    >>> from primafacie.recourse import RecourseFairness
    >>> df = pd.DataFrame({"g": ["a", "b"] * 100, "x": ["lo", "hi", "lo", "lo"] * 50,
    ...                    "y": ["u", "v", "v", "u", "u"] * 40})
    >>> audit = RecourseFairness(Rule("(x == 'hi') and (g == 'b')"), protected="g", support=0.1)
    >>> res = audit.run(df, phi=0.5, metrics=["EE"])
    >>> stab = rank_stability(audit, res, n_boot=20, seed=0)
    >>> stab.to_frame()["subgroup"].tolist(), stab.to_frame()["in_top"].tolist()
    (['x=lo', 'x=lo; y=u', 'x=lo; y=v'], [1.0, 1.0, 1.0])
    """
    rankings = getattr(rankings, "rankings", rankings)
    if weights is not None:
        weights = np.asarray(weights)
        n_boot = int(weights.shape[0])
    validate_params("rank_stability", _CONSTRAINTS, {"n_boot": n_boot, "seed": seed,
                                                      "top": top}, PARAM_WHERE)  # fmt: skip
    if not hasattr(audit, "flips_"):
        raise InputError(
            "rank_stability needs a RecourseFairness fitted by this version (fit first)"
        )
    n_rows = len(audit.frame_)
    if weights is not None and weights.shape[1] != n_rows:
        raise InputError(f"weights must have {n_rows} columns (audited rows); got {weights.shape}")
    labels = {s: i for i, s in enumerate(audit.subgroup_labels())}
    plan = []  # (label, ranking, indices of its top subgroups)
    for label, r in rankings.items():
        head = r.ranked().head(top)
        if not len(head):  # every subgroup Fair: nothing to follow
            continue
        plan.append((label, r, head, np.array([labels[s] for s in head["subgroup"]], np.int64)))
    need_seq = bool(audit.legacy) and any(r.metric == "FECT" and r.viewpoint == "micro"
                                          for _, r, _, _ in plan)  # fmt: skip
    t = audit.table_
    block = max(1, MAX_BLOCK // max(1, t.n_pairs * t.n.shape[1]))
    blocks = (
        [weights[s : s + block] for s in range(0, n_boot, block)]
        if weights is not None
        else bootstrap_weights(n_rows, n_boot, seed, block)
    )
    comp = {label: [] for label, *_ in plan}  # competition ranks (B, top), -1 = absent
    for w in blocks:
        for table in weighted_tables(audit, w, need_seq):
            absent = (table.n == 0).any(axis=1)
            # an absent subgroup (0/0 shares) is scored on n = 1 only to keep the arrays
            # finite, then made Fair so it pushes no other subgroup down the ranking
            safe = replace(table, n=np.maximum(table.n, 1)) if absent.any() else table
            for label, r, _, idx in plan:
                dense = score_table(safe, r.metric, r.viewpoint, r.param, audit.legacy)
                c = competition_rank(np.where(absent, 0, dense))
                comp[label].append(np.where(absent, -1, c)[idx])
    return RankStabilityResult(
        table=_stability_frame(plan, comp, top),
        n_boot=int(n_boot),
        seed=int(seed),
        top=int(top),
        n_rows=int(n_rows),
    )


def _stability_frame(plan: Sequence[tuple], comp: Mapping[str, list], top: int) -> pd.DataFrame:
    """Per (definition, top subgroup): shares in the top, Fair, absent, and rank quantiles."""
    parts = []
    for label, r, head, _ in plan:
        c = np.asarray(comp[label], dtype=float).reshape(-1, len(head))  # (B, n_top)
        # subgroups tied with the last one followed but not followed (the top cut a tie)
        last = head["rank"].iloc[-1]
        left = int((r.ranked()["rank"] == last).sum() - (head["rank"] == last).sum())
        ranked = np.where(c > 0, c, np.nan)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            # a subgroup never ranked in any resample has NaN quantiles ("All-NaN slice")
            warnings.simplefilter("ignore", RuntimeWarning)
            med = np.nanmedian(ranked, axis=0) if len(head) else np.empty(0)
            q05 = np.nanpercentile(ranked, 5, axis=0) if len(head) else np.empty(0)
            q95 = np.nanpercentile(ranked, 95, axis=0) if len(head) else np.empty(0)
        parts.append(
            pd.DataFrame(
                {
                    "definition": label,
                    "title": r.title,
                    "rank": head["rank"].to_numpy(),
                    "competition_rank": competition_rank(r.table["rank"].to_numpy())[
                        head.index.to_numpy()
                    ],
                    "subgroup": head["subgroup"].to_numpy(),
                    "bias_against": head["bias_against"].to_numpy(),
                    "in_top": ((c > 0) & (c <= top)).mean(axis=0),
                    "median_rank": med,
                    "rank_q05": q05,
                    "rank_q95": q95,
                    "fair_share": (c == 0).mean(axis=0),
                    "absent_share": (c < 0).mean(axis=0),
                    "tied_not_followed": left,
                }
            )
        )
    cols = ["definition", "title", "rank", "competition_rank", "subgroup", "bias_against", "in_top", "median_rank",
            "rank_q05", "rank_q95", "fair_share", "absent_share", "tied_not_followed"]  # fmt: skip
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
