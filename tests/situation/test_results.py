"""Result objects (src/primafacie/situation/results.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from primafacie.data import AuditData
from primafacie.situation import SituationTest
from primafacie.situation.results import json_safe


def _result():
    df = pd.DataFrame(
        {
            "x": [0.0, 1, 2, 3, 0.5, 1.5, 2.5, 3.5],
            "a": [1] * 4 + [0] * 4,
            "y": [0, 0, 1, 1, 1, 1, 1, 0],
        }
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    return SituationTest(method="st", k=[1, 2], max_distance=0.2).run(data)


def test_summary_counts_shares_and_denominators():
    res = _result()
    s = res.summary()
    t = res.to_frame()
    for row in s.itertuples():
        g = t[(t.method == row.method) & (t.k == row.k)]
        assert row.cases == int(g.discriminated.sum()) and row.denominator == 4
        assert row.cases_share == row.cases / 4
        assert row.undefined == int(g.delta.isna().sum())


def test_to_dict_is_json_safe():
    d = _result().to_dict()
    text = json.dumps(d, allow_nan=False)
    assert "Infinity" not in text and "NaN" not in text
    with_ids = _result().to_dict(neighbors=True)
    json.dumps(with_ids, allow_nan=False)
    first = with_ids["complainants"][0]  # st, k=1, row 0 (x=0): ε=0.2 keeps test row 4 only
    assert (first["control_ids"], first["test_ids"]) == ([], [4])
    assert "control_ids" not in d["complainants"][0]
    assert json_safe([np.nan, np.inf, -np.inf, np.int64(3)]) == [None, "inf", "-inf", 3]


def test_plot_returns_figure():
    import matplotlib.figure

    fig = _result().plot()
    assert isinstance(fig, matplotlib.figure.Figure)


def test_result_is_frozen():
    res = _result()
    try:
        res.n_protected = 3
    except Exception as exc:  # dataclasses.FrozenInstanceError
        assert "cannot assign" in str(exc)
    else:
        raise AssertionError("SituationResult must be frozen")


def test_summary_with_no_complainants_lists_every_method_and_k_with_zero_counts():
    df = pd.DataFrame(
        {"x": [0.0, 1, 2, 3, 0.5, 1.5], "a": [1] * 4 + [0] * 2, "y": [1, 1, 1, 1, 0, 1]}
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    res = SituationTest(method="st", k=[1, 2], complainants="rejected").run(data)
    assert res.n_complainants == 0 and len(res.to_frame()) == 0
    s = res.summary()
    assert s[["method", "k", "complainants", "cases", "significant"]].values.tolist() == [
        ["st", 1, 0, 0, 0],
        ["st", 2, 0, 0, 0],
    ]
    assert (s.denominator == 4).all() and (s.cases_share == 0).all()
    assert s.mean_delta_cases.isna().all()
