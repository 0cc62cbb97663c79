"""Formulas of primafacie.overtime.stats against values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from primafacie.overtime.stats import (
    holm,
    mcnemar_exact,
    rate_change,
    ratio_change,
    two_proportion_test,
)


def test_two_proportion_test_by_hand():
    # 40/100 vs 60/100: pooled 0.5, se = sqrt(0.25 * 0.02) = 0.0707107, z = 2.828427
    p = float(two_proportion_test(40, 100, 60, 100))
    assert p == pytest.approx(2 * 0.5 * math.erfc(2.828427 / math.sqrt(2)), rel=1e-5)
    assert p == pytest.approx(0.004678, abs=1e-6)


def test_two_proportion_test_without_variation_and_empty():
    assert float(two_proportion_test(0, 10, 0, 20)) == 1.0
    assert np.isnan(two_proportion_test(0, 0, 3, 10))


def test_rate_change_is_newcombe_of_new_minus_old():
    # Newcombe (1998) Table II: 56/70 - 48/80 has the 95% interval [0.0524, 0.3339]
    change, low, high, p = rate_change(48, 80, 56, 70)
    assert float(change) == pytest.approx(0.2)
    assert (round(float(low), 4), round(float(high), 4)) == (0.0524, 0.3339)
    assert float(p) < 0.05


def test_ratio_change_by_hand():
    # old: 30/100 vs 60/100 -> R = 0.5, var(log R) = 1/30 - 1/100 + 1/60 - 1/100 = 0.03
    # new: 45/100 vs 60/100 -> R = 0.75, var = 1/45 - 1/100 + 1/60 - 1/100 = 0.0188889
    change, low, high, p = ratio_change((30, 100, 60, 100), (45, 100, 60, 100))
    d, se = math.log(1.5), math.sqrt(0.03 + 0.0188889)
    assert float(change) == pytest.approx(0.25)
    assert float(low) == pytest.approx(0.5 * (math.exp(d - 1.959964 * se) - 1), rel=1e-5)
    assert float(high) == pytest.approx(0.5 * (math.exp(d + 1.959964 * se) - 1), rel=1e-5)
    assert float(p) == pytest.approx(math.erfc(d / se / math.sqrt(2)), rel=1e-5)
    assert float(low) < 0.25 < float(high)


def test_mcnemar_exact_by_hand():
    assert mcnemar_exact(9, 1) == pytest.approx(2 * 11 / 1024)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(3, 3) == 1.0


def test_holm_by_hand_and_nan():
    # sorted 0.01, 0.03, 0.04 -> 0.03, 0.06, max(0.06, 0.04) = 0.06
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    out = holm([np.nan, 0.02, 0.5])
    assert np.isnan(out[0]) and out[1:].tolist() == pytest.approx([0.04, 0.5])
    assert np.isnan(holm([np.nan])).all()
