"""Tests of the situation analysis' report section helpers."""

from __future__ import annotations

import pytest


def test_composition_standardises_numeric_and_categorical_levels():
    """Control/test group means in SDs from the population mean; a categorical feature gives one
    indicator bar per level. Hand check: salary 10,20,30,40 has mean 25 and SD 11.18; color
    'r' on rows 0,1 of 4 has mean 0.5, SD 0.5."""
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    from primafacie.data import AuditData
    from primafacie.situation.analysis import _composition

    frame = pd.DataFrame(
        {"salary": [10.0, 20.0, 30.0, 40.0], "color": ["r", "r", "g", "g"], "d": [1, 0, 1, 0]}
    )
    data = AuditData(frame, features={"salary": "numeric", "color": "categorical"}, decision="d")
    table = pd.DataFrame({"method": ["cst"], "k": [2], "row": [1]})
    ctrl = np.array([[0, 2]])  # salaries 10, 30; colors r, g; decisions 1, 1
    test = np.array([[3, -1]])  # salary 40; color g; decision 0 (the pad is ignored)
    result = SimpleNamespace(table=table, neighbors={("cst", 2): (ctrl, test)})
    out = _composition(data, result, "cst", 2, table).set_index(["group", "feature"])["mean_z"]
    sd = np.std([10.0, 20.0, 30.0, 40.0])
    assert out[("control", "salary")] == pytest.approx((20 - 25) / sd)
    assert out[("test", "salary")] == pytest.approx((40 - 25) / sd)
    assert out[("control", "color=r")] == pytest.approx(0.0)  # one r, one g
    assert out[("test", "color=r")] == pytest.approx(-1.0)  # g: (0 - 0.5) / 0.5
    assert out[("test", "color=g")] == pytest.approx(1.0)
    assert out[("test", "rejected")] == pytest.approx(1.0)  # rejected: (1 - 0.5) / 0.5
    assert out[("control", "rejected")] == pytest.approx(-1.0)
