"""Comparative subgroup counterfactuals (src/primafacie/recourse/csc.py): the empty case."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.recourse import CSCResult, RecourseFairness


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


def test_headline_and_plot_read_the_carried_curves():
    """The CSC of the package docstring's world: a reaches edu=mid (cost 2), b needs edu=hi (4)."""
    df = pd.DataFrame({"g": ["a", "b"] * 60, "edu": ["lo", "lo", "mid", "mid", "hi", "lo"] * 20,
                       "job": ["x"] * 60 + ["y"] * 60})  # fmt: skip
    audit = RecourseFairness(Rule("(edu == 'hi') or ((g == 'a') and (edu == 'mid'))"),
                          protected="g", support=0.1, feature_weights={"edu": 2},
                          features={"edu": {"ordinal": ["lo", "mid", "hi"]}, "job": "categorical"},
                          ).fit(df)  # fmt: skip
    csc = audit.csc("ECE", phi=0.5, top=1)
    assert csc.headline() == (
        "Equal Cost of Effectiveness (threshold = 0.5): 1 subgroup summarised; #1 'edu=lo' "
        "against b (score 2)"
    )
    fig = csc.plot()
    ys = [np.asarray(line.get_ydata(), dtype=float).tolist() for line in fig.axes[0].get_lines()]
    assert ys == [[0.0, 100.0, 100.0], [0.0, 0.0, 100.0]]
    same = audit.plot_cumulative("edu=lo")
    assert [line.get_ydata().tolist() for line in same.axes[0].get_lines()] == ys
    bare = CSCResult(csc.label, csc.title, records=csc.records)

    with pytest.raises(InputError, match="no effectiveness curves"):
        bare.plot()
