"""Result objects of src/primafacie/recourse/results.py: headline, scope, caveats, curves.

The world (120 rows, 3 more with an unknown group) is small enough to count by hand::

    pattern of 6 rows, 20 times:  g    a   b   a    b    a   b
                                  edu  lo  lo  mid  mid  hi  lo
    job = x for rows 0-59, y for rows 60-119
    rule: approve if edu == hi, or g == a and edu == mid

Rejected: a lo (20), b lo (40), b mid (20): 20 a, 60 b. Approved: 40 a, 0 b.
Subgroups frequent (support 0.1) among the rejected of both groups: edu=lo, job=x, job=y,
edu=lo & job=x, edu=lo & job=y (5; each has a feasible action). Their members cover every
rejected row (b mid is in job=x or job=y). Costs (edu weight 2, ordinal): lo -> mid 2,
lo -> hi 4, a job change 1. No action changes the decision of a job=x/job=y member alone, so
those 2 subgroups give no recourse to either group.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.recourse import FactsResult, RankingResult, RecourseFairness
from primafacie.recourse.results import EffectivenessCurves, FactsScope

RULE = Rule("(edu == 'hi') or ((g == 'a') and (edu == 'mid'))")
KINDS = {"edu": {"ordinal": ["lo", "mid", "hi"]}, "job": "categorical"}


def world(unknown: int = 3) -> pd.DataFrame:
    df = pd.DataFrame(
        {
            "g": ["a", "b"] * 60,
            "edu": ["lo", "lo", "mid", "mid", "hi", "lo"] * 20,
            "job": ["x"] * 60 + ["y"] * 60,
        }
    )
    extra = pd.DataFrame({"g": ["Unknown"] * unknown, "edu": ["lo"] * unknown,
                          "job": ["x"] * unknown})  # fmt: skip
    return pd.concat([df, extra], ignore_index=True)


def audit() -> RecourseFairness:
    return RecourseFairness(RULE, protected="g", support=0.1, feature_weights={"edu": 2},
                         features=KINDS)  # fmt: skip


@pytest.fixture(scope="module")
def result() -> FactsResult:
    return audit().run(world(), phi=0.5)


def test_scope_counts_by_hand(result):
    a = result.audited
    assert isinstance(a, FactsScope)
    assert (a.rows, a.dropped_rows) == (120, 3)
    assert (a.rejected, a.accepted, a.in_subgroups) == ((20, 60), (40, 0), (20, 60))
    assert (a.common_subgroups, a.subgroups) == (5, 5)
    assert a.no_recourse == (2, 2)  # job=x and job=y
    assert a.smallest == (10, 20)  # a: edu=lo & job=x has 10; b: edu=lo & job=x has 20
    assert a.protected_values == ()  # a plain table names no protected group
    assert a.definitions == tuple(result.rankings)
    frame = result.scope_frame()
    assert frame["rejected"].tolist() == [20, 60]
    assert frame["share_in_subgroups"].tolist() == [1.0, 1.0]
    assert frame["subgroups_without_recourse"].tolist() == [2, 2]


def test_scope_text_names_denominators_and_what_was_left_out(result):
    assert result.scope() == (
        "rejected applicants by g: 20 a, 60 b (of 120 rows; 3 rows with a missing g left out); "
        "5 subgroups (support ≥ 0.1 of every group's rejected) hold 100.0% (20 of 20) "
        "a, 100.0% (60 of 60) b of the rejected; 8 definitions"
    )


def test_rejected_outside_every_subgroup_are_counted_and_named():
    """Give b's rejected with edu=mid their own job z: job=z and edu=mid are frequent among b's
    rejected only, so no common subgroup holds those 20 rows."""
    df = world(0)
    df.loc[(df["g"] == "b") & (df["edu"] == "mid"), "job"] = "z"
    res = audit().run(df, phi=0.5, metrics=["EE"])
    a = res.audited
    assert (a.subgroups, a.rejected, a.in_subgroups, a.dropped_rows) == (5, (20, 60), (20, 40), 0)
    assert "66.7% (40 of 60) b" in res.scope()
    caveats = " ".join(res.caveats())
    assert "Rejected applicants in no audited subgroup (20 b)" in caveats
    assert "missing g" not in caveats


def test_headline_without_and_with_protected_values(result):
    # Ma.5, C.5, B2, Mi.5, MR and KS rank first a subgroup biased against b; EE and B4 are Fair
    assert result.headline() == (
        "6 of 8 recourse definitions rank first a subgroup where recourse is harder for one "
        "group of g (against a: 0, b: 6); 5 subgroups audited; e.g. Ma.5: 'edu=lo' against b "
        "(score 2); 3 subgroups tie at rank 1 under Ma.5"
    )
    assert result.rankings["Ma.5"].rank1_count() == 3
    data = AuditData(world(0), features=KINDS, protected={"g": "b"})
    res = RecourseFairness(RULE, support=0.1, feature_weights={"edu": 2}).run(data, phi=0.5)
    assert res.audited.protected_values == ("b",)
    assert res.headline().startswith(
        "6 of 8 recourse definitions rank first a subgroup biased against the protected group "
        "(b) of g; 5 subgroups audited"
    )
    assert res.scope_frame()["protected"].tolist() == [False, True]


def test_headline_says_infinite_scores_are_out_of_reach():
    res = audit().run(world(0), phi=0.5, metrics=["ECMR"])
    # E(C)MR of edu=lo & job=x: both groups have recourse (mean 2 vs 4); job=x: none -> Fair
    assert res.rankings["MR"].to_frame()["score"].tolist()[:3] == [2.0, 2.0, 2.0]
    one = RecourseFairness(Rule("(edu == 'mid') and (g == 'b')"), protected="g", support=0.1,
                        features=KINDS).run(world(0), phi=0.5, metrics=["ECE"])  # fmt: skip
    # ∞ says what it means, from the curves: no action reaches φ of the group (issue 23)
    curve = one.effectiveness_curves("edu=lo")
    assert curve.loc[curve["group"] == "a", "effectiveness"].max() == 0.0
    assert (
        "e.g. Ma.5: 'edu=lo' against a (score ∞: no action reaches φ = 50% of the rejected a "
        "of that subgroup; no action gives any of them the favourable decision)"
    ) in one.headline()


def test_caveats_by_hand(result):
    caveats = result.caveats()
    assert caveats[0].startswith("Actions change only the features they name")
    text = " ".join(caveats)
    assert "3 row(s) with a missing g were left out." in text
    assert "2 for a, 2 for b (of 5)" in text
    assert "EEWB budgets were chosen from the data" in text
    assert "not corrected for testing many subgroups" in text
    # Ma.5: edu=lo, edu=lo & job=x and edu=lo & job=y all score 2 (cost 2 for a, 4 for b)
    assert "Several subgroups tie at rank 1 under Ma.5" in text
    assert "as few as" not in text  # 10 and 20 members: no small-subgroup warning
    assert "Rejected applicants in no audited subgroup" not in text
    fixed = audit().run(world(0), phi=0.5, budgets=[2.0], metrics=["EEWB"])
    assert not any("EEWB budgets" in c for c in fixed.caveats())


def test_small_subgroups_are_flagged():
    res = RecourseFairness(RULE, protected="g", support=0.1, feature_weights={"edu": 2},
                        features=KINDS).run(world(0).iloc[:60], phi=0.5, metrics=["EE"])  # fmt: skip
    # 60 rows, all job=x: a's rejected are 10 with edu=lo. Common subgroups edu=lo, job=x and
    # both; job=x has no action (the approved all have job x) and is left out.
    assert min(res.audited.smallest) == 10
    assert (res.audited.common_subgroups, res.audited.subgroups) == (3, 2)
    assert "1 of 3 without a feasible action left out" in res.scope()
    assert any(
        c.startswith("1 frequent subgroup(s) have no feasible action") for c in res.caveats()
    )
    # with 54 rows a has 9
    res = RecourseFairness(RULE, protected="g", support=0.1, feature_weights={"edu": 2},
                        features=KINDS).run(world(0).iloc[:54], phi=0.5, metrics=["EE"])  # fmt: skip
    assert min(res.audited.smallest) == 9
    assert any(
        c.startswith("Some subgroups hold as few as 9 rejected member(s) of one group: there an "
                     "effectiveness share moves in steps of 1/9 (11.1%)")
        for c in res.caveats()
    )  # fmt: skip


def test_effectiveness_curves_by_hand(result):
    """edu=lo: a (20) reaches 100% at cost 2 (edu := mid); b (40) only at cost 4 (edu := hi)."""
    curves = result.effectiveness_curves("edu=lo")
    assert list(curves.columns) == ["group", "n", "cost", "effectiveness"]
    a = curves[curves["group"] == "a"]
    b = curves[curves["group"] == "b"]
    assert a["n"].unique().tolist() == [20] and b["n"].unique().tolist() == [40]
    assert a["cost"].tolist() == [0.0, 2.0, 4.0] and a["effectiveness"].tolist() == [0, 1, 1]
    assert b["cost"].tolist() == [0.0, 2.0, 4.0] and b["effectiveness"].tolist() == [0, 0, 1]
    # any item order, or the index; the curve is the engine's micro ecd
    same = result.effectiveness_curves("job=x; edu=lo")
    assert same.equals(result.effectiveness_curves(result.curves.index("edu=lo; job=x")))
    nothing = result.effectiveness_curves("job=x")  # job := y never changes the decision
    assert nothing["effectiveness"].tolist() == [0.0, 0.0, 0.0, 0.0]
    with pytest.raises(InputError, match="'edu=hi' is not among the audited subgroups"):
        result.effectiveness_curves("edu=hi")
    with pytest.raises(InputError, match="out of range"):
        result.effectiveness_curves(5)


def test_curves_are_read_only_and_match_the_fitted_table():
    fitted = audit().fit(world())
    res = fitted.evaluate(phi=0.5, metrics=["EE"])
    assert isinstance(res.curves, EffectivenessCurves)
    with pytest.raises(ValueError):
        res.curves.cum[0, 0] = 99
    assert fitted.table_.cum.flags.writeable  # the audit's own array stays writeable
    assert res.curves.subgroups == tuple(fitted.subgroup_labels())


def test_top_subgroups(result):
    top = result.top_subgroups()
    assert list(top.columns) == ["definition", "title", "subgroup", "bias_against", "score"]
    assert top["definition"].tolist() == ["Ma.5", "C.5", "B2", "Mi.5", "MR", "KS"]
    row = top.set_index("definition").loc["Ma.5"]
    assert (row["subgroup"], row["bias_against"], row["score"]) == ("edu=lo", "b", 2.0)


def test_to_dict_carries_the_scope_and_is_json_safe(result):
    doc = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert doc["scope"]["rejected"] == [20, 60] and doc["scope"]["dropped_rows"] == 3
    hand = FactsResult(groups=("a", "b"), protected="g", rankings={})
    assert "scope" not in hand.to_dict()
    assert hand.scope() == "g (a, b); 0 definitions"
    with pytest.raises(InputError, match="no effectiveness curves"):
        hand.effectiveness_curves(0)


def test_ranking_headline_scope_caveats(result):
    ma = result.rankings["Ma.5"]
    assert ma.headline() == (
        "Equal Cost of Effectiveness (threshold = 0.5): 3 of 5 subgroups differ between groups; "
        "first 'edu=lo', against b (score 2, tied with 2 other(s))"
    )
    assert ma.scope() == (
        "5 subgroups scored under Equal Cost of Effectiveness (threshold = 0.5) (macro "
        "viewpoint); 2 Fair (score 0, no rank), 3 ranked"
    )
    assert ma.caveats() == [
        "3 subgroups tie at rank 1 under Equal Cost of Effectiveness (threshold = 0.5)."
    ]
    ee = result.rankings["EE"]
    assert ee.headline().endswith("0 of 5 subgroups differ between groups (every subgroup is Fair)")
    assert ee.caveats() == []


def test_ranking_caveat_counts_infinite_scores():
    table = pd.DataFrame({"rank": [1, 2, 0], "score": [math.inf, 1.0, 0.0],
                          "bias_against": ["b", "a", None], "subgroup": ["s1", "s2", "s3"]})  # fmt: skip
    r = RankingResult("ECE", "macro", 0.5, "Ma.5", "ECE", ("a", "b"), table)
    assert (
        r.headline()
        == "ECE: 2 of 3 subgroups differ between groups; first 's1', against b (score ∞)"
    )
    assert r.caveats()[0].startswith("1 subgroup(s) score ∞")


def test_plot_cumulative_draws_one_step_line_per_group(result):
    fig = result.plot_cumulative("edu=lo")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a (n=20)", "b (n=40)"]
    ys = [np.asarray(line.get_ydata(), dtype=float).tolist() for line in ax.get_lines()]
    assert ys == [[0.0, 100.0, 100.0], [0.0, 0.0, 100.0]]


def test_headline_when_every_subgroup_is_fair():
    res = RecourseFairness(Rule("edu == 'hi'"), protected="g", support=0.1, features=KINDS).run(
        world(0), phi=0.5, metrics=["EE"]
    )  # edu := hi flips everyone; job changes flip no one: EE is equal in all 8 subgroups
    assert res.headline() == (
        "no recourse definition finds a subgroup where recourse differs between the groups of g "
        "(1 definition; 8 subgroups audited)"
    )
