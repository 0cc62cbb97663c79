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

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data import AuditData, to_pandas
from ..decisions import as_decider, predict_binary
from ..errors import InputError
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

__all__ = ["RecourseAudit", "DEFAULT_MISSING", "ProgressCallback"]

DEFAULT_MISSING = ("Unknown", "unknown", "?", "N/A", "NA", "")

#: ``progress(stage, done, total)``: called as each stage advances (see :meth:`RecourseAudit.fit`).
ProgressCallback = Callable[[str, int, int], None]


def _noop(stage: str, done: int, total: int) -> None:
    return None


def _names(obj: Any) -> list[str]:
    if obj is None:
        return []
    if isinstance(obj, str):
        return [obj]
    return [str(x) for x in obj]


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

    def add(self, keys: np.ndarray, vals: np.ndarray) -> None:
        allk = np.concatenate([self.store_keys, keys])
        allv = np.concatenate([self.store_vals, vals])
        order = np.argsort(allk, kind="stable")
        self.store_keys, self.store_vals = allk[order], allv[order]


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

    Examples
    --------
    >>> import pandas as pd
    >>> from primafacie.decisions import Rule
    >>> df = pd.DataFrame({"g": ["a", "b"] * 50, "x": ["lo", "hi", "lo", "lo"] * 25,
    ...                    "y": ["u", "v"] * 50})
    >>> audit = RecourseAudit(Rule("x == 'hi'"), protected="g", support=0.1).fit(df)
    >>> audit.stats_["affected"]
    75
    """

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

    # ------------------------------------------------------------------ validation
    def _check_params(self) -> None:
        s = self.support
        if isinstance(s, bool) or not isinstance(s, (int, float, np.floating)) or not 0 < s <= 1:
            raise InputError(f"support must be a number in (0, 1], got {s!r}")
        if self.max_len is not None and int(self.max_len) < 1:
            raise InputError(f"max_len must be >= 1, got {self.max_len!r}")
        if int(self.chunk_rows) < 1:
            raise InputError(f"chunk_rows must be positive, got {self.chunk_rows!r}")

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
            return frame, protected, kinds, others
        frame = to_pandas(data).reset_index(drop=True)
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
        for name, w in dict(self.feature_weights or {}).items():
            try:
                ok = float(w) >= 0 and np.isfinite(float(w))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise InputError(
                    f"feature weight for {name!r} must be a finite number >= 0, got {w!r}"
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
        """
        self._check_params()
        tick = progress or _noop
        t0 = time.perf_counter()
        frame, protected, kinds, others = self._resolve_data(data)
        self._check_names(list(kinds), protected)
        decider = as_decider(self.model, favorable=self.favorable)
        groups_col = frame[protected]
        missing_set = {str(v) for v in self.missing_values}
        keep = ~(groups_col.isna() | groups_col.astype(str).isin(missing_set)).to_numpy()
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
        unaffected = np.flatnonzero(yhat == 1)
        if len(affected) == 0:
            raise InputError(
                "the model decides favourably for every row: no affected individuals to audit"
            )
        counts_aff = np.bincount(group_idx[affected], minlength=len(group_values))
        empty = [str(g) for g, c in zip(group_values, counts_aff, strict=False) if c == 0]
        if empty:
            raise InputError(
                f"no affected (unfavourably decided) rows in group(s) {empty} of {protected!r}"
            )

        # --- items -------------------------------------------------------------------------
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
        columns = [*mined, protected]
        space = ItemSpace(binned_frame, columns, orders)
        self.space_ = space
        self._build_rules(space, kinds, protected, others, frame)

        # affected rows sorted by group: subgroup members come out grouped by protected value
        aff_sorted = affected[np.argsort(group_idx[affected], kind="stable")]
        aff_groups = group_idx[aff_sorted]
        self.affected_rows_ = aff_sorted
        self.affected_groups_ = aff_groups
        self.n_affected_ = counts_aff.astype(np.int64)
        t_mine = time.perf_counter()
        per_group = []
        n_mine = len(group_values) + 1
        tick("mining", 0, n_mine)
        for g in range(len(group_values)):
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
        common = common_itemsets(per_group)
        mining_s = time.perf_counter() - t_mine

        # --- actions -----------------------------------------------------------------------
        t_act = time.perf_counter()
        index = ActionIndex(unaff_sets, space.item_col, space.item_code)
        sub_items: list[tuple[int, ...]] = []
        sub_then: list[np.ndarray] = []
        sub_cost: list[np.ndarray] = []
        n_cols = len(mined)
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
        actions_s = time.perf_counter() - t_act
        if not sub_items:
            raise InputError(
                "no subgroup has a valid action at this support; lower the support or relax the "
                "feasibility rules"
            )

        # --- effectiveness + micro pass ------------------------------------------------------
        eff_t, micro_t, n_pred = self._effectiveness(
            sub_items, sub_then, sub_cost, frame, space, tick
        )
        self.sub_items_ = sub_items
        self.sub_then_ = sub_then
        self.stats_ = {
            "rows": int(len(frame)),
            "affected": int(len(affected)),
            "unaffected": int(len(unaffected)),
            **{f"affected[{g}]": int(c) for g, c in zip(group_values, counts_aff, strict=False)},
            **{f"subgroups[{g}]": len(f) for g, f in zip(group_values, per_group, strict=False)},
            "actions": int(len(unaff_sets)),
            "common_subgroups": int(len(common)),
            "valid_pairs": int(self.table_.n_pairs),
            "subgroups": int(self.table_.n_subgroups),
            "pair_rows": int(self.pair_rows_),
            "predicted_rows": int(n_pred),
        }
        self.timings_ = {
            "mining": mining_s,
            "actions": actions_s,
            "effectiveness": eff_t,
            "micro": micro_t,
            "fit_total": time.perf_counter() - t0,
        }
        return self

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

    def _effectiveness(self, sub_items, sub_then, sub_cost, frame, space, tick=_noop):
        K = len(self.groups_)
        m = len(space.columns)
        n_sub = len(sub_items)
        aff = self.affected_rows_
        aff_groups = self.affected_groups_
        bits = space.packed(aff)
        decoders = self._decode_columns(frame, space)
        raw_cols = {c: frame[c].to_numpy() for c in frame.columns if c not in decoders}
        bin_cols = {c: space.col_index[c] for c in self.bin_specs_}

        members: list[np.ndarray] = []
        for items in sub_items:
            acc = bits[items[0]].copy()
            for it in items[1:]:
                acc &= bits[it]
            members.append(np.flatnonzero(unpack_bits(acc, len(aff))))
        sizes = np.array([len(r) for r in members], dtype=np.int64)
        n_act = np.array([len(t) for t in sub_then], dtype=np.int64)

        n = np.zeros((n_sub, K), dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(n_act)])
        P = int(starts[-1])
        cost = np.concatenate(sub_cost)
        eff = np.zeros((P, K), np.int64)
        cum = np.zeros((P, K), np.int64)
        seq_order = np.zeros((P, K), np.int64)
        seq_cum = np.zeros((P, K), np.int64)
        n_rec = np.zeros((n_sub, K), np.int64)
        rc_sum = np.zeros((n_sub, K), float)
        eff_time = micro_time = 0.0
        n_pred = n_pairs_rows = 0
        cache = _PredictionCache(space, frame, decoders)

        # work units: a subgroup's actions, split into blocks when one subgroup alone would
        # exceed chunk_rows (member x action rows), so memory stays bounded by chunk_rows
        units: list[tuple[int, int, int]] = []
        for q in range(n_sub):
            G, A = int(sizes[q]), int(n_act[q])
            step = A if G * A <= self.chunk_rows else max(1, self.chunk_rows // max(G, 1))
            units.extend((q, a0, min(A, a0 + step)) for a0 in range(0, A, step))
        u_load = [int(sizes[q]) * (a1 - a0) for q, a0, a1 in units]
        pending: dict[int, list[np.ndarray]] = {}
        done = 0

        tick("effectiveness", 0, n_sub)
        s = 0
        while s < len(units):
            e = s
            total = 0
            while e < len(units) and (e == s or total + u_load[e] <= self.chunk_rows):
                total += u_load[e]
                e += 1
            t1 = time.perf_counter()
            rows_l, pair_l = [], []
            n_pairs_chunk = sum(a1 - a0 for _, a0, a1 in units[s:e])
            targets = np.full((n_pairs_chunk, m), -1, dtype=np.int32)
            key_and = np.zeros(n_pairs_chunk, dtype=np.uint64)
            key_or = np.zeros(n_pairs_chunk, dtype=np.uint64)
            off = 0
            for q, a0, a1 in units[s:e]:
                r = aff[members[q]]
                A = a1 - a0
                then = sub_then[q][a0:a1]
                rows_l.append(np.tile(r, A))
                pair_l.append(np.repeat(np.arange(off, off + A, dtype=np.int64), len(r)))
                cols = space.item_col[np.asarray(sub_items[q])]
                targets[off : off + A][:, cols] = then
                if cache.ok:
                    mask, bits_or = cache.action_bits(cols, then)
                    key_and[off : off + A] = ~mask
                    key_or[off : off + A] = bits_or
                off += A
            rows = np.concatenate(rows_l)
            pairs = np.concatenate(pair_l)
            if cache.ok:
                keys = (cache.base[rows] & key_and[pairs]) | key_or[pairs]
                flips, n_new = self._predict_keys(
                    frame, space, rows, targets, pairs, keys, decoders, raw_cols, bin_cols, cache
                )
            else:  # codes too wide to pack: predict every (member, action) row
                batch = self._batch_frame(
                    frame, space, rows, targets[pairs], decoders, raw_cols, bin_cols
                )
                flips = predict_binary(self.decider_, batch).astype(bool)
                n_new = len(rows)
            n_pred += n_new
            n_pairs_rows += len(rows)
            t2 = time.perf_counter()
            eff_time += t2 - t1
            pos = 0
            for q, a0, a1 in units[s:e]:
                G = int(sizes[q])
                A = a1 - a0
                pending.setdefault(q, []).append(flips[pos : pos + A * G].reshape(A, G))
                pos += A * G
                if a1 < int(n_act[q]):
                    continue
                blocks = pending.pop(q)
                F = blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=0)
                grp = aff_groups[members[q]]
                n[q] = np.bincount(grp, minlength=K)
                out = micro_from_flips(F, grp, K, sub_cost[q])
                sl = slice(int(starts[q]), int(starts[q + 1]))
                eff[sl] = out["eff"]
                cum[sl] = out["cum"]
                seq_order[sl] = out["seq_order"] + starts[q]
                seq_cum[sl] = out["seq_cum"]
                n_rec[q] = out["n_rec"]
                rc_sum[q] = out["rc_sum"]
                done += 1
            micro_time += time.perf_counter() - t2
            tick("effectiveness", done, n_sub)
            s = e
        self.table_ = RecourseTable(
            groups=self.groups_, n=n, starts=starts, cost=cost, eff=eff, cum=cum, n_rec=n_rec,
            rc_sum=rc_sum, seq_order=seq_order, seq_cum=seq_cum,
        )  # fmt: skip
        self.members_ = members
        self.pair_rows_ = n_pairs_rows
        return eff_time, micro_time, n_pred

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
        if spec.param == "phi" and not 0 <= float(param) <= 1:
            raise InputError(f"phi must be in [0, 1], got {param!r}")
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

    def evaluate(
        self, phi: Sequence[float] = (0.3, 0.7), budgets: Sequence[float] | str = "auto",
        metrics: Sequence[str] | str = "all", progress: ProgressCallback | None = None,
    ):  # fmt: skip
        """Every definition × parameter of the paper's tables.

        ``progress(stage, done, total)``, if given, is called with stage ``"scoring"`` after each
        definition × parameter.

        Returns
        -------
        FactsResult
            Rankings keyed by column label (``Ma.3``, ``C.7``, ``EE``, ``B10``, ``Mi.3``,
            ``MR``, ``KS``), the statistics and the budgets used.
        """
        from .results import FactsResult

        self._require_fit()
        if isinstance(budgets, str):
            if budgets != "auto":
                raise InputError(f"budgets must be 'auto' or a list of numbers, got {budgets!r}")
            budgets = self.budgets()
        wanted = None if metrics == "all" else {resolve_metric(m)[0].key for m in _names(metrics)}
        plan = []
        for p in phi:
            plan.append(("ECE", "macro", {"phi": p}))
        for p in phi:
            plan.append(("ECR", "macro", {"phi": p}))
        plan.append(("EE", "micro", {}))
        for b in budgets:
            plan.append(("EEWB", "micro", {"budget": b}))
        for p in phi:
            plan.append(("ECE", "micro", {"phi": p}))
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
            budgets=tuple(float(b) for b in budgets),
            stats=dict(self.stats_),
            timings=dict(self.timings_),
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
        self._require_fit()
        if isinstance(subgroup, (int, np.integer)):
            if not 0 <= int(subgroup) < len(self.sub_items_):
                raise InputError(f"subgroup index {subgroup} out of range")
            return int(subgroup)
        wanted = "; ".join(sorted(s.strip() for s in str(subgroup).split(";")))
        labels = self.subgroup_labels()
        if not hasattr(self, "_label_index"):
            self._label_index = {
                "; ".join(sorted(part.strip() for part in lab.split(";"))): i
                for i, lab in enumerate(labels)
            }
        if wanted not in self._label_index:
            raise InputError(f"subgroup {subgroup!r} is not among the audited subgroups")
        return self._label_index[wanted]
