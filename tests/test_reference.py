"""Reference groups (src/primafacie/reference.py and their AuditData methods)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.reference import describe, highest_value, split_protected


@pytest.fixture()
def people():
    """race b (protected): 1 of 4 selected; w: 2 of 3; h: 3 of 3; a: 1 of 2."""
    return pd.DataFrame(
        {
            "race": list("bbbbwwwhhhaa"),
            "x": np.arange(12.0),
            "d": [1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1],
        }
    )


def _data(df, reference, **kw):
    return AuditData(df, features={"x": "numeric"}, decision="d",
                     protected={"race": {"values": ["b"], "reference": reference}}, **kw)  # fmt: skip


def test_split_protected_reads_both_forms():
    values, refs = split_protected({"sex": "f", "race": {"values": ["b"], "reference": "rest"},
                                    "age": {"values": "old", "reference": "highest"}})  # fmt: skip
    assert values == {"sex": ("f",), "race": ("b",), "age": ("old",)}
    assert refs == {"age": "highest"}


def test_highest_picks_the_most_selected_non_protected_value():
    # a is protected (rate 1.0, never the reference); b 1/2, c 2/3 -> c
    col = pd.Series(list("abbccc"))
    assert highest_value(col, np.array([1, 1, 0, 1, 1, 0]), {"a"}) == "c"


def test_highest_breaks_ties_by_rows_then_sorted_order():
    # b and c both 1/2, c has more rows -> c
    col = pd.Series(list("bbcccc"))
    assert highest_value(col, np.array([1, 0, 1, 1, 0, 0]), set()) == "c"
    # b and c both 1/2 with 2 rows each -> the first in sorted order, b
    col = pd.Series(list("ccbb"))
    assert highest_value(col, np.array([1, 0, 1, 0]), set()) == "b"


def test_listed_reference_masks_and_left_out_counts(people):
    data = _data(people, ["w"])
    assert data.reference_mask("race").tolist() == [False] * 4 + [True] * 3 + [False] * 5
    (c,) = data.comparisons()
    assert (c["rule"], c["reference"], c["left_out"]) == ("listed", ["w"], 5)
    assert c["left_out_share"] == pytest.approx(5 / 12)
    assert c["left_out_values"] == ["a", "h"]
    assert "race: b vs w (5 rows (41.7%) of other values left out: a, h)" == describe(c)


def test_highest_reference_is_resolved_on_the_data(people):
    data = _data(people, "highest")
    assert data.reference_values("race") == ("h",)  # 3 of 3
    (c,) = data.comparisons()
    assert c["rule"] == "highest" and c["reference"] == ["h"]
    assert "highest selection rate" in describe(c)


def test_rest_is_todays_behaviour(people):
    data = _data(people, "rest")
    assert data.reference == {}
    assert (data.reference_mask("race") == ~data.protected_mask("race")).all()
    assert data.compared() is data


def test_compared_keeps_only_protected_and_reference_rows_with_their_row_numbers(people):
    data = _data(people, ["w"])
    sub = data.compared()
    assert sub.n == 7
    assert sub.ids.tolist() == [0, 1, 2, 3, 4, 5, 6]  # positions in the audited data
    assert set(sub.frame["race"]) == {"b", "w"}
    assert sub.comparison_info == data.comparisons()
    shifted = _data(people.iloc[::-1].reset_index(drop=True), ["w"]).compared()
    assert shifted.ids.tolist() == [5, 6, 7, 8, 9, 10, 11]


@pytest.mark.parametrize(
    ("reference", "words"),
    [
        (["W"], "protected.race.reference value 'W' of protected column 'race' does not occur as "
                "written; the data spell it 'w'"),
        (["z"], "protected.race.reference value 'z' of protected column 'race' never occurs"),
        (["b"], "protected.race: value(s) ['b'] are both protected and reference"),
        ([], "protected.race.reference: the list is empty"),
    ],
)  # fmt: skip
def test_bad_reference_values_name_the_key_and_the_value(people, reference, words):
    with pytest.raises(InputError) as err:
        _data(people, reference)
    assert words in str(err.value)


@pytest.mark.parametrize(
    "protected, key",
    [({"gender": []}, "protected.gender:"),
     ({"gender": "f", "race": {"values": []}}, "protected.race.values:"),
     ({"gender": "f", "race": {"values": [], "reference": ["w"]}}, "protected.race.values:")],
)  # fmt: skip
def test_an_empty_list_of_protected_values_is_refused(protected, key):
    """An attribute with no protected value was silently not audited (a clean verdict on 0 of
    0 groups, exit 0)."""
    with pytest.raises(InputError, match=f"^{key} the list of protected values is empty"):
        split_protected(protected)
    df = pd.DataFrame({"gender": ["f", "m"], "race": ["b", "w"], "y": [0, 1]})
    with pytest.raises(InputError, match="the list of protected values is empty"):
        AuditData(df, features={}, protected=protected, decision="y")
