"""Stage 5 of a situation test: the statistics of every (k, method), and the table.

:class:`Statistics` reads each k of the grid as a prefix of the lists the searches kept
(:class:`~primafacie.situation.search.Lists`), counts the negatives of the control and test
groups (with or without the centres), and turns the four counts of every complainant into its
rates, Δp, intervals, flags and p-values (the formulas are in :mod:`.stats`), then adjusts the
p-values across the complainants of each (method, k) (:mod:`.multiplicity`) and lays the
columns out as one table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..data import AuditData
from .multiplicity import adjust_p
from .planning import Plan
from .search import Lists, group_members
from .stats import distinct_counts, newcombe_interval, test_p_values, z_value

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Statistics", "block_frame"]

#: Columns :meth:`Statistics.test` computes for each (method, k), in table order.
_TEST_COLUMNS = (
    "k_c", "k_t", "neg_c", "neg_t", "p_c", "p_t", "delta", "ci_low", "ci_high", "ci2_low",
    "ci2_high", "discriminated", "significant", "p_value", "p_value_two",
)  # fmt: skip


def _labels(codes: np.ndarray, labels: list[str]) -> Any:
    """``labels[codes]`` as a string column of pandas' default string dtype, built through
    Arrow: no Python string per row (6·10^7 of them in a 10^7-row run)."""
    import pandas as pd
    import pyarrow as pa

    arr = pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(labels))
    return pd.array(arr.cast(pa.large_string()), dtype=pd.Series(labels).dtype)


@dataclass(frozen=True)
class Statistics:
    """Counts, Δp, intervals, flags and adjusted p-values of every (k, method) of a run.

    Parameters
    ----------
    alpha, tau, direction, interval, multiplicity, keep_neighbors
        As given to :class:`~primafacie.situation.engine.SituationTest` (validated there).
    """

    alpha: float
    tau: float
    direction: str
    interval: str
    multiplicity: str
    keep_neighbors: bool

    def run(
        self, data: AuditData, plan: Plan, lists: Lists, ycf: np.ndarray | None
    ) -> tuple[pd.DataFrame, dict[tuple[str, int], tuple[np.ndarray, np.ndarray]]]:
        """The table of every (k, method) and, when kept, the members of each group: each k
        is a prefix of the sorted lists, so no search runs again."""
        blocks = []
        neighbours: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        for method, k, block, members in self.blocks(plan, lists, ycf):
            blocks.append(block)
            if members is not None:
                neighbours[(method, k)] = members
        return _table(data, plan, blocks, ycf, self.cf_flag(plan, ycf)), neighbours

    def blocks(
        self,
        plan: Plan,
        lists: Lists,
        ycf: np.ndarray | None,
        adjust: Callable[[str, int, dict[str, np.ndarray]], None] | None = None,
    ) -> Iterator[tuple[str, int, dict[str, np.ndarray], Any]]:
        """``(method, k, columns, members)`` of every (k, method), in table order, one at a
        time: a caller that writes each block out (:mod:`.partitioned`) never holds the
        whole table. ``members`` is the group members when ``keep_neighbors``, else None.
        ``adjust(method, k, columns)`` replaces the correction of the block (a part of a
        family is adjusted from the whole family's histogram, :mod:`.partitioned`)."""
        # decisions are held as int8 (:class:`~.planning.Plan`): widened here, so the counts
        # below add up in the types they always had (int32 counts + int64 → int64)
        negc = 1 - plan.y[plan.comp_rows].astype(np.int64)
        negcf = None if ycf is None else 1 - ycf
        cf_flag = self.cf_flag(plan, ycf)
        cache_w: dict[int, dict[str, np.ndarray]] = {}
        for k in plan.ks:
            for method in plan.methods:
                if method in ("cf", "cst_centers"):
                    # CF reads the CST w/ counts of the same k: computed once, shared.
                    if k not in cache_w:
                        cache_w[k] = _counts_w(k, plan.legacy, lists, negc, negcf)
                    counts = cache_w[k]
                else:
                    counts = _counts_wo(k, plan.legacy, lists, negc, method)
                block = self.test(counts, plan.legacy)
                if method == "cf":
                    _cf_verdict(block, cf_flag)
                if adjust is None:
                    self._adjust(block)
                else:
                    adjust(method, k, block)
                members = None
                if self.keep_neighbors:
                    members = group_members(method, k, plan.legacy, lists)
                yield method, k, block, members

    def cf_flag(self, plan: Plan, ycf: np.ndarray | None) -> np.ndarray | None:
        """Counterfactual-fairness case of every complainant (None without counterfactual
        decisions)."""
        return None if ycf is None else self._cf_flag(plan.y[plan.comp_rows], ycf)

    def _cf_flag(self, y_c: np.ndarray, ycf: np.ndarray) -> np.ndarray:
        """Counterfactual-fairness case: the decision flips with the protected attribute."""
        if self.direction == "negative":
            return (y_c == 0) & (ycf == 1)
        return (y_c == 1) & (ycf == 0)

    def _adjust(self, block: dict[str, np.ndarray]) -> None:
        """``p_adjusted`` and ``significant_adjusted`` of one (method, k): its complainants are
        one family (:func:`~primafacie.situation.multiplicity.adjust_p`)."""
        adjusted = adjust_p(block["p_value"], self.multiplicity)
        block["p_adjusted"] = adjusted
        with np.errstate(invalid="ignore"):
            block["significant_adjusted"] = adjusted <= float(self.alpha)

    def test(self, counts: dict, legacy: bool) -> dict[str, np.ndarray]:
        """The columns of one (method, k): counts, rates, Δp, intervals, flags, p-values.

        Every column is a function of the row's four counts and the run's settings, so it is
        computed once per distinct count tuple and broadcast (bit for bit the per-row value:
        every step is elementwise).
        """
        keys = ("x_c", "n_c", "x_t", "n_t")
        distinct = distinct_counts(*(counts[c] for c in keys))
        if distinct is None:
            return self.test_rows(counts, legacy)
        uniq, inverse = distinct
        cols = self.test_rows(
            {c: u.astype(np.int64) for c, u in zip(keys, uniq, strict=True)}, legacy
        )
        return {name: col[inverse] for name, col in cols.items()}

    def test_rows(self, counts: dict, legacy: bool) -> dict[str, np.ndarray]:
        """:meth:`test` row by row (vectorised over the rows given)."""
        x_c, n_c = counts["x_c"].astype(float), counts["n_c"].astype(float)
        x_t, n_t = counts["x_t"].astype(float), counts["n_t"].astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            p_c = np.where(n_c > 0, x_c / np.maximum(n_c, 1), np.nan)
            p_t = np.where(n_t > 0, x_t / np.maximum(n_t, 1), np.nan)
        delta = p_c - p_t
        alpha, tau = float(self.alpha), float(self.tau)
        z1 = z_value(alpha, "one", legacy)
        z2 = z_value(alpha, "two", legacy)
        with np.errstate(invalid="ignore", divide="ignore"):
            var = p_c * (1 - p_c) / n_c + p_t * (1 - p_t) / n_t
            w1, w2 = z1 * np.sqrt(var), z2 * np.sqrt(var)
        if self.interval in ("newcombe", "wilson"):
            lo1, hi1 = newcombe_interval(x_c, n_c, x_t, n_t, alpha, "one", "negative")
            _, hi1p = newcombe_interval(x_c, n_c, x_t, n_t, alpha, "one", "positive")
            lo2, hi2 = newcombe_interval(x_c, n_c, x_t, n_t, alpha, "two")
            lower, upper = lo1, hi1p
        else:
            lower, upper = delta - w1, delta + w1
            lo2, hi2 = delta - w2, delta + w2
        digits = 3 if legacy else 9
        d_r = np.round(delta, digits)
        with np.errstate(invalid="ignore"):
            if self.direction == "negative":
                flag = d_r > tau
                sig = flag & (np.round(lower, digits) > tau)
                ci_low, ci_high = lower, np.full_like(delta, np.inf)
            else:
                flag = d_r < tau
                sig = flag & (np.round(upper, digits) < tau)
                ci_low, ci_high = np.full_like(delta, -np.inf), upper
        undefined = np.isnan(delta)
        flag = np.where(undefined, False, flag)
        sig = np.where(undefined, False, sig)
        p_one, p_two = test_p_values(
            {"x_c": x_c, "n_c": n_c, "x_t": x_t, "n_t": n_t},
            tau,
            "wald" if self.interval == "wald" else "newcombe",
            self.direction,
            alpha,
            sig,
            (lo2, hi2),
        )
        # an untested complainant (empty control or test group) has no interval at all, not a
        # half-open one: both one-sided bounds are undefined
        ci_low = np.where(undefined, np.nan, ci_low)
        ci_high = np.where(undefined, np.nan, ci_high)
        return {
            "k_c": counts["n_c"].astype(np.int32),
            "k_t": counts["n_t"].astype(np.int32),
            "neg_c": counts["x_c"].astype(np.int32),
            "neg_t": counts["x_t"].astype(np.int32),
            "p_c": p_c,
            "p_t": p_t,
            "delta": delta,
            "ci_low": ci_low,
            "ci_high": ci_high,
            "ci2_low": lo2,
            "ci2_high": hi2,
            "discriminated": flag.astype(bool),
            "significant": sig.astype(bool),
            "p_value": p_one,
            "p_value_two": p_two,
        }


def _cf_verdict(block: dict[str, np.ndarray], cf_flag: np.ndarray) -> None:
    """A CF case is a flip; it is significant when its CST w/ test is (the p-value of that
    test for a flip, 1 otherwise)."""
    block["significant"] = cf_flag & block["significant"]
    block["discriminated"] = cf_flag
    p = block["p_value"]
    block["p_value"] = np.where(np.isnan(p) | cf_flag, p, 1.0)


def _counts_wo(
    k: int, legacy: bool, lists: Lists, negc: np.ndarray, method: str
) -> dict[str, np.ndarray]:
    """(negatives, size) of both groups without the centres: ``x_c, n_c, x_t, n_t``."""
    ctrl = lists.ctrl_counts
    if legacy:
        # Legacy (e): top k+1 protected rows, the complainant removed when present.
        inside = lists.self_pos <= k
        x_c = ctrl.negatives(k + 1) - np.where(inside, negc, 0)
        n_c = ctrl.sizes(k + 1) - inside
    else:
        x_c, n_c = ctrl.negatives(k), ctrl.sizes(k)
    test = lists.st_counts if method == "st" else lists.cf_counts
    return {"x_c": x_c, "n_c": n_c, "x_t": test.negatives(k), "n_t": test.sizes(k)}


def _counts_w(
    k: int, legacy: bool, lists: Lists, negc: np.ndarray, negcf: np.ndarray
) -> dict[str, np.ndarray]:
    """(negatives, size) of both groups with the centres counted (CST w/ and CF)."""
    ctrl, test = lists.ctrl_counts, lists.cf_counts
    if legacy:
        x_c, n_c = ctrl.negatives(k + 1), ctrl.sizes(k + 1)
        first = lists.centre_rank <= k
        test_cf = lists.cf_counts_cfneg
        x_t = np.where(first, test_cf.negatives(k) + negcf, test_cf.negatives(k + 1))
        n_t = np.where(first, test.sizes(k) + 1, test.sizes(k + 1))
    else:
        x_c, n_c = ctrl.negatives(k) + negc, ctrl.sizes(k) + 1
        x_t, n_t = test.negatives(k) + negcf, test.sizes(k) + 1
    return {"x_c": x_c, "n_c": n_c, "x_t": x_t, "n_t": n_t}


#: Bytes of table columns joined (hence of block arrays freed) after which :func:`_table`
#: hands the heap's free pages back: the blocks' arrays (a few MB each) sit in glibc's heap,
#: the joined columns (tens of MB) are mapped apart, so without a trim the freed blocks stay
#: resident beside the table (measured in ``benchmarks/scale.py``'s 10^6 case: 739 MB kept
#: free at the end of the statistics, the run's peak).
TRIM_BYTES = 2**27


def _joined(freed: int) -> int:
    """``freed`` bytes of blocks released since the last trim: the heap trimmed (and 0
    returned) once they reach :data:`TRIM_BYTES`."""
    if freed < TRIM_BYTES:
        return freed
    from ..release import trim_heap

    trim_heap()
    return 0


def _table(
    data: AuditData,
    plan: Plan,
    blocks: list[dict[str, np.ndarray]],
    ycf: np.ndarray | None,
    cf_flag: np.ndarray | None,
    grid: list[tuple[int, str]] | None = None,
    who: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> pd.DataFrame:
    """One row per (k, method, complainant), blocks in that order (``grid``: the (k, method)
    of each block, default every one of the plan; ``who``: the complainants' data rows, ids
    and decisions, default read from ``data`` and ``plan``).

    Built column by column, each block's array released as soon as its column is joined
    (and the heap trimmed every :data:`TRIM_BYTES` joined, :func:`_joined`), and handed to
    pandas without a copy: at 10^7 rows (6·10^7 table rows) the table is the largest thing a
    run holds. Who was tested (row, id, decisions) repeats per block.
    """
    import pandas as pd

    if who is None:
        who = (plan.comp_rows, np.asarray(data.ids)[plan.comp_rows], plan.y[plan.comp_rows])
    comp_rows, ids, y_c = who
    m, b = len(comp_rows), len(blocks)
    if grid is None:
        grid = [(k, method) for k in plan.ks for method in plan.methods]
    codes = np.array([plan.methods.index(method) for _, method in grid], dtype=np.int8)
    columns: dict[str, Any] = {
        "method": _labels(np.repeat(codes, m), plan.methods),
        "k": np.repeat(np.array([k for k, _ in grid], dtype=np.int64), m),
        "row": np.tile(comp_rows, b),
        "id": np.tile(ids, b),
    }
    freed = 0
    for name in _TEST_COLUMNS:
        columns[name] = np.concatenate([block.pop(name) for block in blocks])
        freed = _joined(freed + columns[name].nbytes)
    columns["decision"] = np.tile(y_c.astype(np.int8), b)
    missing = np.ones(m * b, dtype=bool)
    if ycf is None:
        columns["cf_decision"] = pd.arrays.IntegerArray(np.zeros(m * b, np.int8), missing)
        columns["cf_flag"] = pd.arrays.BooleanArray(np.zeros(m * b, bool), missing)
    else:
        columns["cf_decision"] = pd.array(np.tile(ycf.astype(np.int8), b), dtype="Int8")
        columns["cf_flag"] = pd.array(np.tile(cf_flag, b), dtype="boolean")
    for name in ("p_adjusted", "significant_adjusted"):
        columns[name] = np.concatenate([block.pop(name) for block in blocks])
        freed = _joined(freed + columns[name].nbytes)
    return pd.DataFrame(columns, copy=False)


def block_frame(
    data: AuditData,
    plan: Plan,
    method: str,
    k: int,
    block: dict[str, np.ndarray],
    ycf: np.ndarray | None,
    cf_flag: np.ndarray | None,
    who: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> pd.DataFrame:
    """The rows of one (method, k) exactly as they sit in the whole table (same columns,
    dtypes and values): the table is these frames stacked in (k, method) order (``who``:
    the complainants' data rows, ids and decisions, when ``data`` is not at hand)."""
    return _table(data, plan, [block], ycf, cf_flag, grid=[(k, method)], who=who)
