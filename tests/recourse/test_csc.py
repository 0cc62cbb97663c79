"""Comparative subgroup counterfactuals (src/primafacie/recourse/csc.py): the empty case."""

from __future__ import annotations

import json

from primafacie.recourse import CSCResult


def test_no_biased_subgroup_gives_text_columns_and_a_figure():
    """A loop over definitions must not stop when one of them ranks no subgroup as biased."""
    empty = CSCResult("Ma.7", "Equal Cost of Effectiveness (threshold = 0.7)", records=())
    assert empty.text == (
        "No subgroup is ranked as biased under Equal Cost of Effectiveness (threshold = 0.7).\n"
    )
    frame = empty.to_frame()
    assert frame.empty and list(frame.columns)[:4] == ["rank", "score", "bias_against", "subgroup"]
    assert "effectiveness" in frame.columns
    assert list(empty.summary().columns) == ["rank", "score", "bias_against", "subgroup"]
    assert json.loads(json.dumps(empty.to_dict())) == {
        "label": "Ma.7",
        "title": "Equal Cost of Effectiveness (threshold = 0.7)",
        "records": [],
    }
    fig = empty.plot()
    assert fig.axes and "No subgroup" in fig.axes[0].texts[0].get_text()
