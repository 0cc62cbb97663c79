"""situation/statistics.py: counts to rates, Δp, intervals, flags and adjusted p-values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from primafacie.situation.statistics import Statistics


def _stats(**kw) -> Statistics:
    base = dict(alpha=0.05, tau=0.0, direction="negative", interval="wald",
                multiplicity="bonferroni", keep_neighbors=False)  # fmt: skip
    return Statistics(**{**base, **kw})


def _counts(*rows):
    cols = np.array(rows, dtype=np.int64).T
    return dict(zip(("x_c", "n_c", "x_t", "n_t"), cols, strict=True))


def test_wald_row_by_hand():
    # 10 of 15 rejected in the control group, 3 of 15 in the test group
    out = _stats().test(_counts((10, 15, 3, 15)), legacy=False)
    p_c, p_t = 10 / 15, 3 / 15
    w = 1.6448536269514722 * math.sqrt(p_c * (1 - p_c) / 15 + p_t * (1 - p_t) / 15)
    assert out["delta"][0] == pytest.approx(0.4666666666666667)
    assert out["ci_low"][0] == pytest.approx(0.4666666666666667 - w)  # 0.2041
    assert out["ci_low"][0] == pytest.approx(0.20410, abs=1e-5)
    assert out["ci_high"][0] == np.inf
    assert bool(out["discriminated"][0]) and bool(out["significant"][0])
    assert out["k_c"].dtype == np.int32 and out["neg_t"][0] == 3


def test_positive_direction_and_an_empty_group():
    out = _stats(direction="positive").test(_counts((3, 15, 10, 15), (1, 0, 1, 2)), False)
    assert bool(out["discriminated"][0]) and out["ci_low"][0] == -np.inf
    # an empty control group: untested, no rate, no interval, no flag
    assert np.isnan(out["p_c"][1]) and np.isnan(out["ci_low"][1]) and np.isnan(out["ci_high"][1])
    assert not out["discriminated"][1] and not out["significant"][1]


def test_adjustment_is_per_block_and_uses_alpha():
    stats = _stats(multiplicity="bonferroni", alpha=0.05)
    block = {"p_value": np.array([0.01, 0.03, np.nan])}
    stats._adjust(block)
    # Bonferroni over the two tested complainants: 0.02 and 0.06
    assert block["p_adjusted"][:2] == pytest.approx([0.02, 0.06])
    assert np.isnan(block["p_adjusted"][2])
    assert block["significant_adjusted"].tolist() == [True, False, False]
