"""One group coder (src/primafacie/groupcodes.py): codes, crossed codes and the label format."""

from __future__ import annotations

import numpy as np
import pandas as pd

from primafacie.groupcodes import SEP, combination_label, cross_codes, value_codes


def test_value_codes_sort_the_values():
    codes, values = value_codes(pd.Series(["m", "f", "m", "x"]))
    assert codes.tolist() == [1, 0, 1, 2] and values == ["f", "m", "x"]
    codes, values = value_codes(pd.Series([3, 1, 3]))
    assert codes.tolist() == [1, 0, 1] and values == [1, 3]


def test_cross_codes_number_observed_combinations_lexicographically():
    g, parts = cross_codes([np.array([1, 0, 1, 1]), np.array([0, 2, 2, 0])], [2, 3])
    assert g.tolist() == [1, 0, 2, 1]
    assert parts.tolist() == [[0, 2], [1, 0], [1, 2]]


def test_one_label_format_for_every_analysis():
    assert SEP == " × "
    assert combination_label(("f", 1)) == "f × 1"
    assert combination_label(["only"]) == "only"


def test_certainty_groups_and_ll144_use_the_same_labels():
    from primafacie.certainty import group_codes
    from primafacie.groups import GroupMetrics

    df = pd.DataFrame({"s": ["f", "m", "f", "m"], "r": ["a", "a", "b", "b"], "d": [1, 0, 1, 1]})
    cert = group_codes(df, ["s", "r"])
    groups = GroupMetrics(min_group=1, protected={"s": "f", "r": "a"}, decision="d").run(df)
    crossed = groups.rates()
    labels = set(crossed.loc[crossed["attribute"] == "s × r", "group"])
    assert set(cert.labels) <= labels | {"non-protected (pooled)"}
    assert cert.labels == ("f × a", "f × b", "m × a", "m × b")
