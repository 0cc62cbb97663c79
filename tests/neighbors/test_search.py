"""Gower distance and exact k-NN (src/primafacie/neighbors.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.errors import InputError
from primafacie.neighbors import GowerMatrix, GowerTransformer, gower_distances, knn


def _reference_knn(q, b, k, ties="first"):
    d = np.abs(q[:, None, :] - b[None, :, :]).sum(axis=2)
    pos = np.arange(len(b))
    out = []
    for row in d:
        order = np.lexsort((pos if ties == "first" else -pos, row))
        out.append(order[:k])
    return np.array(out)


def test_gower_mixed_attributes_by_hand():
    df = pd.DataFrame(
        {
            "salary": [10.0, 30.0, 20.0],
            "region": ["a", "b", "a"],
            "edu": ["low", "high", "mid"],
        }
    )
    t = GowerTransformer(
        {"salary": "numeric", "region": "categorical", "edu": {"ordinal": ["low", "mid", "high"]}}
    ).fit(df)
    M = t.transform(df)
    d = gower_distances(M, M, t.divisor)
    # rows 0 and 1: |10-30|/20 = 1, overlap 1, |0-2|/2 = 1 -> 3/3
    assert d[0, 1] == pytest.approx(1.0)
    # rows 0 and 2: 10/20 = 0.5, 0, 1/2 = 0.5 -> 1/3
    assert d[0, 2] == pytest.approx(1 / 3)
    assert np.allclose(np.diag(d), 0)


def test_ranges_come_from_the_factual_data_only():
    fact = pd.DataFrame({"x": [0.0, 10.0]})
    t = GowerTransformer({"x": "numeric"}).fit(fact)
    cf = pd.DataFrame({"x": [25.0]})
    # 25 is outside the factual range: md = 25 / 10 = 2.5, not clipped.
    assert gower_distances(t.transform(cf), t.transform(fact[:1]))[0, 0] == pytest.approx(2.5)


def test_unseen_category_is_an_error_naming_the_feature():
    t = GowerTransformer({"r": "categorical"}).fit(pd.DataFrame({"r": ["a", "b"]}))
    with pytest.raises(InputError, match="'r'"):
        t.transform(pd.DataFrame({"r": ["c"]}))


@pytest.mark.parametrize("ties", ["first", "last"])
def test_knn_matches_lexsort_reference_with_ties(ties):
    rng = np.random.default_rng(0)
    base = rng.integers(0, 4, size=(300, 2)).astype(float)  # many exact ties
    query = rng.integers(0, 4, size=(40, 2)).astype(float)
    res = knn(query, base, 25, ties=ties)
    assert np.array_equal(res.indices, _reference_knn(query, base, 25, ties))


def test_chunked_tree_and_brute_agree():
    rng = np.random.default_rng(1)
    base = np.round(rng.normal(size=(2000, 2)), 1)
    query = np.round(rng.normal(size=(100, 2)), 1)
    full = knn(query, base, 30, algorithm="brute")
    small = knn(query, base, 30, algorithm="brute", chunk_size=7)
    tree = knn(query, base, 30, algorithm="tree", chunk_size=33)
    assert np.array_equal(full.indices, small.indices)
    assert np.array_equal(full.indices, tree.indices)
    assert np.array_equal(full.distances, tree.distances)
    last = knn(query, base, 30, algorithm="tree", ties="last")
    assert np.array_equal(last.indices, _reference_knn(query, base, 30, "last"))


def test_max_distance_and_small_search_space():
    base = np.array([[0.0], [0.1], [0.5], [2.0]])
    res = knn(np.array([[0.0]]), base, 6, max_distance=0.2)
    assert res.indices.tolist() == [[0, 1, -1, -1, -1, -1]]
    assert res.counts.tolist() == [2]
    assert np.isinf(res.distances[0, 2:]).all()


def test_bad_arguments():
    with pytest.raises(InputError, match="ties"):
        knn(np.zeros((1, 1)), np.zeros((2, 1)), 1, ties="random")
    with pytest.raises(InputError, match="k must"):
        knn(np.zeros((1, 1)), np.zeros((2, 1)), 0)


class _FakeIndex:
    """Stand-in for faiss.IndexFlat(d, METRIC_L1): float32 brute force, like faiss."""

    def __init__(self, d, metric):
        self.base = np.zeros((0, d), dtype=np.float32)

    def add(self, x):
        self.base = np.vstack([self.base, x.astype(np.float32)])

    def search(self, q, kq):
        d = np.abs(q[:, None, :] - self.base[None, :, :]).sum(axis=2, dtype=np.float32)
        i = np.argsort(d, axis=1, kind="stable")[:, :kq]
        return np.take_along_axis(d, i, axis=1), i


def test_faiss_path_is_exact(monkeypatch):
    import sys
    import types

    fake = types.SimpleNamespace(IndexFlat=_FakeIndex, METRIC_L1=1)
    monkeypatch.setitem(sys.modules, "faiss", fake)
    rng = np.random.default_rng(2)
    base = np.round(rng.normal(size=(500, 3)), 1)  # ties included
    query = np.round(rng.normal(size=(60, 3)), 1)
    for ties in ("first", "last"):
        got = knn(query, base, 20, algorithm="faiss", ties=ties, divisor=3)
        ref = knn(query, base, 20, algorithm="brute", ties=ties, divisor=3)
        assert np.array_equal(got.indices, ref.indices)
        assert np.array_equal(got.distances, ref.distances)


def test_faiss_missing_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "faiss", None)
    with pytest.raises(InputError, match=r"\[fast\]"):
        knn(np.zeros((1, 1)), np.zeros((30, 1)) + np.arange(30)[:, None], 2, algorithm="faiss")


def test_decimals_turns_float_noise_into_ties():
    # |3 - 2.5| / 3.5 and |3 - 3.5| / 3.5 are equal, but on the scaled matrix they differ in the
    # last bit (0.1428571428571428 vs ...429): without rounding the noise, not the tie rule,
    # picks the neighbour.
    t = GowerTransformer({"x": "numeric"}).fit(pd.DataFrame({"x": [0.0, 3.5]}))
    base = t.transform(pd.DataFrame({"x": [2.5, 3.5]}))
    q = t.transform(pd.DataFrame({"x": [3.0]}))
    noisy = gower_distances(q, base)
    assert noisy[0, 0] != noisy[0, 1]
    for algorithm in ("brute", "tree"):
        first = knn(q, base, 1, ties="first", decimals=12, algorithm=algorithm)
        last = knn(q, base, 1, ties="last", decimals=12, algorithm=algorithm)
        assert first.indices.tolist() == [[0]] and last.indices.tolist() == [[1]]
    assert knn(q, base, 1, ties="last").indices.tolist() == [[0]]  # raw sums: noise decides
    with pytest.raises(InputError, match="decimals"):
        knn(q, base, 1, decimals=-1)


def test_infinite_values_are_an_error_naming_the_feature():
    df = pd.DataFrame({"salary": [1.0, 2.0, np.inf]})
    with pytest.raises(InputError, match="'salary' has 1 infinite"):
        GowerTransformer({"salary": "numeric"}).fit(df)
    t = GowerTransformer({"salary": "numeric"}).fit(df.iloc[:2])
    with pytest.raises(InputError, match="'salary' has 1 infinite"):
        t.transform(df)


def test_auto_rule_follows_the_data_shape():
    from primafacie.neighbors import choose_algorithm

    # few rows: brute; credit-world shape: tree (5 numeric, both categoricals keyed: 5 dims)
    assert choose_algorithm(2_000, 5, (3, 3), k=50) == "brute"
    assert choose_algorithm(10**5, 5, (3, 3), k=50, faiss=True) == "tree"
    assert choose_algorithm(10**5, 5, (3, 3), k=60_000) == "brute"  # k >= n/2
    # a 5,000-level postcode is one more key, not 5,000 dimensions: still the tree
    assert choose_algorithm(10**5, 5, (3, 3, 5000), k=50, faiss=True) == "tree"
    # the three categoricals with most levels are keyed, a fourth is one-hot:
    # 5 numeric + 3 levels = 8 dimensions: faiss when installed (> 6), else the tree (<= 12)
    assert choose_algorithm(10**5, 5, (3, 3, 5000, 12), k=50, faiss=True) == "faiss"
    assert choose_algorithm(10**5, 5, (3, 3, 5000, 12), k=50, faiss=False) == "tree"
    # 12 numeric + 4 levels = 16 > 12: brute force without faiss
    assert choose_algorithm(10**5, 12, (4, 4, 4, 4), k=50, faiss=False) == "brute"
    assert choose_algorithm(10**5, 6, (), k=50, faiss=True) == "tree"
    assert choose_algorithm(10**5, 7, (), k=50, faiss=True) == "faiss"
    # few query x base cells (at most 6·10^6; the CST loan searches, 1,712 x 3,281): brute
    # force, no index and no scipy.spatial import; more cells, or queries not given: the tree
    assert choose_algorithm(3_281, 2, (), k=250, m=1_712) == "brute"
    assert choose_algorithm(3_281, 2, (), k=250, m=1_829) == "tree"
    assert choose_algorithm(10**5, 5, (3, 3), k=50, m=60) == "brute"  # 6·10^6 cells
    assert choose_algorithm(10**5, 5, (3, 3), k=50, m=61) == "tree"
    assert choose_algorithm(3_281, 2, (), k=250) == "tree"


def test_a_many_level_column_is_one_dimension_of_the_tree():
    from primafacie.neighbors.search import AUTO_RULE, _plan, _strata, _tree_index

    levels = (3, 5000, 3, 2)
    keyed, onehot = _plan(levels, AUTO_RULE)
    assert keyed == [0, 1, 2] and onehot == [3]  # the three with most levels are keyed
    rng = np.random.default_rng(0)
    X = GowerMatrix(rng.random((500, 2)), rng.integers(0, 3, (500, 4)) % np.array(levels), levels)
    strata = _strata(X[:5], X, 20, _tree_index, AUTO_RULE)
    # 2**3 subsets of the keyed columns, fewest mismatches first
    assert [s.mismatch for s in strata] == [0, 1, 1, 1, 2, 2, 2, 3]
    # 2 numeric + 2 one-hot cells of column 3 + 1 key column, whatever the 5,000 levels
    assert strata[0].embed(np.arange(5), True).shape == (5, 5)
    assert strata[0].embed(np.arange(5), False).shape == (5, 4)  # a group's own index: no key


def test_keyed_search_by_hand():
    # Base rows: (x, postcode). The query (0, p=7) is at 0 + 0 from row 3 (same postcode,
    # x = 0.5 -> 0.5 / 2 = 0.25) and at (0.1 + 1) / 2 = 0.55 from row 1 (x = 0.1, other postcode).
    num = np.array([[0.9], [0.1], [0.2], [0.5], [0.3]])
    codes = np.array([[1], [2], [3], [7], [7]])
    base = GowerMatrix(num, codes, (5000,))
    q = GowerMatrix(np.array([[0.0]]), np.array([[7]]), (5000,))
    for algorithm in ("brute", "tree", "faiss"):
        res = knn(q, base, 3, algorithm=algorithm, divisor=2)
        assert res.indices.tolist() == [[4, 3, 1]], algorithm
        assert np.allclose(res.distances, [[0.15, 0.25, 0.55]])


def test_ties_fetched_by_radius_search():
    # 100 identical rows: the k + 8 nearest cannot certify the top 5, the radius search does,
    # and the tie rule picks the first (or last) rows.
    base = np.zeros((100, 2))
    for algorithm in ("tree", "faiss"):
        assert knn(np.zeros((1, 2)), base, 5, algorithm=algorithm).indices.tolist() == [
            [0, 1, 2, 3, 4]
        ]
        last = knn(np.zeros((1, 2)), base, 5, algorithm=algorithm, ties="last")
        assert last.indices.tolist() == [[99, 98, 97, 96, 95]]


def test_lazy_strata_travel_without_their_indexes_and_rebuild_the_same():
    """A worker receives the matrices, not the pickled trees, and builds the same strata."""
    import pickle

    from primafacie.neighbors.search import AUTO_RULE, _LazyStrata, _tree_index

    rng = np.random.default_rng(0)
    X = GowerMatrix(np.round(rng.random((400, 2)), 1), rng.integers(0, 3, (400, 2)), (3, 3))
    q, b = X[np.arange(50)], X[np.arange(50, 400)]
    lazy = _LazyStrata((q, b, 13, _tree_index, AUTO_RULE))
    built = lazy.get()
    assert lazy.get() is built  # built once per process
    clone = pickle.loads(pickle.dumps(lazy))  # the strata hold closures: plain pickle of
    assert clone._strata is None  # them would fail, so they cannot have travelled
    again = clone.get()
    assert [s.mismatch for s in again] == [s.mismatch for s in built]
    for s, t in zip(again, built, strict=True):
        np.testing.assert_array_equal(s.order, t.order)
        np.testing.assert_array_equal(s.qkey, t.qkey)
    assert knn(q, b, 5, algorithm="tree").indices.tolist() == knn(q, b, 5).indices.tolist()


@pytest.mark.parametrize("algorithm", ["brute", "tree"])
@pytest.mark.parametrize("ties", ["first", "last"])
def test_reduce_on_repeated_queries_searches_each_distinct_query_once(monkeypatch, algorithm, ties):
    """issue 22: with ``reduce`` the distinct queries are searched once (the law-school
    regression: 21,790 searches instead of ~1,200) and the lists are expanded back before the
    reducer sees them, so it gets each chunk's slice and the same lists, bit for bit."""
    import primafacie.neighbors.search as search

    rng = np.random.default_rng(5)
    base = np.round(rng.random((3000, 2)) * 4) / 4  # few distinct values: many ties
    query = base[rng.integers(0, 3000, 2500)]  # 25 distinct rows at most

    def reduce(idx, dist, rows):
        # reads which query a row is, as the engine's reducer does (dropping its own row)
        own = np.arange(rows.start, rows.stop)
        return idx.sum(axis=1) - own, dist[:, -1].copy(), idx[:, :3].copy()

    sizes = []
    real = search._Post.__call__

    def spy(self, idx, dist, sl):
        sizes.append(len(idx))
        return real(self, idx, dist, sl)

    monkeypatch.setattr(search._Post, "__call__", spy)
    kw = dict(algorithm=algorithm, ties=ties, chunk_size=700, backend={"n_jobs": 1})
    fast = knn(query, base, 40, reduce=reduce, **kw)
    assert sum(sizes) <= 25  # only the distinct queries were searched
    monkeypatch.setattr(search, "_DISTINCT_SHARE", 0.0)  # every query searched, as before
    sizes.clear()
    slow = knn(query, base, 40, reduce=reduce, **kw)
    assert sum(sizes) == 2500
    assert len(fast) == len(slow) == 3
    for a, b in zip(fast, slow, strict=True):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    # and the unreduced lists agree with the reducer's view of them
    plain = knn(query, base, 40, **kw)
    assert np.array_equal(slow[2], plain.indices[:, :3])


def test_z_order_by_hand_and_a_permutation():
    from primafacie.neighbors.search import _z_order

    # corners of the unit square: (0,0) key 0, (0,1) 0b0101…, (1,0) 0b1010…, (1,1) all ones
    e = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    assert _z_order(e).tolist() == [0, 2, 3, 1]
    rng = np.random.default_rng(3)
    big = np.round(rng.random((1_000, 5)), 1)  # many equal rows: a stable order among them
    order = _z_order(big)
    assert np.array_equal(np.sort(order), np.arange(1_000))
    same = np.flatnonzero((big == big[order[0]]).all(axis=1))
    assert order[: len(same)].tolist() == same.tolist()
    assert _z_order(big[:2]).tolist() == [0, 1]  # too few rows to sort


@pytest.mark.parametrize("p", [1, 2, 3, 4, 5, 7, 8, 9, 16, 22])
def test_z_keys_spread_a_byte_at_a_time_are_the_bit_by_bit_interleave(p):
    """The Z key built through a byte table orders rows as interleaving their cells' bits
    one by one (bit b of column j at b·p + p - 1 - j), ties in row order."""
    from primafacie.neighbors.search import _z_order

    rng = np.random.default_rng(p)
    e = rng.random((500, p))
    e[:, 0] = np.round(e[:, 0], 1)  # equal cells: the stable order decides
    bits = max(1, min(16, 63 // p))
    lo, hi = e.min(axis=0), e.max(axis=0)
    cells = ((e - lo) / np.where(hi > lo, hi - lo, 1.0) * (2**bits - 1)).astype(np.uint64)
    key = np.zeros(len(e), dtype=np.uint64)
    for bit in range(bits - 1, -1, -1):
        for j in range(p):
            key = (key << np.uint64(1)) | ((cells[:, j] >> np.uint64(bit)) & np.uint64(1))
    assert np.array_equal(_z_order(e), np.argsort(key, kind="stable"))


def test_strata_skip_only_the_codes_their_pairs_share(monkeypatch):
    """A stratum of gathered groups or group indexes names its keyed columns (every pair
    agrees there); one index with the key as a column names none (its margin admits rows of
    other keys: rounding slack)."""
    from primafacie.neighbors import search

    rng = np.random.default_rng(9)
    X = GowerMatrix(rng.random((3_000, 2)), rng.integers(0, 3, (3_000, 2)), (3, 3))
    q, b = X[np.arange(500)], X[np.arange(500, 3_000)]
    make = search._stratum_index("tree")
    strata = search._strata(q, b, 20, make, search.AUTO_RULE)
    assert [st.cols for st in strata] == [(0, 1), (0,), (1,), ()]
    monkeypatch.setattr(search, "_MAX_GROUP_INDEXES", 0)
    strata = search._strata(q, b, 20, make, search.AUTO_RULE)
    assert strata[0].index is not None and strata[0].cols == ()


def test_tree_queries_in_z_order_give_the_answers_of_data_order(monkeypatch):
    from primafacie.neighbors import search

    rng = np.random.default_rng(5)
    num = np.round(rng.random((3_000, 3)), 2)  # rounded: ties at the k-th distance
    codes = rng.integers(0, 3, (3_000, 1))
    X = GowerMatrix(num, codes, (3,))
    q, b = X[np.arange(800)], X[np.arange(800, 3_000)]
    sorted_ = knn(q, b, 20, algorithm="tree", divisor=4)
    monkeypatch.setattr(search, "_z_order", lambda e: np.arange(len(e)))
    plain = knn(q, b, 20, algorithm="tree", divisor=4)
    brute = knn(q, b, 20, algorithm="brute", divisor=4)
    assert np.array_equal(sorted_.indices, plain.indices)
    assert np.array_equal(sorted_.indices, brute.indices)
    assert np.array_equal(sorted_.distances, brute.distances)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_index_finds_what_scikit_learns_kdtree_found(seed):
    """The tree index moved from scikit-learn's KDTree to SciPy's cKDTree (start-up, issue 22):
    on random data with many exact ties both give the same k nearest distances (to the last
    bit), the same neighbours where the k-th distance is not tied, and the same radius lists."""
    from sklearn.neighbors import KDTree

    from primafacie.neighbors.search import _tree_index

    rng = np.random.default_rng(seed)
    emb = np.round(rng.uniform(size=(3000, 3)), 1)  # ~1,000 cells: ties at every distance
    e = np.round(rng.uniform(size=(200, 3)), 1)
    index = _tree_index(emb, float(np.abs(emb).max()))
    old = KDTree(emb, metric="manhattan")
    d_new, i_new = index.search(e, 17)
    d_old, i_old = old.query(e, k=17)
    assert d_new.shape == i_new.shape == (200, 17)
    assert np.array_equal(d_new, d_old)
    for row in range(len(e)):  # the set below the k-th distance does not depend on ties
        strict = d_new[row] < d_new[row, -1]
        assert set(i_new[row][strict]) == set(i_old[row][d_old[row] < d_old[row, -1]])
    r = d_new[:, 5]
    new_lists, old_lists = index.radius(e, r), old.query_radius(e, r)
    assert [sorted(a) for a in new_lists] == [sorted(a) for a in old_lists]
    one_d, one_i = index.search(e, 1)  # k = 1 keeps two dimensions
    assert one_d.shape == one_i.shape == (200, 1)


@pytest.mark.parametrize("ties", ["first", "last"])
def test_tree_and_brute_agree_on_tied_mixed_data(ties):
    """The tree backend returns the brute-force answer bit for bit on rounded numeric columns
    and a keyed categorical (strata, gathered small groups, indexed large ones, radius ties)."""
    rng = np.random.default_rng(7)
    n, m = 4000, 300
    frame = pd.DataFrame(
        {
            "a": np.round(rng.normal(size=n), 1),
            "b": rng.integers(0, 5, size=n).astype(float),
            "c": rng.choice(list("pqrst"), size=n, p=[0.6, 0.3, 0.07, 0.02, 0.01]),
        }
    )
    t = GowerTransformer({"a": "numeric", "b": "numeric", "c": "categorical"}).fit(frame)
    base, query = t.transform(frame), t.transform(frame.iloc[:m])
    brute = knn(query, base, 40, algorithm="brute", divisor=t.divisor, ties=ties)
    tree = knn(query, base, 40, algorithm="tree", divisor=t.divisor, ties=ties, chunk_size=64)
    assert np.array_equal(brute.indices, tree.indices)
    assert np.array_equal(brute.distances, tree.distances)


def _postcode_world(n=12_000, seed=3):
    """Rounded numeric columns (ties), two 3-level categoricals and a postcode whose few
    large levels are searched in their own trees and whose many small ones are gathered."""
    rng = np.random.default_rng(seed)
    big = rng.integers(0, 4, n)  # 4 postcodes of ~1,500 rows: searched in trees
    small = 4 + rng.integers(0, 600, n)  # 600 of ~10 rows: gathered whole
    return pd.DataFrame(
        {
            "a": np.round(rng.normal(size=n), 1),
            "b": np.round(rng.random(n), 2),
            "e": rng.choice(list("pqr"), size=n),
            "r": rng.choice(list("xyz"), size=n, p=[0.6, 0.3, 0.1]),
            "postcode": np.where(rng.random(n) < 0.5, big, small).astype(str),
        }
    )


@pytest.mark.parametrize("ties", ["first", "last"])
@pytest.mark.parametrize("decimals", [None, 2])
def test_many_level_key_strata_give_brute_force(ties, decimals):
    """Three keyed columns, a postcode among them: every stratum (gathered and searched, one to
    three mismatches) pruned by the k-th distance found so far, and a gathered stratum's rows
    that agree on a keyed column outside it skipped; the answer is brute force bit for bit."""
    frame = _postcode_world()
    kinds = {"a": "numeric", "b": "numeric", "e": "categorical", "r": "categorical"}
    t = GowerTransformer({**kinds, "postcode": "categorical"}).fit(frame)
    base, query = t.transform(frame.iloc[500:]), t.transform(frame.iloc[:500])
    kw = {"divisor": t.divisor, "ties": ties, "decimals": decimals}
    brute = knn(query, base, 30, algorithm="brute", **kw)
    tree = knn(query, base, 30, algorithm="tree", chunk_size=128, **kw)
    assert np.array_equal(brute.indices, tree.indices)
    assert np.array_equal(brute.distances, tree.distances)


def _postcode_spaces() -> tuple:
    """The 600-level postcode world's transformer, its base (rows 500 on) and queries (the
    first 500)."""
    frame = _postcode_world()
    t = GowerTransformer(
        {"a": "numeric", "b": "numeric", "e": "categorical", "r": "categorical",
         "postcode": "categorical"}
    ).fit(frame)  # fmt: skip
    return t, t.transform(frame.iloc[500:]), t.transform(frame.iloc[:500])


def test_many_level_key_strata_merge_only_queries_they_can_improve(monkeypatch):
    """A query's k best are re-sorted only when a stratum brings a pair nearer than its k-th:
    with a 600-level postcode, the strata sharing the postcode but not both small categoricals
    almost never do, so far fewer than one merge per query and stratum visited happens."""
    import primafacie.neighbors.search as S

    t, base, query = _postcode_spaces()
    merged = []
    real = S.select_pairs

    def counting(qi, bi, d, m, k):
        merged.append(m)
        return real(qi, bi, d, m, k)

    monkeypatch.setattr(S, "select_pairs", counting)
    knn(query, base, 30, algorithm="tree", divisor=t.divisor)
    # the queries the stratum of all three keys leaves short of k visit their (e, r) stratum
    # and the two postcode strata of one mismatch: three merges each before (measured 2.5
    # per query in all), now the two postcode strata merge ~5 % of them (1.55 per query)
    assert sum(merged) < 2 * len(query), merged


def test_many_level_key_strata_never_merge_a_pair_twice(monkeypatch):
    """An index of a stratum fetches the rows of the query's cell in a stratum of fewer
    mismatches too (the (e, r) trees hold the rows sharing the query's postcode); those are
    skipped as the gathered ones are, so no merge sees a (query, row) pair twice (a duplicate
    ties with itself and sent each such query's merge to the tie-breaking sort)."""
    import primafacie.neighbors.search as S

    t, base, query = _postcode_spaces()
    twice = []
    real = S.select_pairs

    def checking(qi, bi, d, m, k):
        pairs = qi.astype(np.int64) * (len(base) + 1) + bi
        twice.append(len(pairs) - len(np.unique(pairs)))
        return real(qi, bi, d, m, k)

    monkeypatch.setattr(S, "select_pairs", checking)
    found = knn(query, base, 30, algorithm="tree", divisor=t.divisor)
    assert len(twice) > 1 and sum(twice) == 0, twice
    brute = knn(query, base, 30, algorithm="brute", divisor=t.divisor)
    assert np.array_equal(found.indices, brute.indices)


@pytest.mark.parametrize("block", [None, 7])
@pytest.mark.parametrize("decimals", [None, 1])
def test_sums_within_drops_only_pairs_beyond_the_kth_and_keeps_the_bits(
    decimals, block, monkeypatch
):
    """The staged sum gives canonical_sums' bits for the pairs it keeps, and drops exactly
    pairs whose whole distance exceeds their bound (some of them: those the first column shows);
    the same when its rows are gathered in blocks of 7 pairs (blocks cross the pairs' ends)."""
    import primafacie.neighbors.gower as G
    from primafacie.neighbors.gower import canonical_sums

    if block:
        monkeypatch.setattr(G, "_PAIR_BLOCK", block)
    from primafacie.neighbors.search import _finish, _sums_within

    rng = np.random.default_rng(5)
    X = GowerMatrix(np.round(rng.random((300, 4)), 2), rng.integers(0, 3, (300, 2)), (3, 3))
    qi, bi = rng.integers(0, 300, 5000), rng.integers(0, 300, 5000)
    full = _finish(canonical_sums(X, X, qi, bi), 6.0, decimals)
    kth = np.quantile(full, 0.3) + np.zeros(len(qi))
    d, keep = _sums_within(X, X, qi, bi, kth, 6.0, decimals)
    assert np.array_equal(d, full[keep])  # the same bits
    assert not (full[~keep] <= kth[~keep]).any()  # nothing within the bound is dropped
    assert 0 < (~keep).sum() < (full > kth).sum()  # it drops some, not all, of the far ones


def test_many_level_key_strata_merge_ranked_lists_without_sorting(monkeypatch):
    """With a 1,000-level postcode among the keys (continuous numeric columns, as the credit
    world's), each query's best list holds a few rows of its postcode cell when the
    (e, r) trees' ranked lists arrive. Those lists are ranked alone (grouped by query, no sort
    by query; ~all strictly ascending, no row sort) and merged with the best list as two
    ranked lists; concatenated, they were sorted by query in every merge and row by row in
    15 % of the rows after the first stratum."""
    import primafacie.neighbors.search as S
    from primafacie.compute import Backend

    rng = np.random.default_rng(4)
    n = 20_000
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.random(n),
            "e": rng.choice(list("pqr"), n),
            "r": rng.choice(list("xyz"), n),
            "postcode": rng.integers(0, 1_000, n).astype(str),  # ~2 rows per (e, r, postcode)
        }
    )
    kinds = {"a": "numeric", "b": "numeric", "e": "categorical", "r": "categorical"}
    t = GowerTransformer({**kinds, "postcode": "categorical"}).fit(frame)
    base, query = t.transform(frame.iloc[2_000:]), t.transform(frame.iloc[:2_000])
    calls = []  # per select_pairs call: rows with pairs, rows not ascending, pairs grouped
    real = S.select_pairs

    def spying(qi, bi, d, m, k):
        new = np.r_[True, qi[1:] != qi[:-1]]
        o = np.argsort(qi, kind="stable")
        q, dq = qi[o], d[o]
        up = np.r_[True, (dq[1:] > dq[:-1]) | (q[1:] != q[:-1])]
        calls.append((len(np.unique(qi)), len(np.unique(q[~up])), new.sum() == len(set(qi))))
        return real(qi, bi, d, m, k)

    monkeypatch.setattr(S, "select_pairs", spying)
    one = {"divisor": t.divisor, "backend": Backend(n_jobs=1), "chunk_size": len(query)}
    found = knn(query, base, 30, algorithm="tree", **one)
    assert len(calls) > 2 and all(grouped for *_, grouped in calls), calls
    # after the stratum of all three keys (gathered, in row order): main 340 of 2,233 rows
    later = np.array([c[:2] for c in calls[1:]])
    assert later[:, 1].sum() < 0.01 * later[:, 0].sum(), calls
    brute = knn(query, base, 30, algorithm="brute", divisor=t.divisor)
    assert np.array_equal(found.indices, brute.indices)
    assert np.array_equal(found.distances, brute.distances)


def test_first_positions_are_a_binary_search_of_every_cell():
    """The first-position table gives, for every (key, code) cell and the end, what a binary
    search of the rows sorted by (key, code) gives: on many ties, empty cells, and keys that
    only queries have (beyond the rows' largest)."""
    from primafacie.neighbors.search import _first_positions

    rng = np.random.default_rng(11)
    keys, codes = rng.integers(0, 40, 3000), rng.integers(0, 5, 3000)
    keys[keys % 7 == 3] = 0  # empty keys, and one key holding many rows
    order = np.lexsort((codes, keys))
    cell = keys[order] * 5 + codes[order]
    table = _first_positions(keys[order], codes[order], 5, 45)  # keys 40..44: queries' only
    assert np.array_equal(table, np.searchsorted(cell, np.arange(45 * 5 + 1)))
    plain = _first_positions(np.sort(keys), None, 1, 45)
    assert np.array_equal(plain, np.searchsorted(np.sort(keys), np.arange(46)))
    assert table.dtype == np.int32  # positions that fit are narrowed


@pytest.mark.parametrize("table", [True, False])
def test_gathered_pairs_skip_the_run_of_the_query_code_as_brute_force(monkeypatch, table):
    """Each gathered stratum's pairs are exactly the (query, row) pairs of a small group (same
    key) whose rows differ from the query on the skipped outside column, every one once; the
    queries of large groups are returned for the indexes. Without the table (too many cells),
    bounds come from a binary search and nothing is skipped by range."""
    import primafacie.neighbors.search as S

    if not table:
        monkeypatch.setattr(S, "_TABLE_CELLS", -(10**9))
    _, base, query = _postcode_spaces()
    strata = S._strata(query, base, 30 + S._EXTRA, S._tree_index, S.AUTO_RULE)
    rows = np.arange(0, len(query), 3)
    skipped = 0
    for st in strata:
        assert st.index is None  # each group's key is its codes on ``st.cols``
        qkey, bkey = S._keys(query, base, st.cols)
        same = qkey[rows][:, None] == bkey[None, :]  # brute force: one cell per (query, row)
        small = same.sum(axis=1) <= st.limit
        want = same & small[:, None]
        if st.skip is not None:
            skipped += 1
            want &= query.codes[rows, st.skip][:, None] != base.codes[:, st.skip][None, :]
        qi, bi, big = S._gather(st, rows)
        r, c = np.nonzero(want)
        got = np.lexsort((bi, qi))
        assert np.array_equal(qi[got], rows[r]) and np.array_equal(bi[got], c)
        assert np.array_equal(big, rows[~small])
    assert skipped == (3 if table else 0)  # the postcode strata of one, two and three misses


@pytest.mark.parametrize("table", [True, False])
@pytest.mark.parametrize("decimals", [None, 2])
def test_many_level_key_strata_without_the_table_give_brute_force(monkeypatch, table, decimals):
    """The stratified search with group bounds from the table (and runs skipped) and from a
    binary search (when the table would be too big) returns brute force's lists bit for bit."""
    import primafacie.neighbors.search as S

    if not table:
        monkeypatch.setattr(S, "_TABLE_CELLS", -(10**9))
    t, base, query = _postcode_spaces()
    kw = {"divisor": t.divisor, "decimals": decimals}
    brute = knn(query, base, 30, algorithm="brute", **kw)
    tree = knn(query, base, 30, algorithm="tree", chunk_size=128, **kw)
    assert np.array_equal(brute.indices, tree.indices)
    assert np.array_equal(brute.distances, tree.distances)


@pytest.mark.parametrize("decimals", [None, 1])
def test_sums_within_from_the_lead_columns_keeps_the_same_pairs_and_bits(decimals):
    """With the contiguous first columns (``lead``) and the known mismatches (``differ``), the
    staged sum prunes the same pairs as from gathered rows and gives canonical_sums' bits."""
    from primafacie.neighbors.gower import canonical_sums
    from primafacie.neighbors.search import _finish, _sums_within

    rng = np.random.default_rng(6)
    codes = rng.integers(0, 3, (300, 2))
    X = GowerMatrix(np.round(rng.random((300, 4)), 2), codes, (6, 6))
    Y = GowerMatrix(np.round(rng.random((300, 4)), 2), codes + 3, (6, 6))  # differs on both
    qi, bi = rng.integers(0, 300, 5000), rng.integers(0, 300, 5000)
    full = _finish(canonical_sums(X, Y, qi, bi), 6.0, decimals)
    kth = np.quantile(full, 0.02) + np.zeros(len(qi))  # low: the first column prunes some
    kth[::5] = np.inf  # queries with no k-th yet: their pairs all kept
    d0, keep0 = _sums_within(X, Y, qi, bi, kth, 6.0, decimals)
    lead = (np.ascontiguousarray(X.num[:, 0]), np.ascontiguousarray(Y.num[:, 0]))
    d, keep = _sums_within(X, Y, qi, bi, kth, 6.0, decimals, (), (0, 1), lead)
    assert np.array_equal(keep, keep0) and np.array_equal(d, d0)
    assert np.array_equal(d, full[keep]) and 0 < (~keep).sum()
