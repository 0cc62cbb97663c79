"""situation/reference.py: the value do() sets the protected attribute to."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.situation.reference import reference_value


def _data(values, protected):
    df = pd.DataFrame({"g": values, "d": [0, 1] * (len(values) // 2)})
    return AuditData(df, features={}, protected={"g": protected}, decision="d")


def test_complement_of_a_two_valued_attribute_is_a_python_scalar():
    ref = reference_value(_data([1, 0, 1, 0], 1), "g")
    assert ref == 0 and type(ref) is int  # numpy's int64 unwrapped: it prints as the data
    assert reference_value(_data(["f", "m", "f", "m"], "f"), "g") == "m"


def test_given_value_wins_and_a_mapping_is_read_for_its_attribute():
    data = _data(["f", "m", "x", "m"], "f")
    assert reference_value(data, "g", "x") == "x"
    assert reference_value(data, "g", {"g": "m", "other": "zz"}) == "m"
    # a value spelled as text matches a numeric column (as the CLI passes it)
    assert reference_value(_data([1, 0, 1, 0], 1), "g", "0") == "0"


def test_the_protected_mask_given_is_used():
    data = _data(["f", "m", "x", "m"], "f")
    mask = np.array([True, False, True, False])  # as if "x" were protected too
    assert reference_value(data, "g", protected=mask) == "m"


def test_a_value_that_never_occurs_is_an_input_error():
    with pytest.raises(InputError, match="reference value 'q' of 'g' never occurs in the data"):
        reference_value(_data(["f", "m", "f", "m"], "f"), "g", "q")


def test_several_non_protected_values_ask_for_reference():
    with pytest.raises(InputError, match=r"'g' has 2 non-protected values \['m', 'x'\].*refer"):
        reference_value(_data(["f", "m", "x", "m"], "f"), "g")
