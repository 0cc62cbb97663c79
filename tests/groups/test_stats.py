"""Katz's ratio interval and the |difference| interval, by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from primafacie.groups.stats import abs_interval, katz_interval

Z = 1.959963984540054


def test_katz_interval_by_hand():
    # 2 of 6 vs 4 of 6: ratio 0.5, se = sqrt(1/2 - 1/6 + 1/4 - 1/6) = sqrt(5/12)
    r, lo, hi = katz_interval(2, 6, 4, 6, Z)
    se = math.sqrt(5 / 12)
    assert float(r) == pytest.approx(0.5)
    assert float(lo) == pytest.approx(0.5 * math.exp(-Z * se))
    assert float(hi) == pytest.approx(0.5 * math.exp(Z * se))
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.1411, 1.7718)


def test_katz_interval_undefined_cases():
    r, lo, hi = katz_interval([0, 3, 2, 2], [4, 4, 0, 5], [2, 0, 1, 1], [4, 4, 4, 0], Z)
    # 0 of 4 vs 2 of 4: ratio 0, no log interval; reference 0 of 4: undefined; empty groups
    assert r[0] == 0.0 and np.isnan(lo[0]) and np.isnan(hi[0])
    assert np.isnan(r[1:]).all() and np.isnan(lo[1:]).all() and np.isnan(hi[1:]).all()


def test_abs_interval_by_hand():
    lo, hi = abs_interval([-0.2, 0.1, -0.5, 0.0], [0.1, 0.3, -0.2, 0.0])
    assert lo.tolist() == [0.0, 0.1, 0.2, 0.0]
    assert hi.tolist() == [0.2, 0.3, 0.5, 0.0]
