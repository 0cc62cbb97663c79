"""FACTS stages 1-4 for :class:`~primafacie.recourse.engine.RecourseFairness`: who is audited,
the item space, the subgroups and their feasible actions.

:class:`SubgroupMining` is one of the three parts the engine is built from (the others are
:class:`~.effectiveness.ActionEffectiveness` and :class:`~.ranking.RecourseRanking`). It reads
the engine's parameters (``support``, ``bins``, ``immutable`` ...) and sets the fitted
attributes the later stages read: ``groups_``, ``protected_``, ``frame_``, ``kinds_``,
``decider_``, ``affected_rows_``, ``affected_groups_``, ``n_affected_``, ``n_unaffected_``,
``dropped_rows_``, ``protected_values_``, ``space_``, ``bin_specs_``, ``cost_model_`` and
``feasibility_``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..base import as_audit_data
from ..data import AuditData
from ..decisions import as_decider, predict_binary
from ..errors import InputError
from .actions import ActionIndex, Feasibility, candidate_actions
from .costs import CostModel, FeatureCost, delta_matrix
from .items import ItemSpace, apply_bins, common_itemsets, frequent_itemsets

__all__ = ["ProgressCallback", "SubgroupMining"]

#: ``progress(stage, done, total)``: called as each stage advances (see :meth:`RecourseFairness.fit`).
ProgressCallback = Callable[[str, int, int], None]


def _noop(stage: str, done: int, total: int) -> None:
    return None


def _names(obj: Any) -> list[str]:
    if obj is None:
        return []
    if isinstance(obj, str):
        return [obj]
    return [str(x) for x in obj]


class SubgroupMining:
    """Resolve the data, split affected / unaffected, mine subgroups and their actions.

    A part of :class:`~primafacie.recourse.engine.RecourseFairness` (not used alone): its methods
    run inside :meth:`RecourseFairness.fit` on the engine's parameters and fitted state.
    """

    # ------------------------------------------------------------------ data
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
        frame = as_audit_data(data).frame  # the one coercion: no roles, index 0..n-1
        self.protected_values_ = ()  # a plain table does not say which group is protected
        protected = self.protected
        if protected is None:
            raise InputError(
                "name the protected attribute: RecourseFairness(..., protected='column')"
            )
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
        for name, label in (
            ("feature_weights", "feature weight"),
            ("immutable", "immutable feature"),
            ("monotone", "monotone feature"),
            ("max_step", "max_step feature"),
            ("bins", "bins feature"),
            ("binary_cost", "binary_cost feature"),
        ):
            obj = getattr(self, name)
            names = list(obj) if isinstance(obj, Mapping) else _names(obj)
            bad = [n for n in names if n not in known_set]
            if bad:  # where to fix it: the parameter's flag and key (the engine's _where)
                where = getattr(self, "_where", {}).get(name)
                raise InputError(
                    f"{label} given for unknown column(s) {bad}; known columns: {', '.join(known)}"
                    + (f" ({where})" if where else "")
                )

    # ------------------------------------------------------------------ split
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
