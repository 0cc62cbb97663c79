"""standardize.standard_scale: scikit-learn's StandardScaler fit, bit for bit, without it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.preprocessing import StandardScaler

from primafacie.standardize import standard_scale


def _same_as_sklearn(X: np.ndarray) -> None:
    sc = StandardScaler().fit(X)
    mean, scale = standard_scale(X)
    assert np.array_equal(mean, sc.mean_), (mean, sc.mean_)
    assert np.array_equal(scale, sc.scale_), (scale, sc.scale_)


def test_by_hand():
    # column 0: mean 2, population variance ((1-2)^2 + (3-2)^2) / 2 = 1; column 1 constant -> 1
    mean, scale = standard_scale(np.array([[1.0, 5.0], [3.0, 5.0]]))
    assert mean.tolist() == [2.0, 5.0] and scale.tolist() == [1.0, 1.0]
    # 0, 0, 6: mean 2, variance (4 + 4 + 16) / 3 = 8
    mean, scale = standard_scale(np.array([[0.0], [0.0], [6.0]]))
    assert mean.tolist() == [2.0] and scale.tolist() == [np.sqrt(8.0)]


@settings(max_examples=300, deadline=None)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 60), st.integers(1, 5)),
        elements=st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    ),
    st.booleans(),
)
def test_equal_to_scikit_learn_on_any_array(X, fortran):
    _same_as_sklearn(np.asfortranarray(X) if fortran else X)


@pytest.mark.parametrize("seed", range(5))
def test_equal_to_scikit_learn_on_rounded_shifted_and_near_constant_columns(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2000, 4)) * [1e-6, 1.0, 1e4, 3.0] + [1e8, -5.0, 0.0, 1e-3]
    X[:, 1] = np.round(X[:, 1], 1)  # ties, as in the legacy LSAT/UGPA columns
    X[:, 3] = 7.1 + rng.integers(0, 2, size=2000) * 1e-15  # constant up to rounding
    _same_as_sklearn(X)
    _same_as_sklearn(np.asfortranarray(X))


def test_a_one_dimensional_array_is_refused():
    with pytest.raises(ValueError, match="2-D"):
        standard_scale(np.zeros(3))
