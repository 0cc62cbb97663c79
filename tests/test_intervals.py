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
