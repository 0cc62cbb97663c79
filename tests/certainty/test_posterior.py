"""Beta posterior, normalised variance, disparity, uncertainty: values from the paper/spec."""

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import beta as beta_dist

from primafacie.certainty.posterior import (
    beta_mean,
    beta_var,
    credible_interval,
    decision_maker,
    decision_maker_multigroup,
    disparity,
    group_normalized_var,
    max_posterior_var,
    normalized_var,
    posterior,
    prob_disparity_exceeds,
    treatment,
    uncertainty,
)
from primafacie.errors import InputError


def test_posterior_parameters_uniform_and_custom_prior():
    assert posterior(80, 100) == (81.0, 21.0)
    a, b = posterior([0, 3], [3, 3], prior=(0.5, 0.5))
    assert a.tolist() == [0.5, 3.5] and b.tolist() == [3.5, 0.5]


def test_beta_moments_by_hand():
    assert beta_mean(9, 3) == pytest.approx(0.75)
    assert beta_var(1, 2) == pytest.approx(1 / 18, abs=1e-15)
    # 2*2 / (16 * 5) = 0.05
    assert beta_var(2, 2) == pytest.approx(0.05)


def test_normalisation_constant_and_spec_values():
    assert normalized_var(2, 1) == pytest.approx(1.0)
    assert normalized_var(1, 2) == pytest.approx(1.0)
    assert normalized_var(2, 2) == pytest.approx(0.9)  # n = 2, k = 1
    assert normalized_var(1, 3) == pytest.approx(0.675)  # n = 2, k = 0
    assert uncertainty(1, 1, 0, 1) == pytest.approx(1.0)


def test_closed_form_matches_general_formula():
    n = np.arange(1, 60)
    for k in (0, 1, 7):
        kk = np.minimum(k, n)
        closed = group_normalized_var(kk, n)
        general = beta_var(1 + kk, 1 + n - kk) * 18
        np.testing.assert_allclose(closed, general, rtol=1e-13)


def test_uncertainty_equals_numerical_posterior_variance():
    """σ̄² = 9 Var(p_i - p_j | D): the variance of the signed difference, by numerical integration."""
    ki, ni, kj, nj = 6, 6, 2, 4
    ai, bi, aj, bj = 1 + ki, 1 + ni - ki, 1 + kj, 1 + nj - kj

    def moment(a, b, power):
        return integrate.quad(lambda x: x**power * beta_dist.pdf(x, a, b), 0, 1)[0]

    var_i = moment(ai, bi, 2) - moment(ai, bi, 1) ** 2
    var_j = moment(aj, bj, 2) - moment(aj, bj, 1) ** 2
    assert var_i / (1 / 18) == pytest.approx(0.21875, abs=1e-9)
    assert var_j / (1 / 18) == pytest.approx(0.642857, abs=1e-6)
    assert uncertainty(ki, ni, kj, nj) == pytest.approx(9 * (var_i + var_j), abs=1e-9)
    assert uncertainty(ki, ni, kj, nj) == pytest.approx(0.430804, abs=1e-6)


def test_figure2_numbers():
    assert group_normalized_var(80, 100) == pytest.approx(0.02857, abs=1e-5)
    assert group_normalized_var(8, 10) == pytest.approx(0.25962, abs=1e-5)
    d, s = decision_maker(80, 100, 8, 10)
    assert d == pytest.approx(0.0, abs=1e-15)
    assert s == pytest.approx(0.14409, abs=1e-5)
    assert disparity(80, 100, 8, 10, kind="bayesian") == pytest.approx(0.044118, abs=1e-6)
    lo, hi = credible_interval([80, 8], [100, 10])
    np.testing.assert_allclose(lo, [0.711, 0.482], atol=1e-3)
    np.testing.assert_allclose(hi, [0.866, 0.940], atol=1e-3)


def test_disparity_half_is_exact():
    assert disparity(7, 10, 1, 5) == 0.5  # naive |0.7 - 0.2| is 0.49999999999999994


def test_demo_examples_from_repo():
    # DM A: y = [1,1,1,1,1,0], z = [0,0,0,1,1,1]
    d, s = decision_maker(3, 3, 2, 3)
    assert (float(d), float(s)) == pytest.approx((1 / 3, 0.6))
    # DM B: eleven 0s then one 1; z = six 0s then six 1s
    d, s = decision_maker(0, 6, 1, 6)
    assert (float(d), float(s)) == pytest.approx((1 / 6, 0.296875))


def test_empty_group_and_bad_counts_are_errors():
    with pytest.raises(InputError, match="n = 0"):
        uncertainty(0, 0, 1, 2)
    with pytest.raises(InputError, match="0 <= k <= n"):
        disparity(5, 3, 0, 3)
    with pytest.raises(InputError, match="whole numbers"):
        uncertainty(0.5, 2, 1, 2)
    with pytest.raises(InputError, match="prior"):
        posterior(1, 2, prior=(0, 1))
    assert np.isnan(treatment(0, 0))  # reported, never a division error


def test_other_prior_is_renormalised_into_unit_interval():
    jeffreys = (0.5, 0.5)
    # with the paper's constant, Jeffreys at n = 1 would be 1.125
    assert beta_var(1.5, 0.5) / (1 / 18) == pytest.approx(1.125)
    assert max_posterior_var(jeffreys) == pytest.approx(beta_var(1.5, 0.5))
    n = np.repeat(np.arange(1, 40), 40)
    k = np.minimum(np.tile(np.arange(40), 39), n)
    v = group_normalized_var(k, n, jeffreys)
    assert v.max() == pytest.approx(1.0) and v.min() > 0


def test_multigroup_picks_extremes_and_pair_uncertainty():
    # COMPAS LR row of Table 3 plus three large groups with middle rates
    n = [3696, 6, 2454, 637, 4, 377]
    k = [1900, 6, 1500, 380, 2, 230]
    dm = decision_maker_multigroup(k, n)
    assert (int(dm.i), int(dm.j)) == (1, 4)
    assert float(dm.disparity) == 0.5
    assert float(dm.uncertainty) == pytest.approx(0.430804, abs=1e-6)


def test_multigroup_ties_first_and_most_uncertain():
    # groups 0 and 2 share the max rate 1.0; groups 1 and 3 share the min 0.0
    k = [5, 0, 1, 0]
    n = [5, 2, 1, 9]
    first = decision_maker_multigroup(k, n, ties="first")
    assert (int(first.i), int(first.j)) == (0, 1)
    cautious = decision_maker_multigroup(k, n, ties="most_uncertain")
    assert (int(cautious.i), int(cautious.j)) == (2, 1)
    assert float(cautious.uncertainty) > float(first.uncertainty)


def test_multigroup_all_equal_picks_two_distinct_groups():
    dm = decision_maker_multigroup([[1, 2, 3]], [[2, 4, 6]])
    assert dm.disparity.tolist() == [0.0]
    assert dm.i.tolist() != dm.j.tolist()


def test_multigroup_skips_empty_group_with_warning_and_needs_two():
    with pytest.warns(UserWarning, match="empty"):
        dm = decision_maker_multigroup([3, 0, 1], [3, 0, 2])
    assert (int(dm.i), int(dm.j)) == (0, 2)
    with pytest.raises(InputError, match="two non-empty"):
        decision_maker_multigroup([3, 0], [3, 0])


def test_multigroup_vectorised_matches_loop():
    rng = np.random.default_rng(1)
    n = rng.integers(1, 30, size=(200, 5))
    k = rng.integers(0, 30, size=(200, 5)) % (n + 1)
    dm = decision_maker_multigroup(k, n)
    for r in range(0, 200, 37):
        one = decision_maker_multigroup(k[r], n[r])
        assert float(one.disparity) == dm.disparity[r]
        assert float(one.uncertainty) == dm.uncertainty[r]


def test_prob_exceeds_uniform_closed_form():
    # two uniform posteriors (empty groups): P(|X - Y| > e) = (1 - e)^2
    for eps in (0.0, 0.2, 0.5, 0.9):
        q = prob_disparity_exceeds(0, 0, 0, 0, eps)
        assert float(q) == pytest.approx((1 - eps) ** 2, abs=2e-3)


def test_prob_exceeds_quadrature_agrees_with_seeded_monte_carlo():
    args = ([6, 80, 3], [6, 100, 50], [2, 8, 40], [4, 10, 50])
    quad = prob_disparity_exceeds(*args, epsilon=0.1)
    mc = prob_disparity_exceeds(*args, epsilon=0.1, method="monte_carlo", draws=400_000, seed=3)
    np.testing.assert_allclose(quad, mc, atol=4e-3)
    again = prob_disparity_exceeds(*args, epsilon=0.1, method="monte_carlo", draws=400_000, seed=3)
    np.testing.assert_array_equal(mc, again)
    with pytest.raises(InputError, match="epsilon"):
        prob_disparity_exceeds(1, 2, 1, 2, epsilon=1.5)


def test_infinite_counts_are_rejected():
    # inf passed the whole-number check (floor(inf) == inf) and 0 <= k <= n (inf <= inf)
    with pytest.raises(InputError, match="finite"):
        uncertainty(np.inf, np.inf, 0, 1)
    with pytest.raises(InputError, match="finite"):
        disparity(1, 2, 0, np.inf)


def test_prob_exceeds_matches_exact_integral_within_stated_bound():
    """Error bound of the docstring: |quadrature - exact| <= 1/nodes (midpoint rule on two
    monotone integrands, each off by at most half its range / nodes)."""
    ki, ni, kj, nj, eps = 6, 6, 0, 4, 0.3
    ai, bi, aj, bj = 1 + ki, 1 + ni - ki, 1 + kj, 1 + nj - kj
    up = integrate.quad(lambda x: beta_dist.cdf(x - eps, aj, bj) * beta_dist.pdf(x, ai, bi),
                        eps, 1, epsabs=1e-13)[0]  # fmt: skip
    lo = integrate.quad(lambda x: beta_dist.cdf(x - eps, ai, bi) * beta_dist.pdf(x, aj, bj),
                        eps, 1, epsabs=1e-13)[0]  # fmt: skip
    for nodes in (4, 20, 200):
        got = float(prob_disparity_exceeds(ki, ni, kj, nj, eps, nodes=nodes))
        assert abs(got - (up + lo)) <= 1 / nodes


def test_prob_exceeds_memory_is_bounded_by_blocks(monkeypatch):
    import sys
    import tracemalloc

    post = sys.modules["primafacie.certainty.posterior"]  # the package re-exports a function

    rng = np.random.default_rng(0)
    n = rng.integers(1, 50, (2, 300))
    k = rng.integers(0, 50, (2, 300)) % (n + 1)
    whole = prob_disparity_exceeds(k[0], n[0], k[1], n[1], 0.1, nodes=400)
    monkeypatch.setattr(post, "_PEX_BLOCK_CELLS", 2048)
    tracemalloc.start()
    blocked = prob_disparity_exceeds(k[0], n[0], k[1], n[1], 0.1, nodes=400)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_array_equal(blocked, whole)
    # unblocked, each (300 x 400) float array alone takes 0.96 MB
    assert peak < 0.5 * 2**20


def test_nonuniform_prior_maximum_may_sit_above_n_equal_1():
    """Renormalisation searches every n >= 1: for Beta(0.1, 10) the largest posterior variance
    is at n = 5, k = 5 (by hand: Beta(5.1, 10) has variance 51 / (15.1^2 * 16.1))."""
    prior = (0.1, 10.0)
    assert max_posterior_var(prior) == pytest.approx(5.1 * 10 / (15.1**2 * 16.1))
    assert float(group_normalized_var(5, 5, prior)) == pytest.approx(1.0)
    assert float(group_normalized_var(1, 1, prior)) < 1.0


def test_max_posterior_var_fast_for_skewed_prior_and_matches_brute_force():
    import time

    # brute force over every (n, k) for small priors, by hand-checkable enumeration
    for prior in [(1.0, 1.0), (0.5, 0.5), (0.1, 10.0), (2.0, 7.5), (0.01, 0.01)]:
        n, k = np.meshgrid(np.arange(1, 400), np.arange(400), indexing="ij")
        ok = k <= n
        ref = float(beta_var(prior[0] + k[ok], prior[1] + n[ok] - k[ok]).max())
        assert max_posterior_var(prior) == pytest.approx(ref, rel=1e-12)
    # a skewed prior needs n up to ~b0; the search used to be quadratic in that (hours here)
    start = time.perf_counter()
    v = max_posterior_var((1.0, 2e5))
    assert time.perf_counter() - start < 5
    # beta = b0 stays fixed while k = n; with alpha = x beta the variance is about
    # x / ((1 + x)^3 beta), largest at x = 1/2: (4/27) / b0, reached near n = k = 1e5
    assert v == pytest.approx(4 / 27 / 2e5, rel=1e-4)
    with pytest.raises(InputError, match="prior"):
        max_posterior_var((1.0, 1e12))
