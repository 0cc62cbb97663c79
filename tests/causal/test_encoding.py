"""Tests for primafacie.causal.encoding: kinds, category order, codes, designs, term names."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from primafacie.causal.encoding import (
    codes,
    design,
    infer_kinds,
    intervention_value,
    node_kind,
    parent_block,
    sorted_categories,
    terms,
)
from primafacie.errors import InputError


def _spec(kind, order=None):
    return SimpleNamespace(kind=kind, order=order)


def test_sorted_categories_plain_and_mixed_types():
    assert sorted_categories(np.array([3, 1, 2, 1])) == [1, 2, 3]
    # Mixed types cannot be compared: by type name, then text ('int' < 'str').
    assert sorted_categories(np.array(["b", 2, "a", 1], dtype=object)) == [1, 2, "a", "b"]


@pytest.mark.parametrize(
    "col, spec, declared, kind",
    [
        (pd.Series([0.5, 1.5]), None, None, "numeric"),
        (pd.Series([0, 1, 1]), None, None, "categorical"),  # undeclared 0/1
        (pd.Series([0, 1, 1]), _spec("numeric"), None, "numeric"),  # declared numeric
        (pd.Series([1, 2, 3]), _spec("categorical"), None, "categorical"),
        (pd.Series([1, 2, 3]), _spec("ordinal", [1, 2, 3]), None, "categorical"),  # levels
        (pd.Series([1, 2, 3]), _spec("ordinal"), None, "numeric"),  # ordinal without levels
        (pd.Series([True, False]), _spec("numeric"), None, "categorical"),  # booleans
        (pd.Series(["a", "b"]), None, None, "categorical"),
        (pd.Series([0.5, 1.5]), None, "categorical", "categorical"),  # the setting wins
        (pd.Series([0, 1]), None, "numeric", "numeric"),
    ],
)
def test_node_kind(col, spec, declared, kind):
    assert node_kind(col, spec, declared) == kind


def test_codes_in_the_fixed_order_and_by_text():
    assert codes("g", np.array(["m", "f", "m"], dtype=object), ["f", "m"]).tolist() == [1, 0, 1]
    # CSV round-trips turn 1 into "1": matched on the text form.
    assert codes("a", np.array(["1", "0"], dtype=object), [0, 1]).tolist() == [1, 0]
    assert codes("a", np.array([1.0, 0.0]), [0, 1]).dtype == np.int64


def test_codes_unknown_value_names_node_and_value():
    with pytest.raises(InputError) as err:
        codes("region", np.array(["north", "mars"], dtype=object), ["north", "south"])
    assert str(err.value) == (
        "node 'region' has value 'mars' that was not seen at fit; known values: ['north', 'south']"
    )


def test_parent_block_and_design():
    # Drop-first one-hot of codes [0, 2, 1] over 3 categories; a numeric parent as a column.
    assert parent_block(np.array([0, 2, 1]), 3).tolist() == [[0, 0], [0, 1], [1, 0]]
    assert parent_block(np.array([1.5, 2.5]), None).tolist() == [[1.5], [2.5]]
    X = design(
        ["x", "g"],
        {"g": np.array([1, 0]), "x": np.array([2.5, 3.0]), "unused": np.array([9, 9])},
        {"g": ["f", "m", "o"]},
    )
    assert X.tolist() == [[2.5, 1.0, 0.0], [3.0, 0.0, 0.0]]


def test_terms_name_the_design_columns():
    assert terms(["g", "x"], {"g": ["f", "m", "o"]}) == ["g[m]", "g[o]", "x"]
    assert terms(["x"], {}) == ["x"]


def test_infer_kinds_with_ordinal_levels_and_errors():
    df = pd.DataFrame({"edu": ["hi", "lo", "mid"], "x": [1.0, 2.0, 3.0], "b": [0, 1, 0]})
    features = {"edu": _spec("ordinal", ["lo", "mid", "hi"])}
    kinds, cats = infer_kinds(["edu", "x", "b"], df, features, {"x": "numeric"})
    assert kinds == {"edu": "categorical", "x": "numeric", "b": "categorical"}
    assert cats == {"edu": ["lo", "mid", "hi"], "b": [0, 1]}  # levels in declared order
    with pytest.raises(InputError, match=r"node 'x' has missing values \(first at row 1\)"):
        infer_kinds(["x"], pd.DataFrame({"x": [1.0, None]}), {}, {})
    with pytest.raises(InputError, match="node 's' is declared numeric but holds 'a'"):
        infer_kinds(["s"], pd.DataFrame({"s": ["a", "b"]}), {}, {"s": "numeric"})


def test_intervention_value():
    assert intervention_value("g", "m", ["f", "m"]) == 1
    assert intervention_value("a", "1", [0, 1]) == 1  # by its text
    assert intervention_value("x", np.int64(3), None) == 3.0
    with pytest.raises(InputError, match=r"'x' is not in the domain of 'g': \['f', 'm'\]"):
        intervention_value("g", "x", ["f", "m"])
    with pytest.raises(InputError, match="needs a number, got True"):
        intervention_value("x", True, None)
    with pytest.raises(InputError, match="must be finite, got inf"):
        intervention_value("x", float("inf"), None)


def _slow(node, col, cats):
    """The row-by-row lookup (an object array of the column's values)."""
    return codes(node, col.to_numpy(dtype=object), cats)


@pytest.mark.parametrize(
    "dtype", ["str", "category", pd.StringDtype("pyarrow"), pd.StringDtype("python"), object]
)
def test_codes_of_a_column_equal_the_row_by_row_lookup(dtype):
    """A categorical or pyarrow-text column is coded without an object per row; the codes
    are the row-by-row lookup's for every dtype (categories unused, in another order, or
    matching only by their text included)."""
    values = ["urban", "rural", "suburban", "rural", "urban", "urban"]
    col = pd.Series(values, dtype=dtype)
    for cats in (["rural", "suburban", "urban"], ["urban", "rural", "x", "suburban"]):
        got = codes("region", col, cats)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, _slow("region", col, cats))
    if dtype == "category":  # unused categories of the column itself do not matter
        wide = col.cat.add_categories(["never"]).cat.reorder_categories(
            ["never", "urban", "suburban", "rural"]
        )
        np.testing.assert_array_equal(codes("region", wide, ["rural", "suburban", "urban"]),
                                      [2, 0, 1, 0, 2, 2])  # fmt: skip
    # a value matching a category only by its text ("1" for 1) takes the row-by-row path
    ones = pd.Series(["1", "0", "1"], dtype=dtype)
    np.testing.assert_array_equal(codes("a", ones, [0, 1]), [1, 0, 1])


@pytest.mark.parametrize("dtype", ["category", pd.StringDtype("pyarrow")])
def test_codes_of_a_column_with_an_unknown_or_missing_value_raise_as_before(dtype):
    col = pd.Series(["f", "m", "x"], dtype=dtype)
    with pytest.raises(InputError, match="node 'g' has value 'x' that was not seen at fit"):
        codes("g", col, ["f", "m"])
    missing = pd.Series(["f", None, "m"], dtype=dtype)
    with pytest.raises(InputError) as slow:
        _slow("g", missing, ["f", "m"])
    with pytest.raises(InputError) as fast:
        codes("g", missing, ["f", "m"])
    assert str(fast.value) == str(slow.value)
    assert "that was not seen at fit" in str(fast.value)


def test_codes_of_a_pyarrow_text_column_make_no_object_array(monkeypatch):
    """The fast path never asks the column for a numpy (object) array."""
    col = pd.Series(["b", "a", "b"], dtype=pd.StringDtype("pyarrow"))

    def refuse(*args, **kwargs):
        raise AssertionError("to_numpy called")

    monkeypatch.setattr(pd.Series, "to_numpy", refuse)
    np.testing.assert_array_equal(codes("x", col, ["a", "b"]), [1, 0, 1])
