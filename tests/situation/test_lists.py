"""Prefix counts of neighbour lists and the reducer the searches run where they run."""

import numpy as np
import pytest

from primafacie.neighbors import knn
from primafacie.situation.lists import ListReducer, count_dtype, prefix_counts, prefix_lengths


def test_prefix_counts_cumulative_with_pads():
    """Row 0 lists rows 2, 0, 1 (negatives at rows 0 and 2); row 1 has one neighbour and pads."""
    neg = np.array([1, 0, 1])
    groups = np.array([[2, 0, 1], [1, -1, -1]])
    counts = prefix_counts(groups, neg, (1, 2, 3))
    assert counts.neg.tolist() == [[1, 2, 2], [0, 0, 0]]
    assert counts.size.tolist() == [[1, 2, 3], [1, 1, 1]]
    assert counts.negatives(2).tolist() == [2, 0] and counts.sizes(3).tolist() == [3, 1]
    # held in one byte each (a count never exceeds the width), handed out as int32
    assert counts.neg.dtype == np.uint8 and counts.size.dtype == np.uint8
    assert counts.negatives(2).dtype == np.int32 and counts.sizes(3).dtype == np.int32
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


@pytest.mark.parametrize("drop_own", [False, True])
def test_reduce_repeated_is_the_reduction_of_the_expanded_lists(drop_own):
    """Queries sharing a distinct list (the CST law complainants): the counts and own
    positions from the distinct lists equal the reducer run on every query's copy, pads, own
    rows present or absent, dtypes included."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        g, width, n = int(rng.integers(1, 15)), int(rng.integers(2, 10)), 30
        idx = np.array([rng.permutation(n)[:width] for _ in range(g)])
        short = rng.random(g) < 0.3  # lists shorter than width: -1 pads at the end
        idx[short, width - int(rng.integers(1, width)) :] = -1
        m = int(rng.integers(1, 40))
        inverse = rng.integers(0, g, size=m)
        own = rng.integers(0, n, size=m)
        take = rng.random(m) < 0.6  # most queries' own row in their list
        at = rng.integers(0, width, size=int(take.sum()))  # anywhere in the list, or a pad
        own[take] = idx[inverse[take], at].clip(0)
        top = width - 1 if drop_own else width
        cols = tuple(sorted({1, top, int(rng.integers(1, top + 1))}))
        red = ListReducer(cols=cols, neg=rng.integers(0, 2, size=n).astype(np.int8),
                          own=own, drop_own=drop_own)  # fmt: skip
        dist = rng.random(idx.shape)
        got = red.reduce_repeated(idx, dist, inverse)
        want = red(idx[inverse], dist[inverse], slice(0, m))
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype


def test_reduce_repeated_declines_what_needs_the_lists():
    neg = np.zeros(5, dtype=np.int8)
    idx, inverse = np.array([[0, 1]]), np.array([0, 0])
    for red in (
        ListReducer(cols=(1,), neg=neg),  # no own row: the lists are reduced once anyway
        ListReducer(cols=(1,), neg=neg, own=np.array([0, 1]), keep=True),
        ListReducer(cols=(1,), neg=neg, own=np.array([0, 1]), neg_cf=neg),
    ):
        assert red.reduce_repeated(idx, idx * 0.0, inverse) is None


@pytest.mark.parametrize(("width", "dtype"), [(255, np.uint8), (256, np.uint16), (300, np.uint16)])
def test_prefix_counts_fit_their_dtype_at_the_boundary(width, dtype):
    """Every member rejected: the counts reach the width itself. 256 in a uint8 would wrap to
    0, so a list 256 long keeps uint16 counts, and the values read back are the widths."""
    neg = np.ones(width, dtype=np.int8)
    groups = np.arange(width)[None, :]
    counts = prefix_counts(groups, neg, (width - 1, width))
    assert counts.neg.dtype == dtype and counts.size.dtype == dtype
    assert counts.negatives(width).tolist() == [width] and counts.sizes(width).tolist() == [width]
    assert counts.negatives(width - 1).tolist() == [width - 1]


def test_count_dtype_is_the_smallest_that_holds_the_largest_value():
    assert count_dtype(0) == np.uint8 and count_dtype(255) == np.uint8
    assert count_dtype(256) == np.uint16 and count_dtype(65_535) == np.uint16
    assert count_dtype(65_536) == np.uint32


@pytest.mark.parametrize("width", [254, 255])
def test_reducer_self_pos_of_an_absent_complainant_fits(width):
    """An absent complainant's position is width + 1: 256 for a 255-long list, which a uint8
    would hold as 0 (read as "first in its list"). Both reduction paths keep it exact."""
    idx = np.arange(width)[None, :].repeat(2, axis=0)
    dist = np.zeros(idx.shape)
    neg = np.ones(width + 1, dtype=np.int8)
    red = ListReducer(cols=(width - 1,), neg=neg, own=np.array([width, width]), drop_own=True)
    self_pos, neg_c, size = red(idx, dist, slice(0, 2))
    assert self_pos.tolist() == [width + 1] * 2
    assert self_pos.dtype == (np.uint8 if width + 1 <= 255 else np.uint16)
    assert neg_c.dtype == self_pos.dtype and size.dtype == self_pos.dtype
    assert neg_c.tolist() == [[width - 1]] * 2
    rep = red.reduce_repeated(idx[:1], dist[:1], np.array([0, 0]))
    assert [a.dtype for a in rep] == [self_pos.dtype] * 3
    assert rep[0].tolist() == [width + 1] * 2 and rep[1].tolist() == neg_c.tolist()
