"""GroupMetrics by hand on a 12-row table: every rate, difference, ratio and interval."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.errors import InputError
from primafacie.groups import GroupMetrics, group_codes
from primafacie.validation import invalid_value

Z = 1.959963984540054  # two-sided 95%

#  row: 0  1  2  3  4  5  6  7  8  9 10 11
SEX = list("ffffffmmmmmm")
RACE = list("abcabcabcabc")
D = [1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0]
Y = [1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1]


def table() -> pd.DataFrame:
    return pd.DataFrame({"sex": SEX, "race": RACE, "d": D, "y": Y})


def data(**kw) -> AuditData:
    return AuditData(table(), features={}, protected={"sex": "f", "race": "b"}, decision="d",
                     outcome="y", **kw)  # fmt: skip


# ---------------------------------------------------------------- formulas written out by hand
def wilson(k: int, n: int, z: float = Z) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(k1: int, n1: int, k2: int, n2: int, z: float = Z) -> tuple[float, float]:
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt(
        (u1 - p1) ** 2 + (p2 - l2) ** 2
    )


def katz(k1: int, n1: int, k2: int, n2: int, z: float = Z) -> tuple[float, float, float]:
    r = (k1 / n1) / (k2 / n2)
    se = math.sqrt(1 / k1 - 1 / n1 + 1 / k2 - 1 / n2)
    return r, r * math.exp(-z * se), r * math.exp(z * se)


@pytest.fixture(scope="module")
def res():
    return GroupMetrics(min_group=5).run(data())


def row(res, attribute: str, group: str, metric: str) -> pd.Series:
    t = res.to_frame()
    hit = t[(t["attribute"] == attribute) & (t["group"] == group) & (t["metric"] == metric)]
    assert len(hit) == 1, (attribute, group, metric)
    return hit.iloc[0]


# sex: f = rows 0-5, m = rows 6-11. Counted by hand from the columns above:
#   f: 2 favourable of 6; y=1 in rows 0,1,4,5 (4), TP row 0, FP row 3, FN rows 1,4,5, TN row 2
#   m: 4 favourable of 6; y=1 in rows 6,9,10,11 (4), TP rows 6,9,10, FP row 7, FN 11, TN 8
# race: a = rows 0,3,6,9; b (protected) = 1,4,7,10; c = 2,5,8,11; reference = a + c (pooled)
#   a: 4 of 4 favourable; y=1 in 0,6,9 (3); TP 0,6,9; FP 3
#   b: 2 of 4 favourable (7, 10); y=1 in 1,4,10 (3); TP 10; FP 7; FN 1,4
#   c: 0 of 4 favourable; y=1 in 5,11 (2); no favourable decision: PPV has n = 0
HAND = {
    ("sex", "f"): {"selection_rate": (2, 6), "tpr": (1, 4), "fpr": (1, 2), "fnr": (3, 4),
                   "ppv": (1, 2), "accuracy": (2, 6)},
    ("sex", "m"): {"selection_rate": (4, 6), "tpr": (3, 4), "fpr": (1, 2), "fnr": (1, 4),
                   "ppv": (3, 4), "accuracy": (4, 6)},
    ("race", "a"): {"selection_rate": (4, 4), "tpr": (3, 3), "fpr": (1, 1), "fnr": (0, 3),
                    "ppv": (3, 4), "accuracy": (3, 4)},
    ("race", "b"): {"selection_rate": (2, 4), "tpr": (1, 3), "fpr": (1, 1), "fnr": (2, 3),
                    "ppv": (1, 2), "accuracy": (1, 4)},
    ("race", "c"): {"selection_rate": (0, 4), "tpr": (0, 2), "fpr": (0, 2), "fnr": (2, 2),
                    "ppv": (0, 0), "accuracy": (2, 4)},
    ("race", "non-protected (pooled)"): {"selection_rate": (4, 8), "tpr": (3, 5),
                                         "fpr": (1, 3), "fnr": (2, 5), "ppv": (3, 4),
                                         "accuracy": (5, 8)},
}  # fmt: skip


@pytest.mark.parametrize("key", list(HAND), ids=lambda k: f"{k[0]}={k[1]}")
def test_every_rate_count_and_wilson_interval_by_hand(res, key):
    for metric, (k, n) in HAND[key].items():
        r = row(res, *key, metric)
        assert (r["k"], r["n"]) == (k, n), metric
        if n == 0:  # an empty denominator: no rate, no interval
            assert np.isnan(r["rate"]) and np.isnan(r["ci_low"]) and np.isnan(r["ci_high"])
            continue
        assert r["rate"] == pytest.approx(k / n)
        assert (r["ci_low"], r["ci_high"]) == pytest.approx(wilson(k, n)), metric


def test_literal_values_of_the_sex_comparison(res):
    """Rounded values computed on paper, so the formulas above cannot hide a shared mistake."""
    r = row(res, "sex", "f", "selection_rate")
    assert (round(r["ci_low"], 4), round(r["ci_high"], 4)) == (0.0968, 0.7000)
    assert r["diff"] == pytest.approx(-1 / 3)
    assert (round(r["diff_low"], 4), round(r["diff_high"], 4)) == (-0.6679, 0.1852)
    assert r["ratio"] == pytest.approx(0.5)
    assert (round(r["ratio_low"], 4), round(r["ratio_high"], 4)) == (0.1411, 1.7718)


@pytest.mark.parametrize("metric", ["selection_rate", "tpr", "fpr", "fnr", "ppv", "accuracy"])
def test_differences_and_ratios_against_the_reference_by_hand(res, metric):
    for attribute, group, ref in (("sex", "f", "m"), ("race", "b", "non-protected (pooled)")):
        r = row(res, attribute, group, metric)
        k1, n1 = HAND[(attribute, group)][metric]
        k2, n2 = HAND[(attribute, ref)][metric]
        assert r["reference"] == ref and r["role"] == "protected"
        assert r["diff"] == pytest.approx(k1 / n1 - k2 / n2)
        assert (r["diff_low"], r["diff_high"]) == pytest.approx(newcombe(k1, n1, k2, n2))
        if k1 and k2:
            assert (r["ratio"], r["ratio_low"], r["ratio_high"]) == pytest.approx(
                katz(k1, n1, k2, n2)
            )
        else:
            assert r["ratio"] == pytest.approx(0.0) and np.isnan(r["ratio_low"])


def test_roles_and_no_comparison_for_the_reference(res):
    t = res.rates()
    roles = dict(zip(t["attribute"] + ":" + t["group"], t["role"], strict=True))
    assert roles["sex:f"] == "protected" and roles["sex:m"] == "reference"
    assert roles["race:b"] == "protected"
    assert roles["race:a"] == roles["race:c"] == "non-protected"
    assert roles["race:non-protected (pooled)"] == "reference"
    assert t.loc[t["role"] != "protected", ["diff", "ratio"]].isna().all().all()


def test_summary_four_fifths_and_error_gaps_by_hand(res):
    s = res.summary().set_index(["attribute", "group"])
    f = s.loc[("sex", "f")]
    assert (f["selection_k"], f["selection_n"], f["reference_k"], f["reference_n"]) == (2, 6, 4, 6)
    assert f["selection_ratio"] == pytest.approx(0.5) and bool(f["four_fifths"]) is True
    # equal opportunity: TPR 1/4 vs 3/4; FPR 1/2 vs 1/2
    assert f["equal_opportunity_diff"] == pytest.approx(-0.5)
    assert (f["equal_opportunity_diff_low"], f["equal_opportunity_diff_high"]) == pytest.approx(
        newcombe(1, 4, 3, 4)
    )
    assert f["fpr_diff"] == pytest.approx(0.0)
    assert f["equalized_odds_diff"] == pytest.approx(0.5)
    # its interval: the two gaps at alpha/2 each (z for 97.5% two-sided), |.|, then the max
    z = 2.241402727604947
    t_lo, t_hi = newcombe(1, 4, 3, 4, z)
    f_lo, f_hi = newcombe(1, 2, 1, 2, z)

    def absolute(lo, hi):
        return (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))

    lo = max(absolute(t_lo, t_hi)[0], absolute(f_lo, f_hi)[0])
    hi = max(absolute(t_lo, t_hi)[1], absolute(f_lo, f_hi)[1])
    assert (f["equalized_odds_low"], f["equalized_odds_high"]) == pytest.approx((lo, hi))
    b = s.loc[("race", "b")]
    # 2 of 4 vs 4 of 8: ratio exactly 1, not below four-fifths
    assert b["selection_ratio"] == pytest.approx(1.0) and bool(b["four_fifths"]) is False
    assert b["equal_opportunity_diff"] == pytest.approx(1 / 3 - 3 / 5)
    assert b["equalized_odds_diff"] == pytest.approx(max(abs(1 / 3 - 3 / 5), abs(1 - 1 / 3)))


def test_intersection_cells_reference_and_zero_ratio(res):
    t = res.rates()
    inter = t[t["attribute"] == "sex × race"]
    # six observed cells; m × a and m × c are non-protected on both: pooled reference
    assert inter["group"].tolist() == [
        "f × a", "f × b", "f × c", "m × a", "m × b", "m × c", "non-protected (pooled)",
    ]  # fmt: skip
    ref = inter[inter["role"] == "reference"].iloc[0]
    assert (ref["k"], ref["n"]) == (2, 4)  # rows 6, 9 favourable of 6, 8, 9, 11
    fb = inter[inter["group"] == "f × b"].iloc[0]
    assert (fb["k"], fb["n"]) == (0, 2) and fb["ratio"] == 0.0 and np.isnan(fb["ratio_low"])
    s = res.summary()
    assert bool(
        s[(s["attribute"] == "sex × race") & (s["group"] == "f × b")]["four_fifths"].iloc[0]
    )


def test_small_groups_are_flagged_not_dropped(res):
    t = res.rates()
    small = t[t["small"]]
    # race groups have 4 members, intersection cells 2 (the pooled ones 8 and 4 rows)
    assert set(zip(small["attribute"], small["group"], strict=True)) >= {
        ("race", "a"), ("race", "b"), ("race", "c"), ("sex × race", "f × b"),
    }  # fmt: skip
    assert not t[(t["attribute"] == "sex")]["small"].any()
    assert len(t[t["attribute"] == "race"]) == 4  # a, b, c and the pooled reference: none dropped
    text = " ".join(res.caveats())
    assert "fewer than 5 members" in text and "race = b (4)" in text
    assert "empty denominator" in text  # PPV of race = c
    # groups of >= 5 members whose rates rest on < 5 rows: sex f and m (TPR 4, FPR 2, FNR 4,
    # PPV 2 or 4 rows: 4 each) and the pooled race reference (8 members; FPR 3, PPV 4): 10
    assert "10 rate(s) of groups that are not small rest on fewer than 5 rows" in text
    assert "(e.g. tpr of sex = f: 1 of 4)" in text


def test_without_outcome_only_selection_rates():
    res = GroupMetrics(min_group=5).run(data().replace(outcome=None))
    assert set(res.to_frame()["metric"]) == {"selection_rate"}
    assert "equal_opportunity_diff" not in res.summary()
    assert "equalized-odds" not in res.headline()


def test_intersections_options_and_attribute_choice():
    d = data()
    groupings = lambda r: list(dict.fromkeys(r.rates()["attribute"]))  # noqa: E731
    assert groupings(GroupMetrics(intersections="none").run(d)) == ["sex", "race"]
    assert groupings(GroupMetrics(intersections="full").run(d)) == ["sex", "race", "sex × race"]
    assert groupings(GroupMetrics(protected="race").run(d)) == ["race"]
    assert groupings(GroupMetrics(protected=["race", "sex"]).run(d)) == [
        "race", "sex", "race × sex",
    ]  # fmt: skip


def test_headline_scope_caveats(res):
    h = res.headline()
    # protected groups: sex f (ratio 2/6 : 4/6 = 0.5), race b (1.0), and the cells f × a
    # (2/2 : 2/4 = 2), f × b (0), f × c (0), m × b (2): three below 0.8
    assert h.startswith("Four-fifths rule: 3 of 6 protected group(s) below 0.8")
    # the lowest ratio among groups of at least min_group members: sex = f
    assert "0.50 for sex = f: 33.3% (2 of 6) vs 66.7% (4 of 6) for m" in h
    # equalized odds among groups of >= 5 members: sex f (0.5; race b has 4 members)
    assert h.endswith("largest equalized-odds difference 0.500 (sex = f)")
    assert "all 12 rows on 2 protected attribute(s) (sex, race) and 1 intersection(s)" in (
        res.scope()
    )
    assert any("not corrected for the number of groups" in c for c in res.caveats())


def test_empty_reference_of_an_intersection_is_said():
    # every row is protected on sex or on race: the intersection has no reference group
    # (males are all b, a's are all female: no row is m and a)
    df = pd.DataFrame({"sex": list("ffmmf"), "race": list("babba"), "d": [1, 0, 1, 0, 1]})
    res = GroupMetrics(min_group=1, protected={"sex": "f", "race": "b"}, decision="d").run(df)
    t = res.rates()
    ref = t[(t["attribute"] == "sex × race") & (t["role"] == "reference")].iloc[0]
    assert ref["members"] == 0 and np.isnan(ref["rate"])
    assert t[t["attribute"] == "sex × race"]["diff"].isna().all()
    assert any("no reference group" in c for c in res.caveats())


def test_to_dict_is_json_safe(res):
    import json

    doc = res.to_dict()
    text = json.dumps(doc, allow_nan=False)
    assert doc["analysis"] == "groups" and len(doc["rates"]) == len(res.to_frame())
    assert "NaN" not in text


def test_plot_draws_every_group(res):
    fig = res.plot()
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "sex: f" in labels and "race: b (small)" in labels
    assert len(labels) == res.rates()["group"].size


# ---------------------------------------------------------------- input checking
def test_table_input_needs_the_roles():
    with pytest.raises(InputError, match=r"with a table, give the roles"):
        GroupMetrics().run(table())
    res = GroupMetrics(protected={"sex": "f"}, decision="d", outcome="y").run(table())
    assert res.attributes == ("sex",)


def test_unknown_attribute_and_non_binary_decision_are_input_errors():
    with pytest.raises(InputError, match="'age' is not a protected attribute"):
        GroupMetrics(protected="age").run(data())
    bad = table().assign(d=[0, 1, 2] * 4)
    with pytest.raises(InputError, match="decision column 'd' must be binary"):
        GroupMetrics(protected={"sex": "f"}, decision="d").run(bad)


def test_every_declared_constraint_rejects_an_invalid_value():
    for name, cons in GroupMetrics._parameter_constraints.items():
        if name in ("decision", "outcome"):  # roles: an invalid one fails at the data
            continue
        with pytest.raises(InputError, match=rf"^GroupMetrics: {name} must be .*; got "):
            GroupMetrics(**{name: invalid_value(cons)}).run(data())


def test_alpha_message_names_the_flag_and_the_yaml_key():
    with pytest.raises(InputError, match=r"alpha must be a number in \(0, 1\); got 1.5 "
                                         r"\(--alpha, analyses.groups.alpha\)"):  # fmt: skip
        GroupMetrics(alpha=1.5).run(data())


# ---------------------------------------------------------------- codes and scale
def test_group_codes_cross_in_sorted_order():
    g, parts = group_codes([np.array([1, 0, 1, 1]), np.array([0, 2, 2, 0])], [2, 3])
    assert g.tolist() == [1, 0, 2, 1] and parts.tolist() == [[0, 2], [1, 0], [1, 2]]
    # many possible combinations for few rows: the sorting path gives the same numbering
    big = [np.array([1, 0, 1, 1]) * 999_999, np.array([0, 2, 2, 0]) * 499_999]
    g2, parts2 = group_codes(big, [1_000_000, 1_000_000])
    assert g2.tolist() == [1, 0, 2, 1]
    assert parts2.tolist() == [[0, 999_998], [999_999, 0], [999_999, 999_998]]


def test_mixed_type_values_are_ordered_by_their_text():
    df = pd.DataFrame({"grp": [1, "x", 1, "x", 2, 2], "d": [1, 0, 1, 1, 0, 1]})
    res = GroupMetrics(min_group=1, protected={"grp": "x"}, decision="d").run(df)
    assert res.rates()["group"].tolist()[:3] == ["1", "2", "x"]


def test_a_million_rows_in_seconds():
    rng = np.random.default_rng(0)
    n = 1_000_000
    df = pd.DataFrame({
        "sex": rng.choice(["f", "m"], n), "race": rng.choice(list("abcde"), n),
        "d": rng.integers(0, 2, n), "y": rng.integers(0, 2, n),
    })  # fmt: skip
    t0 = time.perf_counter()
    res = GroupMetrics(protected={"sex": "f", "race": ["a", "b"]}, decision="d", outcome="y").run(
        df
    )
    seconds = time.perf_counter() - t0
    assert res.rates()["members"].groupby(res.rates()["attribute"]).sum().max() >= n
    assert seconds < 20, seconds  # about 1 s on one core; generous for a shared machine
