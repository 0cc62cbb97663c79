"""The mining part of the FACTS engine (:mod:`primafacie.recourse.mining`): column kinds,
names checked against the data, and the affected / unaffected split, by hand."""

import pandas as pd
import pytest

from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.recourse import RecourseFairness
from primafacie.recourse.mining import _names


def test_names_accepts_none_one_name_or_many():
    assert _names(None) == []
    assert _names("age") == ["age"]
    assert _names(("a", 1)) == ["a", "1"]


def test_kinds_of_a_plain_table_follow_the_dtypes():
    df = pd.DataFrame({
        "g": ["f", "m"] * 2,
        "num": [1.0, 2.0, 3.0, 4.0],
        "o": pd.Categorical(["lo", "hi"] * 2, categories=["lo", "hi"], ordered=True),
        "c": ["x", "y", "x", "y"],
        "b": [True, False] * 2,
    })  # fmt: skip
    frame, protected, kinds, others = RecourseFairness(
        Rule("c == 'x'"), protected="g"
    )._resolve_data(df)
    assert protected == "g" and others == []
    assert kinds == {
        "num": "numeric",
        "o": {"ordinal": ["lo", "hi"]},
        "c": "categorical",
        "b": "categorical",
    }


def test_a_rule_for_an_unknown_column_names_it():
    audit = RecourseFairness(Rule("x == 'h'"), protected="g", monotone=["edu"])
    with pytest.raises(
        InputError, match=r"monotone feature given for unknown column\(s\) \['edu'\]"
    ):
        audit._check_names(["x"], "g")


@pytest.mark.parametrize(
    "param, value, where",
    [
        ("feature_weights", {"edu": 2}, "(--weight, analyses.recourse.feature_weights)"),
        ("immutable", ["edu"], "(--immutable, analyses.recourse.immutable)"),
        ("max_step", {"edu": 1}, "(--max-step)"),
        ("bins", {"edu": 3}, "(--bins, analyses.recourse.bins)"),
    ],
)
def test_an_unknown_column_names_the_flag_and_key_that_gave_it(param, value, where):
    audit = RecourseFairness(Rule("x == 'h'"), protected="g", **{param: value})
    with pytest.raises(InputError) as err:
        audit._check_names(["x"], "g")
    assert str(err.value).endswith(f"['edu']; known columns: x {where}")


def test_split_counts_affected_and_unaffected_per_group():
    df = pd.DataFrame({"g": list("aabbb") + ["?"], "x": list("hlllh") + ["l"]})
    audit = RecourseFairness(Rule("x == 'h'"), protected="g")
    frame, group_idx, unaffected = audit._split(df, "g", {"x": "categorical"})
    assert audit.dropped_rows_ == 1  # "?" is a missing value: the row is left out
    assert audit.groups_ == ("a", "b")
    assert audit.n_affected_.tolist() == [1, 2]
    assert audit.n_unaffected_.tolist() == [1, 1]
    assert unaffected.tolist() == [0, 4]
    assert audit.affected_rows_.tolist() == [1, 2, 3]
