"""The settings part of the SCM (:mod:`primafacie.causal.settings`): checks against the graph
and the graph queries, by hand."""

import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from primafacie.causal import SCM
from primafacie.causal.settings import _estimator_name, _is_list

DF = pd.DataFrame({"a": [0, 0, 1, 1], "x": [1.0, 2.0, 4.0, 5.0], "y": [1.0, 0.0, 2.0, 3.0]})


def test_graph_queries_follow_the_edges():
    scm = SCM([("a", "x"), ("x", "y"), ("a", "y")])
    assert scm.nodes == ["a", "x", "y"]
    assert scm.parents("y") == ["x", "a"]
    assert scm.children("a") == ["x", "y"]
    assert scm.descendants("a") == ["x", "y"]
    assert scm.ancestors("y") == ["a", "x"]


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"clip": {"x": (2, 1)}}, "clip for node 'x': lower bound 2 exceeds upper 1"),
        ({"clip": {"x": (None, "1")}}, "clip for node 'x' must be \\(lo, hi\\) numbers or None"),
        ({"round": {"x": 1.5}}, "round for node 'x' must be an integer, got 1.5"),
        ({"kinds": {"x": "text"}}, "kind of node 'x' must be 'numeric' or 'categorical'"),
        ({"mechanism": {"x": "cubic"}}, "mechanism for node 'x' must be one of"),
        ({"protected": ["x"]}, "edge 'a' -> 'x' points into the protected attribute 'x'"),
    ],
)
def test_a_bad_setting_names_its_node(setting, message):
    with pytest.raises(Exception, match=message):
        SCM([("a", "x")], **setting).fit(DF)


def test_helpers_by_hand():
    assert _estimator_name("linear") == "linear"
    assert _estimator_name(LinearRegression()) == "LinearRegression"
    assert _is_list([("a", "x")]) and not _is_list("ax") and not _is_list({"a": "x"})
