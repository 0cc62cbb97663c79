"""Counting per cell, cell encoding and the stratified bootstrap."""

import numpy as np
import pandas as pd
import pytest

from primafacie.errors import InputError
from primafacie.principal.estimate import bootstrap_counts, check_binary, count_cells, encode_cells


def test_counts_by_hand():
    a = np.array([0, 0, 0, 1, 1, 1, 1])
    s = np.array([1, 0, 1, 1, 1, 0, 0])
    y = np.array([1, 1, 0, 1, 0, 0, 0])
    codes = np.array([0, 0, 0, 0, 1, 1, 1])
    c = count_cells(a, s, y, codes, ["c0", "c1"])
    assert c.counts[0, 0].tolist() == [[0, 1], [1, 1]]  # A=0: (S=0,Y=1), (S=1,Y=0), (S=1,Y=1)
    assert c.counts[0, 1].tolist() == [[0, 0], [0, 1]]
    assert c.counts[1, 1].tolist() == [[2, 0], [1, 0]]
    assert c.n_arm.tolist() == [[3, 1], [0, 3]]
    assert c.valid.tolist() == [True, False]
    assert c.p[0, 0, 1, 1] == pytest.approx(1 / 3)


def test_small_flag():
    c = count_cells(np.array([0, 1, 1]), np.array([0, 1, 0]), np.array([1, 1, 0]), min_group=2)
    assert c.small.tolist() == [True]


@pytest.mark.parametrize(
    "bad,name", [(np.array([0, 2, 1]), "S"), (np.array([0.0, np.nan, 1.0]), "S")]
)
def test_non_binary_rejected(bad, name):
    with pytest.raises(InputError, match=name):
        check_binary(bad, name)


def test_encode_cells_labels_and_errors():
    df = pd.DataFrame({"g": ["b", "a", "b", "a"], "h": [1, 1, 2, 1], "id": [1, 2, 3, 4]})
    codes, labels, _ = encode_cells(df, ["g", "h"])
    assert labels == ["g=a, h=1", "g=b, h=1", "g=b, h=2"]
    assert codes.tolist() == [1, 0, 2, 0]
    with pytest.raises(InputError, match="different value on every row"):
        encode_cells(df, ["id"])
    with pytest.raises(InputError, match="not in the data"):
        encode_cells(df, ["zzz"])
    with pytest.raises(InputError, match="missing"):
        encode_cells(df.assign(g=["a", None, "b", "a"]), ["g"])


def test_bootstrap_is_seeded_and_keeps_arm_sizes():
    counts = np.array([[[[5, 2], [1, 7]], [[3, 3], [0, 9]]]])
    b1 = bootstrap_counts(counts, 50, seed=4)
    b2 = bootstrap_counts(counts, 50, seed=4)
    np.testing.assert_array_equal(b1, b2)
    assert (b1.sum(axis=(3, 4)) == np.array([15, 15])).all()
    assert (b1[:, 0, 1, 1, 0] == 0).all()  # a zero cell stays zero
    assert not np.array_equal(b1, bootstrap_counts(counts, 50, seed=5))
