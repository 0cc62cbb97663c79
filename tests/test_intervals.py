"""Tests of the shared intervals (src/primafacie/intervals.py)."""

from __future__ import annotations

import numpy as np
import pytest

from primafacie.intervals import newcombe_bounds, newcombe_interval, wilson_interval, z_value

Z95 = 1.959963984540054  # Φ⁻¹(0.975)


def test_newcombe_bounds_match_the_published_example():
    # Newcombe (1998), Table II, example (a): 56/70 vs 48/80, method 10: 0.0524 to 0.3339
    lo, hi = newcombe_bounds(56, 70, 48, 80, Z95)
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.0524, 0.3339)


def test_newcombe_bounds_by_hand_from_wilson():
    # Δ = 0.8 - 0.6 = 0.2; low = Δ - sqrt((p_c - l_c)² + (u_t - p_t)²), high likewise
    l_c, u_c = wilson_interval(8, 10, Z95)
    l_t, u_t = wilson_interval(6, 10, Z95)
    lo, hi = newcombe_bounds(8, 10, 6, 10, Z95)
    assert lo == pytest.approx(0.2 - np.hypot(0.8 - l_c, u_t - 0.6), abs=1e-15)
    assert hi == pytest.approx(0.2 + np.hypot(u_c - 0.8, 0.6 - l_t), abs=1e-15)


def test_newcombe_bounds_take_one_quantile_per_entry():
    z = np.array([1.0, Z95, 3.0])
    lo, hi = newcombe_bounds(np.full(3, 56), 70, 48, 80, z)
    for i, zi in enumerate(z):
        lo_i, hi_i = newcombe_bounds(56, 70, 48, 80, float(zi))
        assert (lo[i], hi[i]) == (lo_i, hi_i)
    assert lo[0] > lo[1] > lo[2] and hi[0] < hi[1] < hi[2]  # a larger z, a wider interval


def test_newcombe_bounds_are_nan_for_an_empty_group():
    lo, hi = newcombe_bounds(0, 0, 3, 10, Z95)
    assert np.isnan(lo) and np.isnan(hi)


@pytest.mark.parametrize(("direction", "open_side"), [("negative", "high"), ("positive", "low")])
def test_one_sided_newcombe_interval_keeps_one_bound(direction, open_side):
    lo1, hi1 = newcombe_bounds(56, 70, 48, 80, z_value(0.05, "one"))
    lo, hi = newcombe_interval(56, 70, 48, 80, alpha=0.05, sided="one", direction=direction)
    if open_side == "high":
        assert (lo, hi) == (lo1, np.inf)
    else:
        assert (lo, hi) == (-np.inf, hi1)


def _placements(pos, neg):
    """DeLong's placement values by brute force over every pair (ties ½)."""
    pos, neg = np.asarray(pos, float), np.asarray(neg, float)
    cmp = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    return cmp.mean(axis=1), cmp.mean(axis=0)  # V10 per positive, V01 per negative


def test_auc_delong_equals_the_pairwise_definition():
    from primafacie.intervals import auc_delong

    rng = np.random.default_rng(5)
    pos, neg = rng.integers(0, 8, 40), rng.integers(0, 6, 55)  # many ties
    v10, v01 = _placements(pos, neg)
    auc, se, lo, hi = auc_delong(pos, neg, Z95)
    assert auc == pytest.approx(v10.mean(), abs=1e-14) and auc == pytest.approx(v01.mean())
    var = v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)
    assert se == pytest.approx(np.sqrt(var), rel=1e-12)
    assert (lo, hi) == pytest.approx((auc - Z95 * se, auc + Z95 * se))


def test_auc_delong_by_hand_and_on_the_published_example():
    from primafacie.intervals import auc_delong

    # positives 3, 2 and negatives 1, 2: pairs 3>1, 3>2, 2>1, 2=2 -> AUC (3 + ½)/4 = 0.875;
    # V10 = (1, 0.75), V01 = (1, 0.75): var = 0.03125/2 + 0.03125/2 -> se = 0.1767767
    auc, se, lo, hi = auc_delong([3, 2], [1, 2], Z95)
    assert auc == 0.875 and se == pytest.approx(np.sqrt(0.03125), rel=1e-12)
    assert hi == 1.0  # clipped to [0, 1]
    # Hanley & McNeil (1982), Table 1 (58 normal, 51 abnormal CT images, 5-point ratings):
    # AUC 0.893 as published; DeLong's SE 0.0307 is close to their approximate 0.032
    neg = np.repeat([1, 2, 3, 4, 5], [33, 6, 6, 11, 2])
    pos = np.repeat([1, 2, 3, 4, 5], [3, 2, 2, 11, 33])
    auc, se, _, _ = auc_delong(pos, neg, Z95)
    assert round(auc, 3) == 0.893 and abs(se - 0.032) < 0.002


def test_auc_delong_degenerate_groups():
    from primafacie.intervals import auc_delong

    assert np.isnan(auc_delong([], [1, 2], Z95)[0])
    auc, se, lo, hi = auc_delong([3], [1, 2], Z95)  # one positive: no sample variance
    assert auc == 1.0 and np.isnan(se) and np.isnan(lo) and np.isnan(hi)
