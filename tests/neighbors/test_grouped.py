"""The grouped search of a base whose rows repeat (src/primafacie/neighbors/grouped.py): the
brute-force answer, tie rule included, at the cost of the distinct rows."""

from __future__ import annotations

import numpy as np
import pytest

import primafacie.neighbors.search as search
from primafacie.neighbors import GowerMatrix, knn
from primafacie.neighbors.grouped import base_groups, grouped_topk
from primafacie.situation.lists import ListReducer


def _matrix(rng, n, p, c, levels, values):
    num = rng.integers(0, values, size=(n, p)) / 4.0
    return GowerMatrix(num, rng.integers(0, levels, size=(n, c)), (levels,) * c)


@pytest.fixture
def grouped_calls(monkeypatch):
    """How many query blocks went through the grouped scan."""
    calls = []
    real = search._grouped_chunk

    def counted(shared, sl):
        calls.append(sl)
        return real(shared, sl)

    monkeypatch.setattr(search, "_grouped_chunk", counted)
    return calls


def test_grouped_topk_by_hand():
    # base rows 0, 2 are one distinct row (distance 0.5), rows 1, 3, 4 the other (0.25)
    groups = base_groups(np.array([0, 1]), np.array([0, 1, 0, 1, 1]))
    idx, dist = grouped_topk(np.array([[0.5, 0.25], [0.25, 0.25]]), groups, 4)
    assert idx.tolist() == [[1, 3, 4, 0], [0, 1, 2, 3]]  # the second: a tie, by row
    assert dist.tolist() == [[0.25, 0.25, 0.25, 0.5], [0.25] * 4]


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("ties", ["first", "last"])
@pytest.mark.parametrize("decimals", [None, 12])
def test_auto_on_repeated_rows_is_brute_force(seed, ties, decimals, grouped_calls):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(20, 400)), int(rng.integers(1, 200))
    p, c = int(rng.integers(1, 3)), int(rng.integers(0, 3))
    levels, values = int(rng.integers(1, 4)), int(rng.integers(1, 5))
    base = _matrix(rng, n, p, c, levels, values)
    query = _matrix(rng, m, p, c, levels, 6)
    k = int(rng.integers(1, n + 3))  # past n: padded
    opts = dict(ties=ties, decimals=decimals, divisor=p + c)
    auto = knn(query, base, k, algorithm="auto", **opts)
    brute = knn(query, base, k, algorithm="brute", **opts)
    np.testing.assert_array_equal(auto.indices, brute.indices)
    np.testing.assert_array_equal(auto.distances, brute.distances)
    np.testing.assert_array_equal(auto.counts, brute.counts)
    distinct = len(np.unique(np.hstack([base.num, base.codes]), axis=0))
    assert bool(grouped_calls) == (distinct <= n / 2)  # grouped exactly when the rows repeat


def test_grouped_with_max_distance_and_small_chunks(grouped_calls):
    rng = np.random.default_rng(3)
    base, query = _matrix(rng, 500, 2, 1, 2, 4), _matrix(rng, 60, 2, 1, 2, 6)
    opts = dict(max_distance=0.3, divisor=3.0, chunk_size=7)
    auto = knn(query, base, 40, algorithm="auto", **opts)
    brute = knn(query, base, 40, algorithm="brute", **opts)
    np.testing.assert_array_equal(auto.indices, brute.indices)
    # the 60 queries (too varied to search the distinct ones alone) in blocks of at most 7
    assert sum(sl.stop - sl.start for sl in grouped_calls) == 60
    assert max(sl.stop - sl.start for sl in grouped_calls) <= 7


def test_distinct_rows_are_not_grouped(grouped_calls):
    rng = np.random.default_rng(4)
    base = GowerMatrix(rng.random((300, 2)), np.zeros((300, 0), dtype=int), ())
    knn(base[:50], base, 10)
    assert not grouped_calls


@pytest.mark.parametrize("own, keep", [(False, True), (True, False), (True, True)])
def test_reducers_of_repeated_queries(own, keep, monkeypatch):
    """A reducer that reads only the lists runs once per distinct query; one that reads the
    query's own row (the control search) works from the distinct lists
    (``reduce_repeated``) unless it keeps the lists, which are then expanded to every query.
    Each gives the rows of a search of every query one by one."""
    rng = np.random.default_rng(5)
    base = _matrix(rng, 400, 2, 0, 1, 5)
    rows = rng.choice(400, size=300)  # queries repeat: few distinct
    reducer = ListReducer(
        cols=(1, 5, 20),
        neg=rng.integers(0, 2, size=400).astype(np.int8),
        own=rows if own else None,
        drop_own=own,
        keep=keep,
    )
    assert reducer.rows_by_list is (not own)
    seen = []
    real = ListReducer.__call__

    def spy(self, idx, dist, sl):
        seen.append(len(idx))
        return real(self, idx, dist, sl)

    monkeypatch.setattr(ListReducer, "__call__", spy)
    got = knn(base[rows], base, 21, reduce=reducer)
    distinct = len(np.unique(base[rows].num, axis=0))
    assert sum(seen) == {(False, True): distinct, (True, False): 0, (True, True): 300}[own, keep]
    whole = knn(base[rows], base, 21)
    want = real(reducer, whole.indices, whole.distances, slice(0, 300))
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
