"""neighbors/reuse.py: a search space's strata built once for several query sets."""

from __future__ import annotations

import numpy as np
import pytest

from primafacie.neighbors import GowerMatrix, knn
from primafacie.neighbors import search as S
from primafacie.neighbors.reuse import SpaceCache, forget, process_cache


def _matrix(rng: np.random.Generator, n: int, levels=(6, 3), codes_below=None) -> GowerMatrix:
    num = np.round(rng.random((n, 3)), 2)  # rounded: ties at the k-th distance
    top = codes_below or levels
    codes = np.column_stack([rng.integers(0, t, n) for t in top]).astype(np.int16)
    return GowerMatrix(num, codes, tuple(levels), ("n",) * 3 + ("c",) * len(levels))


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.distances, b.distances)


@pytest.mark.parametrize("ties", ["first", "last"])
def test_query_sets_searched_with_one_cache_get_the_brute_force_lists(ties):
    """Four query sets searched in one base with one cache: the base side is built once and
    reused three times, and every list is the brute-force one (tie rule included; the trees'
    settings were tuned by the first set's queries, which changes costs, not answers)."""
    rng = np.random.default_rng(3)
    base = _matrix(rng, 4000)
    sets = [_matrix(rng, 300) for _ in range(4)]
    cache = SpaceCache(S.bounds_of(np.vstack([q.num for q in sets])))
    kw = {"algorithm": "tree", "divisor": 5.0, "decimals": 12, "ties": ties}
    for q in sets:
        _same(knn(q, base, 15, **kw, reuse=cache), knn(q, base, 15, **{**kw, "algorithm": "brute"}))
    assert (cache.builds, cache.hits) == (1, 3)


def test_queries_outside_the_bounds_get_strata_of_their_own():
    """The key's weight in an index must exceed the rest of any query's distance, so the
    cache serves only queries within its bounds: one beyond them is searched with its own
    strata (the cache neither used nor changed) and gets the brute-force answer."""
    rng = np.random.default_rng(4)
    base = _matrix(rng, 3000)
    inside = _matrix(rng, 200)
    cache = SpaceCache(S.bounds_of(inside.num))
    far = GowerMatrix(inside.num * 40.0 - 3.0, inside.codes, inside.levels, inside.layout)
    assert cache.covers(inside.num) and not cache.covers(far.num)
    kw = {"algorithm": "tree", "divisor": 5.0}
    _same(
        knn(inside, base, 10, **kw, reuse=cache),
        knn(inside, base, 10, algorithm="brute", divisor=5.0),
    )
    _same(knn(far, base, 10, **kw, reuse=cache), knn(far, base, 10, algorithm="brute", divisor=5.0))
    assert (cache.builds, cache.hits) == (1, 0)


def test_other_settings_replace_the_kept_strata():
    """The entry is named by the search's settings: another k is built anew and replaces it."""
    rng = np.random.default_rng(5)
    base, q = _matrix(rng, 3000), _matrix(rng, 200)
    cache = SpaceCache(S.bounds_of(q.num))
    for k in (10, 20, 20, 10):
        _same(knn(q, base, k, algorithm="tree", reuse=cache), knn(q, base, k, algorithm="brute"))
    assert (cache.builds, cache.hits) == (3, 1)


def test_keys_numbered_with_the_queries_are_not_kept(monkeypatch):
    """Keyed columns of more than 2^50 code combinations are numbered over the queries and
    the base together: that base side serves its queries alone and is not kept."""
    rng = np.random.default_rng(6)
    monkeypatch.setattr(S, "_key_multipliers", lambda levels, cols: None)
    base, q = _matrix(rng, 2000), _matrix(rng, 150)
    cache = SpaceCache(S.bounds_of(q.num))
    for _ in range(2):
        _same(knn(q, base, 10, algorithm="tree", reuse=cache), knn(q, base, 10, algorithm="brute"))
    assert (cache.builds, cache.hits) == (2, 0)


def test_a_query_code_no_base_row_has_finds_its_neighbours_elsewhere():
    """Strata's group tables cover the base's keys only (they are built from the base
    alone): a query whose codes no base row has reads the empty row past them, gathers
    nothing there and finds its neighbours in the strata of a mismatch, as brute force does."""
    rng = np.random.default_rng(8)
    base = _matrix(rng, 3000, levels=(9, 3), codes_below=(4, 3))  # codes 4..8 only in queries
    q = _matrix(rng, 300, levels=(9, 3))
    assert (q.codes[:, 0] >= 4).sum() > 100
    strata = S._strata(q, base, 20, S._tree_index, S.AUTO_RULE)
    assert any(st.table is not None and st.space <= 4 for st in strata)
    _same(knn(q, base, 10, algorithm="tree"), knn(q, base, 10, algorithm="brute"))


def test_a_process_keeps_one_search_cache():
    bounds = (np.zeros(1), np.ones(1))
    first = process_cache(("s", 1), bounds)
    assert process_cache(("s", 1), bounds) is first
    assert process_cache(("s", 2), bounds) is not first
    assert forget(("s", 1)) is None  # let go of when the second search began
    assert forget(("s", 2)) == (0, 0)
