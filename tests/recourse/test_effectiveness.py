"""The effectiveness part of the FACTS engine (:mod:`primafacie.recourse.effectiveness`):
how the (member, action) work is cut into predict chunks and how a subgroup's flips fill the
table, by hand."""

import numpy as np

from primafacie.recourse.effectiveness import ActionEffectiveness, _TableBuilder


def _part(chunk_rows: int) -> ActionEffectiveness:
    part = ActionEffectiveness()
    part.chunk_rows = chunk_rows  # the one engine parameter the chunking reads
    return part


def test_work_units_split_a_subgroup_larger_than_a_chunk():
    # subgroup 0: 3 members × 2 actions = 6 rows <= 10, one unit; subgroup 1: 5 × 4 = 20 > 10,
    # blocks of 10 // 5 = 2 actions
    units = _part(10)._work_units(np.array([3, 5]), np.array([2, 4]))
    assert units == [(0, 0, 2), (1, 0, 2), (1, 2, 4)]


def test_work_units_keep_one_action_per_block_when_members_exceed_the_chunk():
    assert _part(4)._work_units(np.array([7]), np.array([2])) == [(0, 0, 1), (0, 1, 2)]


def test_chunks_pack_consecutive_units_up_to_chunk_rows():
    # 4 + 4 = 8 <= 10, + 4 = 12 > 10; 12 alone exceeds the limit but a run holds one unit
    assert _part(10)._chunks([4, 4, 4, 12, 1]) == [(0, 2), (2, 3), (3, 4), (4, 5)]


def test_table_builder_counts_one_subgroup_by_hand():
    # members 0, 1 in group a, member 2 in group b; action 0 (cost 1) flips member 0,
    # action 1 (cost 2) flips everyone
    builder = _TableBuilder(("a", "b"), [np.array([1.0, 2.0])], np.array([2]))
    flips = np.array([[1, 0, 0], [1, 1, 1]], dtype=bool)
    builder.add(0, flips, np.array([0, 0, 1]))
    table = builder.table()
    assert table.n.tolist() == [[2, 1]]
    assert table.eff.tolist() == [[1, 0], [2, 1]]
    assert table.cum.tolist() == [[1, 0], [2, 1]]
    assert table.n_rec.tolist() == [[2, 1]]
    # cheapest recourse: member 0 costs 1, member 1 costs 2 (a: 3); member 2 costs 2 (b: 2)
    assert table.rc_sum.tolist() == [[3.0, 2.0]]
    assert np.unpackbits(builder.packed[0], axis=1)[:, :3].astype(bool).tolist() == flips.tolist()
