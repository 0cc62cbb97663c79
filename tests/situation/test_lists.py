"""Prefix counts of neighbour lists and the reducer the searches run where they run."""

import numpy as np
import pytest

from primafacie.neighbors import knn
from primafacie.situation.lists import ListReducer, prefix_counts, prefix_lengths


def test_prefix_counts_cumulative_with_pads():
    """Row 0 lists rows 2, 0, 1 (negatives at rows 0 and 2); row 1 has one neighbour and pads."""
    neg = np.array([1, 0, 1])
    groups = np.array([[2, 0, 1], [1, -1, -1]])
    counts = prefix_counts(groups, neg, (1, 2, 3))
    assert counts.neg.tolist() == [[1, 2, 2], [0, 0, 0]]
    assert counts.size.tolist() == [[1, 2, 3], [1, 1, 1]]
    assert counts.negatives(2).tolist() == [2, 0] and counts.sizes(3).tolist() == [3, 1]
    assert counts.neg.dtype == np.int32 and counts.size.dtype == np.int32
    with pytest.raises(KeyError, match="prefix length 4 was not kept"):
        counts.negatives(4)


def test_prefix_lengths_are_every_k_and_k_plus_one_within_the_width():
    assert prefix_lengths([15, 30, 50], 50) == (15, 16, 30, 31, 50)
    assert prefix_lengths([15, 30, 50], 51) == (15, 16, 30, 31, 50, 51)


def test_control_reducer_finds_and_drops_the_complainant():
    """Lists over a search space of 4 rows (negatives at positions 1 and 3). Query 0 is
    position 1 and finds itself second; query 1 is position 3 and is not in its list."""
    idx = np.array([[0, 1, 2], [0, 1, 2]])
    dist = np.array([[0.0, 0.1, 0.2], [0.3, 0.4, 0.5]])
    red = ListReducer(
        cols=(1, 2), neg=np.array([0, 1, 0, 1]), own=np.array([1, 3]), drop_own=True, keep=True
    )
    assert red.names == ("self_pos", "neg", "size", "list", "dist")
    self_pos, neg, size, lists, d = red(idx, dist, slice(0, 2))
    assert self_pos.tolist() == [1, 4]  # absent: width + 1
    # query 0 keeps rows 0, 2 (itself dropped); query 1 keeps rows 0, 1 (the last dropped)
    assert lists.tolist() == [[0, 2], [0, 1]]
    assert d.tolist() == [[0.0, 0.2], [0.3, 0.4]]
    assert neg.tolist() == [[0, 0], [0, 1]] and size.tolist() == [[1, 2], [1, 2]]


def test_legacy_centre_rank_counts_later_rows_at_distance_zero():
    """ties_last: a row at distance 0 beats the appended centre only when its data row comes
    after the complainant's."""
    idx = np.array([[0, 1, 2]])
    dist = np.array([[0.0, 0.0, 0.1]])
    red = ListReducer(
        cols=(1,), neg=np.array([1, 0, 0]), neg_cf=np.array([0, 1, 1]),
        centre_rows=np.array([15]), space_rows=np.array([10, 20, 30]), ties_last=True,
    )  # fmt: skip
    _, _, neg_cf, rank = red(idx, dist, slice(0, 1))
    assert rank.tolist() == [1]  # data row 20 (> 15) at distance 0; row 10 does not beat it
    assert neg_cf.tolist() == [[0]]
    first = ListReducer(cols=(1,), neg=np.array([1, 0, 0]), centre_rows=np.array([15]),
                        space_rows=np.array([10, 20, 30]))  # fmt: skip
    assert first(idx, dist, slice(0, 1))[-1].tolist() == [2]


def test_knn_reduce_equals_reducing_the_full_lists():
    """knn(reduce=...) over chunks gives the reducer of the whole lists (chunking invisible)."""
    rng = np.random.default_rng(3)
    base = np.round(rng.random((300, 3)), 1)  # rounded: many ties
    query = base[:120]
    neg = rng.integers(0, 2, 300)
    red = ListReducer(cols=(5, 6, 10), neg=neg, own=np.arange(120), drop_own=True, keep=True)
    full = knn(query, base, 11)
    expect = red(full.indices, full.distances, slice(0, 120))
    got = knn(query, base, 11, reduce=red, chunk_size=7)
    for a, b in zip(expect, got, strict=True):
        np.testing.assert_array_equal(a, b)
