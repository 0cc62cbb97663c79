"""Tests of primafacie.neighbors.candidates: the extra candidates chosen from the data."""

from __future__ import annotations

import numpy as np
import pytest

from primafacie.neighbors.candidates import (
    EXTRAS,
    MIN_QUERIES,
    certified_shares,
    choose_extra,
)
from primafacie.neighbors.search import _tree_index, _tune_kq


def test_shares_count_the_queries_each_extra_certifies():
    # query 0: distances strictly rising (any extra certifies); query 1: ties with the 3 rows
    # after the k-th (only extra 4 reaches past them); query 2: padded from its 4th cell (only
    # extra 1, whose 3 cells are real, certifies it)
    d = np.array(
        [
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
            [1.0, 2.0, 2.0, 2.0, 2.0, 6.0, 7.0],
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        ]
    )
    idx = np.zeros(d.shape, dtype=np.int64)
    idx[2, 3:] = -1
    got = certified_shares(d, idx, 2, np.zeros(3), 100, extras=(1, 2, 4))
    assert got.tolist() == pytest.approx([2 / 3, 1 / 3, 2 / 3])
    # an index of kq rows is certified whatever the distances (every row was fetched)
    assert certified_shares(d[1:2], idx[1:2], 2, np.zeros(1), 3, extras=(1,)).tolist() == [1.0]


def test_the_cost_model_trades_the_query_against_the_radius_search():
    assert choose_extra(np.ones(len(EXTRAS)), 51) == 1  # nothing uncertified: the least
    assert choose_extra(np.zeros(len(EXTRAS)), 51) == 1  # nothing certified: the least
    many = np.array([0.0, 0.0, 0.2, 0.95, 1.0, 1.0])  # ties reaching 4-8 past the k-th
    assert choose_extra(many, 51) == 8


def _chosen(emb_base: np.ndarray, emb_query: np.ndarray, k: int) -> int:
    index = _tree_index(emb_base, float(np.abs(emb_base).max()))
    kq = _tune_kq(
        index,
        queries=lambda: np.arange(len(emb_query)),
        size=len(emb_base),
        embed=lambda rows: emb_query[rows],
        k=k,
        kq=k + 8,
        slack=0.0,
    )
    return kq - k


def test_a_tie_heavy_index_fetches_more_than_a_tie_free_one_and_the_choice_is_fixed():
    rng = np.random.default_rng(0)
    smooth = rng.random((6_000, 2))
    lattice = np.round(smooth, 2)  # L1 distances on a 0.01 grid: rows tie at the k-th
    q = rng.random((MIN_QUERIES, 2))
    free, tied = _chosen(smooth, q, 10), _chosen(lattice, np.round(q, 2), 10)
    assert free == 1
    assert tied > free
    # the sample is fixed (evenly spaced queries), so is the choice, run after run
    assert _chosen(lattice, np.round(q, 2), 10) == tied
    assert _chosen(smooth, q, 10) == free


def test_an_index_with_few_queries_keeps_the_default():
    rng = np.random.default_rng(1)
    base = rng.random((2_000, 2))
    assert _chosen(base, rng.random((MIN_QUERIES - 1, 2)), 5) == 8
