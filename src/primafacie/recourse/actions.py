"""Candidate actions for a subgroup and their feasibility (FACTS §3, App. B/C).

Actions come from the itemsets frequent among the unaffected (positively decided) rows.
Exact variant (default, the reference code's rule): the action is an unaffected itemset over
exactly the subgroup's feature set with at least one different value. Loose variant
(``exact=False``, the paper's wording): any unaffected itemset over a non-empty subset of the
subgroup's features with at least one different value; features it does not mention keep the
subgroup's value. Identical effects are kept once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

__all__ = ["Feasibility", "ActionIndex", "candidate_actions"]


@dataclass(frozen=True)
class Feasibility:
    """Which changes are allowed, per mined column (arrays in column order).

    Attributes
    ----------
    immutable : ndarray of bool
        The column may never change.
    monotone : ndarray of bool
        The column may not decrease (compared by ``ranks``).
    max_step : ndarray of float
        Largest allowed increase in rank (``inf`` = no limit).
    ranks : list of ndarray
        Per column, the rank of every code in the column's order.
    missing : list of ndarray of bool
        Per column, codes that mean "missing/unknown": never a target of a change.
    """

    immutable: np.ndarray
    monotone: np.ndarray
    max_step: np.ndarray
    ranks: list[np.ndarray]
    missing: list[np.ndarray]

    def valid(self, cols: np.ndarray, if_codes: np.ndarray, then_codes: np.ndarray) -> np.ndarray:
        """Mask of feasible actions (rows of ``then_codes``) for a subgroup with ``if_codes``.

        Examples
        --------
        >>> f = Feasibility(np.array([False]), np.array([True]), np.array([np.inf]),
        ...                 [np.arange(3)], [np.zeros(3, bool)])
        >>> f.valid(np.array([0]), np.array([1]), np.array([[0], [2]])).tolist()
        [False, True]
        """
        then_codes = np.atleast_2d(then_codes)
        ok = np.ones(then_codes.shape[0], dtype=bool)
        for j, col in enumerate(cols):
            col = int(col)
            v = int(if_codes[j])
            t = then_codes[:, j]
            changed = t != v
            if self.immutable[col]:
                ok &= ~changed
                continue
            miss = self.missing[col]
            if not miss[v]:
                ok &= ~(changed & miss[t])
            if self.monotone[col] or np.isfinite(self.max_step[col]):
                step = self.ranks[col][t] - self.ranks[col][v]
                if self.monotone[col]:
                    ok &= step >= 0
                if np.isfinite(self.max_step[col]):
                    ok &= step <= self.max_step[col]
        return ok


class ActionIndex:
    """Unaffected itemsets grouped by their feature set, as value-code matrices.

    Parameters
    ----------
    itemsets
        ``{item-id tuple: count}`` mined on the unaffected rows.
    item_col, item_code
        Column and code of every item id.
    """

    def __init__(
        self, itemsets: Mapping[tuple[int, ...], int], item_col: np.ndarray, item_code: np.ndarray
    ) -> None:
        groups: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        for items in itemsets:
            cols = tuple(int(item_col[i]) for i in items)
            groups.setdefault(cols, []).append(tuple(int(item_code[i]) for i in items))
        self.by_cols: dict[tuple[int, ...], np.ndarray] = {
            cols: np.array(sorted(vals), dtype=np.int32) for cols, vals in groups.items()
        }
        self.n_itemsets = len(itemsets)

    def lookup(self, cols: Sequence[int]) -> np.ndarray | None:
        return self.by_cols.get(tuple(cols))


def candidate_actions(
    cols: np.ndarray,
    if_codes: np.ndarray,
    index: ActionIndex,
    feasibility: Feasibility,
    exact: bool = True,
    n_columns: int | None = None,
) -> np.ndarray:
    """Valid actions of one subgroup as target codes over the subgroup's columns.

    Parameters
    ----------
    cols
        The subgroup's columns (ascending).
    if_codes
        The subgroup's value code on each of them.
    index
        Unaffected itemsets by feature set.
    feasibility
        Allowed changes.
    exact
        True: only itemsets over exactly ``cols``; False: over any non-empty subset.
    n_columns
        Number of mined columns; when the subgroup covers all of them, an action that changes
        every value is rejected (the reference code's rule).

    Returns
    -------
    ndarray (A, len(cols)) int32
        One row per valid action: the value of every subgroup column after the action.

    Examples
    --------
    >>> idx = ActionIndex({(0, 2): 5, (1, 2): 4, (1, 3): 3}, np.array([0, 0, 1, 1]),
    ...                   np.array([0, 1, 0, 1]))
    >>> f = Feasibility(np.zeros(2, bool), np.zeros(2, bool), np.full(2, np.inf),
    ...                 [np.arange(2)] * 2, [np.zeros(2, bool)] * 2)
    >>> candidate_actions(np.array([0, 1]), np.array([0, 0]), idx, f).tolist()
    [[1, 0], [1, 1]]
    """
    cols = np.asarray(cols)
    if_codes = np.asarray(if_codes, dtype=np.int32)
    blocks = []
    if exact:
        found = index.lookup(cols.tolist())
        if found is not None:
            blocks.append(found)
    else:
        L = len(cols)
        for r in range(1, L + 1):
            for subset in combinations(range(L), r):
                found = index.lookup(cols[list(subset)].tolist())
                if found is None:
                    continue
                full = np.repeat(if_codes[None, :], len(found), axis=0)
                full[:, list(subset)] = found
                blocks.append(full)
    if not blocks:
        return np.empty((0, len(cols)), dtype=np.int32)
    cand = np.concatenate(blocks, axis=0)
    if not exact:
        cand = np.unique(cand, axis=0)
    diff = cand != if_codes[None, :]
    keep = diff.any(axis=1)
    if n_columns is not None and len(cols) == n_columns:
        keep &= ~diff.all(axis=1)
    cand = cand[keep]
    if len(cand) == 0:
        return cand
    return cand[feasibility.valid(cols, if_codes, cand)]
