"""The situation-testing engine (src/primafacie/situation/engine.py): hand-computed cases and errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from primafacie.causal import SCM
from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.situation import SituationTest


@pytest.fixture()
def tiny():
    df = pd.DataFrame(
        {
            "x": [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 2.5, 3.5],
            "a": [1, 1, 1, 1, 0, 0, 0, 0],
            "y": [0, 0, 1, 1, 1, 1, 1, 0],
        }
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    cf = df.copy()
    cf.loc[df.a == 1, "x"] += 3.0  # the counterfactual twin of row 0 sits at x = 3
    return data, cf


def _row(res, method, k, row):
    t = res.to_frame(neighbors=True)
    return t[(t.method == method) & (t.k == k) & (t.row == row)].iloc[0]


def test_st_by_hand(tiny):
    data, _ = tiny
    r = _row(SituationTest(methods="st", k=2, interval="wald").run(data), "st", 2, 0)
    # control: rows 1 (y=0) and 2 (y=1) -> 1/2; test: rows 4, 5 (both accepted) -> 0
    assert r.control_ids == [1, 2] and r.test_ids == [4, 5]
    assert (r.p_c, r.p_t, r.delta) == (0.5, 0.0, 0.5)
    w = 1.6448536269514722 * math.sqrt(0.25 / 2)
    assert r.ci_low == pytest.approx(0.5 - w)
    assert bool(r.discriminated) and not bool(r.significant)


def test_cst_without_and_with_centres_by_hand(tiny):
    data, cf = tiny
    res = SituationTest(methods=["cst", "cst_centers", "cf"], k=2).run(
        data, counterfactuals=cf, decider=Rule("x < 2.9")
    )
    wo = _row(res, "cst", 2, 0)
    # test centre x=3: rows 6 (x=2.5, y=1) and 7 (x=3.5, y=0) at equal distance -> 1/2
    assert wo.test_ids == [6, 7] and (wo.p_c, wo.p_t) == (0.5, 0.5)
    assert not bool(wo.discriminated)
    w = _row(res, "cst_centers", 2, 0)
    # + centres: ŷ_c = 0 (neg) and b(3) = 0 (neg): (1+1)/3 vs (1+1)/3
    assert (w.k_c, w.k_t, w.neg_c, w.neg_t) == (3, 3, 2, 2)
    assert w.delta == 0.0
    cfr = _row(res, "cf", 2, 0)
    assert cfr.cf_decision == 0 and not bool(cfr.cf_flag) and not bool(cfr.discriminated)


def test_legacy_control_group_keeps_k_plus_1_when_duplicates_push_c_out():
    # three identical protected rows: with ties to the larger index, c = row 0 is not in the
    # top k+1 = 2 of {0, 1, 2}, so the legacy control group keeps 2 members (spec §8.2).
    df = pd.DataFrame(
        {"x": [1.0, 1.0, 1.0, 5.0, 1.0, 2.0], "a": [1, 1, 1, 1, 0, 0], "y": [0, 0, 1, 1, 1, 1]}
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    legacy = SituationTest(methods="st", k=1, legacy=True, interval="wald").run(data).to_frame()
    fixed = SituationTest(methods="st", k=1).run(data).to_frame()
    assert legacy.loc[legacy.row == 0, "k_c"].item() == 2
    assert fixed.loc[fixed.row == 0, "k_c"].item() == 1


def test_positive_direction_and_tau(tiny):
    data, _ = tiny
    pos = SituationTest(methods="st", k=2, direction="positive").run(data).to_frame()
    assert (pos.discriminated == (pos.delta < 0)).all()
    hi = SituationTest(methods="st", k=2, tau=0.5).run(data).to_frame()
    assert not (hi.discriminated & (hi.delta <= 0.5)).any()


def test_max_distance_gives_actual_sizes_and_nan_for_empty(tiny):
    data, _ = tiny
    res = SituationTest(methods="st", k=3, max_distance=0.2).run(data).to_frame()
    # range 3.5: distance 1/3.5 = 0.286 > 0.2 between neighbours one unit apart: empty control
    assert (res.k_c == 0).all() and res.p_c.isna().all() and not res.discriminated.any()
    # an untested complainant has no interval at all (not a half-open [nan, inf))
    for col in ("ci_low", "ci_high", "ci2_low", "ci2_high"):
        assert res[col].isna().all(), col
    # test rows half a unit away (0.5/3.5 = 0.143 <= 0.2): one for x=0, two for the others
    assert res.k_t.tolist() == [1, 2, 2, 2]


def test_newcombe_interval_option(tiny):
    data, _ = tiny
    res = SituationTest(methods="st", k=2, interval="newcombe").run(data).to_frame()
    assert (res.ci_low <= res.delta + 1e-12).all() and (res.ci2_high >= res.delta - 1e-12).all()


def test_scm_route_equals_precomputed_table(tiny):
    data, _ = tiny
    df = data.frame.assign(z=data.frame.x * 2 + data.frame.a)
    d2 = AuditData(df, features={"x": "numeric", "z": "numeric"}, protected={"a": 1}, decision="y")
    scm = SCM(edges=[("a", "x"), ("a", "z"), ("x", "z")]).fit(d2)
    cf = scm.counterfactual(df, intervention={"a": 0}, rows=d2.protected_mask())
    r1 = SituationTest(methods="cst", k=2).run(d2, scm=scm).to_frame()
    r2 = SituationTest(methods="cst", k=2).run(d2, counterfactuals=cf).to_frame()
    pd.testing.assert_frame_equal(r1, r2)


# ---------------------------------------------------------------------- bad input
def test_cst_without_counterfactuals_is_an_input_error(tiny):
    data, _ = tiny
    with pytest.raises(InputError, match="need counterfactuals"):
        SituationTest(methods="cst", k=2).run(data)


def test_centres_need_b(tiny):
    data, cf = tiny
    with pytest.raises(InputError, match="needs the counterfactual decision"):
        SituationTest(methods="cst_centers", k=2).run(data, counterfactuals=cf.drop(columns="y"))
    # CST w/o needs no decision model
    SituationTest(methods="cst", k=2).run(data, counterfactuals=cf.drop(columns="y"))


def test_k_larger_than_search_space(tiny):
    data, _ = tiny
    with pytest.raises(InputError, match="k=4 is larger than the control search space"):
        SituationTest(methods="st", k=4).run(data)
    res = SituationTest(methods="st", k=4, strict_k=False).run(data).to_frame()
    assert (res.k_c == 3).all() and (res.k_t == 4).all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"methods": "foo"}, r"SituationTest: methods must be one of 'st', .*; got 'foo'"),
        ({"k": 0}, "SituationTest: k must be an integer ≥ 1 or a non-empty list of them; got 0"),
        ({"alpha": 2}, "alpha"),
        ({"direction": "up"}, "direction"),
        ({"interval": "exact"}, "interval"),
        ({"ties": "random"}, "ties"),
    ],
)
def test_bad_settings(tiny, kwargs, match):
    data, _ = tiny
    with pytest.raises(InputError, match=match):
        SituationTest(**{"methods": "st", "k": 2, **kwargs}).run(data)


def test_bad_data_messages(tiny):
    data, _ = tiny
    df = data.frame
    with pytest.raises(InputError, match="'nope'"):
        AuditData(df, features={"nope": "numeric"}, protected={"a": 1}, decision="y")
    with pytest.raises(InputError, match="'x' has 1 missing"):
        AuditData(
            df.assign(x=[np.nan] + df.x.tolist()[1:]),
            features={"x": "numeric"},
            protected={"a": 1},
            decision="y",
        )
    with pytest.raises(InputError, match="must be binary"):
        AuditData(
            df.assign(y=range(8)), features={"x": "numeric"}, protected={"a": 1}, decision="y"
        )
    with pytest.raises(InputError, match="never occur"):
        AuditData(df, features={"x": "numeric"}, protected={"a": 7}, decision="y")


def test_attribute_must_be_named_when_several_are_protected(tiny):
    data, _ = tiny
    two = AuditData(
        data.frame.assign(b=[0, 1] * 4),
        features={"x": "numeric"},
        protected={"a": 1, "b": 1},
        decision="y",
    )
    with pytest.raises(InputError, match=r"several protected attributes \['a', 'b'\]: pass attr"):
        SituationTest(methods="st", k=2).run(two)
    with pytest.raises(InputError, match="'x' is not a protected attribute"):
        SituationTest(methods="st", k=2, attribute="x").run(two)
    assert SituationTest(methods="st", k=2, attribute="b").run(two).n_protected == 4


def test_bad_scm_messages(tiny):
    data, _ = tiny
    with pytest.raises(InputError, match="cycle|cyclic"):
        SCM(edges=[("x", "y2"), ("y2", "x")]).fit(data)  # checked at fit, as in scikit-learn
    bad = SCM(edges=[("x", "a")])
    with pytest.raises(InputError, match="points into the protected attribute 'a'"):
        SituationTest(methods="cst", k=2).run(data, scm=bad)
    unknown = SCM(edges=[("a", "ghost")])
    with pytest.raises(InputError, match="ghost"):
        SituationTest(methods="cst", k=2).run(data, scm=unknown)


def test_counterfactual_table_shape_is_checked(tiny):
    data, cf = tiny
    with pytest.raises(InputError, match="has 7 rows"):
        SituationTest(methods="cst", k=2).run(data, counterfactuals=cf.iloc[:7])
    with pytest.raises(InputError, match=r"lacks feature column\(s\) \['x'\]"):
        SituationTest(methods="cst", k=2).run(data, counterfactuals=cf.drop(columns="x"))


def test_scm_route_labels_centres_with_b_not_the_copied_decision(tiny):
    data, _ = tiny
    df = data.frame.assign(z=data.frame.x * 2 + data.frame.a)
    d2 = AuditData(df, features={"x": "numeric", "z": "numeric"}, protected={"a": 1}, decision="y")
    scm = SCM(edges=[("a", "x"), ("a", "z"), ("x", "z")]).fit(d2)
    rule = Rule("z > 3")
    cf = scm.counterfactual(df, intervention={"a": 0}, rows=d2.protected_mask())
    expect = rule.predict(cf)[d2.protected_mask()].tolist()
    for legacy in (False, True):
        t = (
            SituationTest(methods="cf", k=2, legacy=legacy, interval="wald")
            .run(d2, scm=scm, decider=rule)
            .to_frame()
        )
        assert t.cf_decision.tolist() == expect


@pytest.mark.parametrize(
    "kwargs", [{"alpha": "x"}, {"alpha": None}, {"tau": "high"}, {"max_distance": "far"}]
)
def test_non_numeric_alpha_tau_are_input_errors(tiny, kwargs):
    data, _ = tiny
    with pytest.raises(InputError, match=f"{next(iter(kwargs))} must be a number"):
        SituationTest(**{"methods": "st", "k": 2, **kwargs}).run(data)


Z95 = 1.6448536269514722  # Φ⁻¹(0.95)


def test_corrected_self_exclusion_by_identity_and_centres_added_once():
    # rows 0-3 are identical protected rows; c = row 3 must be dropped by identity (ties go to
    # the earlier row, so rows 0 and 1 remain), and CST w/ adds c exactly once.
    df = pd.DataFrame(
        {
            "x": [1.0, 1, 1, 1, 5, 1, 2, 3],
            "a": [1, 1, 1, 1, 1, 0, 0, 0],
            "y": [0, 1, 1, 0, 1, 1, 0, 1],
        }
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    cf = df.assign(x=np.where(df.a == 1, df.x + 1, df.x))
    res = SituationTest(methods=["st", "cst_centers"], k=[1, 2]).run(
        data, counterfactuals=cf, decider=Rule("x > 2.5")
    )
    assert _row(res, "st", 2, 3).control_ids == [0, 1]
    assert _row(res, "st", 2, 0).control_ids == [1, 2]
    w = _row(res, "cst_centers", 1, 3)
    # control: row 0 (rejected) + c (rejected) = 2/2; test: row 6 (x=2, rejected) + b(2) = 0
    assert (w.k_c, w.neg_c, w.k_t, w.neg_t) == (2, 2, 2, 2)
    assert w.control_ids == [0] and w.test_ids == [6]


def test_ranges_are_learned_on_the_factual_data(tiny):
    # factual range of x is 3.5; the counterfactual centre of row 0 (x=3) is 0.5 away from rows
    # 6 and 7, i.e. 0.5/3.5 = 0.143 > ε = 0.1. Re-fitting on the counterfactual table (range
    # 5.5) would give 0.091 <= ε and keep both.
    data, cf = tiny
    t = SituationTest(methods="cst", k=2, max_distance=0.1).run(data, counterfactuals=cf)
    assert _row(t, "cst", 2, 0).k_t == 0
    t = SituationTest(methods="cst", k=2, max_distance=0.15).run(data, counterfactuals=cf)
    assert _row(t, "cst", 2, 0).k_t == 2


def test_tie_rule_parameter(tiny):
    data, cf = tiny
    # test centre x=3 is equidistant from row 6 (x=2.5) and row 7 (x=3.5)
    first = SituationTest(methods="cst", k=1).run(data, counterfactuals=cf)
    last = SituationTest(methods="cst", k=1, ties="last").run(data, counterfactuals=cf)
    assert _row(first, "cst", 1, 0).test_ids == [6] and _row(first, "cst", 1, 0).p_t == 0.0
    assert _row(last, "cst", 1, 0).test_ids == [7] and _row(last, "cst", 1, 0).p_t == 1.0


def test_fewer_than_k_uses_actual_group_sizes_in_p_and_w(tiny):
    data, _ = tiny
    r = _row(
        SituationTest(methods="st", k=4, strict_k=False, interval="wald").run(data), "st", 4, 0
    )
    # control: the 3 other protected rows (1 rejected); test: all 4 non-protected (1 rejected)
    assert (r.k_c, r.neg_c, r.k_t, r.neg_t) == (3, 1, 4, 1)
    assert (r.p_c, r.p_t) == (1 / 3, 1 / 4)
    w = Z95 * math.sqrt((1 / 3) * (2 / 3) / 3 + (1 / 4) * (3 / 4) / 4)
    assert r.ci_low == pytest.approx(1 / 12 - w)
    w2 = 1.959963984540054 * math.sqrt((1 / 3) * (2 / 3) / 3 + (1 / 4) * (3 / 4) / 4)
    assert (r.ci2_low, r.ci2_high) == pytest.approx((1 / 12 - w2, 1 / 12 + w2))


@pytest.fixture()
def favoured():
    # protected rows x=0..4 all accepted; the 4 non-protected rows (the whole test space at
    # k=4) have 2 rejections. b(x) = 1{x > 1.5} labels the (identity) counterfactual centres.
    df = pd.DataFrame(
        {
            "x": [0.0, 1, 2, 3, 4, 10, 11, 12, 13],
            "a": [1, 1, 1, 1, 1, 0, 0, 0, 0],
            "y": [1, 1, 1, 1, 1, 0, 0, 1, 1],
        }
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    return data, df.copy()


def test_positive_discrimination_d15_by_hand(favoured):
    data, cf = favoured
    wald = dict(methods="st", k=4, interval="wald")
    pos = SituationTest(**wald, direction="positive").run(data).to_frame()
    # Δp = 0 - 2/4 = -0.5; w = z * sqrt(0.25/4) = 0.4112; upper = -0.0888 < 0: significant
    w = Z95 * math.sqrt(0.25 / 4)
    assert pos.delta.eq(-0.5).all() and np.allclose(pos.ci_high, -0.5 + w)
    assert np.isneginf(pos.ci_low).all()
    assert pos.discriminated.all() and pos.significant.all()
    neg = SituationTest(**wald).run(data).to_frame()
    assert not neg.discriminated.any()
    # τ = -0.1: still flagged (Δp < τ) but the interval (-inf, -0.0888] contains τ
    tau = SituationTest(**wald, direction="positive", tau=-0.1).run(data).to_frame()
    assert tau.discriminated.all() and not tau.significant.any()


def test_positive_cf_flag_and_significance_by_hand(favoured):
    data, cf = favoured
    res = SituationTest(
        methods=["cst_centers", "cf"], k=4, direction="positive", interval="wald"
    ).run(data, counterfactuals=cf, decider=Rule("x > 1.5"))
    t = res.to_frame().set_index(["method", "row"])
    for row in range(5):
        ycf = int(row >= 2)
        w = t.loc[("cst_centers", row)]
        # control 0/5 rejected; test 2 + (1 - ŷ^CF) of 5
        assert (w.k_c, w.neg_c, w.k_t, w.neg_t) == (5, 0, 5, 3 - ycf)
        p_t = (3 - ycf) / 5
        assert w.ci_high == pytest.approx(-p_t + Z95 * math.sqrt(p_t * (1 - p_t) / 5))
        assert bool(w.significant)  # -0.6 + 0.3604 and -0.4 + 0.3604 are both < 0
        c = t.loc[("cf", row)]
        # positive CF: ŷ_c = 1 and ŷ_c^CF = 0 (rows 0 and 1 only)
        assert bool(c.cf_flag) == (ycf == 0) and bool(c.discriminated) == (ycf == 0)
        assert bool(c.significant) == (ycf == 0)
        assert (c.decision, c.cf_decision) == (1, ycf)


def test_newcombe_engine_columns_equal_the_formula(tiny):
    from primafacie.situation.stats import newcombe_interval

    data, _ = tiny
    res = SituationTest(methods="st", k=2, interval="newcombe").run(data)
    r = _row(res, "st", 2, 0)  # 1 of 2 rejected in control, 0 of 2 in test
    lo1, _ = newcombe_interval(1, 2, 0, 2, 0.05, "one")
    lo2, hi2 = newcombe_interval(1, 2, 0, 2, 0.05, "two")
    assert (r.ci_low, r.ci2_low, r.ci2_high) == pytest.approx((float(lo1), float(lo2), float(hi2)))
    assert math.isinf(r.ci_high) and not bool(r.significant)


def test_infinite_counterfactual_is_an_input_error(tiny):
    data, cf = tiny
    cf.loc[0, "x"] = np.inf
    with pytest.raises(InputError, match="'x' has 1 infinite"):
        SituationTest(methods="cst", k=2).run(data, counterfactuals=cf)


# ---------------------------------------------------------------- declared parameter constraints
@pytest.mark.parametrize("name", sorted(SituationTest._parameter_constraints))
def test_every_declared_constraint_rejects_an_invalid_value_in_one_format(tiny, name):
    from primafacie.validation import describe, invalid_value

    data, _ = tiny
    constraints = SituationTest._parameter_constraints[name]
    bad = invalid_value(constraints)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # method=: the deprecated name
        engine = SituationTest(**{"methods": "st", "k": 2, name: bad})
    with pytest.raises(InputError) as err:
        engine.run(data)
    assert str(err.value).startswith(
        f"SituationTest: {name} must be {describe(constraints)}; got {bad!r}"
    )


def test_constraint_message_names_the_flag_and_the_config_key(tiny):
    data, _ = tiny
    with pytest.raises(InputError) as err:
        SituationTest(methods="st", k=2, alpha=1.5).run(data)
    assert str(err.value) == (
        "SituationTest: alpha must be a number in (0, 1); got 1.5 "
        "(--alpha, analyses.situation.alpha)"
    )
    # several invalid parameters: one line each, in declaration order
    with pytest.raises(InputError) as err:
        SituationTest(methods="st", k=[2, -1], tau=2).run(data)
    lines = str(err.value).splitlines()
    assert [line.split(" must ")[0] for line in lines] == ["SituationTest: k", "SituationTest: tau"]


def test_valid_edge_values_are_accepted(tiny):
    data, _ = tiny
    # numpy scalars, case-insensitive methods and aliases, tau at the closed ends
    res = SituationTest(methods=["ST", "st"], k=np.int64(2), alpha=np.float64(0.1), tau=-1).run(
        data
    )
    assert res.params["methods"] == ["st"] and res.params["k"] == [2]
    with pytest.raises(InputError, match="legacy=True reproduces the authors' Wald interval"):
        SituationTest(methods="st", k=2, legacy=True, interval="newcombe").run(data)
    # the default interval is Newcombe, so legacy must name Wald; the message says how
    with pytest.raises(InputError, match=r"got interval='newcombe'; the default is 'newcombe'"):
        SituationTest(methods="st", k=2, legacy=True).run(data)


def test_default_interval_is_newcombe_by_hand():
    # complainant row 0: control rows 1, 2 both rejected (2/2), test rows 3, 4 both
    # accepted (0/2), so Δp = 1 and Wald's interval is the point {1} (p = 0)
    df = pd.DataFrame(
        {"x": [0.0, 0.1, 0.2, 0.05, 0.15, 5.0], "a": [1, 1, 1, 0, 0, 0], "y": [0, 0, 0, 1, 1, 1]}
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    res = SituationTest(methods="st", k=2).run(data)
    assert res.params["interval"] == "newcombe"
    r = _row(res, "st", 2, 0)
    assert r.control_ids == [1, 2] and r.test_ids == [3, 4] and r.delta == 1.0
    # Wilson at 2/2: lower 1/(1 + z²/2); at 0/2: upper (z²/2)/(1 + z²/2). Newcombe's lower
    # bound is 1 − sqrt((1 − l_c)² + u_t²) = 1 − √2·(z²/2)/(1 + z²/2):
    # z = 1.644854 (one-sided 95%): 1 − √2 · 1.352772/2.352772 = 0.186870
    assert r.ci_low == pytest.approx(0.18687048930737604, abs=1e-12)
    assert math.isinf(r.ci_high) and bool(r.significant)
    # z = 1.959964 (two-sided): 1 − √2 · 1.920729/2.920729 = 0.069985; upper 1 + 0 = 1
    assert (r.ci2_low, r.ci2_high) == pytest.approx((0.06998519885519949, 1.0), abs=1e-12)
    # p: the bound reaches 0 where (z²/2)/(1 + z²/2) = 1/√2, i.e. z* = sqrt(2 + 2√2) =
    # 2.197368; one-sided p = 1 − Φ(z*) = 0.013997, two-sided 0.027994 (Wald: p = 0)
    assert r.p_value == pytest.approx(0.01399707928124501, abs=1e-9)
    assert r.p_value_two == pytest.approx(0.02799415856249002, abs=1e-9)
    wald = _row(SituationTest(methods="st", k=2, interval="wald").run(data), "st", 2, 0)
    assert wald.p_value == 0.0 and wald.ci_low == 1.0


# ---------------------------------------------------------------- stages
def test_one_search_per_centre_set_at_the_largest_k(tiny, monkeypatch):
    import primafacie.situation.search as search

    calls = []
    real = search.knn

    def spy(centres, candidates, k, **opts):
        calls.append((len(centres), len(candidates), k))
        return real(centres, candidates, k, **opts)

    monkeypatch.setattr(search, "knn", spy)
    data, cf = tiny
    SituationTest(methods=["st", "cst", "cst_centers", "cf"], k=[1, 3, 2]).run(
        data, counterfactuals=cf
    )
    # control (k+1, complainant removed after), factual test (k), counterfactual test (k+1):
    # 4 complainants searched among 4 protected and 4 non-protected rows, whatever the grid
    assert calls == [(4, 4, 4), (4, 4, 3), (4, 4, 4)]
    calls.clear()
    SituationTest(methods="st", k=[1, 2]).run(data)
    assert calls == [(4, 4, 3), (4, 4, 2)]


def test_kept_neighbour_distances_by_hand():
    # one numeric feature with range 10: the Gower distance is |Δx| / 10
    df = pd.DataFrame({"x": [0.0, 1, 3, 10, 0.5, 2.0, 6.0, 9.0],
                       "a": [1] * 4 + [0] * 4, "y": [0, 0, 1, 0, 1, 1, 0, 1]})  # fmt: skip
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    res = SituationTest(methods="st", k=2).run(data)
    ctrl, test = res.neighbors[("st", 2)]
    ctrl_d, test_d = res.neighbor_distances[("st", 2)]
    # complainant x = 0: control 1 (0.1), 3 (0.3); test 0.5 (0.05), 2.0 (0.2)
    assert ctrl[0].tolist() == [1, 2] and test[0].tolist() == [4, 5]
    np.testing.assert_allclose(ctrl_d[0], [0.1, 0.3], atol=1e-7)
    np.testing.assert_allclose(test_d[0], [0.05, 0.2], atol=1e-7)
    # a pad (max_distance left the group short) has no distance
    short = SituationTest(methods="st", k=2, max_distance=0.15).run(data)
    c, _ = short.neighbors[("st", 2)]
    cd, _ = short.neighbor_distances[("st", 2)]
    assert c[0].tolist() == [1, -1] and cd[0][0] == pytest.approx(0.1) and np.isnan(cd[0][1])
    assert SituationTest(methods="st", k=2, keep_neighbors=False).run(data).neighbor_distances == {}


# ---------------------------------------------------------------- tables as input
_ROLES = {"protected": {"a": 1}, "decision": "y", "features": {"x": "numeric"}}


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_a_table_with_the_roles_runs_as_its_audit_data(tiny, kind):
    data, cf = tiny
    frame = data.frame
    if kind == "polars":
        frame = pytest.importorskip("polars").from_pandas(frame)
    elif kind == "pyarrow":
        frame = pytest.importorskip("pyarrow").Table.from_pandas(frame, preserve_index=False)
    settings = dict(methods=["st", "cst", "cf"], k=2)
    ref = SituationTest(**settings).run(data, counterfactuals=cf, decider=Rule("x < 2.9"))
    engine = SituationTest(**settings, **_ROLES)
    got = engine.run(frame, counterfactuals=cf, decider=Rule("x < 2.9"))
    pd.testing.assert_frame_equal(got.to_frame(neighbors=True), ref.to_frame(neighbors=True))
    engine.check(frame)  # the audit's pre-flight accepts the same input
    res = engine.run(frame, counterfactuals=cf, decider=Rule("x < 2.9"), keep_state=True)
    state = engine.state_
    assert isinstance(state.data, AuditData) and res.table.equals(got.table)


def test_a_table_without_the_roles_is_an_input_error_naming_them(tiny):
    data, _ = tiny
    with pytest.raises(InputError, match=r"give the roles protected=\.\.\., features=\.\.\."):
        SituationTest(methods="st", k=2, decision="y").run(data.frame)
    with pytest.raises(InputError, match="protected=.*decision=.*features="):
        SituationTest(methods="st", k=2).check(data.frame)
    with pytest.raises(InputError, match=r"pass attribute=NAME"):
        SituationTest(methods="st", k=2, protected="a", decision="y", features=["x"]).run(
            data.frame
        )
    with pytest.raises(InputError, match="got list"):
        SituationTest(methods="st", k=2, **_ROLES).run([1, 2])


def test_roles_given_with_an_audit_data_replace_its_own(tiny):
    data, _ = tiny
    # favourable 0: the rejected are now the favoured, so p_c and p_t change places with 1 - p
    flipped = SituationTest(methods="st", k=2, favorable=0).run(data).to_frame()
    plain = SituationTest(methods="st", k=2).run(data).to_frame()
    assert np.allclose(flipped.p_c, 1 - plain.p_c) and np.allclose(flipped.p_t, 1 - plain.p_t)
    # protecting the other group makes its rows the complainants
    other = SituationTest(methods="st", k=2, protected={"a": 0}).run(data).to_frame()
    assert other.row.tolist() == [4, 5, 6, 7]


def test_the_freed_memory_is_handed_back_before_the_statistics(tiny, monkeypatch):
    """The searches' freed buffers go back to the system before the table is built (a
    trim between the two stages; no value changes)."""
    from primafacie import release
    from primafacie.situation.search import GroupSearch
    from primafacie.situation.statistics import Statistics

    data, cf = tiny
    want = SituationTest(methods=["st", "cst"], k=2).run(data, counterfactuals=cf).table
    order = []
    monkeypatch.setattr(release, "release_memory", lambda: order.append("release") or {})
    run = Statistics.run

    def statistics(self, *args, **kwargs):
        order.append("statistics")
        return run(self, *args, **kwargs)

    monkeypatch.setattr(Statistics, "run", statistics)
    knn = GroupSearch._knn

    def searched(*args, **kwargs):
        out = knn(*args, **kwargs)
        order.append("search")
        return out

    monkeypatch.setattr(GroupSearch, "_knn", staticmethod(searched))
    got = SituationTest(methods=["st", "cst"], k=2).run(data, counterfactuals=cf).table
    # each of the run's three searches hands back its own transients as it returns (issue
    # 22), then the engine what the searches left, before the table is built
    assert order == ["release", "search"] * 3 + ["release", "statistics"]
    pd.testing.assert_frame_equal(got, want)
