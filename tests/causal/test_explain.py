"""The causal explanations beside the model (src/primafacie/causal/explain.py): the twin's
path edge by edge, by hand, and the twin itself."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie import SCM
from primafacie.causal.explain import counterfactual_twin, twin_path


def test_twin_path_linear_contributions_are_coef_times_parent_change():
    # x = 1 + 2a + u (u has mean 0 in both groups, so OLS finds 2 exactly), y = 3x − a:
    # do(a := 0) on a row with a = 1 moves x by 2 × (0 − 1) = −2 (edge a → x), and y by
    # 3 × (−2) = −6 (x → y) and −1 × (−1) = +1 (a → y): total −5.
    a = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    u = np.array([0.1, -0.2, -0.1, 0.2, 0.0, 0.0])
    x = 1 + 2 * a + u
    y = 3 * x - a
    df = pd.DataFrame({"a": a, "x": x, "y": y})
    scm = SCM([("a", "x"), ("x", "y"), ("a", "y")]).fit(df)
    twin = scm.counterfactual(df.iloc[[1]], {"a": 0.0}).iloc[0]
    path = {p["node"]: p for p in twin_path(scm, df.iloc[1], twin, "a")}
    assert dict(path["x"]["edges"]) == pytest.approx({"a": -2.0})
    assert dict(path["y"]["edges"]) == pytest.approx({"x": -6.0, "a": 1.0})
    assert path["y"]["change"] == pytest.approx(-5.0)
    assert path["x"]["mechanism"] == "linear" and path["x"]["note"] == ""


def test_twin_path_nonlinear_gives_the_total_only():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.integers(0, 2, 60).astype(float)})
    df["x"] = 5 * df["a"] + rng.normal(0, 1, 60)
    scm = SCM([("a", "x")], mechanism="random_forest").fit(df)
    row = int(np.flatnonzero(df["a"].to_numpy() == 1)[0])
    twin = scm.counterfactual(df.iloc[[row]], {"a": 0.0}).iloc[0]
    (p,) = twin_path(scm, df.iloc[row], twin, "a")
    assert p["edges"] == [] and "non-linear" in p["note"]
    assert p["change"] == pytest.approx(twin["x"] - df["x"].iloc[row])


def test_counterfactual_twin_is_the_scm_counterfactual_with_its_path_and_noise():
    # x = 1 + 3a exactly: do(a := 0) on a row with a = 1 moves x by −3 (edge a → x); the
    # abducted noise of x is 0 (no residual)
    df = pd.DataFrame({"a": [0.0, 0.0, 1.0, 1.0], "x": [1.0, 1.0, 4.0, 4.0]})
    scm = SCM([("a", "x")]).fit(df)
    twin, path, noise = counterfactual_twin(scm, df, 2, "a", 0.0)
    assert twin["x"] == pytest.approx(1.0) and twin["a"] == 0.0
    assert path[0]["edges"] == [("a", pytest.approx(-3.0))] and path[0]["note"] == ""
    assert noise["x"] == pytest.approx(0.0, abs=1e-12)
