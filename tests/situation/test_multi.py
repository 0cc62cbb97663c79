"""Multiple and intersectional discrimination (src/primafacie/situation/multi.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from primafacie.causal import SCM
from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.situation import (
    IntersectionalSituationTest,
    MultipleSituationTest,
    SituationTest,
)


@pytest.fixture(scope="module")
def world():
    rng = np.random.default_rng(7)
    n = 400
    g = rng.integers(0, 2, n)
    r = (rng.random(n) < 0.3).astype(int)
    x1 = rng.normal(size=n) - 0.8 * g - 0.5 * r - 0.7 * g * r
    x2 = rng.normal(size=n) + 0.3 * x1 - 0.4 * r
    df = pd.DataFrame({"g": g, "r": r, "x1": x1, "x2": x2})
    rule = Rule("x1 + x2 > -0.5")
    df["y"] = rule.predict(df)
    data = AuditData(
        df, features={"x1": "numeric", "x2": "numeric"}, protected={"g": 1, "r": 1}, decision="y"
    )
    scm = SCM(edges=[("g", "x1"), ("r", "x1"), ("r", "x2"), ("x1", "x2")]).fit(data)
    return data, scm, rule


def test_multiple_is_the_conjunction_of_runs_at_bonferroni_level(world):
    data, scm, rule = world
    methods = ["st", "cst", "cst_centers", "cf"]
    res = MultipleSituationTest(methods=methods, k=[5, 10]).run(data, scm=scm, decider=rule)
    both = data.protected_mask(["g", "r"])
    assert res.n_protected == int(both.sum())
    t = res.to_frame()
    for attr in ("g", "r"):
        single = (
            SituationTest(methods=methods, k=[5, 10], alpha=0.025, attribute=attr)
            .run(data, scm=scm, decider=rule, complainant_mask=both)
            .to_frame()
        )
        assert np.array_equal(single.significant.to_numpy(), t[f"significant_{attr}"].to_numpy())
    expect = t.discriminated_g & t.discriminated_r
    assert (t.discriminated == expect).all()
    assert (t.significant == (t.significant_g & t.significant_r)).all()
    assert np.allclose(t.delta, (t.delta_g + t.delta_r) / 2)
    assert res.params["alpha_per_test"] == 0.025
    assert (res.summary().denominator == both.sum()).all()


def test_intersectional_uses_merged_node(world):
    data, scm, rule = world
    res = IntersectionalSituationTest(methods=["cst", "cf"], k=5).run(data, scm=scm, decider=rule)
    both = data.protected_mask(["g", "r"])
    assert res.n_protected == int(both.sum())
    assert res.params["dimension"] == "intersectional"
    # same as a single run on the A* column with the merged SCM refitted
    merged = IntersectionalSituationTest().merged_data(data)
    scm2 = scm.merge_nodes(["g", "r"], "g*r").fit(merged)
    cf = scm2.counterfactual(merged.frame, {"g*r": 0}, rows=both)
    ref = SituationTest(methods=["cst", "cf"], k=5).run(merged, counterfactuals=cf, decider=rule)
    pd.testing.assert_frame_equal(res.to_frame(), ref.to_frame())


def test_multi_needs_two_attributes(world):
    data, scm, rule = world
    with pytest.raises(InputError, match="at least two"):
        MultipleSituationTest(attributes=["g"], methods="st", k=5).run(data)
    with pytest.raises(InputError, match="'zz' is not a protected attribute"):
        IntersectionalSituationTest(attributes=["g", "zz"]).run(data, scm=scm)


def test_single_run_requires_attribute_when_several(world):
    data, scm, rule = world
    with pytest.raises(InputError, match="pass attribute"):
        SituationTest(methods="st", k=5).run(data)


def test_multiple_denominator_is_everyone_protected_on_every_attribute(world):
    # The share denominator (spec §2) is the protected population (e.g. the 1833 non-white
    # women), whatever complainant filter is applied, as in a single-attribute run.
    data, scm, rule = world
    both = data.protected_mask(["g", "r"])
    rejected = both & (data.decision_array() == 0)
    assert 0 < rejected.sum() < both.sum()
    res = MultipleSituationTest(methods="cst", k=5, complainants="rejected").run(
        data, scm=scm, decider=rule
    )
    assert res.n_complainants == int(rejected.sum())
    assert res.n_protected == int(both.sum())
    s = res.summary()
    assert (s.denominator == both.sum()).all() and (s.complainants == rejected.sum()).all()


def test_multiple_rows_carry_each_runs_groups_intervals_and_decisions(world):
    data, scm, rule = world
    methods = ["st", "cst_centers", "cf"]
    res = MultipleSituationTest(methods=methods, k=5).run(data, scm=scm, decider=rule)
    t = res.to_frame(neighbors=True)
    both = data.protected_mask(["g", "r"])
    for attr in ("g", "r"):
        single = (
            SituationTest(methods=methods, k=5, alpha=0.025, attribute=attr)
            .run(data, scm=scm, decider=rule, complainant_mask=both)
            .to_frame(neighbors=True)
        )
        for col in ("p_c", "p_t", "k_c", "k_t", "ci_low", "ci2_low", "ci2_high", "cf_decision"):
            assert single[col].tolist() == t[f"{col}_{attr}"].tolist(), col
        assert single.control_ids.tolist() == t[f"control_ids_{attr}"].tolist()
        assert single.test_ids.tolist() == t[f"test_ids_{attr}"].tolist()
        assert single.decision.tolist() == t.decision.tolist()
    assert (
        t.loc[t.method == "cf", "cf_flag"].tolist()
        == (t.cf_flag_g & t.cf_flag_r)[t.method == "cf"].tolist()
    )
    d = res.to_dict(neighbors=True)
    json.dumps(d, allow_nan=False)
    assert "control_ids_g" in d["complainants"][0]
    # ST runs carry no counterfactual decision; the CF flag column is still there (NA)
    st_only = MultipleSituationTest(methods="st", k=5).run(data, scm=scm, decider=rule)
    assert "cf_flag" in st_only.to_frame().columns


def test_settings_passed_on_are_checked_with_the_engines_constraints(world):
    data, scm, rule = world
    with pytest.raises(InputError) as err:
        MultipleSituationTest(methods="st", k=5, alpha=0).run(data)
    assert str(err.value) == (
        "MultipleSituationTest: alpha must be a number in (0, 1); got 0 "
        "(--alpha, analyses.situation.alpha)"
    )
    with pytest.raises(InputError, match=r"MultipleSituationTest: correction must be one of "
                       r"'bonferroni' or None; got 'holm'"):  # fmt: skip
        MultipleSituationTest(methods="st", k=5, correction="holm").run(data)
    with pytest.raises(InputError, match=r"unknown setting\(s\) \['kk'\]"):
        MultipleSituationTest(methods="st", kk=5).run(data)
    with pytest.raises(InputError, match="IntersectionalSituationTest: k must be an integer ≥ 1"):
        IntersectionalSituationTest(methods="st", k=0).run(data)
    with pytest.raises(InputError, match="IntersectionalSituationTest: name must be None or a"):
        IntersectionalSituationTest(methods="st", k=5, name=3).run(data)


def test_multiple_complainant_untested_on_one_attribute_is_untested(world):
    data, scm, rule = world
    res = MultipleSituationTest(methods="st", k=5, max_distance=0.02).run(data)
    t = res.to_frame()
    one_missing = t.delta_g.isna() ^ t.delta_r.isna()
    assert one_missing.any()  # ε = 0.02 empties some groups of one attribute only
    # Δp is undefined unless every attribute was tested (not the mean of the others)
    assert t.delta.isna().tolist() == (t.delta_g.isna() | t.delta_r.isna()).tolist()
    s = res.summary().iloc[0]
    untested = int((t.delta_g.isna() | t.delta_r.isna()).sum())
    assert (s.untested, s.tested) == (untested, len(t) - untested)
    assert s.denominator == res.n_protected - untested
    assert s.significant_share == s.n_significant / s.denominator
    head = res.headline()
    assert head.startswith(
        "ST, k=5 (α = 0.05, 0.025 per attribute (Bonferroni), τ = 0): "
        f"{s.n_significant} of {s.denominator} tested individuals protected on every attribute "
        "(g, r)"
    )
    assert f"; {untested} more could not be tested within max_distance 0.02" in head
    assert any(
        c.startswith("A complainant is a case when Δp > τ on every attribute")
        for c in res.caveats()
    )
    assert res.to_dict()["headline"] == head


def test_multiple_expected_by_chance_is_at_most_alpha_over_q(world):
    """A multiple case is significant only when each of the q runs is, each at α/q: under no
    discrimination at most α/q × tested are, not α × tested (the demo said 29 for at most 15)."""
    data, scm, rule = world
    res = MultipleSituationTest(methods=["st"], k=[5], alpha=0.05).run(data, decider=rule)
    row = res.summary().iloc[0]
    assert row["expected_by_chance"] == pytest.approx(0.025 * row["tested"])
    from primafacie.situation.results import expected_text

    bound = expected_text(0.025 * row["tested"])
    assert (
        f"Of {int(row['tested']):,} tests each significant only on every attribute at α/q = "
        f"0.025, at most {bound} would be significant by chance alone" in res.headline()
    )
    single = SituationTest(methods=["st"], k=[5], alpha=0.05, attribute="g").run(data, decider=rule)
    assert single.summary().iloc[0]["expected_by_chance"] == pytest.approx(
        0.05 * single.summary().iloc[0]["tested"]
    )


def test_multiple_table_and_caveat_name_the_verdict_as_the_single_tables_do(world):
    """ "significant" is the verdict after the correction in every top-complainant table (it
    was the unadjusted flag in the multiple one), and a case is Δp > τ on every attribute."""
    from primafacie.situation.analysis import _complaint_blocks

    data, _, rule = world
    res = MultipleSituationTest(methods=["st"], k=[5], multiplicity="bh").run(data, decider=rule)
    table = next(b for b in _complaint_blocks("multiple", res, data) if b and b["kind"] == "table")
    heads = table["columns"]
    assert "significant" in heads and "significant before adjustment" in heads
    assert "significant_adjusted" not in heads
    top = res.strongest(*res.main_test(), 20)
    shown = {row[heads.index("id")][0]: row for row in table["rows"]}  # by id
    at, before = heads.index("significant"), heads.index("significant before adjustment")
    for _, r in top.iterrows():
        cells = shown[str(r["id"])]
        assert cells[at][0] == ("yes" if r["significant_adjusted"] else "no")
        assert cells[before][0] == ("yes" if r["significant"] else "no")
    caveat = next(c for c in res.caveats() if "every attribute" in c)
    assert caveat.startswith("A complainant is a case when Δp > τ on every attribute")
    t = res.to_frame()
    assert (t.discriminated == (t.discriminated_g & t.discriminated_r)).all()
