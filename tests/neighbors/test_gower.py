"""GowerMatrix, the transformer's codes and the canonical arithmetic (neighbors/gower.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.errors import InputError
from primafacie.neighbors import GowerMatrix, GowerTransformer, gower_distances, knn
from primafacie.neighbors.gower import canonical_sums


def _frame(n=6, levels=5000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "region": rng.choice(["a", "b", "c"], n),
            "income": rng.integers(0, 5, n).astype(float),
            "postcode": [f"p{v}" for v in rng.integers(0, levels, n)],
        }
    )


def test_a_many_level_categorical_is_one_code_column():
    df = _frame(n=200, levels=5000)
    t = GowerTransformer(
        {"region": "categorical", "income": "numeric", "postcode": "categorical"}
    ).fit(df)
    X = t.transform(df)
    # one numeric column + two code columns, whatever the number of postcodes
    assert X.shape == (200, 3)
    assert X.num.shape == (200, 1) and X.codes.shape == (200, 2)
    assert X.levels == (3, df["postcode"].nunique())
    assert X.layout == ("c", "n", "c")


def test_gower_matrix_rows_len_shape_and_dense_form():
    X = GowerMatrix(np.array([[0.0], [0.25], [1.0]]), np.array([[0], [2], [1]]), (3,), ("c", "n"))
    assert len(X) == 3 and X.shape == (3, 2)
    assert X[[2, 0]].num.ravel().tolist() == [1.0, 0.0]
    assert X[::-1].codes.ravel().tolist() == [1, 2, 0]
    assert X[np.array([True, False, True])].codes.ravel().tolist() == [0, 1]
    assert len(X[1]) == 1  # a single position stays a (1, p) matrix
    # The one-hot form of earlier releases: level cells of 0.5, in feature order.
    with pytest.warns(DeprecationWarning, match="to_dense"):
        dense = np.asarray(X)
    assert (
        dense.tolist()
        == X.to_dense().tolist()
        == [
            [0.5, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.5, 0.25],
            [0.0, 0.5, 0.0, 1.0],
        ]
    )


def test_distance_by_hand_with_codes():
    df = pd.DataFrame({"salary": [10.0, 30.0, 20.0], "region": ["a", "b", "a"]})
    t = GowerTransformer({"salary": "numeric", "region": "categorical"}).fit(df)
    d = gower_distances(t.transform(df), t.transform(df), t.divisor)
    # rows 0, 1: |10 - 30| / 20 = 1 and a different region: (1 + 1) / 2 = 1
    # rows 0, 2: 10 / 20 = 0.5 and the same region: 0.5 / 2 = 0.25
    # rows 1, 2: 0.5 + 1 = 1.5, / 2 = 0.75
    assert d.tolist() == [[0.0, 1.0, 0.25], [1.0, 0.0, 0.75], [0.25, 0.75, 0.0]]


def test_codes_first_is_bit_identical_to_the_one_hot_sums():
    # Legacy mode lists categorical attributes first: the old one-hot L1 sums (halves added
    # cell by cell, then numeric columns left to right) and the canonical sums agree bit for
    # bit, so the published tables (ties included) cannot move.
    rng = np.random.default_rng(3)
    n = 300
    num = rng.normal(size=(n, 3)) / 7.0
    codes = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 9, n)])
    X = GowerMatrix(num, codes, (4, 9), ("c", "c", "n", "n", "n"))
    dense = X.to_dense()
    old = np.abs(dense[:, 0][:, None] - dense[:, 0][None, :])
    for j in range(1, dense.shape[1]):
        old += np.abs(dense[:, j][:, None] - dense[:, j][None, :])
    assert np.array_equal(gower_distances(X, X), old)


def test_canonical_sums_of_flat_pairs_match_the_block():
    rng = np.random.default_rng(4)
    X = GowerMatrix(rng.random((20, 2)), rng.integers(0, 3, (20, 2)), (3, 3))
    qi, bi = rng.integers(0, 20, 50), rng.integers(0, 20, 50)
    block = gower_distances(X, X)
    assert np.array_equal(canonical_sums(X, X, qi, bi), block[qi, bi])


@pytest.mark.parametrize("block", [1, 7, 1 << 15])
def test_flat_pairs_summed_by_blocks_of_rows_keep_the_block_bits(monkeypatch, block):
    """Flat pairs are summed from whole rows a block of pairs at a time: the bits of the
    column-by-column block, whatever the block size, for a reversed base (``ties="last"``)
    and int32 positions too."""
    from primafacie.neighbors import gower

    monkeypatch.setattr(gower, "_PAIR_BLOCK", block)
    rng = np.random.default_rng(6)
    X = GowerMatrix(rng.random((40, 3)) * 1e3, rng.integers(0, 4, (40, 2)), (4, 4))
    qi, bi = rng.integers(0, 40, 300), rng.integers(0, 40, 300).astype(np.int32)
    for base in (X, X[::-1]):
        want = gower_distances(X, base)[qi, bi]
        assert np.array_equal(canonical_sums(X, base, qi, bi), want)


def test_flat_pairs_do_not_copy_whole_columns(monkeypatch):
    """``take`` on a column of a row-major matrix copies the column first (O(rows) per call,
    14 calls per chunk of a search): flat pairs are gathered as rows, never by column take."""
    rng = np.random.default_rng(7)
    X = GowerMatrix(rng.random((50, 3)), rng.integers(0, 4, (50, 2)), (4, 4))
    calls = []
    real = np.ndarray.take

    class Spy(np.ndarray):
        def take(self, *args, **kwargs):
            calls.append(kwargs.get("axis", args[1] if len(args) > 1 else None))
            return real(np.asarray(self), *args, **kwargs)

    spied = GowerMatrix(X.num, X.codes, X.levels)
    object.__setattr__(spied, "num", X.num.view(Spy))  # the matrix keeps plain arrays
    object.__setattr__(spied, "codes", X.codes.view(Spy))
    qi, bi = rng.integers(0, 50, 99), rng.integers(0, 50, 99)
    got = canonical_sums(spied, spied, qi, bi)
    assert np.array_equal(got, gower_distances(X, X)[qi, bi])
    assert calls and all(axis == 0 for axis in calls), calls


def test_codes_known_equal_are_skipped_with_the_same_bits():
    """``equal`` columns (a stratum's keyed columns, on which its pairs agree) are not
    compared: adding their zero mismatches changes no bit."""
    rng = np.random.default_rng(8)
    codes = rng.integers(0, 3, (60, 3))
    codes[:, 1] = 2  # every pair agrees on column 1
    X = GowerMatrix(rng.random((60, 2)) * 7, codes, (3, 3, 3))
    qi, bi = rng.integers(0, 60, 500), rng.integers(0, 60, 500)
    full = canonical_sums(X, X, qi, bi)
    assert np.array_equal(canonical_sums(X, X, qi, bi, equal=(1,)), full)
    # a column that does disagree is what it skips: the sums then differ
    assert not np.array_equal(canonical_sums(X, X, qi, bi, equal=(0,)), full)


def test_query_and_base_from_differently_fitted_transformers():
    # Legacy CST refits the transformer on the counterfactual table: a level seen only there
    # gives the query a wider code range than the base.
    base = GowerMatrix(np.zeros((3, 1)), np.array([[0], [1], [1]]), (2,))
    query = GowerMatrix(np.zeros((1, 1)), np.array([[2]]), (3,))
    res = knn(query, base, 2, divisor=2)
    assert res.indices.tolist() == [[0, 1]] and res.distances.tolist() == [[0.5, 0.5]]


def test_mismatched_columns_are_an_input_error():
    a = GowerMatrix(np.zeros((2, 1)), np.zeros((2, 1), dtype=int), (1,))
    b = GowerMatrix(np.zeros((2, 2)), np.zeros((2, 0), dtype=int), ())
    with pytest.raises(InputError, match="same numeric and categorical"):
        knn(a, b, 1)
    with pytest.raises(InputError, match="equal rows"):
        GowerMatrix(np.zeros((2, 1)), np.zeros((3, 1), dtype=int))


def test_a_matrix_unpickled_from_misaligned_buffers_is_aligned():
    """Dask hands a worker arrays pointing into a received frame at any byte offset; a
    GowerMatrix realigns them when unpickled (unaligned row gathers ran the 10^7 search
    ~4.6x slower on the worker that had received the space)."""
    import pickle

    X = GowerMatrix(np.arange(12.0).reshape(4, 3), np.array([[0, 300]] * 4), (2, 301))
    assert X.codes.dtype == np.int16
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(X, protocol=5, buffer_callback=buffers.append)
    shifted = []
    for b in buffers:  # each buffer one byte into a fresh frame, as a received frame can be
        raw = bytearray(b.raw().nbytes + 1)
        raw[1:] = b.raw()
        shifted.append(memoryview(raw)[1:])
    plain = pickle.loads(data, buffers=shifted)  # what numpy alone gives: unaligned views
    assert isinstance(plain, GowerMatrix)
    np.testing.assert_array_equal(plain.num, X.num)
    np.testing.assert_array_equal(plain.codes, X.codes)
    assert plain.num.flags.aligned and plain.codes.flags.aligned
    assert plain.levels == X.levels and plain.layout == X.layout
    unaligned = np.frombuffer(shifted[0], dtype=float)
    assert not unaligned.flags.aligned  # the frame really was misaligned


def test_codes_are_held_in_the_smallest_dtype_that_holds_them():
    """3 and 5,000 levels: int16 for the matrix (one dtype for every column); a row subset
    keeps it; given levels above the codes' own maximum are what decides it."""
    frame = _frame(n=200)
    X = GowerTransformer({"region": "categorical", "income": "numeric",
                          "postcode": "categorical"}).fit(frame).transform(frame)  # fmt: skip
    assert X.codes.dtype == np.int16 and X[[0, 3]].codes.dtype == np.int16
    small = GowerMatrix(np.zeros((2, 0)), np.array([[0, 1], [2, 0]]), (3, 128))
    assert small.codes.dtype == np.int8
    assert GowerMatrix(np.zeros((2, 0)), small.codes, (3, 129)).codes.dtype == np.int16
    # a code the level counts do not announce is never wrapped
    wide = GowerMatrix(np.zeros((1, 0)), np.array([[40_000]]), (2,))
    assert wide.codes.dtype == np.int32 and wide.codes.tolist() == [[40_000]]


def test_keys_of_narrow_codes_widen_before_multiplying():
    """Two int8 code columns of 127 levels: a key reaches 126 + 127·126 = 16,128, which an
    int8 product would wrap; the keys are the int64 keys, and the search agrees with the
    one-hot distance."""
    from primafacie.neighbors.search import _keys

    rng = np.random.default_rng(1)
    codes = rng.integers(0, 127, (300, 2))
    codes[0] = [126, 126]
    X = GowerMatrix(np.zeros((300, 0)), codes, (127, 127))
    assert X.codes.dtype == np.int8
    kq, kb = _keys(X, X, (0, 1))
    assert kq.dtype == np.int64 and kq[0] == 126 + 127 * 126
    assert np.array_equal(kq, codes[:, 0] + 127 * codes[:, 1]) and np.array_equal(kq, kb)
    found = knn(X[:20], X, 5)
    dense = np.abs(np.asarray(X)[:20, None, :] - np.asarray(X)[None, :, :]).sum(axis=2)
    assert np.allclose(np.sort(dense, axis=1)[:, :5], found.distances)


def test_encoded_ordinal_maps_levels_not_rows(monkeypatch):
    """A dictionary-encoded (categorical) ordinal column gives the text column's coordinates
    bit for bit, its missing and unknown values the same errors, and is mapped level by level:
    no text of every row is made (105 B per row at once at 2·10^6 rows, the Dask client's
    peak of the space's fit)."""
    import pandas as pd

    from primafacie.errors import InputError
    from primafacie.neighbors import GowerTransformer

    order = ["primary", "secondary", "tertiary", "postgraduate"]
    rng = np.random.default_rng(0)
    text = pd.DataFrame({"edu": rng.choice(order[:3], 400), "x": rng.normal(size=400)})
    coded = text.assign(edu=text["edu"].astype("category"))
    features = {"edu": {"ordinal": order}, "x": "numeric"}
    want = GowerTransformer(features).fit(text).transform(text)
    made: list = []
    real = pd.Series.astype

    def spy(self, dtype, *args, **kwargs):
        made.append((self.name, dtype))
        return real(self, dtype, *args, **kwargs)

    monkeypatch.setattr(pd.Series, "astype", spy)
    got = GowerTransformer(features).fit(coded).transform(coded)
    assert ("edu", str) not in made
    assert got.num.tobytes() == want.num.tobytes() and got.codes.tobytes() == want.codes.tobytes()
    for bad in (coded.assign(edu=coded["edu"].cat.add_categories("phd").where(
                    np.arange(400) != 7, "phd")),
                coded.assign(edu=coded["edu"].where(np.arange(400) != 9))):  # fmt: skip
        as_text = bad.assign(edu=bad["edu"].astype(object))
        with pytest.raises(InputError) as a:
            GowerTransformer(features).fit(as_text)
        with pytest.raises(InputError) as b:
            GowerTransformer(features).fit(bad)
        assert str(a.value) == str(b.value)


@pytest.mark.parametrize("flat", [True, False])
def test_codes_known_to_differ_start_the_sum_with_the_same_bits(flat):
    """``differ`` columns (a stratum's outside keys, once the rows agreeing on them are
    skipped) are not compared: the sum starts from their number and gives the same bits,
    for flat pairs and for a block."""
    rng = np.random.default_rng(9)
    codes = rng.integers(0, 3, (80, 3))
    X = GowerMatrix(np.round(rng.random((80, 2)) * 7, 1), codes, (6, 6, 6))
    Y = GowerMatrix(X.num[::-1], codes[::-1] + 3, (6, 6, 6))  # differs from X on every code
    if flat:
        qi, bi = rng.integers(0, 80, 700), rng.integers(0, 80, 700)
    else:
        qi, bi = np.arange(80)[:, None], np.arange(80)[None, :]
    full = canonical_sums(X, Y, qi, bi)
    assert np.array_equal(canonical_sums(X, Y, qi, bi, differ=(0, 2)), full)
    assert np.array_equal(canonical_sums(X, Y, qi, bi, differ=(0, 1, 2)), full)
    # on pairs that may agree the count is what it assumes: the sums then differ
    assert not np.array_equal(
        canonical_sums(X, X, qi, bi, differ=(0,)), canonical_sums(X, X, qi, bi)
    )
