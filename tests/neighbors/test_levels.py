"""Indexes split by the levels of a few-valued numeric column (src/primafacie/neighbors/levels.py)
and trees over rows in Z order (layout.py).

Neither may change an answer: hypothesis compares the tree and faiss backends, with every index
split and every tree's rows in Z order (thresholds lowered), against the brute-force reference
of ``test_properties`` on integer-valued data full of exact ties.
"""

from __future__ import annotations

from contextlib import ExitStack
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from primafacie.neighbors import GowerMatrix, knn, layout, levels, search

from .test_properties import LAYOUTS, reference, tables

pytest.importorskip("faiss", reason="faiss-cpu is in the [test] extra")


class _Count:
    """Counts the split indexes built and the levels searched."""

    def __init__(self) -> None:
        self.splits, self.parts = 0, []

    def __enter__(self) -> _Count:
        real_init, real_part = levels._Levels.__init__, levels._Levels._part
        me = self

        def init(self, *a, **kw):
            me.splits += 1
            real_init(self, *a, **kw)

        def part(self, v, rest, kq, off):
            me.parts.append((v, len(rest)))
            return real_part(self, v, rest, kq, off)

        self._patches = [
            patch.object(levels._Levels, "__init__", init),
            patch.object(levels._Levels, "_part", part),
        ]
        for p in self._patches:
            p.start()
        return self

    def __exit__(self, *exc) -> None:
        for p in self._patches:
            p.stop()


def _split_everything() -> ExitStack:
    """Every group searched in an index (none gathered whole), every index split."""
    stack = ExitStack()
    stack.enter_context(patch.object(levels, "MIN_ROWS", 1))
    stack.enter_context(patch.object(layout, "MIN_ROWS", 1))
    stack.enter_context(patch.object(search, "_GATHER", 0))
    return stack


def test_level_column_picks_the_fewest_levels():
    n = 12_000
    x = np.column_stack(
        [np.arange(n) % 8 / 7, np.arange(n) / n, np.arange(n) % 3 / 2, np.full(n, 0.5)]
    )
    assert levels.level_column(x) == 2  # 3 levels beat 8; a constant column is no split
    assert levels.level_column(x[:, [1, 3]]) is None
    assert levels.level_column(x[:9_999]) is None  # below MIN_ROWS
    nine = np.column_stack([np.arange(n) % 9 / 8, x[:, 1]])
    assert levels.level_column(nine) is None  # MAX_LEVELS = 8


def test_nearest_rows_in_another_level_by_hand():
    # Level column first (levels 0 and 0.3), x second. The query (0, 0) is 0.5 from its own
    # level's nearest row (0, 0.5) and 0.3 from (0.3, 0): the other level holds the nearest.
    base = np.array([[0.0, 0.5], [0.0, 0.9], [0.3, 0.0], [0.3, 1.0], [0.0, 0.6], [0.3, 0.05]])
    with _split_everything(), _Count() as c:
        got = knn(np.zeros((1, 2)), base, 3, algorithm="tree", chunk_size=1)
    assert got.indices.tolist() == [[2, 5, 0]]
    assert np.allclose(got.distances, [[0.3, 0.35, 0.5]])
    assert c.splits >= 1 and {v for v, _ in c.parts} == {0, 1}


def test_a_far_level_is_not_searched():
    # Levels 0, 0.5 and 1 (column 0); the query's 3 nearest lie in its own level at distance
    # <= 0.02, so the levels 0.5 and 1 away are never searched.
    rng = np.random.default_rng(0)
    x = np.round(rng.random(3_000) * 0.02, 3)
    base = np.column_stack([np.repeat([0.0, 0.5, 1.0], 1_000), x])
    with _split_everything(), _Count() as c:
        got = knn(np.zeros((1, 2)), base, 3, algorithm="tree")
    assert [v for v, _ in c.parts] == [0]
    ref = knn(np.zeros((1, 2)), base, 3, algorithm="brute")
    assert np.array_equal(got.indices, ref.indices)
    assert np.array_equal(got.distances, ref.distances)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=tables(),
    ties=st.sampled_from(["first", "last"]),
    decimals=st.sampled_from([None, 12, 1, 0]),
    divisor=st.sampled_from([1.0, 3.0, 7.0]),
)
@pytest.mark.parametrize("strata", LAYOUTS)
@pytest.mark.parametrize(
    "algorithm, split",
    [("tree", "levels"), ("tree", "zbase"), ("tree", "both"), ("faiss", "levels")],
)
def test_split_indexes_are_brute_force(algorithm, split, strata, data, ties, decimals, divisor):
    # Every index split (the numeric columns of `tables` take at most 5 values), or every
    # tree's rows in Z order (faiss scans: its rows' order is not changed), or both.
    q, b, k = data
    with ExitStack() as stack:
        if split != "zbase":
            stack.enter_context(patch.object(levels, "MIN_ROWS", 1))
        if split != "levels":
            stack.enter_context(patch.object(layout, "MIN_ROWS", 1))
        for name, value in LAYOUTS[strata].items():
            stack.enter_context(patch.object(search, name, value))
        got = knn(q, b, k, algorithm=algorithm, ties=ties, decimals=decimals, divisor=divisor)
    kk = min(k, len(b))
    idx, dist = reference(q, b, kk, ties, divisor, decimals)
    assert np.array_equal(got.indices[:, :kk], idx)
    assert np.array_equal(got.distances[:, :kk], dist)
    assert (got.indices[:, kk:] == -1).all() and np.isinf(got.distances[:, kk:]).all()


def test_radius_search_of_a_split_index_fetches_every_tie():
    # 40 rows tied at the k-th distance in two levels: the k + 8 nearest cannot certify them,
    # so the split index's radius search must list all of them.
    base = np.column_stack([np.repeat([0.0, 0.5], 20), np.full(40, 0.25)])
    query = np.array([[0.25, 0.25]])
    with _split_everything(), _Count() as c:
        got = knn(query, base, 5, algorithm="tree", ties="last")
    assert c.splits >= 1
    assert got.indices.tolist() == [[39, 38, 37, 36, 35]]
    assert np.allclose(got.distances, 0.25)


def test_default_thresholds_on_a_credit_like_table():
    # 4 education levels among 24,000 rows: the T = {} stratum's index is split by default.
    rng = np.random.default_rng(2)
    n = 26_000
    num = np.column_stack(
        [np.round(rng.random(n), 2), rng.integers(0, 4, n) / 3, np.round(rng.random(n), 1)]
    )
    X = GowerMatrix(num, rng.integers(0, 2, (n, 1)), (2,))
    q, b = X[np.arange(400)], X[np.arange(400, n)]
    # a query far from its own group's key forces the search of the whole base
    with _Count() as c:
        got = knn(q, b, 20, algorithm="tree", divisor=4, decimals=12)
    ref = knn(q, b, 20, algorithm="brute", divisor=4, decimals=12)
    assert c.splits >= 1
    assert np.array_equal(got.indices, ref.indices)
    assert np.array_equal(got.distances, ref.distances)


def test_a_radius_search_with_an_empty_level_keeps_integer_rows():
    # Found by the hypothesis test above once the trees were SciPy's cKDTree: its radius
    # search answers with plain lists, and a level with no hit gave a float array of rows.
    q = GowerMatrix(num=np.array([[1.0, 0.0], [0.0, 0.0], [0.5, 1.0], [0.5, 0.0]]),
                    codes=np.zeros((4, 0), np.int64), levels=(), layout=("n", "n"))  # fmt: skip
    b_num = np.array([[0.5, 0.5], [1, 1], [1, 0], [1, 0], [0.5, 0], [0, 0.5], [0, 0.5], [0, 0],
                      [1, 0.5], [1, 1], [1, 0.5], [0, 0.5], [1, 1], [1, 1], [0.5, 0.5], [0, 0],
                      [0, 0.5], [0.5, 0.5], [1, 1], [1, 1]], dtype=float)  # fmt: skip
    b = GowerMatrix(num=b_num, codes=np.zeros((20, 0), np.int64), levels=(), layout=("n", "n"))
    with ExitStack() as stack:
        stack.enter_context(patch.object(levels, "MIN_ROWS", 1))
        for name, value in LAYOUTS["group-indexes"].items():
            stack.enter_context(patch.object(search, name, value))
        got = knn(q, b, 1, algorithm="tree", ties="first")
    idx, dist = reference(q, b, 1, "first", 1.0, None)
    assert np.array_equal(got.indices, idx)
    assert np.array_equal(got.distances, dist)
