"""Candidate actions: exact/loose feature sets and feasibility rules."""

from __future__ import annotations

import numpy as np

from primafacie.recourse.actions import ActionIndex, Feasibility, candidate_actions

# three columns with 3 codes each; item id = 3 * col + code
ITEM_COL = np.repeat(np.arange(3), 3)
ITEM_CODE = np.tile(np.arange(3), 3)


def item(col, code):
    return 3 * col + code


def feas(immutable=(), monotone=(), max_step=None, missing=None):
    imm = np.isin(np.arange(3), immutable)
    mono = np.isin(np.arange(3), monotone)
    step = np.full(3, np.inf)
    for c, k in (max_step or {}).items():
        step[c] = k
    miss = [np.zeros(3, bool) for _ in range(3)]
    for c, code in missing or []:
        miss[c][code] = True
    return Feasibility(imm, mono, step, [np.arange(3.0)] * 3, miss)


def index(*itemsets):
    return ActionIndex({tuple(sorted(s)): 10 for s in itemsets}, ITEM_COL, ITEM_CODE)


def test_exact_feature_set_and_a_change_required():
    idx = index(
        [item(0, 0), item(1, 0)],  # identical to the subgroup: no change
        [item(0, 1), item(1, 0)],
        [item(0, 2), item(1, 2)],
        [item(0, 1)],  # other feature set
        [item(0, 1), item(2, 1)],
    )
    got = candidate_actions(np.array([0, 1]), np.array([0, 0]), idx, feas())
    assert got.tolist() == [[1, 0], [2, 2]]


def test_loose_variant_uses_subsets_and_keeps_other_values():
    idx = index([item(0, 1)], [item(1, 2)], [item(0, 1), item(1, 0)])
    exact = candidate_actions(np.array([0, 1]), np.array([0, 0]), idx, feas())
    loose = candidate_actions(np.array([0, 1]), np.array([0, 0]), idx, feas(), exact=False)
    assert exact.tolist() == [[1, 0]]
    # {col0 := 1} alone has the same effect as {col0 := 1, col1 := 0}: kept once
    assert loose.tolist() == [[0, 2], [1, 0]]


def test_feasibility_rules():
    idx = index(*[[item(0, a), item(1, b)] for a in range(3) for b in range(3)])
    cols, codes = np.array([0, 1]), np.array([1, 1])
    imm = candidate_actions(cols, codes, idx, feas(immutable=[0]))
    assert set(map(tuple, imm.tolist())) == {(1, 0), (1, 2)}
    mono = candidate_actions(cols, codes, idx, feas(monotone=[0, 1]))
    assert all(a >= 1 and b >= 1 for a, b in mono.tolist())
    assert len(mono) == 3
    step = candidate_actions(np.array([0, 1]), np.array([0, 0]), idx, feas(max_step={0: 1}))
    assert all(a <= 1 for a, _ in step.tolist())
    miss = candidate_actions(cols, codes, idx, feas(missing=[(1, 2)]))
    assert all(b != 2 for _, b in miss.tolist())


def test_missing_subgroup_value_may_move_to_known():
    idx = index([item(0, 0)], [item(0, 1)])
    got = candidate_actions(np.array([0]), np.array([2]), idx, feas(missing=[(0, 2)]))
    assert got.tolist() == [[0], [1]]


def test_full_cover_rejects_changing_everything():
    idx = index([item(0, 1), item(1, 1), item(2, 1)], [item(0, 1), item(1, 0), item(2, 0)])
    got = candidate_actions(np.arange(3), np.zeros(3, int), idx, feas(), n_columns=3)
    assert got.tolist() == [[1, 0, 0]]
