"""Every k-NN backend returns exactly the brute-force answer (src/primafacie/neighbors/search.py).

Hypothesis draws small integer-valued data (exact ties everywhere), duplicated rows, dense
one-hot columns and categorical codes with many levels, and compares every backend with an
independent reference: the full distance matrix in the documented arithmetic (differing codes
counted first, numeric columns added left to right, divided by ``|X|``, rounded to
``decimals``) ranked by ``np.lexsort`` with the tie rule.
"""

from __future__ import annotations

from contextlib import ExitStack
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from primafacie.neighbors import GowerMatrix, knn, search

faiss = pytest.importorskip("faiss", reason="faiss-cpu is in the [test] extra")

BACKENDS = ["brute", "tree", "faiss", "auto"]

#: Internal layouts of the tree and faiss backends, forced by lowering their thresholds:
#: every group searched in its own index, or all groups in one index with the key as a column.
LAYOUTS = {
    "default": {},
    "group-indexes": {"_GATHER": 1},
    "one-index": {"_GATHER": 1, "_MAX_GROUP_INDEXES": 0},
}


def reference(q: GowerMatrix, b: GowerMatrix, k: int, ties: str, divisor: float, decimals):
    d = np.zeros((len(q), len(b)))
    for j in range(q.codes.shape[1]):
        d += q.codes[:, j][:, None] != b.codes[:, j][None, :]
    for j in range(q.num.shape[1]):
        d += np.abs(q.num[:, j][:, None] - b.num[:, j][None, :])
    d /= divisor
    if decimals is not None:
        d = np.round(d, decimals)
    pos = np.arange(len(b))
    idx = np.array([np.lexsort((pos if ties == "first" else -pos, row))[:k] for row in d])
    return idx, np.take_along_axis(d, idx, axis=1)


@st.composite
def tables(draw):
    """(query, base, k): integer-valued numerics, one-hot blocks, narrow and wide codes."""
    n = draw(st.integers(1, 70))
    m = draw(st.integers(1, 12))
    p = draw(st.integers(0, 3))
    onehot = draw(st.integers(0, 3))  # levels of one dense one-hot block (0 = none)
    levels = draw(st.lists(st.sampled_from([2, 3, 6, 40, 500]), max_size=4))
    if p == 0 and not levels and not onehot:
        p = 1
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    spread = draw(st.sampled_from([1, 2, 4]))
    rows = m + n
    num = rng.integers(0, spread + 1, size=(rows, p)).astype(float) / spread
    if onehot:
        block = np.zeros((rows, onehot))
        block[np.arange(rows), rng.integers(0, onehot, rows)] = 0.5
        num = np.hstack([num, block])
    # Few distinct codes per column whatever its level count, so wide columns still tie.
    codes = (
        np.column_stack([rng.choice(rng.integers(0, v, size=3), size=rows) for v in levels])
        if levels
        else np.zeros((rows, 0), dtype=np.int64)
    )
    dup = draw(st.booleans())
    if dup:  # duplicated rows, and queries equal to base rows
        src = rng.integers(0, rows, size=rows)
        num, codes = num[src], codes[src]
    X = GowerMatrix(num, codes, tuple(levels))
    k = draw(st.integers(1, max(1, n + 2)))
    return X[np.arange(m)], X[np.arange(m, rows)], k


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=tables(),
    ties=st.sampled_from(["first", "last"]),
    decimals=st.sampled_from([None, 12, 1, 0]),
    divisor=st.sampled_from([1.0, 3.0, 7.0]),
)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("algorithm", BACKENDS)
def test_every_backend_is_brute_force(algorithm, layout, data, ties, decimals, divisor):
    if algorithm in ("brute", "auto") and layout != "default":
        return
    q, b, k = data
    with ExitStack() as stack:
        for name, value in LAYOUTS[layout].items():
            stack.enter_context(patch.object(search, name, value))
        got = knn(q, b, k, algorithm=algorithm, ties=ties, decimals=decimals, divisor=divisor)
    kk = min(k, len(b))
    idx, dist = reference(q, b, kk, ties, divisor, decimals)
    assert np.array_equal(got.indices[:, :kk], idx)
    assert np.array_equal(got.distances[:, :kk], dist)
    assert (got.indices[:, kk:] == -1).all() and np.isinf(got.distances[:, kk:]).all()


@settings(max_examples=25, deadline=None)
@given(data=tables(), chunk=st.integers(1, 5))
@pytest.mark.parametrize("algorithm", ["brute", "tree"])
def test_chunking_never_changes_the_answer(algorithm, data, chunk):
    q, b, k = data
    whole = knn(q, b, k, algorithm=algorithm)
    parts = knn(q, b, k, algorithm=algorithm, chunk_size=chunk)
    assert np.array_equal(whole.indices, parts.indices)
    assert np.array_equal(whole.distances, parts.distances)


@pytest.mark.parametrize("algorithm", ["brute", "tree", "faiss"])
def test_rounding_merges_a_farther_earlier_row_into_the_tie(algorithm):
    # Sums 0.75 and 0.5 divided by 7 are 0.107 and 0.071: both 0.1 at one decimal, so row 0
    # (sum 0.75, farther before rounding) ties with rows 1.. and wins by coming first. A
    # backend that fetched only the rows within the k-th raw sum would miss it.
    base = np.vstack([[[0.75]], np.full((20, 1), 0.5)])
    res = knn(np.zeros((1, 1)), base, 2, algorithm=algorithm, divisor=7, decimals=1)
    assert res.indices.tolist() == [[0, 1]]
    assert res.distances.tolist() == [[0.1, 0.1]]
    last = knn(np.zeros((1, 1)), base, 2, algorithm=algorithm, divisor=7, decimals=1, ties="last")
    assert last.indices.tolist() == [[20, 19]]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=tables(),
    ties=st.sampled_from(["first", "last"]),
    decimals=st.sampled_from([None, 12, 1]),
    max_distance=st.sampled_from([None, 0.5]),
)
@pytest.mark.parametrize("extra", [1, 2, 32])
@pytest.mark.parametrize("layout", ["group-indexes", "one-index"])
def test_every_extra_an_index_may_choose_is_brute_force(
    extra, layout, data, ties, decimals, max_distance
):
    """Each index samples its queries (however few) and fetches ``k + extra``: the answer is
    brute force's whatever the extra (tied rows past it come by the radius search)."""
    q, b, k = data
    with ExitStack() as stack:
        for name, value in LAYOUTS[layout].items():
            stack.enter_context(patch.object(search, name, value))
        stack.enter_context(patch.object(search, "MIN_QUERIES", 0))
        stack.enter_context(patch.object(search, "choose_extra", lambda shares, k: extra))
        got = knn(q, b, k, algorithm="tree", ties=ties, decimals=decimals,
                  max_distance=max_distance)  # fmt: skip
    kk = min(k, len(b))
    idx, dist = reference(q, b, kk, ties, 1.0, decimals)
    if max_distance is not None:
        far = dist > max_distance
        idx, dist = np.where(far, -1, idx), np.where(far, np.inf, dist)
    assert np.array_equal(got.indices[:, :kk], idx)
    assert np.array_equal(got.distances[:, :kk], dist)
