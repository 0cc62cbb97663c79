"""``RecourseAudit``: FACTS end to end (mining, actions, effectiveness, micro pass, scoring).

Pipeline (FACTS §3, reference-code conventions where the paper is silent):

1. ŷ = model(X); affected D = rows with the unfavourable decision, unaffected U = the rest.
2. Frequent itemsets of D_i (each protected group, protected column removed) and of U.
3. Subgroups = itemsets frequent in every D_i (hash intersection).
4. Actions of subgroup p = unaffected itemsets over p's features with a changed value that pass
   the feasibility rules; subgroups without actions are dropped.
5. One batched ``predict`` covers all (member, action) pairs of many subgroups at once (chunks
   of ``chunk_rows`` rows); the flip bit-vectors give both the per-action (macro) counts and
   the cumulative (micro) numbers, with no further model call.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..data import AuditData, to_pandas
from ..decisions import as_decider, predict_binary
from ..errors import InputError
from ..validation import validate_params
from .actions import ActionIndex, Feasibility, candidate_actions
from .costs import CostModel, FeatureCost, delta_matrix
from .items import ItemSpace, apply_bins, common_itemsets, frequent_itemsets, unpack_bits
from .metrics import (
    COST_RTOL,
    RecourseTable,
    auto_budgets,
    dense_rank,
    difficulty,
    exact_scores,
    fect,
    micro_from_flips,
    resolve_metric,
    unfairness,
)
from .params import PARAM_WHERE, PARAMETER_CONSTRAINTS, RUN_CONSTRAINTS, SCORE_PARAM

if TYPE_CHECKING:  # results imports nothing from here at run time; keep it that way
    from .results import EffectivenessCurves, FactsScope

__all__ = ["RecourseAudit", "DEFAULT_MISSING", "ProgressCallback", "STAGES"]

DEFAULT_MISSING = ("Unknown", "unknown", "?", "N/A", "NA", "")


#: ``progress(stage, done, total)``: called as each stage advances (see :meth:`RecourseAudit.fit`).
ProgressCallback = Callable[[str, int, int], None]

#: What each progress stage does, in words (the CLI's bars and the audit's notes).
STAGES = {
    "mining": "FACTS: frequent itemsets (groups, unaffected)",
    "actions": "FACTS: valid actions (subgroups)",
    "effectiveness": "FACTS: testing actions (subgroups)",
    "scoring": "FACTS: scoring definitions",
    "csc": "FACTS: counterfactual summaries",
}


def _noop(stage: str, done: int, total: int) -> None:
    return None


def _names(obj: Any) -> list[str]:
    if obj is None:
        return []
    if isinstance(obj, str):
        return [obj]
    return [str(x) for x in obj]


def _floats(obj: Any) -> list[float]:
    """One number or a list of numbers as a list of floats (``phi=0.5`` or ``phi=[0.3, 0.7]``)."""
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [float(x) for x in obj]
    return [float(obj)]


class _PredictionCache:
    """Sorted key -> decision store for modified rows (exact: keys are packed codes)."""

    def __init__(self, space: ItemSpace, frame: pd.DataFrame, decoders: Mapping[str, Any]) -> None:
        widths = [max(1, int(np.ceil(np.log2(max(2, len(v)))))) for v in space.values]
        self.shifts = np.concatenate([[0], np.cumsum(widths)[:-1]]).astype(np.uint64)
        total = int(sum(widths))
        # Raw (unmined or binned) inputs vary within a code pattern: key on the row id too.
        self.with_row = any(c not in decoders for c in frame.columns)
        row_bits = int(np.ceil(np.log2(max(2, len(frame))))) if self.with_row else 0
        self.ok = total + row_bits <= 63
        self.row_shift = np.uint64(total)
        self.store_keys = np.empty(0, dtype=np.uint64)
        self.store_vals = np.empty(0, dtype=bool)
        self.col_mask = np.array(
            [((1 << w) - 1) << int(sh) for w, sh in zip(widths, self.shifts, strict=False)],
            dtype=np.uint64,
        )
        if self.ok:
            self.base = self.keys(np.arange(len(frame)), space.codes)

    def action_bits(self, cols: np.ndarray, then: np.ndarray) -> tuple[np.uint64, np.ndarray]:
        """Mask of a subgroup's columns and the packed target codes of each of its actions."""
        mask = np.bitwise_or.reduce(self.col_mask[cols])
        bits = np.zeros(len(then), dtype=np.uint64)
        for j, col in enumerate(cols):
            bits |= then[:, j].astype(np.uint64) << self.shifts[col]
        return mask, bits

    def keys(self, rows: np.ndarray, codes: np.ndarray) -> np.ndarray:
        key = np.zeros(len(rows), dtype=np.uint64)
        for j in range(codes.shape[1]):
            key |= codes[:, j].astype(np.uint64) << self.shifts[j]
        if self.with_row:
            key |= rows.astype(np.uint64) << self.row_shift
        return key

    def lookup(self, uniq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values = np.zeros(len(uniq), dtype=bool)
        if len(self.store_keys) == 0:
            return np.zeros(len(uniq), dtype=bool), values
        pos = np.searchsorted(self.store_keys, uniq)
        pos = np.minimum(pos, len(self.store_keys) - 1)
        known = self.store_keys[pos] == uniq
        values[known] = self.store_vals[pos[known]]
        return known, values

    def empty(self) -> _PredictionCache:
        """The same key layout with nothing stored (what one remote chunk task starts from)."""
        out = copy.copy(self)
        out.store_keys = np.empty(0, dtype=np.uint64)
        out.store_vals = np.empty(0, dtype=bool)
        return out

    def add(self, keys: np.ndarray, vals: np.ndarray) -> None:
        allk = np.concatenate([self.store_keys, keys])
        allv = np.concatenate([self.store_vals, vals])
        order = np.argsort(allk, kind="stable")
        self.store_keys, self.store_vals = allk[order], allv[order]


@dataclass(frozen=True)
class _ChunkContext:
    """What every predict chunk of :meth:`RecourseAudit._effectiveness` reads (never written)."""

    frame: pd.DataFrame
    space: ItemSpace
    sub_items: Sequence[tuple[int, ...]]
    sub_then: Sequence[np.ndarray]
    members: Sequence[np.ndarray]
    decoders: Mapping[str, Any]
    raw_cols: Mapping[str, np.ndarray]
    bin_cols: Mapping[str, int]
    cache: _PredictionCache


def _remote_chunk_flips(
    shared: tuple[RecourseAudit, _ChunkContext], units: Sequence[tuple[int, int, int]]
) -> tuple[np.ndarray, np.ndarray | int]:
    """One chunk of :meth:`RecourseAudit._effectiveness` as a backend task: the flips and the
    sorted keys of the rows it predicted (or their count when rows are not keyed)."""
    audit, ctx = shared
    ctx = replace(ctx, cache=ctx.cache.empty())
    flips, n_new = audit._chunk_flips(units, ctx)
    return flips, (ctx.cache.store_keys if ctx.cache.ok else n_new)


class _TableBuilder:
    """Fills the :class:`RecourseTable` arrays one finished subgroup at a time (micro pass)."""

    def __init__(self, groups: tuple, sub_cost: Sequence[np.ndarray], n_act: np.ndarray) -> None:
        n_sub, K = len(sub_cost), len(groups)
        self.groups = groups
        self.sub_cost = sub_cost
        self.starts = np.concatenate([[0], np.cumsum(n_act)])
        P = int(self.starts[-1])
        self.cost = np.concatenate(sub_cost)
        self.n = np.zeros((n_sub, K), dtype=np.int64)
        self.eff = np.zeros((P, K), np.int64)
        self.cum = np.zeros((P, K), np.int64)
        self.seq_order = np.zeros((P, K), np.int64)
        self.seq_cum = np.zeros((P, K), np.int64)
        self.n_rec = np.zeros((n_sub, K), np.int64)
        self.rc_sum = np.zeros((n_sub, K), float)
        # each subgroup's flip matrix, bit-packed (pairs / 8 bytes): the rank-stability
        # bootstrap (:mod:`.stability`) re-weights members without calling the model again
        self.packed: list[np.ndarray] = [np.zeros((0, 0), np.uint8)] * n_sub

    def add(self, q: int, flips: np.ndarray, group_of_member: np.ndarray) -> None:
        """Store subgroup ``q`` from its (actions × members) flip matrix."""
        K = len(self.groups)
        self.n[q] = np.bincount(group_of_member, minlength=K)
        out = micro_from_flips(flips, group_of_member, K, self.sub_cost[q])
        sl = slice(int(self.starts[q]), int(self.starts[q + 1]))
        self.eff[sl] = out["eff"]
        self.cum[sl] = out["cum"]
        self.seq_order[sl] = out["seq_order"] + self.starts[q]
        self.seq_cum[sl] = out["seq_cum"]
        self.n_rec[q] = out["n_rec"]
        self.rc_sum[q] = out["rc_sum"]
        self.packed[q] = np.packbits(np.asarray(flips, dtype=bool), axis=1)

    def table(self) -> RecourseTable:
        return RecourseTable(
            groups=self.groups, n=self.n, starts=self.starts, cost=self.cost, eff=self.eff,
            cum=self.cum, n_rec=self.n_rec, rc_sum=self.rc_sum, seq_order=self.seq_order,
            seq_cum=self.seq_cum,
        )  # fmt: skip


class RecourseAudit:
    """Subgroup fairness of recourse (FACTS, Kavouras et al. NeurIPS 2023).

    Parameters
    ----------
    model
        Fitted estimator with ``predict`` (1 = favourable, see ``favorable``), a
        :class:`~primafacie.decisions.Rule`, a rule string, or a callable ``f(DataFrame)``
        returning 0/1. It is called only through ``predict`` on tables with the audit data's
        columns (categorical columns are passed as pandas ``Categorical``).
    protected
        Protected attribute whose groups are compared (every distinct value is a group; more
        than two groups use max − min). With :class:`AuditData` the default is its only
        protected attribute.
    support
        Minimum support in (0, 1] for the frequent itemsets (subgroups and actions).
    feature_weights
        ``{feature: weight}`` (default weight 1).
    immutable
        Features that may never change. ``None``: every protected attribute (the audited one
        and any other protected attribute of :class:`AuditData`). The audited attribute is
        always immutable.
    monotone
        Features that may not decrease (compared in their order).
    max_step
        ``{feature: k}``: an increase by more than k ranks (numeric: value units) is infeasible.
    bins
        ``{numeric feature: q or [edges]}``: mine quantile/fixed bins instead of raw values;
        an action moves a member's value linearly from the subgroup's bin to the target bin.
    binary_cost
        Features whose change costs its weight whatever the distance (e.g. binned age).
    features
        For a DataFrame: ``{column: kind}`` of the mined columns (default: every column but
        the protected one; numeric dtype -> numeric, ordered categorical -> ordinal,
        else categorical).
    missing_values
        Values meaning "missing/unknown": never the target of an action.
    exact_features
        True (default): actions over exactly the subgroup's features; False: any subset.
    normalize
        Range-normalise numeric changes (True for all, or a list of the features to normalise).
    favorable
        Label of the estimator's favourable class.
    max_len
        Longest itemset (None = unlimited).
    legacy
        Reproduce the reference code's FECT (index-by-index lists).
    method
        Itemset miner: ``"bitset"`` (default) or ``"mlxtend"``.
    chunk_rows
        (member, action) rows per batched ``predict`` call; a subgroup with more rows than this
        is split into blocks of its actions, so a batch holds at most ``max(chunk_rows, size of
        the largest subgroup)`` rows (a block has at least one action for all its members).
    backend
        :mod:`primafacie.compute` backend the predict chunks are mapped over (``None``: this
        thread; ``Backend(n_jobs=2)``; ``"dask"`` or ``Backend("dask", address=...)``), with
        the model scattered once per worker. Results are identical on every backend.

    Notes
    -----
    One verb: :meth:`run` fits and scores every definition, returning a :class:`FactsResult`
    (rankings, headline, scope, caveats, effectiveness curves). The advanced path is
    :meth:`fit`, then :meth:`rank` / :meth:`evaluate` / :meth:`csc` on the fitted audit.
    Parameters are stored as given and checked at ``fit``/``run`` against
    :attr:`_parameter_constraints` (:mod:`primafacie.recourse.params`).

    Examples
    --------
    Parameters are stored as given; :meth:`run` and :meth:`fit` show an audit end to end.

    >>> from primafacie.decisions import Rule
    >>> audit = RecourseAudit(Rule("x == 'hi'"), protected="g", support=0.1)
    >>> audit.support, audit.method, hasattr(audit, "table_")
    (0.1, 'bitset', False)
    """

    _parameter_constraints = PARAMETER_CONSTRAINTS

    def __init__(
        self,
        model: Any,
        protected: str | None = None,
        support: float = 0.01,
        feature_weights: Mapping[str, float] | None = None,
        immutable: Sequence[str] | None = None,
        monotone: Sequence[str] | None = None,
        max_step: Mapping[str, float] | None = None,
        bins: Mapping[str, Any] | None = None,
        binary_cost: Sequence[str] | None = None,
        features: Mapping[str, Any] | None = None,
        missing_values: Sequence[Any] = DEFAULT_MISSING,
        exact_features: bool = True,
        normalize: bool | Sequence[str] = True,
        favorable: Any = 1,
        max_len: int | None = None,
        legacy: bool = False,
        method: str = "bitset",
        chunk_rows: int = 2_000_000,
        backend: Any = None,
    ) -> None:
        self.model = model
        self.protected = protected
        self.support = support
        self.feature_weights = feature_weights
        self.immutable = immutable
        self.monotone = monotone
        self.max_step = max_step
        self.bins = bins
        self.binary_cost = binary_cost
        self.features = features
        self.missing_values = missing_values
        self.exact_features = exact_features
        self.normalize = normalize
        self.favorable = favorable
        self.max_len = max_len
        self.legacy = legacy
        self.method = method
        self.chunk_rows = chunk_rows
        self.backend = backend

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        """Check the constructor's parameters against :attr:`_parameter_constraints`."""
        validate_params(
            type(self).__name__,
            self._parameter_constraints,
            {name: getattr(self, name) for name in self._parameter_constraints},
            where=PARAM_WHERE,
        )

    def _resolve_data(self, data: Any) -> tuple[pd.DataFrame, str, dict[str, Any], list[str]]:
        """Frame, audited attribute, kinds of the mined columns, other protected attributes."""
        if isinstance(data, AuditData):
            frame = data.frame
            protected = self.protected
            if protected is None:
                protected = data.protected_attribute(how="pass protected=...")
            if protected not in frame.columns:
                raise InputError(f"protected attribute {protected!r} is not in the data")
            kinds: dict[str, Any] = {}
            for name, spec in data.features.items():
                kinds[name] = {"ordinal": list(spec.order)} if spec.order else spec.kind
            others = [p for p in data.protected if p != protected]
            for p in others:
                kinds[p] = "categorical"
            skip = {c for c in (data.decision, data.outcome, data.id_column) if c}
            kinds = {k: v for k, v in kinds.items() if k not in skip and k != protected}
            self.protected_values_ = tuple(str(v) for v in data.protected[protected])
            return frame, protected, kinds, others
        frame = to_pandas(data).reset_index(drop=True)
        self.protected_values_ = ()  # a plain table does not say which group is protected
        if len(frame) == 0:
            raise InputError("the table has no rows")
        protected = self.protected
        if protected is None:
            raise InputError("name the protected attribute: RecourseAudit(..., protected='column')")
        if protected not in frame.columns:
            raise InputError(
                f"protected attribute {protected!r} is not in the data; columns are: "
                f"{', '.join(map(str, frame.columns))}"
            )
        if self.features is not None:
            kinds = dict(self.features)
            missing = [c for c in kinds if c not in frame.columns]
            if missing:
                raise InputError(f"feature(s) {missing} are not in the data")
            kinds.pop(protected, None)
        else:
            kinds = {}
            for c in frame.columns:
                if c == protected:
                    continue
                col = frame[c]
                if isinstance(col.dtype, pd.CategoricalDtype) and col.cat.ordered:
                    kinds[c] = {"ordinal": list(col.cat.categories)}
                elif pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
                    kinds[c] = "numeric"
                else:
                    kinds[c] = "categorical"
        for c, k in kinds.items():
            if frame[c].isna().any():
                raise InputError(f"feature {c!r} has missing values; impute or drop them first")
            if k not in ("numeric", "categorical", "ordinal") and not (
                isinstance(k, Mapping) and set(k) == {"ordinal"}
            ):
                raise InputError(f"feature {c!r}: unknown kind {k!r}")
        return frame, protected, kinds, []

    def _check_names(self, known: Sequence[str], protected: str) -> None:
        known_set = set(known) | {protected}
        for label, obj in (
            ("feature weight", self.feature_weights),
            ("immutable feature", self.immutable),
            ("monotone feature", self.monotone),
            ("max_step feature", self.max_step),
            ("bins feature", self.bins),
            ("binary_cost feature", self.binary_cost),
        ):
            names = list(obj) if isinstance(obj, Mapping) else _names(obj)
            bad = [n for n in names if n not in known_set]
            if bad:
                raise InputError(
                    f"{label} given for unknown column(s) {bad}; known columns: {', '.join(known)}"
                )

    # ------------------------------------------------------------------ fit
    def fit(self, data: Any, progress: ProgressCallback | None = None) -> RecourseAudit:
        """Mine subgroups and actions, and compute every (subgroup, action, group) flip count.

        Parameters
        ----------
        data
            :class:`~primafacie.data.AuditData` or a DataFrame (pandas/polars/pyarrow) with
            the model's input columns and the protected attribute (the audit split).
        progress
            Optional ``progress(stage, done, total)`` called as the stages advance:
            ``"mining"`` (one step per protected group and one for the unaffected),
            ``"actions"`` (subgroups checked) and ``"effectiveness"`` (subgroups whose actions
            were tested, one call per predict chunk). Used by the CLI's progress bar.

        Returns
        -------
        RecourseAudit
            ``self``, with ``table_`` (:class:`RecourseTable`), ``stats_`` and ``timings_``.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.decisions import Rule
        >>> table = pd.DataFrame({"g": list("ab" * 50), "x": list("lhll" * 25),
        ...                       "y": list("uv" * 50)})
        >>> stages = []
        >>> audit = RecourseAudit(Rule("x == 'h'"), protected="g", support=0.1).fit(
        ...     table, progress=lambda stage, done, total: stages.append(stage))
        >>> audit.subgroup_labels(), audit.n_affected_.tolist(), list(dict.fromkeys(stages))
        (['x=l'], [50, 25], ['mining', 'actions', 'effectiveness'])
        """
        self._validate()
        for cache in ("_labels", "_curves_cache"):  # from an earlier fit
            self.__dict__.pop(cache, None)
        tick = progress or _noop
        t0 = time.perf_counter()
        frame, protected, kinds, others = self._resolve_data(data)
        self._check_names(list(kinds), protected)
        frame, group_idx, unaffected = self._split(frame, protected, kinds)
        space = self._item_space(frame, protected, kinds, others)
        t_mine = time.perf_counter()
        per_group, unaff_sets, common = self._mine(space, protected, unaffected, tick)
        t_act = time.perf_counter()
        sub_items, sub_then, sub_cost = self._actions(space, unaff_sets, common, tick)
        t_eff = time.perf_counter()
        eff_t, micro_t, n_pred = self._effectiveness(
            sub_items, sub_then, sub_cost, frame, space, tick
        )
        self.sub_items_ = sub_items
        self.sub_then_ = sub_then
        self.stats_ = {
            "rows": int(len(frame)),
            "affected": int(len(self.affected_rows_)),
            "unaffected": int(len(unaffected)),
            **{
                f"affected[{g}]": int(c)
                for g, c in zip(self.groups_, self.n_affected_, strict=True)
            },
            **{f"subgroups[{g}]": len(f) for g, f in zip(self.groups_, per_group, strict=True)},
            "actions": int(len(unaff_sets)),
            "common_subgroups": int(len(common)),
            "valid_pairs": int(self.table_.n_pairs),
            "subgroups": int(self.table_.n_subgroups),
            "pair_rows": int(self.pair_rows_),
            "predicted_rows": int(n_pred),
        }
        self.timings_ = {
            "mining": t_act - t_mine,
            "actions": t_eff - t_act,
            "effectiveness": eff_t,
            "micro": micro_t,
            "fit_total": time.perf_counter() - t0,
        }
        return self

    def _split(
        self, frame: pd.DataFrame, protected: str, kinds: Mapping[str, Any]
    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """Drop rows of unknown group, decide every row, split affected / unaffected.

        Sets ``groups_``, ``protected_``, ``frame_``, ``kinds_``, ``decider_``,
        ``affected_rows_`` (sorted by group), ``affected_groups_``, ``n_affected_`` and
        ``dropped_rows_``; returns the kept frame, each row's group index and the unaffected rows.
        """
        decider = as_decider(self.model, favorable=self.favorable)
        groups_col = frame[protected]
        missing_set = {str(v) for v in self.missing_values}
        keep = ~(groups_col.isna() | groups_col.astype(str).isin(missing_set)).to_numpy()
        self.dropped_rows_ = int(len(frame) - keep.sum())
        frame = frame.loc[keep].reset_index(drop=True)
        group_values = pd.unique(frame[protected])
        try:
            group_values = sorted(group_values)
        except TypeError:
            group_values = sorted(group_values, key=str)
        if len(group_values) < 2:
            raise InputError(
                f"protected attribute {protected!r} has only one group "
                f"({group_values[0] if group_values else 'none'!r}); at least two are needed"
            )
        self.groups_ = tuple(group_values)
        self.protected_ = protected
        self.frame_ = frame
        self.kinds_ = kinds
        group_idx = pd.Categorical(frame[protected], categories=group_values).codes.astype(np.int64)
        yhat = predict_binary(decider, frame)
        self.decider_ = decider
        affected = np.flatnonzero(yhat == 0)
        if len(affected) == 0:
            raise InputError(
                "the model decides favourably for every row: no affected individuals to audit"
            )
        counts_aff = np.bincount(group_idx[affected], minlength=len(group_values))
        empty = [str(g) for g, c in zip(group_values, counts_aff, strict=True) if c == 0]
        if empty:
            raise InputError(
                f"no affected (unfavourably decided) rows in group(s) {empty} of {protected!r}"
            )
        # affected rows sorted by group: subgroup members come out grouped by protected value
        aff_sorted = affected[np.argsort(group_idx[affected], kind="stable")]
        self.affected_rows_ = aff_sorted
        self.affected_groups_ = group_idx[aff_sorted]
        self.n_affected_ = counts_aff.astype(np.int64)
        self.n_unaffected_ = np.bincount(group_idx[yhat == 1], minlength=len(group_values)).astype(
            np.int64
        )
        return frame, group_idx, np.flatnonzero(yhat == 1)

    # --- items -------------------------------------------------------------------------------
    def _item_space(
        self, frame: pd.DataFrame, protected: str, kinds: Mapping[str, Any], others: Sequence[str]
    ) -> ItemSpace:
        """Items of the mined columns (numeric ones binned as asked) plus the protected column;
        builds the cost model and the feasibility rules over them."""
        mined = list(kinds)
        bins = dict(self.bins or {})
        for col in bins:
            if col in kinds and kinds[col] != "numeric":
                raise InputError(f"bins given for {col!r}, which is not a numeric feature")
        binned_frame, self.bin_specs_ = apply_bins(frame[mined], bins)
        orders: dict[str, Sequence[Any]] = {}
        for col, k in kinds.items():
            if isinstance(k, Mapping):
                orders[col] = list(k["ordinal"])
            elif col in self.bin_specs_:
                orders[col] = list(self.bin_specs_[col].labels)
        binned_frame[protected] = frame[protected].to_numpy()
        space = ItemSpace(binned_frame, [*mined, protected], orders)
        self.space_ = space
        self._build_rules(space, kinds, protected, others, frame)
        return space

    def _mine(
        self, space: ItemSpace, protected: str, unaffected: np.ndarray, tick: ProgressCallback
    ) -> tuple[list[Any], Any, Any]:
        """Frequent itemsets of each group's affected rows and of the unaffected; the
        subgroups are the itemsets frequent in every group."""
        n_groups = len(self.groups_)
        aff_sorted, aff_groups = self.affected_rows_, self.affected_groups_
        per_group = []
        n_mine = n_groups + 1
        tick("mining", 0, n_mine)
        for g in range(n_groups):
            rows = aff_sorted[aff_groups == g]
            per_group.append(
                frequent_itemsets(
                    space, rows, self.support, max_len=self.max_len,
                    exclude_columns=[protected], method=self.method,
                )
            )  # fmt: skip
            tick("mining", g + 1, n_mine)
        unaff_sets = frequent_itemsets(
            space, unaffected, self.support, max_len=self.max_len, method=self.method
        )
        tick("mining", n_mine, n_mine)
        return per_group, unaff_sets, common_itemsets(per_group)

    # --- actions -----------------------------------------------------------------------------
    def _actions(
        self, space: ItemSpace, unaff_sets: Any, common: Any, tick: ProgressCallback
    ) -> tuple[list[tuple[int, ...]], list[np.ndarray], list[np.ndarray]]:
        """Feasible actions of every common subgroup (subgroups without one are dropped) and
        their costs, in sorted itemset order."""
        index = ActionIndex(unaff_sets, space.item_col, space.item_code)
        sub_items: list[tuple[int, ...]] = []
        sub_then: list[np.ndarray] = []
        sub_cost: list[np.ndarray] = []
        n_cols = len(space.columns) - 1  # the protected column is never acted on
        n_common = len(common)
        tick("actions", 0, n_common)
        for q, items in enumerate(sorted(common)):
            if q % 1000 == 0 and q:
                tick("actions", q, n_common)
            arr = np.asarray(items)
            cols = space.item_col[arr]
            codes = space.item_code[arr].astype(np.int32)
            then = candidate_actions(
                cols, codes, index, self.feasibility_, exact=self.exact_features, n_columns=n_cols
            )
            if len(then) == 0:
                continue
            sub_items.append(items)
            sub_then.append(then)
            sub_cost.append(self.cost_model_.costs(cols, codes, then))
        tick("actions", n_common, n_common)
        if not sub_items:
            raise InputError(
                "no subgroup has a valid action at this support; lower the support or relax the "
                "feasibility rules"
            )
        return sub_items, sub_then, sub_cost

    def _build_rules(
        self, space: ItemSpace, kinds: Mapping[str, Any], protected: str, others: Sequence[str],
        frame: pd.DataFrame,
    ) -> None:  # fmt: skip
        weights = {k: float(v) for k, v in dict(self.feature_weights or {}).items()}
        immutable = set(_names(self.immutable)) if self.immutable is not None else set(others)
        immutable.add(protected)
        monotone = set(_names(self.monotone))
        max_step = {k: float(v) for k, v in dict(self.max_step or {}).items()}
        binary = set(_names(self.binary_cost))
        if isinstance(self.normalize, bool):
            normalize = set(space.columns) if self.normalize else set()
        else:
            normalize = set(_names(self.normalize))
        missing_set = {str(v) for v in self.missing_values}
        feats, ranks, missing = [], [], []
        imm = np.zeros(len(space.columns), bool)
        mono = np.zeros(len(space.columns), bool)
        steps = np.full(len(space.columns), np.inf)
        for j, col in enumerate(space.columns):
            kind = kinds.get(col, "categorical")
            kind = "ordinal" if isinstance(kind, Mapping) else kind
            vals = space.values[j]
            k = len(vals)
            rank = np.arange(k, dtype=float)
            if col in self.bin_specs_:
                spec = self.bin_specs_[col]
                pos = (spec.left() + spec.right()) / 2.0
                rng = float(frame[col].max() - frame[col].min()) if col in normalize else 0.0
                delta = delta_matrix("numeric", pos, rng or None)
            elif kind == "numeric":
                pos = np.asarray(vals, dtype=float)
                rank = pos
                rng = float(pos.max() - pos.min()) if col in normalize else 0.0
                delta = delta_matrix("numeric", pos, rng or None)
            elif kind == "ordinal":
                delta = delta_matrix("ordinal", rank)
            else:
                delta = delta_matrix("categorical", rank)
            if col in binary:
                delta = delta_matrix("categorical", rank)
            feats.append(FeatureCost(col, kind, weights.get(col, 1.0), delta))
            ranks.append(rank)
            missing.append(np.array([str(v) in missing_set for v in vals], dtype=bool))
            imm[j] = col in immutable
            mono[j] = col in monotone
            steps[j] = max_step.get(col, np.inf)
        self.cost_model_ = CostModel(feats)
        self.feasibility_ = Feasibility(imm, mono, steps, ranks, missing)

    # ------------------------------------------------------------------ model calls
    def _decode_columns(self, frame: pd.DataFrame, space: ItemSpace):
        """How to rebuild each model input column from codes (mined) or raw values."""
        decoders = {}
        for col in frame.columns:
            if col not in space.col_index or col in self.bin_specs_:
                continue
            j = space.col_index[col]
            vals = space.values[j]
            orig = frame[col]
            if pd.api.types.is_numeric_dtype(orig) and not isinstance(
                orig.dtype, pd.CategoricalDtype
            ):
                decoders[col] = ("numeric", np.asarray(vals, dtype=orig.dtype))
            elif isinstance(orig.dtype, pd.CategoricalDtype):
                cats = list(orig.cat.categories)
                pos = {v: i for i, v in enumerate(cats)}
                lookup = np.array([pos[v] for v in vals], dtype=np.int64)
                decoders[col] = ("categorical", (lookup, orig.dtype))
            else:
                decoders[col] = ("object", pd.CategoricalDtype(list(vals)))
        return decoders

    def _members(self, sub_items: Sequence[tuple[int, ...]], space: ItemSpace) -> list[np.ndarray]:
        """Positions (in ``affected_rows_``) of each subgroup's members: AND of item bitsets.

        Also sets ``n_in_subgroups_``: per group, the rejected rows in at least one subgroup.
        """
        aff = self.affected_rows_
        bits = space.packed(aff)
        members: list[np.ndarray] = []
        union = np.zeros_like(bits[sub_items[0][0]])
        for items in sub_items:
            acc = bits[items[0]].copy()
            for it in items[1:]:
                acc &= bits[it]
            union |= acc
            members.append(np.flatnonzero(unpack_bits(acc, len(aff))))
        # rejected rows of each group that belong to at least one audited subgroup (scope)
        self.n_in_subgroups_ = np.bincount(
            self.affected_groups_[unpack_bits(union, len(aff))], minlength=len(self.groups_)
        ).astype(np.int64)
        return members

    def _work_units(self, sizes: np.ndarray, n_act: np.ndarray) -> list[tuple[int, int, int]]:
        """``(subgroup, first action, end action)`` blocks: a subgroup's actions, split when one
        subgroup alone would exceed ``chunk_rows`` (member × action) rows, so memory stays
        bounded by ``chunk_rows``."""
        units: list[tuple[int, int, int]] = []
        for q in range(len(sizes)):
            G, A = int(sizes[q]), int(n_act[q])
            step = A if G * A <= self.chunk_rows else max(1, self.chunk_rows // max(G, 1))
            units.extend((q, a0, min(A, a0 + step)) for a0 in range(0, A, step))
        return units

    def _chunks(self, loads: Sequence[int]) -> list[tuple[int, int]]:
        """Consecutive ``[start, end)`` runs of work units holding at most ``chunk_rows`` rows
        (a run has at least one unit)."""
        out = []
        s = 0
        while s < len(loads):
            e, total = s, 0
            while e < len(loads) and (e == s or total + loads[e] <= self.chunk_rows):
                total += loads[e]
                e += 1
            out.append((s, e))
            s = e
        return out

    def _chunk_flips(
        self, units: Sequence[tuple[int, int, int]], ctx: _ChunkContext
    ) -> tuple[np.ndarray, int]:
        """Decision of every (member, action) row of a chunk of work units, action-major within a
        unit; and how many distinct rows were sent to the model."""
        space = ctx.space
        m = len(space.columns)
        rows_l, pair_l = [], []
        n_pairs_chunk = sum(a1 - a0 for _, a0, a1 in units)
        targets = np.full((n_pairs_chunk, m), -1, dtype=np.int32)
        key_and = np.zeros(n_pairs_chunk, dtype=np.uint64)
        key_or = np.zeros(n_pairs_chunk, dtype=np.uint64)
        off = 0
        for q, a0, a1 in units:
            r = self.affected_rows_[ctx.members[q]]
            A = a1 - a0
            then = ctx.sub_then[q][a0:a1]
            rows_l.append(np.tile(r, A))
            pair_l.append(np.repeat(np.arange(off, off + A, dtype=np.int64), len(r)))
            cols = space.item_col[np.asarray(ctx.sub_items[q])]
            targets[off : off + A][:, cols] = then
            if ctx.cache.ok:
                mask, bits_or = ctx.cache.action_bits(cols, then)
                key_and[off : off + A] = ~mask
                key_or[off : off + A] = bits_or
            off += A
        rows = np.concatenate(rows_l)
        pairs = np.concatenate(pair_l)
        if ctx.cache.ok:
            keys = (ctx.cache.base[rows] & key_and[pairs]) | key_or[pairs]
            return self._predict_keys(
                ctx.frame, space, rows, targets, pairs, keys, ctx.decoders, ctx.raw_cols,
                ctx.bin_cols, ctx.cache,
            )  # fmt: skip
        # codes too wide to pack: predict every (member, action) row
        batch = self._batch_frame(
            ctx.frame, space, rows, targets[pairs], ctx.decoders, ctx.raw_cols, ctx.bin_cols
        )
        return predict_binary(self.decider_, batch).astype(bool), len(rows)

    def _effectiveness(self, sub_items, sub_then, sub_cost, frame, space, tick=_noop):
        """Test every action on every member (batched ``predict``), then the micro pass.

        Sets ``table_``, ``members_`` and ``pair_rows_``; returns the seconds spent predicting,
        the seconds of the micro pass and the number of rows sent to the model.
        """
        n_sub = len(sub_items)
        decoders = self._decode_columns(frame, space)
        ctx = _ChunkContext(
            frame=frame, space=space, sub_items=sub_items, sub_then=sub_then,
            members=self._members(sub_items, space), decoders=decoders,
            raw_cols={c: frame[c].to_numpy() for c in frame.columns if c not in decoders},
            bin_cols={c: space.col_index[c] for c in self.bin_specs_},
            cache=_PredictionCache(space, frame, decoders),
        )  # fmt: skip
        sizes = np.array([len(r) for r in ctx.members], dtype=np.int64)
        n_act = np.array([len(t) for t in sub_then], dtype=np.int64)
        builder = _TableBuilder(self.groups_, sub_cost, n_act)
        units = self._work_units(sizes, n_act)
        loads = [int(sizes[q]) * (a1 - a0) for q, a0, a1 in units]
        pending: dict[int, list[np.ndarray]] = {}
        eff_time = micro_time = 0.0
        n_pred = n_pairs_rows = done = 0
        tick("effectiveness", 0, n_sub)
        spans = self._chunks(loads)
        results = self._chunk_results(spans, units, ctx)
        for s, e in spans:
            t1 = time.perf_counter()
            flips, n_new = next(results)
            n_pred += n_new
            n_pairs_rows += len(flips)
            t2 = time.perf_counter()
            eff_time += t2 - t1
            pos = 0
            for q, a0, a1 in units[s:e]:
                G, A = int(sizes[q]), a1 - a0
                pending.setdefault(q, []).append(flips[pos : pos + A * G].reshape(A, G))
                pos += A * G
                if a1 < int(n_act[q]):
                    continue  # more action blocks of this subgroup come in the next chunk
                blocks = pending.pop(q)
                F = blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=0)
                builder.add(q, F, self.affected_groups_[ctx.members[q]])
                done += 1
            micro_time += time.perf_counter() - t2
            tick("effectiveness", done, n_sub)
        self.table_ = builder.table()
        self.flips_ = builder.packed
        self.members_ = ctx.members
        self.pair_rows_ = n_pairs_rows
        return eff_time, micro_time, n_pred

    def _chunk_results(
        self,
        spans: Sequence[tuple[int, int]],
        units: Sequence[tuple[int, int, int]],
        ctx: _ChunkContext,
    ) -> Iterator[tuple[np.ndarray, int]]:
        """``(flips, rows sent to the model)`` of every chunk, in chunk order, on the backend.

        Locally in one thread the chunks share one prediction cache, as always. Otherwise
        (threads or Dask) the chunks run on :meth:`primafacie.compute.Backend.imap` with this
        audit and ``ctx`` (model, data, members) scattered once per worker; each task starts
        from an empty cache (no state shared between tasks, so a re-run task after a worker
        died gives the same answer) and returns the keys it predicted, and the count of rows
        sent to the model is replayed here against one cache, so ``stats_["predicted_rows"]``
        is the one-thread count on every backend.
        """
        from ..compute import get_backend

        backend = get_backend(self.backend)
        if backend.kind == "local" and backend.n_jobs == 1:
            yield from (self._chunk_flips(units[s:e], ctx) for s, e in spans)
            return
        seen = ctx.cache
        for flips, predicted in backend.imap(
            _remote_chunk_flips, [units[s:e] for s, e in spans], shared=(self, ctx)
        ):
            if not seen.ok:
                yield flips, int(predicted)
                continue
            known, _ = seen.lookup(predicted)
            new = predicted[~known]
            seen.add(new, np.zeros(len(new), dtype=bool))
            yield flips, len(new)

    def _predict_keys(
        self, frame, space, rows, targets, pairs, keys, decoders, raw_cols, bin_cols, cache
    ):  # fmt: skip
        """Decision for every (member, action) row of a chunk; each distinct row predicted once.

        Nested subgroups share members and actions, so the same modified row recurs many
        times. A modified row is keyed exactly by its packed codes (plus the member's row id when
        some model input is not described by codes); keys are factorised by hashing and the
        distinct ones looked up in a cache kept across chunks.
        """
        inverse, uniq = pd.factorize(keys, sort=False)
        uniq = np.asarray(uniq, dtype=np.uint64)
        known, values = cache.lookup(uniq)
        todo = np.flatnonzero(~known)
        if len(todo):
            first = np.full(len(uniq), -1, dtype=np.int64)
            first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)
            idx = first[todo]
            batch = self._batch_frame(
                frame, space, rows[idx], targets[pairs[idx]], decoders, raw_cols, bin_cols
            )
            pred = predict_binary(self.decider_, batch).astype(bool)
            values[todo] = pred
            cache.add(uniq[todo], pred)
        return values[inverse], len(todo)

    def _batch_frame(
        self, frame, space, rows, targets, decoders, raw_cols, bin_cols
    ) -> pd.DataFrame:
        """Model input for (member, action) pairs: members' values with the action applied."""
        data: dict[str, Any] = {}
        for col in frame.columns:
            if col in decoders:
                j = space.col_index[col]
                codes = space.codes[rows, j]
                tgt = targets[:, j]
                codes = np.where(tgt >= 0, tgt, codes)
                kind, info = decoders[col]
                if kind == "numeric":
                    data[col] = info[codes]
                elif kind == "categorical":
                    lookup, dtype = info
                    data[col] = pd.Categorical.from_codes(lookup[codes], dtype=dtype)
                else:
                    data[col] = pd.Categorical.from_codes(codes, dtype=info)
            elif col in bin_cols:
                j = bin_cols[col]
                spec = self.bin_specs_[col]
                raw = raw_cols[col][rows].astype(float)
                tgt = targets[:, j]
                moved = tgt >= 0
                if moved.any():
                    src = space.codes[rows[moved], j]
                    lo, hi = spec.left(), spec.right()
                    slope = (hi[tgt[moved]] - lo[tgt[moved]]) / (hi[src] - lo[src])
                    raw[moved] = slope * (raw[moved] - lo[src]) + lo[tgt[moved]]
                data[col] = raw
            else:
                data[col] = raw_cols[col][rows]
        return pd.DataFrame(data, columns=frame.columns)

    # ------------------------------------------------------------------ what the result carries
    def _scope(self, labels: tuple[str, ...], auto_budgets: bool) -> FactsScope:
        """Who this fit audited, with denominators (for :meth:`FactsResult.scope`)."""
        from .results import FactsScope

        t = self.table_
        return FactsScope(
            protected=str(self.protected_),
            groups=tuple(map(str, self.groups_)),
            protected_values=tuple(getattr(self, "protected_values_", ())),
            rows=int(len(self.frame_)),
            dropped_rows=int(self.dropped_rows_),
            rejected=tuple(int(x) for x in self.n_affected_),
            accepted=tuple(int(x) for x in self.n_unaffected_),
            in_subgroups=tuple(int(x) for x in self.n_in_subgroups_),
            support=float(self.support),
            common_subgroups=int(self.stats_["common_subgroups"]),
            subgroups=int(t.n_subgroups),
            no_recourse=tuple(int(x) for x in (t.n_rec == 0).sum(axis=0)),
            smallest=tuple(int(x) for x in t.n.min(axis=0)),
            definitions=labels,
            auto_budgets=bool(auto_budgets),
            legacy=bool(self.legacy),
            exact_features=bool(self.exact_features),
        )

    def curves(self) -> EffectivenessCurves:
        """Micro cumulative effectiveness of every (subgroup, group), as typed read-only data.

        The same object for every call after one fit; :class:`FactsResult` and
        :class:`CSCResult` carry it, so they can draw curves without the engine.

        Returns
        -------
        EffectivenessCurves
        """
        from .results import EffectivenessCurves

        self._require_fit()
        if hasattr(self, "_curves_cache"):
            return self._curves_cache
        t = self.table_

        def frozen(a: np.ndarray) -> np.ndarray:
            view = a.view()
            view.flags.writeable = False
            return view

        self._curves_cache = EffectivenessCurves(
            subgroups=tuple(self.subgroup_labels()),
            groups=tuple(map(str, self.groups_)),
            n=frozen(t.n),
            starts=frozen(t.starts),
            cost=frozen(t.cost),
            cum=frozen(t.cum),
        )
        return self._curves_cache

    # ------------------------------------------------------------------ scoring
    def _require_fit(self) -> None:
        if not hasattr(self, "table_"):
            raise InputError("call fit(data) before ranking")

    def subgroup_labels(self) -> list[str]:
        """``feature=value`` items joined by ``; `` in feature-name order, per subgroup."""
        self._require_fit()
        if not hasattr(self, "_labels"):
            self._labels = [
                "; ".join(f"{k}={v}" for k, v in self.space_.describe(items).items())
                for items in self.sub_items_
            ]
        return self._labels

    def budgets(self) -> list[float]:
        """Automatic EEWB budgets (30/60/90th percentiles of finite micro ECE at φ = 0.5)."""
        self._require_fit()
        return auto_budgets(self.table_)

    def scores(
        self, metric: str, viewpoint: str | None = None, phi: float | None = None,
        budget: float | None = None,
    ) -> dict[str, np.ndarray]:  # fmt: skip
        """Raw arrays for one definition: ``d`` (S, K), ``score``, ``against``, ``rank``."""
        self._require_fit()
        spec, vp = resolve_metric(metric, viewpoint)
        param = {"phi": phi, "budget": budget}.get(spec.param) if spec.param else None
        if spec.param and param is None:
            raise InputError(f"metric {spec.key} needs {spec.param}=...")
        if spec.param:
            validate_params(
                f"{type(self).__name__}.scores", SCORE_PARAM, {spec.param: param}, PARAM_WHERE
            )
        if spec.key == "FECT":
            score, against, d = fect(self.table_, vp, legacy=self.legacy and vp == "micro")
        else:
            d = difficulty(self.table_, spec.key, vp, param)
            score, against = unfairness(d, spec.higher_is_better)
        return {"d": d, "score": score, "against": against, "rank": self._rank(spec.key, d, score),
                "param": param, "viewpoint": vp, "spec": spec}  # fmt: skip

    def _rank(self, key: str, d: np.ndarray, score: np.ndarray) -> np.ndarray:
        """Dense rank where equal scores share a rank: shares of counts (EE, EEWB, FECT) and
        counts (ECR) are compared as exact fractions; costs (ECE, ECMR) within 1e-9 relative."""
        if key in ("EE", "EEWB", "FECT"):
            return dense_rank(score, exact=exact_scores(d, self.table_.n))
        if key == "ECR":
            return dense_rank(score, exact=exact_scores(d, np.ones_like(self.table_.n)))
        return dense_rank(score, rtol=COST_RTOL)

    def rank(
        self, metric: str, viewpoint: str | None = None, phi: float | None = None,
        budget: float | None = None,
    ):  # fmt: skip
        """Ranked subgroups under one definition.

        Parameters
        ----------
        metric
            ``EE``, ``ECR``, ``EEWB``, ``ECE``, ``FECT`` or ``ECMR`` (aliases accepted).
        viewpoint
            ``micro`` or ``macro`` (defaults: EE/EEWB/FECT/ECMR micro, ECR/ECE macro).
        phi
            Effectiveness threshold of ECR/ECE.
        budget
            Cost budget of EEWB.

        Returns
        -------
        RankingResult
            Table with rank, score, bias_against, subgroup and per-group n/coverage/difficulty.
        """
        from .results import make_ranking

        t = time.perf_counter()
        out = self.scores(metric, viewpoint, phi=phi, budget=budget)
        res = make_ranking(self, out)
        self.timings_["scoring"] = self.timings_.get("scoring", 0.0) + time.perf_counter() - t
        return res

    def run(
        self, data: Any, phi: Sequence[float] | float = (0.3, 0.7),
        budgets: Sequence[float] | float | str = "auto", metrics: Sequence[str] | str = "all",
        progress: ProgressCallback | None = None,
    ):  # fmt: skip
        """Fit and evaluate in one call: every definition × parameter on ``data``.

        The one-verb path (``fit`` then ``evaluate``); use :meth:`fit`, :meth:`evaluate`,
        :meth:`rank` and :meth:`csc` separately to score single definitions or draw CSCs.

        Parameters
        ----------
        data
            :class:`~primafacie.data.AuditData` or a table (pandas/polars/pyarrow), as in
            :meth:`fit`.
        phi
            Effectiveness thresholds of ECR/ECE (one number or a list, each in [0, 1]).
        budgets
            EEWB cost budgets (numbers ≥ 0) or ``"auto"`` (30/60/90th percentiles of the finite
            micro ECE at φ = 0.5).
        metrics
            ``"all"`` or the definitions to score (``EE``, ``ECR``, ``EEWB``, ``ECE``, ``FECT``,
            ``ECMR``; aliases accepted).
        progress
            ``progress(stage, done, total)`` for the fit stages and ``"scoring"``.

        Returns
        -------
        FactsResult
            Rankings, statistics, scope, caveats and effectiveness curves.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.decisions import Rule
        >>> df = pd.DataFrame({"g": ["a", "b"] * 50, "x": ["lo", "hi", "lo", "lo"] * 25,
        ...                    "y": ["u", "v"] * 50})
        >>> rule = Rule("(x == 'hi') and (g == 'b')")  # no action helps group a
        >>> res = RecourseAudit(rule, protected="g", support=0.1).run(
        ...     df, phi=0.5, metrics=["EE", "ECE"])
        >>> list(res.rankings), res.rankings["EE"].to_frame()["score"].tolist()
        (['Ma.5', 'EE', 'Mi.5'], [1.0])
        >>> print(res.scope())
        rejected applicants by g: 50 a, 25 b (of 100 rows); 1 subgroup (support ≥ 0.1 of every group's rejected) hold 50 of 50 (100%) a, 25 of 25 (100%) b of the rejected; 3 definitions
        """
        self._validate_run(phi=phi, budgets=budgets, metrics=metrics)
        self.fit(data, progress=progress)
        return self.evaluate(phi=phi, budgets=budgets, metrics=metrics, progress=progress)

    def _validate_run(self, **params: Any) -> None:
        validate_params(type(self).__name__, RUN_CONSTRAINTS, params, PARAM_WHERE)

    def evaluate(
        self, phi: Sequence[float] | float = (0.3, 0.7),
        budgets: Sequence[float] | float | str = "auto", metrics: Sequence[str] | str = "all",
        progress: ProgressCallback | None = None,
    ):  # fmt: skip
        """Every definition × parameter of the paper's tables, on the fitted audit.

        Parameters
        ----------
        phi, budgets, metrics
            As in :meth:`run`.
        progress
            ``progress("scoring", done, total)`` after each definition × parameter.

        Returns
        -------
        FactsResult
            Rankings keyed by column label (``Ma.3``, ``C.7``, ``EE``, ``B10``, ``Mi.3``,
            ``MR``, ``KS``), the statistics and the budgets used, the scope (who was audited),
            and the effectiveness curves of every subgroup.

        Examples
        --------
        >>> import pandas as pd
        >>> from primafacie.decisions import Rule
        >>> table = pd.DataFrame({"g": list("ab" * 30), "x": list("lhl" * 20),
        ...                       "y": list("uvw" * 20)})
        >>> fitted = RecourseAudit(Rule("x == 'h'"), protected="g", support=0.2).fit(table)
        >>> list(fitted.evaluate(phi=[0.5], budgets=[1.0], metrics=["ECE", "EEWB"]).rankings)
        ['Ma.5', 'B1', 'Mi.5']
        """
        from .results import FactsResult

        self._require_fit()
        self._validate_run(phi=phi, budgets=budgets, metrics=metrics)
        auto = isinstance(budgets, str)
        budget_list = self.budgets() if auto else _floats(budgets)
        phis = _floats(phi)
        wanted = None if metrics == "all" else {resolve_metric(m)[0].key for m in _names(metrics)}
        plan = [("ECE", "macro", {"phi": p}) for p in phis]
        plan += [("ECR", "macro", {"phi": p}) for p in phis]
        plan.append(("EE", "micro", {}))
        plan += [("EEWB", "micro", {"budget": b}) for b in budget_list]
        plan += [("ECE", "micro", {"phi": p}) for p in phis]
        plan.append(("ECMR", "micro", {}))
        plan.append(("FECT", "micro", {}))
        rankings = {}
        tick = progress or _noop
        plan = [step for step in plan if wanted is None or step[0] in wanted]
        tick("scoring", 0, len(plan))
        for done, (key, vp, kw) in enumerate(plan, start=1):
            r = self.rank(key, vp, **kw)
            rankings[r.label] = r
            tick("scoring", done, len(plan))
        return FactsResult(
            groups=tuple(map(str, self.groups_)),
            protected=str(self.protected_),
            rankings=rankings,
            budgets=tuple(float(b) for b in budget_list),
            stats=dict(self.stats_),
            timings=dict(self.timings_),
            audited=self._scope(tuple(rankings), auto_budgets=auto),
            curves=self.curves(),
        )

    def csc(
        self, metric: str, viewpoint: str | None = None, phi: float | None = None,
        budget: float | None = None, top: int = 10, show: str = "relevant",
        subgroups: Sequence[str] | None = None,
    ):  # fmt: skip
        """Comparative Subgroup Counterfactuals of the top subgroups under one definition.

        Parameters
        ----------
        metric, viewpoint, phi, budget
            The definition (as in :meth:`rank`).
        top
            Number of top-ranked (non-Fair) subgroups.
        show
            ``"relevant"`` (the actions that define the score) or ``"all"``.
        subgroups
            Explicit subgroup labels instead of the top ones.

        Returns
        -------
        CSCResult
        """
        from .csc import make_csc

        return make_csc(self, metric, viewpoint, phi, budget, top, show, subgroups)

    def plot_cumulative(self, subgroup: str | int):
        """Step plot of the micro ecd of each group for one subgroup (label or index)."""
        from .plots import plot_cumulative

        return plot_cumulative(self, subgroup)

    def subgroup_index(self, subgroup: str | int) -> int:
        """Index of a subgroup given by label (``a=x; b=y``, any order) or position."""
        return self.curves().index(subgroup)
