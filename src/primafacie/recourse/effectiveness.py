"""FACTS stage 5 for :class:`~primafacie.recourse.engine.RecourseFairness`: test every action on
every member with batched ``predict`` calls and count the flips (macro and micro).

One batched ``predict`` covers all (member, action) pairs of many subgroups at once (chunks of
``chunk_rows`` rows); the flip bit-vectors give both the per-action (macro) counts and the
cumulative (micro) numbers, with no further model call. :class:`ActionEffectiveness` reads the
mining stage's fitted state (``space_``, ``affected_rows_``, ``decider_``, ``bin_specs_`` ...)
and sets ``table_``, ``flips_``, ``members_``, ``pair_rows_`` and ``n_in_subgroups_``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..decisions import predict_binary
from .items import ItemSpace, unpack_bits
from .metrics import RecourseTable, micro_from_flips
from .mining import _noop

__all__ = ["ActionEffectiveness"]


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
    """What every predict chunk of :meth:`RecourseFairness._effectiveness` reads (never written)."""

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
    shared: tuple[ActionEffectiveness, _ChunkContext], units: Sequence[tuple[int, int, int]]
) -> tuple[np.ndarray, np.ndarray | int]:
    """One chunk of :meth:`RecourseFairness._effectiveness` as a backend task: the flips and the
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


class ActionEffectiveness:
    """Batched model calls over (member, action) pairs and the micro pass into the table.

    A part of :class:`~primafacie.recourse.engine.RecourseFairness` (not used alone): its methods
    run inside :meth:`RecourseFairness.fit` after :class:`~.mining.SubgroupMining`.
    """

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
