"""The search space: which candidates are planned and how they are built."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from primafacie.alternatives.candidates import (
    Candidate,
    association,
    build_estimator,
    neutralise,
    plan,
)


def test_association_by_hand():
    df = pd.DataFrame({"x": [1.0, 2, 3, 4], "c": ["a", "a", "b", "b"], "k": [5.0] * 4})
    got = association(df, ["x", "c", "k"], np.array([0, 0, 1, 1]))
    # point-biserial r of x with a: cov 0.5 / (sd_x 1.118 · sd_a 0.5) = 0.894
    assert got["x"] == pytest.approx(0.5 / (np.sqrt(1.25) * 0.5))
    assert got["c"] == pytest.approx(1.0)  # a perfect proxy
    assert got["k"] == 0.0  # constant


def test_plan_counts():
    cands = plan(["a", "b", "c", "d"], ["d", "c", "b", "a"], True, 3, ["decision_tree"],
                 {"clf__C": [0.5, 2.0]})  # fmt: skip
    assert cands[0].is_baseline
    drops = [c for c in cands if c.dropped]
    assert len(drops) == 4 + 3  # each alone + C(3, 2) among the 3 most associated
    assert ("d", "c") in [c.dropped for c in drops]
    assert sum(c.estimator == "decision_tree" for c in cands) == 3
    assert sum(bool(c.params) and c.estimator == "audited" for c in cands) == 2
    assert len(set(cands)) == len(cands)
    assert plan(["a"], ["a"], False, 4, [], {}) == [Candidate()]


def test_neutralise_keeps_the_columns_and_removes_the_information():
    df = pd.DataFrame({"x": [1, 2, 2, 3], "c": ["u", "v", "v", "v"]})
    out = neutralise(df, ["x", "c"])
    assert out["x"].tolist() == [2, 2, 2, 2] and out["c"].tolist() == ["v"] * 4
    assert df["x"].tolist() == [1, 2, 2, 3]  # input untouched


def test_build_swaps_the_final_step_and_keeps_the_preprocessing():
    base = Pipeline([("scale", StandardScaler()), ("clf", LogisticRegression())])
    est = build_estimator(base, Candidate(estimator="decision_tree", params=(("max_depth", 3),)),
                          {"x": "numeric"}, seed=0)  # fmt: skip
    assert isinstance(est.steps[0][1], StandardScaler)
    assert isinstance(est.steps[-1][1], DecisionTreeClassifier)
    assert est.steps[-1][1].max_depth == 3
    tuned = build_estimator(base, Candidate(params=(("clf__C", 0.5),)), {}, seed=0)
    assert tuned.get_params()["clf__C"] == 0.5
    assert base.get_params()["clf__C"] == 1.0  # the audited model is never changed
