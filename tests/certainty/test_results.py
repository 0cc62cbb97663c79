"""CertaintyResult: frame, summary, JSON-safe dict, plot."""

import json

import numpy as np
import pandas as pd
import pytest

from primafacie.certainty import CertaintyAudit, CertaintyResult, score_counts


@pytest.fixture(scope="module")
def result() -> CertaintyResult:
    df = pd.DataFrame(
        {
            "z": ["a"] * 4 + ["b"] * 4 + ["c"] * 2,
            "y": [1, 0, 1, 0, 1, 1, 0, 0, 1, 0],
            "h1": [1, 1, 1, 0, 0, 0, 0, 1, 1, 1],
            "h2": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
        }
    )
    return CertaintyAudit(protected="z", epsilon=0.2).run(df, {"h1": "h1", "h2": "h2"})


def test_frame_and_summary(result):
    t = result.to_frame()
    assert t["decision_maker"].tolist() == ["h2", "h1"]  # h2 treats everyone at 50%
    assert t.loc[0, "disparity"] == 0 and t.loc[0, "selected"]
    assert list(result.summary().columns)[:2] == ["rank", "decision_maker"]
    assert result.counts_frame().shape == (6, 12)
    assert np.isnan(t["accuracy"]).all()  # no outcome given
    assert ((t["p_exceeds"] > 0) & (t["p_exceeds"] < 1)).all()
    t.loc[0, "utility"] = 99  # a copy: the result stays unchanged
    assert result.table.loc[0, "utility"] != 99
    assert "selected: h2" in str(result)


def test_frozen(result):
    with pytest.raises(AttributeError):
        result.selected = ("x",)


def test_to_dict_is_strict_json_with_none_for_nan(result):
    d = result.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["selected"] == ["h2"]
    assert d["decision_makers"][0]["accuracy"] is None
    assert d["criterion"] == "statistical_parity" and d["groups"] == ["a", "b", "c"]


def test_empty_group_rate_is_none_in_json():
    with pytest.warns(UserWarning):
        res = score_counts([[3, 0, 2]], [[1, 0, 2]], groups=["a", "b", "c"])
    rec = [r for r in res.to_dict()["counts"] if r["group"] == "b"][0]
    assert rec["rate"] is None and rec["norm_var"] is None


def test_plot_marks_selected(result):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = result.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("disparity")
    # 7 indifference curves + scatter of all + circle of the selected
    assert len(ax.lines) == 7 and len(ax.collections) == 2
    sel = ax.collections[1].get_offsets()
    assert sel.shape == (1, 2) and tuple(sel[0]) == (
        0.0,
        pytest.approx(result.table.loc[0, "uncertainty"]),
    )
