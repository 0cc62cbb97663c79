"""The Uniform Guidelines' adverse-impact reading of the group comparisons (29 CFR 1607.4(D)):
Fisher's exact test, the pooled two-proportion z test, the shortfall and the criteria column."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact

from primafacie.groups import GroupMetrics
from primafacie.groups.stats import fisher_exact_p, pooled_z, shortfall


def test_fisher_tea_tasting_by_hand():
    # 3 of 4 vs 1 of 4: tables x = 0..4 have probabilities 1, 16, 36, 16, 1 (/70); the observed
    # x = 3 (16/70) and those no more likely (0, 1, 3, 4) sum to 34/70
    assert fisher_exact_p(3, 4, 1, 4)[0] == pytest.approx(34 / 70, rel=1e-12)
    # a table at the mode: every table is as likely or less, p = 1
    assert fisher_exact_p(2, 4, 2, 4)[0] == pytest.approx(1.0)


def test_fisher_agrees_with_scipy():
    rng = np.random.default_rng(7)
    n1, n2 = rng.integers(1, 400, 500), rng.integers(1, 400, 500)
    k1, k2 = rng.integers(0, n1 + 1), rng.integers(0, n2 + 1)
    got = fisher_exact_p(k1, n1, k2, n2)
    want = [
        fisher_exact([[a, m - a], [b, n - b]]).pvalue
        for a, m, b, n in zip(k1, n1, k2, n2, strict=True)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-9)
    # large groups stay exact in log space (10^6 rows per group)
    big = fisher_exact_p(300_000, 1_000_000, 310_000, 1_000_000)[0]
    want = fisher_exact([[300_000, 700_000], [310_000, 690_000]]).pvalue
    assert big == pytest.approx(want, rel=1e-8)


def test_fisher_undefined_for_an_empty_group():
    assert np.isnan(fisher_exact_p(0, 0, 3, 10)[0])


def test_pooled_z_by_hand():
    # 20 of 100 vs 40 of 100: P = 0.3, se = sqrt(0.3 * 0.7 * 0.02) = 0.0648074, z = -0.2 / se
    assert pooled_z(20, 100, 40, 100)[0] == pytest.approx(-0.2 / math.sqrt(0.0042), rel=1e-12)
    assert np.isnan(pooled_z(0, 10, 0, 10)[0])  # no variance: everyone rejected
    assert np.isnan(pooled_z(1, 0, 3, 10)[0])


def test_shortfall_by_hand():
    # 30 women of whom 6 selected vs 50% of men: 30 * 0.5 - 6 = 9 more selections needed
    assert shortfall(6, 30, 25, 50)[0] == pytest.approx(9.0)
    assert shortfall(20, 30, 25, 50)[0] == 0.0  # already above the reference rate
    assert np.isnan(shortfall(1, 10, 3, 0)[0])


def _frame(kf: int, nf: int, km: int, nm: int) -> pd.DataFrame:
    sex = ["f"] * nf + ["m"] * nm
    d = [1] * kf + [0] * (nf - kf) + [1] * km + [0] * (nm - km)
    return pd.DataFrame({"sex": sex, "d": d})


@pytest.mark.parametrize(
    ("counts", "criteria"),
    [
        ((20, 100, 40, 100), "practical and statistical"),  # ratio 0.5, p ≈ 0.003
        ((3, 10, 5, 10), "practical only"),  # ratio 0.6, p = 0.65
        ((850, 1000, 900, 1000), "statistical only"),  # ratio 0.94, p ≈ 0.001
        ((45, 100, 50, 100), "neither"),
    ],
)
def test_criteria_column(counts, criteria):
    res = GroupMetrics(protected={"sex": "f"}, decision="d").run(_frame(*counts))
    row = res.summary().iloc[0]
    kf, nf, km, nm = counts
    assert row["adverse_impact"] == criteria
    assert row["fisher_p"] == pytest.approx(
        fisher_exact([[kf, nf - kf], [km, nm - km]]).pvalue, rel=1e-9
    )
    assert bool(row["statistical"]) == (row["fisher_p"] < 0.05)
    assert bool(row["two_sd"]) == (abs(row["z_pooled"]) > 2)
    assert row["shortfall"] == pytest.approx(max(nf * km / nm - kf, 0.0))


def test_criteria_undefined_when_the_reference_selects_nobody():
    # the reference group has no favourable decision: the ratio is undefined, so is the reading
    row = GroupMetrics(min_group=1, protected={"sex": "f"}, decision="d").run(_frame(3, 10, 0, 10))
    assert row.summary().iloc[0]["adverse_impact"] == "undefined"
