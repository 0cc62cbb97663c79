"""Adjustments across complainants (src/primafacie/situation/multiplicity.py): a hand example,
scipy's false_discovery_control, and the engine's per-(method, k) families."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import false_discovery_control

from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.situation import SituationTest
from primafacie.situation.multiplicity import adjust_p, adjust_table

# m = 5, p sorted: 0.001 0.008 0.039 0.041 0.6
P = [0.041, 0.001, 0.6, 0.039, 0.008]


def test_hand_example():
    # Bonferroni: 5p
    assert adjust_p(P, "bonferroni").tolist() == pytest.approx([0.205, 0.005, 1.0, 0.195, 0.04])
    # Holm: sorted p·(5, 4, 3, 2, 1) = .005 .032 .117 .082 .6 -> running max .005 .032 .117 .117 .6
    assert adjust_p(P, "holm").tolist() == pytest.approx([0.117, 0.005, 0.6, 0.117, 0.032])
    # BH: sorted p·5/i = .005 .02 .065 .05125 .6 -> running min from the top
    #     .005 .02 .05125 .05125 .6
    assert adjust_p(P, "bh").tolist() == pytest.approx([0.05125, 0.005, 0.6, 0.05125, 0.02])
    # BY: BH × (1 + 1/2 + 1/3 + 1/4 + 1/5) = BH × 2.28333
    c = 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5
    expect = np.minimum(1, np.array([0.05125, 0.005, 0.6, 0.05125, 0.02]) * c)
    assert adjust_p(P, "by").tolist() == pytest.approx(expect.tolist())
    assert adjust_p(P, "none").tolist() == P
    # at α = 0.05: BH rejects 2 (the third-smallest 0.039 > 3/5·0.05 = 0.03 fails ... and
    # 0.041 > 4/5·0.05 = 0.04), Holm 2, Bonferroni 2
    assert [(adjust_p(P, m) <= 0.05).sum() for m in ("bonferroni", "holm", "bh")] == [2, 2, 2]


@pytest.mark.parametrize("method", ["bh", "by"])
def test_bh_and_by_equal_scipy(method):
    rng = np.random.default_rng(0)
    for m in (1, 2, 10, 500):
        p = np.concatenate([rng.random(m) ** 3, [0.05, 0.05]])  # with ties
        assert np.allclose(adjust_p(p, method), false_discovery_control(p, method=method))


def test_holm_matches_its_definition_on_random_p_values():
    rng = np.random.default_rng(1)
    p = rng.random(200) ** 4
    order = np.argsort(p)
    m = len(p)
    running, expect = 0.0, np.empty(m)
    for i, j in enumerate(order):  # the textbook step-down, one test at a time
        running = max(running, min(1.0, (m - i) * p[j]))
        expect[j] = running
    assert np.allclose(adjust_p(p, "holm"), expect)


def test_nan_entries_are_not_tests():
    p = [0.01, np.nan, 0.02]
    out = adjust_p(p, "bonferroni")
    assert np.isnan(out[1]) and out[[0, 2]].tolist() == pytest.approx([0.02, 0.04])  # m = 2
    assert np.isnan(adjust_p([np.nan], "bh")).all()


def test_unknown_method_names_the_choices():
    with pytest.raises(InputError, match="method must be one of"):
        adjust_p([0.1], "fdr")


def test_adjust_table_uses_each_method_and_k_as_a_family():
    t = pd.DataFrame(
        {"method": ["st", "st", "cst", "cst"], "k": 15, "p_value": [0.01, 0.04, 0.03, np.nan]}
    )
    out = adjust_table(t, "bonferroni", 0.05)
    assert out.p_adjusted.tolist()[:3] == pytest.approx([0.02, 0.08, 0.03])
    assert out.significant_adjusted.tolist() == [True, False, True, False]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    n = 400
    a = (rng.random(n) < 0.4).astype(int)
    x = rng.normal(size=n)
    y = (rng.random(n) < 0.65 - 0.12 * a).astype(int)
    df = pd.DataFrame({"x": x, "a": a, "y": y})
    return AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")


def test_engine_adjusts_per_family_and_keeps_the_unadjusted_columns(data):
    base = SituationTest(methods="st", k=[10, 30], multiplicity="none").run(data).to_frame()
    assert (base.significant_adjusted == base.significant).all()
    for method in ("bonferroni", "holm", "bh", "by"):
        res = SituationTest(methods="st", k=[10, 30], multiplicity=method).run(data)
        t = res.to_frame()
        assert t.significant.equals(base.significant) and t.p_value.equals(base.p_value)
        for k in (10, 30):
            g = t[t.k == k]
            assert np.allclose(g.p_adjusted, adjust_p(g.p_value.to_numpy(), method), equal_nan=True)
        s = res.summary()
        assert (s.n_significant_adjusted <= s.n_significant).all()
        assert (s.multiplicity == method).all()
        assert s.expected_by_chance.tolist() == pytest.approx((0.05 * s.tested).tolist())
    default = SituationTest(methods="st", k=30).run(data).summary().iloc[0]  # BH, Newcombe
    assert default.multiplicity == "bh"
    assert default.n_significant_adjusted <= default.n_significant
    # with Wald p-values this world's 12-point gap leaves some but not all after BH
    bh = SituationTest(methods="st", k=30, interval="wald").run(data).summary().iloc[0]
    assert bh.multiplicity == "bh" and 0 < bh.n_significant_adjusted < bh.n_significant


def test_headline_names_tests_chance_and_both_counts(data):
    res = SituationTest(methods="st", k=30, multiplicity="by").run(data)
    s = res.summary().iloc[0]
    head = res.headline()
    # one verdict per test: the adjusted count is "significant", the unadjusted one follows
    adj = s.n_significant_adjusted
    assert (
        f": {adj} of {s.denominator} tested individuals protected on 'a' "
        f"({100 * adj / s.denominator:.1f}%) are significant cases of potential discrimination "
        "after the Benjamini–Yekutieli adjustment (false discovery rate 0.05; "
        f"{s.n_significant} before the Benjamini–Yekutieli adjustment)."
    ) in head
    expected = 0.05 * s.tested
    about = f"{expected:.0f}" if expected >= 10 else f"{expected:.1f}"
    assert head.endswith(
        f"Of {s.tested} tests at α = 0.05, about {about} would be significant by "
        "chance alone if no one were discriminated against."
    )
    none = SituationTest(methods="st", k=30, multiplicity="none").run(data).headline()
    assert none.endswith(f"; {s.n_significant} are, with no adjustment across complainants.")
