"""The value do() sets (src/primafacie/situation/reference.py), by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.situation.reference import reference_value


def _data(values):
    df = pd.DataFrame({"g": values, "d": [0, 1] * (len(values) // 2)})
    return AuditData(df, features={}, protected={"g": "f"}, decision="d")


def test_the_one_non_protected_value_is_the_reference():
    assert reference_value(_data(["f", "m", "f", "m"]), "g") == "m"


def test_an_asked_value_must_occur_and_a_mapping_picks_by_attribute():
    data = _data(["f", "m", "x", "m"])
    assert reference_value(data, "g", reference={"g": "x"}) == "x"
    with pytest.raises(InputError, match="reference value 'y' of 'g' never occurs"):
        reference_value(data, "g", reference="y")


def test_several_non_protected_values_need_a_reference():
    with pytest.raises(InputError, match=r"'g' has 2 non-protected values \['m', 'x'\]"):
        reference_value(_data(["f", "m", "x", "m"]), "g")


def test_numpy_scalars_become_python_values():
    df = pd.DataFrame({"a": [1, 0, 1, 0], "d": [0, 1, 0, 1]})
    data = AuditData(df, features={}, protected={"a": 1}, decision="d")
    value = reference_value(data, "a")
    assert value == 0 and type(value) is int
