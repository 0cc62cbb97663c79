"""Property tests (hypothesis) of the uncertainty and the utility."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from primafacie.certainty.posterior import (
    decision_maker_multigroup,
    disparity,
    group_normalized_var,
    uncertainty,
)
from primafacie.certainty.utility import u_topsis

counts = st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))
unit = st.floats(0, 1, allow_nan=False)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(counts, counts)
def test_uncertainty_in_unit_interval(a, b):
    (ni, ki), (nj, kj) = a, b
    s = float(uncertainty(ki, ni, kj, nj))
    assert 0 < s <= 1
    assert (s == 1) == (ni == 1 and nj == 1)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(unit)
def test_utility_is_zero_at_half_disparity(s):
    # spec §4.5 / paper eq. 19: u(0.5, s) = 0 for every s in [0, 1]
    assert u_topsis(0.5, s) == 0.0


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(1, 500), st.data(), st.integers(1, 20), unit)
def test_counts_with_a_half_gap_give_exactly_zero_utility(nj, data, t, s):
    # p_i = p_j + 1/2 exactly: n_i = 2 t n_j, k_i = t (2 k_j + n_j), k_j <= n_j / 2
    kj = data.draw(st.integers(0, nj // 2))
    ni, ki = 2 * t * nj, t * (2 * kj + nj)
    d = float(disparity(ki, ni, kj, nj))
    assert d == 0.5  # from integers, no 0.49999999999999994
    assert u_topsis(d, uncertainty(ki, ni, kj, nj)) == 0.0


@settings(max_examples=300, deadline=None, derandomize=True)
@given(unit, unit)
def test_utility_sign_and_antisymmetry(d, s):
    u = float(u_topsis(d, s))
    assert -1 <= u <= 1
    assert abs(u + float(u_topsis(1 - d, s))) < 1e-12
    if d < 0.5 - 1e-9:
        assert u > 0
    elif d > 0.5 + 1e-9:
        assert u < 0


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(1, 200), st.integers(1, 200), st.integers(2, 20))
def test_more_data_at_equal_rate_lowers_uncertainty(n, k_raw, factor):
    k = k_raw % (n + 1)
    base = group_normalized_var(k, n)
    bigger = group_normalized_var(k * factor, n * factor)
    assert bigger < base
    assert uncertainty(k * factor, n * factor, k * factor, n * factor) < uncertainty(k, n, k, n)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(counts, min_size=2, max_size=8))
def test_multigroup_disparity_is_max_minus_min(groups):
    n = np.array([g[0] for g in groups])
    k = np.array([g[1] for g in groups])
    dm = decision_maker_multigroup(k, n)
    rates = k / n
    assert abs(float(dm.disparity) - (rates.max() - rates.min())) < 1e-12
    assert rates[int(dm.i)] == rates.max() and rates[int(dm.j)] == rates.min()
    assert int(dm.i) != int(dm.j)
    assert 0 < float(dm.uncertainty) <= 1
