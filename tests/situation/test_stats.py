"""Interval formulas (src/primafacie/situation/stats.py) against hand computations and the paper."""

from __future__ import annotations

import math

import numpy as np
import pytest

from primafacie.errors import InputError
from primafacie.situation.stats import (
    bonferroni,
    newcombe_interval,
    wald_interval,
    wilson_interval,
    z_value,
)

# Tables 4 and 5 (k=15, CST w/ so groups of k+1=16): (neg_c, neg_t, one-sided low, two-sided).
PAPER_ROWS = {
    44: (16, 0, 1.00, (1.00, 1.00)),
    55: (13, 0, 0.65, (0.62, 1.00)),
    150: (16, 15, -0.04, (-0.06, 0.18)),
    203: (16, 14, -0.01, (-0.04, 0.29)),
    218: (9, 0, 0.36, (0.32, 0.81)),
    5: (1, 0, -0.04, (-0.06, 0.18)),
    147: (8, 0, 0.29, (0.26, 0.75)),
    435: (6, 0, 0.18, (0.14, 0.61)),
    1958: (2, 0, -0.01, (-0.04, 0.29)),
    2926: (12, 0, 0.57, (0.54, 0.96)),
}


@pytest.mark.parametrize("cid", sorted(PAPER_ROWS))
def test_tables_4_and_5_intervals_with_k_plus_1(cid):
    neg_c, neg_t, low1, (low2, high2) = PAPER_ROWS[cid]
    p_c, p_t = neg_c / 16, neg_t / 16
    lo, hi = wald_interval(p_c, p_t, 16, 16, 0.05, "one", legacy=True)
    assert math.isinf(float(hi))
    # The paper prints 2 decimals; half a unit of the last digit (+ float slack).
    assert float(lo) == pytest.approx(low1, abs=0.005 + 1e-9)
    lo2, hi2 = wald_interval(p_c, p_t, 16, 16, 0.05, "two", legacy=True)
    assert float(lo2) == pytest.approx(low2, abs=0.005 + 1e-9)
    assert float(hi2) == pytest.approx(high2, abs=0.005 + 1e-9)


def test_wald_by_hand():
    # p_c = 13/16, p_t = 0: w = 1.645 * sqrt(13/16 * 3/16 / 16) = 1.645 * 0.0975781...
    lo, _ = wald_interval(13 / 16, 0.0, 16, 16, legacy=True)
    assert float(lo) == pytest.approx(13 / 16 - 1.645 * math.sqrt(13 * 3 / 16**3), abs=1e-12)
    # positive direction: (-inf, Δ + w]
    lo, hi = wald_interval(0.2, 0.5, 10, 20, direction="positive")
    w = z_value(0.05) * math.sqrt(0.2 * 0.8 / 10 + 0.5 * 0.5 / 20)
    assert math.isinf(float(lo)) and float(hi) == pytest.approx(-0.3 + w)


def test_z_values():
    assert z_value(0.05, legacy=True) == 1.645
    assert z_value(0.05, "two", legacy=True) == 1.96
    assert z_value(0.025, legacy=True) == 1.96  # Bonferroni α/2 in the multiple runs
    assert z_value(0.05) == pytest.approx(1.6448536269514722)
    with pytest.raises(InputError, match="alpha"):
        z_value(1.5)


def test_wilson_by_hand():
    z = 1.96
    # x = 0, n = 10: centre = half = (z²/20) / (1 + z²/10)
    lo, hi = wilson_interval(0, 10, z)
    assert float(lo) == pytest.approx(0.0, abs=1e-12)
    assert float(hi) == pytest.approx(2 * (z * z / 20) / (1 + z * z / 10))
    # x = 5, n = 10: symmetric around 0.5, half = z*sqrt(0.025 + z²/400) / (1 + z²/10)
    lo, hi = wilson_interval(5, 10, z)
    half = z * math.sqrt(0.025 + z * z / 400) / (1 + z * z / 10)
    assert (float(lo), float(hi)) == pytest.approx((0.5 - half, 0.5 + half))


def test_newcombe_published_example():
    # Newcombe (1998) Table II, 56/70 - 48/80, method 10: 0.0524 to 0.3339.
    lo, hi = newcombe_interval(56, 70, 48, 80, 0.05, "two")
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.0524, 0.3339)
    # one-sided negative: the lower bound uses z_α, the upper is +inf
    lo1, hi1 = newcombe_interval(56, 70, 48, 80, 0.05, "one")
    assert float(lo1) > float(lo) and math.isinf(float(hi1))


def test_newcombe_not_degenerate_at_zero_one():
    lo, hi = newcombe_interval(np.array([16]), 16, np.array([0]), 16, 0.05, "two")
    assert 0 < float(lo[0]) < 1 and float(hi[0]) == pytest.approx(1.0)


def test_bonferroni():
    assert bonferroni(0.05, 2) == 0.025
    with pytest.raises(InputError):
        bonferroni(0.05, 0)


# Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10 (score, no CC).
NEWCOMBE_TABLE_II = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((6, 7, 2, 7), (0.0582, 0.8062)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize("counts, expected", NEWCOMBE_TABLE_II)
def test_newcombe_table_ii_method_10(counts, expected):
    lo, hi = newcombe_interval(*counts, 0.05, "two")
    assert (round(float(lo), 4), round(float(hi), 4)) == expected


# Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson, no CC).
@pytest.mark.parametrize(
    "x, n, expected",
    [
        (81, 263, (0.2553, 0.3662)),
        (15, 148, (0.0624, 0.1605)),
        (0, 20, (0.0, 0.1611)),
        (1, 29, (0.0061, 0.1718)),
    ],
)
def test_wilson_table_i_method_3(x, n, expected):
    lo, hi = wilson_interval(x, n, z_value(0.05, "two"))
    assert (round(float(lo), 4), round(float(hi), 4)) == expected


def test_empty_group_gives_nan_intervals():
    lo, hi = newcombe_interval(
        np.array([1]), np.array([0]), np.array([0]), np.array([3]), sided="two"
    )
    assert np.isnan(lo).all() and np.isnan(hi).all()
    lo, _ = wald_interval(np.nan, 0.0, 0, 3)
    assert np.isnan(lo).all()


def test_counts_come_as_negatives_then_size_and_old_keywords_warn():
    # newcombe_interval(x_c, n_c, x_t, n_t): Newcombe (1998) Table II, 56/70 vs 48/80
    expected = newcombe_interval(56, 70, 48, 80, 0.05, "two")
    assert newcombe_interval(x_c=56, n_c=70, x_t=48, n_t=80, sided="two") == expected
    with pytest.warns(
        DeprecationWarning, match=r"k_c=\.\.\., k_t=\.\.\.\) is deprecated; call it n_c=\.\.\., n_t"
    ):
        old = newcombe_interval(x_c=56, k_c=70, x_t=48, k_t=80, sided="two")
    assert old == expected
    with pytest.warns(DeprecationWarning):
        lo, _ = wald_interval(13 / 16, 0.0, k_c=16, k_t=16, legacy=True)
    assert round(float(lo), 3) == round(13 / 16 - 1.645 * math.sqrt(13 / 16 * 3 / 16 / 16), 3)


def test_alpha_is_checked_with_the_one_constraint():
    from primafacie.situation import SituationTest
    from primafacie.situation.stats import ALPHA

    assert SituationTest._parameter_constraints["alpha"] is ALPHA
    with pytest.raises(InputError) as err:
        z_value(0)
    assert str(err.value) == "z_value: alpha must be a number in (0, 1); got 0"
    with pytest.raises(InputError, match="bonferroni: q must be an integer ≥ 1; got 0"):
        bonferroni(0.05, 0)


@pytest.mark.parametrize("arrays", [1, 2, 4])
def test_distinct_counts_equal_np_unique(arrays):
    """distinct_counts hashes the keys (pandas.factorize) and sorts the distinct ones: the
    tuples, their order and the inverse are np.unique's (return_index/return_inverse)."""
    from primafacie.situation.stats import _PACK, distinct_counts

    rng = np.random.default_rng(arrays)
    for m in (0, 1, 7, 20_000):
        counts = [rng.integers(0, 60, m) for _ in range(arrays)]
        counts[0][: m // 3] = _PACK - 1  # the largest count packed
        uniq, inverse = distinct_counts(*counts)
        key = np.zeros(m, dtype=np.int64)
        for c in counts:
            key = key * _PACK + c
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        assert np.array_equal(inverse, inv.ravel())
        for got, c in zip(uniq, counts, strict=True):
            assert got.dtype == np.float64
            assert np.array_equal(got, c[first].astype(float))
