"""Proposition 1, Corollary 1, Definitions 3-4 and stratum bounds (paper Table 4, spec §3-4, §8)."""

import numpy as np
import pytest

from primafacie.principal.bounds import (
    corollary1,
    def3_gap,
    def4_bounds,
    prop1_bounds,
    stratum_bounds,
)
from primafacie.principal.lp import T0, T1, margin_rhs, solve_blocks, widx

# paper Table 4 as p[a, s, y]
TABLE4 = np.array([[[0.53, 0.04], [0.11, 0.32]], [[0.90, 0.02], [0.03, 0.05]]])


def test_prop1_table4_by_hand():
    b = prop1_bounds(TABLE4[None])
    # d0 = p10 - p01 = 0.93 - 0.36 = 0.57; Lower = 0 - 0.11/0.57, Upper = 0.03/0.57 + (0.53/0.57 - 1)
    assert b.d0[0] == pytest.approx(0.57)
    assert b.tau0_lower[0] == pytest.approx(-11 / 57, abs=1e-12)
    assert b.tau0_upper[0] == pytest.approx(-1 / 57, abs=1e-12)
    assert (b.tau1_lower[0], b.tau1_upper[0]) == (-1.0, 1.0)  # d1 = 0.36 - 0.93 < 0


def test_corollary1_table4():
    # 0.03 + 0.53 = 0.56 < d0 = 0.57: (2) violated through Upper(tau0) < 0; nothing else fires
    assert corollary1(TABLE4[None]).tolist() == [[False, False, False, True]]


def test_prop1_uninformative_when_d_zero():
    from primafacie.principal.population import margins_from_joint, table1_joint

    b = prop1_bounds(margins_from_joint(table1_joint()))
    assert b.d1[0] == pytest.approx(0) and b.d0[0] == pytest.approx(0)
    assert [b.tau1_lower[0], b.tau1_upper[0], b.tau0_lower[0], b.tau0_upper[0]] == [-1, 1, -1, 1]


def test_prop1_p_form_handles_empty_outcome_cell():
    p = np.zeros((1, 2, 2, 2))
    p[0, 0, :, 1] = [0.5, 0.5]  # A=0: everyone Y=1
    p[0, 1, :, 1] = [0.2, 0.8]  # A=1: everyone Y=1 -> p10 = 0, q_{10} undefined
    b = prop1_bounds(p)
    assert np.isfinite([b.tau1_lower[0], b.tau1_upper[0]]).all()
    # d1 = 1: stratum (1,1) is everyone, tau1 = 0.8 - 0.5 exactly
    assert b.tau1_lower[0] == pytest.approx(0.3) and b.tau1_upper[0] == pytest.approx(0.3)


def test_def3_and_def4_table4_by_hand():
    assert def3_gap(TABLE4[None])[0] == pytest.approx(0.08 - 0.43)
    lo, hi = def4_bounds(TABLE4[None])
    assert lo[0] == pytest.approx((0 - 0.32) / 0.36) and hi[0] == pytest.approx(
        (0.08 - 0.32) / 0.36
    )


def test_def4_frechet_is_sharp_against_lp(rng=np.random.default_rng(5)):
    p = rng.dirichlet(np.ones(4), size=(40, 2)).reshape(40, 2, 2, 2)
    c = np.zeros(16)
    for s0 in (0, 1):
        for y1 in (0, 1):
            c[widx(s0, 1, 1, y1)] = 1.0  # pr(S(1)=1, Y(0)=1)
    v, ok = solve_blocks(np.tile(np.stack([c, -c]), (40, 1)), np.repeat(margin_rhs(p), 2, axis=0))
    v = v.reshape(40, 2)
    b = p[:, 0, :, 1].sum(axis=1)
    lo, hi = def4_bounds(p)
    np.testing.assert_allclose(lo, (v[:, 0] - p[:, 0, 1, 1]) / b, atol=1e-8)
    np.testing.assert_allclose(hi, (-v[:, 1] - p[:, 0, 1, 1]) / b, atol=1e-8)


def test_stratum_bounds_table4():
    sb = stratum_bounds(TABLE4[None])
    # p11 = 0.07, p01 = 0.36: pi11 in [0, 0.07], pi00 = pi11 + 1 - 0.43
    assert sb["11"][0][0] == pytest.approx(0) and sb["11"][1][0] == pytest.approx(0.07)
    assert sb["00"][0][0] == pytest.approx(0.57) and sb["00"][1][0] == pytest.approx(0.64)


def _random_margins(rng, n):
    """Random tables with mixed concentrations, so d1 > 0 and d0 > 0 both occur often."""
    conc = rng.choice([0.3, 1.0, 5.0], size=n)
    p = np.stack([rng.dirichlet(np.full(4, c), size=2) for c in conc])
    return p.reshape(n, 2, 2, 2)


def test_prop1_agrees_with_single_target_lp_on_zero_exclusion():
    """Spec §3 and §8.4: the LP ranges of tau1', tau0' exclude 0 exactly when Prop. 1 does."""
    rng = np.random.default_rng(2024)
    n = 600
    p = _random_margins(rng, n)
    b = prop1_bounds(p)
    targets = np.stack([T0, -T0, T1, -T1])
    v, ok = solve_blocks(np.tile(targets, (n, 1)), np.repeat(margin_rhs(p), 4, axis=0))
    assert ok.all()
    v = v.reshape(n, 4)
    tol = 1e-7
    lp0 = (v[:, 0] > tol) | (-v[:, 1] < -tol)
    lp1 = (v[:, 2] > tol) | (-v[:, 3] < -tol)
    pr0 = (b.tau0_lower > tol) | (b.tau0_upper < -tol)
    pr1 = (b.tau1_lower > tol) | (b.tau1_upper < -tol)
    assert pr0.sum() > 20 and pr1.sum() > 20  # the property is exercised both ways
    np.testing.assert_array_equal(lp0, pr0)
    np.testing.assert_array_equal(lp1, pr1)
    # at most one of the two Prop. 1 intervals is informative
    assert not ((b.d1 > 0) & (b.d0 > 0)).any()
    # the signs agree with the normalised bounds: tau' = tau * pi, pi >= d
    both = pr0 & (b.d0 > 0)
    np.testing.assert_array_equal(np.sign(v[both, 0]), np.sign(b.tau0_lower[both]))


def test_prop1_rounding_noise_in_d_is_not_a_positive_stratum_size():
    """d1 = p01 - p10 is exactly 0 here but 1.1e-16 in floating point; dividing by it gave
    Lower(tau1) = 0 > Upper(tau1) = -1, an interval that 'excluded 0' (review defect)."""
    p = np.zeros((1, 2, 2, 2))
    p[0, 0, 1, 1] = 1.0  # A=0: everyone S=1, Y=1 -> p01 = 1
    p[0, 1, 0, 0] = 0.043331815801927825  # A=1: everyone Y=0 -> p10 = 1 (sums to 1 + 1e-16 error)
    p[0, 1, 1, 0] = 0.9566681841980721
    b = prop1_bounds(p)
    assert [b.tau1_lower[0], b.tau1_upper[0], b.tau0_lower[0], b.tau0_upper[0]] == [-1, 1, -1, 1]
    assert (b.tau1_lower <= b.tau1_upper).all() and (b.tau0_lower <= b.tau0_upper).all()
