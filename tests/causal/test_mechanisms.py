"""Tests for primafacie.causal.mechanisms: fit / noise / evaluate with hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from primafacie.causal.mechanisms import (
    CategoricalCDF,
    EstimatorANM,
    LinearANM,
    Mechanism,
    default_classifier,
    is_estimator,
    make_mechanism,
    named_regressor,
)

# --------------------------------------------------------------------------- LinearANM
# Three points x = [0, 1, 2], y = [1, 4, 5]: x̄ = 1, ȳ = 10/3, Sxy = 4, Sxx = 2, so b = 2 and
# b0 = 10/3 - 2 = 4/3; residuals y - (4/3 + 2x) = [-1/3, 2/3, -1/3].
X3 = np.array([[0.0], [1.0], [2.0]])
Y3 = np.array([1.0, 4.0, 5.0])


def test_linear_fit_and_noise_on_three_points():
    mech = LinearANM().fit(X3, Y3)
    np.testing.assert_allclose(mech.coef_, [4 / 3, 2.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(mech.noise(X3, Y3), [-1 / 3, 2 / 3, -1 / 3], rtol=0, atol=1e-12)
    assert mech.label == "linear" and mech.kind == "numeric"


def test_linear_evaluate_and_counterfactual():
    mech = LinearANM().fit(X3, Y3)
    # f(3) + 0.5 = 4/3 + 6 + 1/2 = 47/6
    np.testing.assert_allclose(mech.evaluate(np.array([[3.0]]), np.array([0.5])), [47 / 6])
    # Row 0 (x=0, y=1) moved to x=2: y + b (2 - 0) = 1 + 4 = 5, exactly (intercept cancels).
    assert mech.counterfactual(X3[:1], Y3[:1], np.array([[2.0]])).tolist() == [5.0]
    # Abduction then prediction at the factual parents gives the factual values back.
    np.testing.assert_allclose(mech.evaluate(X3, mech.noise(X3, Y3)), Y3, rtol=0, atol=1e-12)


def test_linear_two_parents_exact_recovery():
    # y = 1 + 2 a - 3 b, no noise: OLS returns the coefficients and zero residuals.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0]])
    y = 1 + 2 * X[:, 0] - 3 * X[:, 1]
    mech = LinearANM().fit(X, y)
    np.testing.assert_allclose(mech.coef_, [1.0, 2.0, -3.0], atol=1e-12)
    np.testing.assert_allclose(mech.noise(X, y), 0.0, atol=1e-12)


# --------------------------------------------------------------------------- EstimatorANM
def test_estimator_anm_tree_hand_computed():
    # A depth-1 tree splits at 3.5: f = 1 on the left, 11 on the right.
    X = np.array([[1.0], [2.0], [5.0], [6.0]])
    y = np.array([0.0, 2.0, 10.0, 12.0])
    tree = DecisionTreeRegressor(max_depth=1)
    mech = EstimatorANM(tree).fit(X, y)
    assert mech.noise(X, y).tolist() == [-1.0, 1.0, -1.0, 1.0]
    assert mech.evaluate(np.array([[6.0], [1.0]]), np.array([0.5, 0.0])).tolist() == [11.5, 1.0]
    # Row 0 moved to the right leaf keeps its noise: 11 + (0 - 1) = 10.
    assert mech.counterfactual(X[:1], y[:1], np.array([[6.0]])).tolist() == [10.0]
    assert not hasattr(tree, "tree_")  # the argument is cloned, never fitted itself
    assert mech.label == "DecisionTreeRegressor"


def test_estimator_anm_counterfactual_equals_noise_then_evaluate():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = X[:, 0] ** 2 + rng.normal(size=50)
    mech = EstimatorANM(DecisionTreeRegressor(max_depth=3, random_state=0)).fit(X, y)
    Xc = X + 1.0
    # The stacked single predict call is the same arithmetic as the two-step form.
    assert np.array_equal(mech.counterfactual(X, y, Xc), mech.evaluate(Xc, mech.noise(X, y)))


def test_estimator_anm_linear_regression_matches_linear_anm():
    a = LinearANM().fit(X3, Y3)
    b = EstimatorANM(LinearRegression()).fit(X3, Y3)
    np.testing.assert_allclose(b.noise(X3, Y3), a.noise(X3, Y3), atol=1e-12)


# --------------------------------------------------------------------------- CategoricalCDF
class FixedProbs(ClassifierMixin, BaseEstimator):
    """P(C | A=1) = [0.5, 0.3, 0.2] and P(C | A=0) = [0.2, 0.3, 0.5] over the fitted classes."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        a = np.asarray(X)[:, 0]
        return np.where(a[:, None] == 1, [0.5, 0.3, 0.2], [0.2, 0.3, 0.5])


class TwoClassProbs(ClassifierMixin, BaseEstimator):
    """P = [0.4, 0.6] over whatever two classes were seen."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.tile([0.4, 0.6], (len(X), 1))


A1 = np.ones((3, 1))
A0 = np.zeros((3, 1))
CODES = np.array([0, 1, 2])


def test_categorical_cdf_noise_is_the_interval_midpoint():
    mech = CategoricalCDF(3, FixedProbs()).fit(np.r_[A1, A0], np.r_[CODES, CODES])
    np.testing.assert_allclose(mech.cdf(A1[:1]), [[0.5, 0.8, 1.0]])
    # [0, 0.5] -> 0.25, [0.5, 0.8] -> 0.65, [0.8, 1] -> 0.9
    np.testing.assert_allclose(mech.noise(A1, CODES), [0.25, 0.65, 0.9])


def test_categorical_cdf_evaluate_inverts_the_cdf():
    mech = CategoricalCDF(3, FixedProbs()).fit(np.r_[A1, A0], np.r_[CODES, CODES])
    # Under A=0 the CDF is [0.2, 0.5, 1.0]: 0.25 -> 1, 0.65 -> 2, 0.9 -> 2.
    assert mech.evaluate(A0, np.array([0.25, 0.65, 0.9])).tolist() == [1, 2, 2]
    # u equal to a CDF value picks that category (first whose CDF reaches u).
    assert mech.evaluate(A0[:2], np.array([0.2, 0.5])).tolist() == [0, 1]
    assert mech.counterfactual(A1, CODES, A0).tolist() == [1, 2, 2]
    assert mech.evaluate(A0[:1], np.array([0.9])).dtype == np.int64
    assert mech.label == "classifier:FixedProbs" and mech.kind == "categorical"


def test_categorical_cdf_unseen_category_gets_no_mass():
    # Codes 0 and 2 occur, 1 never does: the CDF is [0.4, 0.4, 1.0] and 1 is never returned.
    mech = CategoricalCDF(3, TwoClassProbs()).fit(np.zeros((4, 1)), np.array([0, 2, 0, 2]))
    np.testing.assert_allclose(mech.cdf(np.zeros((1, 1))), [[0.4, 0.4, 1.0]])
    np.testing.assert_allclose(mech.noise(np.zeros((2, 1)), np.array([0, 2])), [0.2, 0.7])
    assert mech.evaluate(np.zeros((3, 1)), np.array([0.4, 0.41, 0.99])).tolist() == [0, 2, 2]


def test_categorical_cdf_one_category_is_constant():
    mech = CategoricalCDF(3).fit(np.arange(4.0)[:, None], np.array([1, 1, 1, 1]))
    assert mech.classifier_ is None and mech.constant_ == 1
    assert mech.label == "constant"
    np.testing.assert_allclose(mech.cdf(np.zeros((1, 1))), [[0.0, 1.0, 1.0]])
    assert mech.noise(np.zeros((1, 1)), np.array([1])).tolist() == [0.5]
    assert mech.evaluate(np.full((2, 1), 9.0), np.array([0.5, 1.0])).tolist() == [1, 1]


def test_categorical_cdf_default_classifier_and_clone():
    X = np.r_[np.zeros(10), np.ones(10)][:, None]
    y = np.r_[[0] * 8 + [1] * 2, [0] * 2 + [1] * 8]
    mech = CategoricalCDF(2).fit(X, y)
    assert mech.label == "classifier:StandardScaler+LogisticRegression"
    assert CategoricalCDF(2).label == "classifier"  # unfitted
    tree = DecisionTreeClassifier(max_depth=1)
    CategoricalCDF(2, tree).fit(X, y)
    assert not hasattr(tree, "tree_")
    # The class-1 probability is 0.8 at X=1 and 0.2 at X=0 (a regularised fit lands near).
    cdf = mech.cdf(np.array([[0.0], [1.0]]))
    assert cdf[0, 0] > 0.5 > cdf[1, 0] and np.allclose(cdf[:, 1], 1.0)


# --------------------------------------------------------------------------- factory
def test_make_mechanism_numeric():
    assert isinstance(make_mechanism("linear", "numeric"), LinearANM)
    rf = make_mechanism("random_forest", "numeric")
    assert isinstance(rf, EstimatorANM) and isinstance(rf.estimator, RandomForestRegressor)
    assert rf.label == "random_forest"
    gb = make_mechanism("gradient_boosting", "numeric")
    assert isinstance(gb.estimator, HistGradientBoostingRegressor)
    assert gb.estimator.random_state == 0  # seeded: the same data give the same answer
    est = LinearRegression()
    mech = make_mechanism(est, "numeric")
    assert isinstance(mech, EstimatorANM) and mech.estimator is est
    assert mech.label == "LinearRegression"


def test_make_mechanism_categorical():
    clf = DecisionTreeClassifier()
    assert make_mechanism(clf, "categorical", 4).classifier is clf
    # A regressor (no predict_proba) or a name: the default classifier.
    for setting in (LinearRegression(), "linear", "random_forest"):
        mech = make_mechanism(setting, "categorical", 4)
        assert isinstance(mech, CategoricalCDF) and mech.classifier is None
        assert mech.n_categories == 4
    with pytest.raises(ValueError, match="n_categories"):
        make_mechanism("linear", "categorical")


def test_helpers():
    assert is_estimator(LinearRegression()) and not is_estimator("linear")
    assert not is_estimator(object())
    assert named_regressor("random_forest").get_params()["min_samples_leaf"] == 5
    with pytest.raises(ValueError, match="no named regressor 'cubic'"):
        named_regressor("cubic")
    assert default_classifier().steps[1][1].max_iter == 1000


def test_mechanism_is_abstract():
    with pytest.raises(TypeError):
        Mechanism()  # type: ignore[abstract]
