"""Tests of primafacie.neighbors.topk: the exact top-k kernels and their tie rule."""

from __future__ import annotations

import numpy as np
import pytest

from primafacie.neighbors.topk import merge_ranked, select_pairs


def _reference(qi, bi, d, m, k):
    """Per query, its distinct pairs sorted by (distance, base row), the first k."""
    out_i = np.full((m, k), -1, dtype=np.int64)
    out_d = np.full((m, k), np.inf)
    for q in range(m):  # a reference: plain loops
        pairs = sorted(
            {(float(dv), int(b)) for qq, b, dv in zip(qi, bi, d, strict=True) if qq == q}
        )
        for r, (dv, b) in enumerate(pairs[:k]):
            out_i[q, r], out_d[q, r] = b, dv
    return out_i, out_d


def test_ties_go_to_the_smaller_row_in_the_sorted_and_the_tied_rows():
    # query 0: no tie; query 1: a tie at the k-th distance (rows 9 and 4), given 9 first;
    # query 2: the same pair twice (found in two strata); query 3: no candidate
    qi = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    bi = np.array([5, 1, 7, 9, 4, 2, 6, 6, 3])
    d = np.array([0.3, 0.1, 0.2, 0.5, 0.5, 0.1, 0.2, 0.2, 0.4])
    idx, dist = select_pairs(qi, bi, d, 4, 2)
    assert idx.tolist() == [[1, 7], [2, 4], [6, 3], [-1, -1]]
    assert dist.tolist() == [[0.1, 0.2], [0.1, 0.5], [0.2, 0.4], [np.inf, np.inf]]


@pytest.mark.parametrize("seed", range(40))
def test_equals_a_sort_by_distance_then_row(seed):
    rng = np.random.default_rng(seed)
    m, k, p = int(rng.integers(1, 12)), int(rng.integers(1, 6)), int(rng.integers(0, 120))
    qi = rng.integers(0, m, p)
    bi = rng.integers(0, int(rng.integers(1, 30)), p)
    d = rng.integers(0, int(rng.integers(1, 5)), p) / 3.0  # few values: many ties
    if seed % 4 == 0:
        d[rng.random(p) < 0.2] = np.inf  # a candidate at an infinite distance
    _, first, inverse = np.unique(qi * 1000 + bi, return_index=True, return_inverse=True)
    d = d[first][inverse.reshape(-1)]  # a pair found twice has one distance
    if seed % 5 == 0:  # one query with far more candidates: the global sort
        qi = np.r_[qi, np.zeros(200, dtype=np.int64)]
        bi = np.r_[bi, np.arange(200) + 100]
        d = np.r_[d, rng.random(200)]
    got, want = select_pairs(qi, bi, d, m, k), _reference(qi, bi, d, m, k)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_pairs_grouped_out_of_query_order_and_pairs_apart_give_the_same_lists():
    # query 2's pairs first, then query 0's (grouped, not sorted by query: no sort by query);
    # then query 1's pairs split in two runs (sorted by query first). Query 0's row arrives
    # ascending (no row sort), query 2's does not.
    qi = np.array([2, 2, 2, 0, 0, 0])
    bi = np.array([4, 3, 8, 1, 5, 2])
    d = np.array([0.3, 0.1, 0.2, 0.1, 0.2, 0.3])
    got = select_pairs(qi, bi, d, 3, 2)
    assert got[0].tolist() == [[1, 5], [-1, -1], [3, 8]]
    assert got[1].tolist() == [[0.1, 0.2], [np.inf, np.inf], [0.1, 0.2]]
    qi2, bi2, d2 = np.r_[qi, 1, 0, 1], np.r_[bi, 7, 9, 6], np.r_[d, 0.5, 0.05, 0.5]
    got = select_pairs(qi2, bi2, d2, 3, 2)
    want = _reference(qi2, bi2, d2, 3, 2)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert got[0].tolist() == [[9, 1], [6, 7], [3, 8]]


@pytest.mark.parametrize("seed", range(20))
def test_index_like_lists_equal_a_sort(seed):
    # each query's candidates contiguous and nearly ascending (an index's lists): most rows
    # take the path without a sort; a few swapped neighbours, ties and repeats do not
    rng = np.random.default_rng(seed)
    m, k = 30, 4
    counts = rng.integers(0, 8, m)
    qi = np.repeat(rng.permutation(m), counts[rng.permutation(m)])
    bi = rng.integers(0, 50, len(qi))
    d = np.sort(rng.integers(0, 6, len(qi)) / 4.0)
    swap = rng.random(len(qi)) < 0.1
    d[1:][swap[1:]], d[:-1][swap[1:]] = d[:-1][swap[1:]], d[1:][swap[1:]]
    _, first, inverse = np.unique(qi * 1000 + bi, return_index=True, return_inverse=True)
    d = d[first][inverse.reshape(-1)]
    got, want = select_pairs(qi, bi, d, m, k), _reference(qi, bi, d, m, k)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def _two_ranked_lists(rng, m, k, infinite):
    """Pairs of one (query, row) distance each, split into two lists ranked by select_pairs;
    some pairs in both lists, many ties, some queries with an empty list on either side."""
    p = int(rng.integers(0, 12 * m))
    qi, bi = rng.integers(0, m, p), rng.integers(0, 40, p)
    d = rng.integers(0, 5, p) / 3.0  # few values: ties between and within the lists
    if infinite:
        d[rng.random(p) < 0.1] = np.inf
    _, first, inverse = np.unique(qi * 1000 + bi, return_index=True, return_inverse=True)
    d = d[first][inverse.reshape(-1)]  # a pair found twice has one distance
    side = rng.random(p) < rng.choice([0.05, 0.5, 0.95])  # short or long first lists
    both = rng.random(p) < 0.1  # in both lists
    a, b = side | both, ~side | both
    return (
        (qi, bi, d),
        select_pairs(qi[a], bi[a], d[a], m, k),
        select_pairs(qi[b], bi[b], d[b], m, k),
    )


@pytest.mark.parametrize("seed", range(60))
def test_merging_two_ranked_lists_equals_ranking_their_pairs(seed):
    rng = np.random.default_rng(seed)
    m, k = int(rng.integers(1, 30)), int(rng.integers(1, 12))
    (qi, bi, d), a, b = _two_ranked_lists(rng, m, k, infinite=seed % 3 == 0)
    want = select_pairs(qi, bi, d, m, k)
    for got in (merge_ranked(*a, *b), merge_ranked(*b, *a)):
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        assert np.array_equal(got[0], _reference(qi, bi, d, m, k)[0])


def test_merge_places_a_short_list_before_between_and_after_a_ranked_one():
    # query 0: both before; query 1: a tie at 0.3 goes to the smaller row (2 before 5), the
    # pair (7, 0.5) in both lists kept once; query 2: after, cut at k; query 3: empty x list
    a_i = np.array([[8, 9, -1, -1], [2, 7, -1, -1], [6, -1, -1, -1], [-1, -1, -1, -1]])
    a_d = np.where(a_i >= 0, [[0.0, 0.1, 0, 0], [0.3, 0.5, 0, 0], [0.9, 0, 0, 0], [0] * 4], np.inf)
    b_i = np.array([[1, 3, 4, 5], [1, 5, 7, 8], [1, 2, 3, 4], [4, 3, -1, -1]])
    b_d = np.where(
        b_i >= 0,
        [[0.2, 0.3, 0.4, 0.5], [0.2, 0.3, 0.5, 0.6], [0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0, 0]],
        np.inf,
    )
    i, d = merge_ranked(a_i, a_d, b_i, b_d)
    assert i.tolist() == [[8, 9, 1, 3], [1, 2, 5, 7], [1, 2, 3, 4], [4, 3, -1, -1]]
    assert d[1].tolist() == [0.2, 0.3, 0.3, 0.5] and d[3, 2] == np.inf
