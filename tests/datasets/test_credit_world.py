"""Tests of the demo credit world: determinism, the documented causal structure, deciders."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.config import load_config
from primafacie.data import AuditData
from primafacie.datasets.credit_world import (
    CREDIT_EDGES,
    CREDIT_FEATURES,
    CREDIT_PROTECTED,
    EDUCATION_LEVELS,
    SCORECARD_RULE,
    generate_credit_world,
    train_decision_makers,
    write_demo_inputs,
)
from primafacie.decisions import Rule
from primafacie.errors import InputError


@pytest.fixture(scope="module")
def world() -> pd.DataFrame:
    return generate_credit_world(4000, seed=11)


def test_same_seed_same_world_other_seed_differs():
    a = generate_credit_world(300, seed=5)
    pd.testing.assert_frame_equal(a, generate_credit_world(300, seed=5))
    assert not a.equals(generate_credit_world(300, seed=6))


def test_columns_roles_and_values(world):
    data = AuditData(
        world, features=CREDIT_FEATURES, protected=CREDIT_PROTECTED, decision="human",
        outcome="repaid", id_column="id",
    )  # fmt: skip
    assert data.n == 4000
    assert set(world["education"]) <= set(EDUCATION_LEVELS)
    assert set(world["gender"]) == {"female", "male"}
    assert set(world["race"]) == {"white", "black", "hispanic"}
    assert (world["income"] >= 5).all() and (world["savings"] >= 0).all()
    assert world["id"].is_unique


def test_protected_attributes_are_roots_of_the_dag():
    children = {b for _, b in CREDIT_EDGES}
    assert not children & set(CREDIT_PROTECTED)
    nodes = {n for e in CREDIT_EDGES for n in e}
    assert nodes <= set(CREDIT_FEATURES) | set(CREDIT_PROTECTED)


def test_documented_effects_have_the_documented_sign(world):
    female = world["gender"] == "female"
    minority = world["race"] != "white"
    # income: -6 for women, -5 for minority applicants (plus mediated effects, same sign)
    assert world.loc[female, "income"].mean() < world.loc[~female, "income"].mean() - 4
    assert world.loc[minority, "income"].mean() < world.loc[~minority, "income"].mean() - 4
    # minority applicants live more often in urban areas
    urban = world["region"] == "urban"
    assert urban[minority].mean() > urban[~minority].mean() + 0.1
    # women are more often in temporary jobs
    temp = world["employment"] == "temporary"
    assert temp[female].mean() > temp[~female].mean()


def test_repayment_has_no_direct_gender_effect(world):
    """Y depends on gender only through income, savings, employment: a logistic fit of Y on the
    parents of Y and gender gives a gender coefficient near 0."""
    from sklearn.linear_model import LogisticRegression

    X = pd.DataFrame(
        {
            "income": world["income"],
            "savings": world["savings"],
            "loan": world["loan_amount"],
            "perm": (world["employment"] == "permanent").astype(float),
            "temp": (world["employment"] == "temporary").astype(float),
            "female": (world["gender"] == "female").astype(float),
        }
    )
    coef = LogisticRegression(C=1e6, max_iter=2000).fit(X, world["repaid"]).coef_[0]
    assert abs(coef[-1]) < 0.25  # the loan officer below uses -0.5 directly, for contrast
    assert coef[0] > 0.03 and coef[1] > 0.05 and coef[2] < -0.03


def test_loan_officer_uses_gender_directly(world):
    same = world["income"].between(25, 35)
    female = world["gender"] == "female"
    assert world.loc[same & female, "human"].mean() < world.loc[same & ~female, "human"].mean()


def test_scorecard_rejects_every_urban_applicant(world):
    pred = Rule(SCORECARD_RULE).predict(world)
    assert pred[world["region"].to_numpy() == "urban"].sum() == 0
    row = pd.DataFrame(
        {"income": [30.0], "savings": [5.0], "loan_amount": [10.0], "region": ["rural"]}
    )
    # 30 + 2*5 - 0.8*10 = 32 > 20: approved by hand
    assert Rule(SCORECARD_RULE).predict(row).tolist() == [1]


def test_trained_models_predict_binary_and_beat_chance(world):
    models = train_decision_makers(world.head(1500), seed=0)
    test = world.tail(1000)
    for model in models.values():
        pred = model.predict(test[list(CREDIT_FEATURES)])
        assert set(np.unique(pred)) <= {0, 1}
        assert (pred == test["repaid"]).mean() > 0.6


def test_too_small_n_is_rejected():
    with pytest.raises(InputError, match="at least 50"):
        generate_credit_world(10)


def test_write_demo_inputs_gives_a_loadable_config(tmp_path):
    path = write_demo_inputs(tmp_path, n=200, seed=2)
    assert (tmp_path / "inputs" / "credit_world.csv").is_file()
    assert (tmp_path / "inputs" / "lr.skops").is_file()
    cfg = load_config(path)
    assert cfg.analyses.situation.k == [5, 10]  # small worlds use small neighbourhoods
    data = cfg.audit_data()
    assert data.n == 200
    assert set(cfg.analyses.certainty.decision_makers) == {
        "logistic_regression", "gradient_boosting", "scorecard", "loan_officer",
    }  # fmt: skip
    again = tmp_path / "again"
    write_demo_inputs(again, n=200, seed=2)
    for rel in ("audit.yaml", "inputs/credit_world.csv", "inputs/lr.skops", "inputs/gb.skops"):
        assert (tmp_path / rel).read_bytes() == (again / rel).read_bytes(), rel
