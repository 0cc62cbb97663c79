"""Tests for primafacie.causal.frames: row selections, noise alignment, dtype-keeping write-back."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.causal.frames import align_noise, require_columns, row_positions, write_back
from primafacie.errors import InputError


def test_row_positions():
    assert row_positions(None, 3).tolist() == [0, 1, 2]
    assert row_positions([3, -1, 0, 3], 5).tolist() == [0, 3, 4]  # sorted, unique, from end
    assert row_positions(np.array([True, False, True]), 3).tolist() == [0, 2]
    assert row_positions([], 3).tolist() == []


@pytest.mark.parametrize(
    "rows, message",
    [
        ([True, False], "rows mask has length 2, the frame has 3 rows"),
        ([0.5], "rows must be a boolean mask or a list of integer row positions"),
        ([[0, 1]], "rows must be a boolean mask or a list of integer row positions"),
        ([3], "rows has a position outside 0..2"),
        ([-4], "rows has a position outside 0..2"),
    ],
)
def test_row_positions_errors(rows, message):
    with pytest.raises(InputError) as err:
        row_positions(rows, 3)
    assert str(err.value) == message


def test_require_columns_names_the_node():
    with pytest.raises(
        InputError, match="node 'z' is not a column of the frame; columns are: a, b"
    ):
        require_columns(pd.DataFrame({"a": [1], "b": [2]}), ["a", "z"])


def test_align_noise():
    noise = pd.DataFrame({"x": [0.1, 0.2, 0.3], "y": [1.0, 2.0, 3.0]})
    got = align_noise(noise, ["x"], np.array([2, 0]))
    assert got["x"].tolist() == [0.3, 0.1] and got.index.tolist() == [2, 0]
    with pytest.raises(InputError, match="noise has no column for node 'w'"):
        align_noise(noise, ["x", "w"], np.array([0]))
    with pytest.raises(InputError, match="does not cover every selected row"):
        align_noise(noise, ["x"], np.array([0, 5]))


def test_write_back_keeps_dtypes_and_other_rows():
    df = pd.DataFrame(
        {
            "g": pd.Categorical(["f", "m", "f"], categories=["f", "m"]),
            "a": np.array([0, 1, 1], dtype=np.int64),
            "s": ["p", "q", "p"],
            "x": [1, 2, 3],
            "other": ["u", "v", "w"],
        }
    )
    new = {
        "g": np.array([1, 0]),
        "a": np.array([0, 0]),
        "s": np.array([1, 1]),
        "x": np.array([7.5, 8.5]),
    }
    cats = {"g": ["f", "m"], "a": [0, 1], "s": ["p", "q"]}
    out = write_back(df, np.array([0, 2]), new, cats)
    assert out["g"].tolist() == ["m", "m", "f"] and isinstance(out["g"].dtype, pd.CategoricalDtype)
    assert out["a"].tolist() == [0, 1, 0] and out["a"].dtype == np.int64
    assert out["s"].tolist() == ["q", "q", "q"]
    assert out["x"].tolist() == [7.5, 2.0, 8.5]  # numeric nodes become float
    assert out["other"].tolist() == ["u", "v", "w"]
    assert df["x"].tolist() == [1, 2, 3]  # input untouched


def test_write_back_falls_back_to_object_when_a_category_does_not_fit():
    # Category "1" (text) written into an integer column cannot be cast: the column becomes object.
    df = pd.DataFrame({"a": np.array([0, 0], dtype=np.int64)})
    out = write_back(df, np.array([1]), {"a": np.array([1])}, {"a": [0, "x"]})
    assert out["a"].tolist() == [0, "x"] and out["a"].dtype == object
