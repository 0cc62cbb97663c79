"""P-values of situation testing (src/primafacie/situation/stats.py and the engine's columns):
hand-computed z-tests, and ``p ≤ α`` exactly when the interval excludes τ."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from primafacie.data import AuditData
from primafacie.situation import MultipleSituationTest, SituationTest
from primafacie.situation.statistics import Statistics
from primafacie.situation.stats import (
    consistent_p,
    newcombe_interval,
    newcombe_p_value,
    wald_interval,
    wald_p_value,
)


def _z_test(x_c, n_c, x_t, n_t, tau=0.0):
    """The unpooled z statistic, written out."""
    p_c, p_t = x_c / n_c, x_t / n_t
    return (p_c - p_t - tau) / math.sqrt(p_c * (1 - p_c) / n_c + p_t * (1 - p_t) / n_t)


def test_wald_p_value_is_the_hand_computed_z_test():
    # 10 of 15 vs 3 of 15: Δp = 0.4667, se = sqrt(0.2222/15 + 0.16/15) = 0.15963, z = 2.9235
    z = _z_test(10, 15, 3, 15)
    assert z == pytest.approx(2.9235, abs=1e-4)
    assert float(wald_p_value(10, 15, 3, 15)) == pytest.approx(1 - norm.cdf(z), rel=1e-12)
    assert float(wald_p_value(10, 15, 3, 15)) == pytest.approx(0.001730, abs=1e-6)
    # positive direction: the lower tail; two-sided: both tails
    assert float(wald_p_value(10, 15, 3, 15, direction="positive")) == pytest.approx(norm.cdf(z))
    assert float(wald_p_value(10, 15, 3, 15, sided="two")) == pytest.approx(2 * norm.sf(z))
    # τ = 0.1 moves the null: z = (0.4667 − 0.1) / 0.15963 = 2.2970
    z_tau = _z_test(10, 15, 3, 15, tau=0.1)
    assert float(wald_p_value(10, 15, 3, 15, tau=0.1)) == pytest.approx(norm.sf(z_tau))
    assert norm.sf(z_tau) == pytest.approx(0.01081, abs=1e-5)


def test_wald_p_value_at_a_point_interval_and_empty_group():
    # both rates 0 or 1: se = 0, so Δp itself decides
    assert wald_p_value([16, 0, 8], [16, 16, 16], [0, 0, 8], [16, 16, 16]).tolist()[:2] == [
        0.0,
        0.5,
    ]
    assert float(wald_p_value(0, 16, 16, 16)) == 1.0
    assert np.isnan(wald_p_value(1, 0, 1, 5)) and np.isnan(newcombe_p_value(0, 0, 1, 5))


def test_newcombe_p_value_inverts_the_interval():
    # Newcombe (1998) Table II example: 56/70 vs 48/80; at α = 0.05 two-sided [0.0524, 0.3339]
    lo, hi = newcombe_interval(56, 70, 48, 80, alpha=0.05, sided="two")
    assert float(newcombe_p_value(56, 70, 48, 80, tau=float(lo), sided="two")) == pytest.approx(
        0.05, abs=1e-12
    )
    assert float(newcombe_p_value(56, 70, 48, 80, tau=float(hi), sided="two")) == pytest.approx(
        0.05, abs=1e-12
    )
    lo1, _ = newcombe_interval(56, 70, 48, 80, alpha=0.01)
    assert float(newcombe_p_value(56, 70, 48, 80, tau=float(lo1))) == pytest.approx(0.01, abs=1e-12)
    # Δp = τ: one-sided 0.5, two-sided 1
    assert float(newcombe_p_value(5, 10, 5, 10)) == pytest.approx(0.5)
    assert float(newcombe_p_value(5, 10, 5, 10, sided="two")) == pytest.approx(1.0)


def _grid():
    """Every count pair for group sizes 1..51 (unequal sizes too), as flat arrays."""
    rows = []
    for n_c, n_t in [(1, 1), (2, 3), (5, 5), (10, 7), (15, 15), (16, 16), (20, 11), (31, 51)]:
        xc, xt = np.meshgrid(np.arange(n_c + 1), np.arange(n_t + 1), indexing="ij")
        rows.append(
            np.stack([xc.ravel(), np.full(xc.size, n_c), xt.ravel(), np.full(xc.size, n_t)])
        )
    return np.concatenate(rows, axis=1).astype(float)


@pytest.mark.parametrize("interval", ["wald", "newcombe"])
@pytest.mark.parametrize("direction", ["negative", "positive"])
@pytest.mark.parametrize("sided", ["one", "two"])
def test_p_below_alpha_exactly_when_the_interval_excludes_tau(interval, direction, sided):
    x_c, n_c, x_t, n_t = _grid()
    p_fn = wald_p_value if interval == "wald" else newcombe_p_value
    checked = 0
    for tau in (-0.3, -0.1, 0.0, 0.05, 0.2):
        p = p_fn(x_c, n_c, x_t, n_t, tau=tau, sided=sided, direction=direction)
        # down to 5e-5 ≈ 0.05/1,000: BH compares the smallest p-values of a family with α·i/m
        for alpha in (5e-5, 1e-4, 0.001, 0.01, 0.025, 0.05, 0.1, 0.2):
            if interval == "wald":
                lo, hi = wald_interval(x_c / n_c, x_t / n_t, n_c, n_t, alpha, sided, direction)
            else:
                lo, hi = newcombe_interval(x_c, n_c, x_t, n_t, alpha, sided, direction)
            excludes = (lo > tau) | (hi < tau)
            # a bound within float noise of τ is a tie either way: not a disagreement
            tie = (np.abs(lo - tau) < 1e-9) | (np.abs(hi - tau) < 1e-9)
            assert np.array_equal((p <= alpha)[~tie], excludes[~tie]), (tau, alpha)
            checked += int((~tie).sum())
    assert checked > 20000


def test_consistent_p_moves_only_boundary_values():
    p = np.array([0.049, 0.0500000001, 0.04999999, 0.2, np.nan])
    sig = np.array([True, True, False, False, False])
    out = consistent_p(p, sig, 0.05)
    assert out[0] == 0.049 and out[1] == 0.05 and out[3] == 0.2
    assert out[2] == np.nextafter(0.05, 1) and np.isnan(out[4])


@pytest.fixture(scope="module")
def world():
    rng = np.random.default_rng(3)
    n = 300
    a = (rng.random(n) < 0.4).astype(int)
    x = rng.normal(size=n)
    y = (rng.random(n) < 0.6 - 0.25 * a).astype(int)
    df = pd.DataFrame({"x": x, "z": rng.normal(size=n), "a": a, "y": y})
    data = AuditData(
        df, features={"x": "numeric", "z": "numeric"}, protected={"a": 1}, decision="y"
    )
    cf = df.assign(x=x + 0.3 * a, y=np.where(a == 1, (rng.random(n) < 0.6).astype(int), y))
    return data, cf


@pytest.mark.parametrize(
    "settings",
    [
        dict(),  # the default: Newcombe
        dict(interval="wald"),
        dict(direction="positive"),
        dict(tau=0.1, alpha=0.1, interval="wald"),
        dict(tau=-0.05, alpha=0.01),
        dict(legacy=True, interval="wald"),
    ],
)
def test_engine_p_value_is_at_most_alpha_exactly_when_significant(world, settings):
    data, cf = world
    methods = ["st", "cst", "cst_centers", "cf"]
    res = SituationTest(methods=methods, k=[5, 15], **settings).run(data, counterfactuals=cf)
    t = res.to_frame()
    alpha = settings.get("alpha", 0.05)
    tested = t.delta.notna()
    assert t.p_value.isna().equals(~tested)
    assert ((t.p_value <= alpha) == t.significant).all()
    assert t.significant.any() and (~t.significant & tested).any()
    # the two-sided p-value matches the two-sided interval
    tau = settings.get("tau", 0.0)
    excl = (t.ci2_low > tau) | (t.ci2_high < tau)
    assert ((t.p_value_two <= alpha) == (excl & tested)).all()
    # a CF non-case has p = 1; a CF case has the CST w/ p-value of the same complainant
    cf_rows, w_rows = t[t.method == "cf"], t[t.method == "cst_centers"]
    flag = cf_rows.cf_flag.to_numpy(dtype=bool)
    assert (cf_rows.p_value.to_numpy()[~flag] == 1).all()
    assert np.array_equal(cf_rows.p_value.to_numpy()[flag], w_rows.p_value.to_numpy()[flag])


def test_engine_wald_p_values_match_the_z_test_of_their_counts(world):
    data, _ = world
    t = SituationTest(methods="st", k=15, interval="wald").run(data).to_frame()
    z = (t.p_c - t.p_t) / np.sqrt(t.p_c * (1 - t.p_c) / t.k_c + t.p_t * (1 - t.p_t) / t.k_t)
    ok = np.isfinite(z).to_numpy()
    expect = norm.sf(z[ok])
    # away from α (where the rounded decision wins) the engine's p is the plain z-test
    away = np.abs(expect - 0.05) > 1e-6
    assert away.sum() > 50
    assert np.allclose(t.p_value[ok][away], expect[away], rtol=1e-12, atol=0)


def test_multiple_p_value_is_q_times_the_largest_run_p_value():
    rng = np.random.default_rng(11)
    n = 400
    g, r = rng.integers(0, 2, n), (rng.random(n) < 0.5).astype(int)
    x = rng.normal(size=n)
    y = (rng.random(n) < 0.7 - 0.3 * g * r).astype(int)
    df = pd.DataFrame({"g": g, "r": r, "x": x, "y": y})
    data = AuditData(df, features={"x": "numeric"}, protected={"g": 1, "r": 1}, decision="y")
    res = MultipleSituationTest(methods="st", k=[10, 20], multiplicity="none").run(data)
    t = res.to_frame()
    expect = np.minimum(1, 2 * np.maximum(t.p_value_g, t.p_value_r))
    assert ((t.p_value <= 0.05) == t.significant).all()
    near = np.abs(expect - 0.05) < 1e-9
    assert np.allclose(t.p_value[~near], expect[~near])
    assert t.significant.any()
    # multiplicity none: adjusted = unadjusted, on the combined test
    assert (t.significant_adjusted == t.significant).all()


def _random_counts(seed: int, m: int, top: int = 60) -> tuple[np.ndarray, ...]:
    """m random (x_c, n_c, x_t, n_t) with 0 ≤ x ≤ n < top (empty groups included)."""
    rng = np.random.default_rng(seed)
    n_c, n_t = rng.integers(0, top, m), rng.integers(0, top, m)
    x_c = (rng.random(m) * (n_c + 1)).astype(int)
    x_t = (rng.random(m) * (n_t + 1)).astype(int)
    return x_c, n_c, x_t, n_t


def _reference_newcombe_p(x_c, n_c, x_t, n_t, tau, sided, direction):
    """The Newcombe p-value as it was before issue 22, verbatim: the bisection on every
    entry, 80 halvings, scipy.stats tails. The faster code must give these bits."""
    from primafacie.intervals import newcombe_bounds

    x_c, n_c = np.asarray(x_c, dtype=float), np.asarray(n_c, dtype=float)
    x_t, n_t = np.asarray(x_t, dtype=float), np.asarray(n_t, dtype=float)
    x_c, n_c, x_t, n_t = np.broadcast_arrays(x_c, n_c, x_t, n_t)
    with np.errstate(divide="ignore", invalid="ignore"):
        diff = x_c / n_c - x_t / n_t - tau
    above = diff > 0

    def beyond(z):
        low, high = newcombe_bounds(x_c, n_c, x_t, n_t, z)
        return np.where(above, low > tau, high < tau)

    lo = np.zeros(diff.shape)
    hi = np.full(diff.shape, 40.0)
    for _ in range(80):
        mid = (lo + hi) / 2
        out = beyond(mid)
        lo = np.where(out, mid, lo)
        hi = np.where(out, hi, mid)
    zstar = np.where(beyond(np.full(diff.shape, 40.0)), np.inf, lo)
    zstat = np.where(diff == 0, 0.0, np.where(above, zstar, -zstar))
    zstat = np.where(np.isnan(diff) | (n_c <= 0) | (n_t <= 0), np.nan, zstat)
    if sided == "two":
        return np.minimum(1.0, 2 * norm.sf(np.abs(zstat)))
    return norm.sf(zstat) if direction == "negative" else norm.cdf(zstat)


@pytest.mark.parametrize("tau", [0.0, 0.05, -0.2, 1e-12])
@pytest.mark.parametrize(
    ("sided", "direction"), [("one", "negative"), ("one", "positive"), ("two", "negative")]
)
def test_newcombe_p_value_is_bit_identical_to_the_row_by_row_bisection(tau, sided, direction):
    # issue 22: the bisection runs once per distinct count tuple and stops at its fixed
    # point; every entry must be the old per-row, 80-halving value bit for bit (NaN where a
    # group is empty), including τ just off a difference (z* near 0 needs every halving)
    counts = _random_counts(7, 30_000)
    fast = newcombe_p_value(*counts, tau=tau, sided=sided, direction=direction)
    ref = _reference_newcombe_p(*counts, tau=tau, sided=sided, direction=direction)
    assert fast.shape == ref.shape == (30_000,)
    assert fast.tobytes() == ref.tobytes()
    assert np.isnan(fast).any() and (fast < 0.05).any() and (fast > 0.5).any()
    # the row-by-row path (fractional counts are not packed) gives the same bits
    x_c, n_c, x_t, n_t = (c[:500].astype(float) for c in counts)
    frac = newcombe_p_value(x_c + 0.5, n_c + 1, x_t, n_t, tau=tau, sided=sided)
    assert (
        frac.tobytes()
        == _reference_newcombe_p(
            x_c + 0.5, n_c + 1, x_t, n_t, tau=tau, sided=sided, direction="negative"
        ).tobytes()
    )


def test_engine_p_values_of_one_bisection_equal_both_calls():
    # test_p_values reads the one- and two-sided p-values from one bisection
    from primafacie.situation.stats import test_p_values

    x_c, n_c, x_t, n_t = _random_counts(2, 5_000, top=30)
    counts = {"x_c": x_c, "n_c": n_c, "x_t": x_t, "n_t": n_t}
    lo2, hi2 = newcombe_interval(x_c, n_c, x_t, n_t, 0.05, "two")
    sig = np.zeros(5_000, dtype=bool)
    p1, p2 = test_p_values(counts, 0.0, "newcombe", "positive", 0.05, sig, (lo2, hi2))
    one = newcombe_p_value(x_c, n_c, x_t, n_t, sided="one", direction="positive")
    two = newcombe_p_value(x_c, n_c, x_t, n_t, sided="two")
    keep = ~np.isnan(one) & (one > 0.05)  # not moved by consistent_p (nothing is significant)
    assert np.array_equal(p1[keep], one[keep]) and np.isnan(p1[np.isnan(one)]).all()
    excluded = (lo2 > 0) | (hi2 < 0)
    same = ~np.isnan(two) & (excluded == (two <= 0.05))
    assert same.sum() > 4_000 and np.array_equal(p2[same], two[same])


def test_newcombe_p_value_keeps_shape_and_non_integer_counts():
    # a 2-D block keeps its shape; fractional counts (not packable) take the row path
    x_c, n_c, x_t, n_t = (c.reshape(50, 40) for c in _random_counts(3, 2_000))
    p = newcombe_p_value(x_c, n_c, x_t, n_t)
    assert p.shape == (50, 40)
    assert p[7, 3] == newcombe_p_value(x_c[7, 3], n_c[7, 3], x_t[7, 3], n_t[7, 3])
    frac = newcombe_p_value([2.5, 2.5], [10, 10], [1, 1], [10, 10])
    assert frac[0] == frac[1] == float(newcombe_p_value(2.5, 10, 1, 10))


def test_distinct_counts_packs_and_inverts():
    from primafacie.situation.stats import distinct_counts

    (xs, ns), inv = distinct_counts(np.array([3, 1, 3, 1]), np.array([5, 5, 5, 6]))
    assert xs.tolist() == [1.0, 1.0, 3.0] and ns.tolist() == [5.0, 6.0, 5.0]
    assert inv.tolist() == [2, 0, 2, 1]
    # not whole numbers in [0, 2^15): no packing (the caller computes row by row)
    assert distinct_counts(np.array([1.5]), np.array([2])) is None
    assert distinct_counts(np.array([np.nan]), np.array([2])) is None
    assert distinct_counts(np.array([-1]), np.array([2])) is None
    assert distinct_counts(np.array([40_000]), np.array([2])) is None


@pytest.mark.parametrize("interval", ["newcombe", "wald"])
@pytest.mark.parametrize("legacy", [False, True])
def test_engine_columns_per_distinct_counts_equal_row_by_row(interval, legacy):
    # every column of a (method, k) block (intervals, flags, p-values) is computed once per
    # count tuple and broadcast: bit for bit the row-by-row columns
    x_c, n_c, x_t, n_t = _random_counts(11, 20_000, top=40)
    counts = {"x_c": x_c, "n_c": n_c, "x_t": x_t, "n_t": n_t}
    st = SituationTest(
        methods="st", k=15, interval=interval if not legacy else "wald", tau=0.05, legacy=legacy
    )._stage(Statistics)
    fast = st.test(counts, legacy)
    rows = st.test_rows(counts, legacy)
    assert fast.keys() == rows.keys()
    for name, col in rows.items():
        assert fast[name].dtype == col.dtype, name
        assert fast[name].tobytes() == col.tobytes(), name
