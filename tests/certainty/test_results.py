"""CertaintyResult: frame, summary, JSON-safe dict, plot, headline, scope and caveats."""

import json

import numpy as np
import pandas as pd
import pytest

from primafacie.certainty import CertaintyRanking, CertaintyResult, score_counts


@pytest.fixture(scope="module")
def result() -> CertaintyResult:
    df = pd.DataFrame(
        {
            "z": ["a"] * 4 + ["b"] * 4 + ["c"] * 2,
            "y": [1, 0, 1, 0, 1, 1, 0, 0, 1, 0],
            "h1": [1, 1, 1, 0, 0, 0, 0, 1, 1, 1],
            "h2": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
        }
    )
    return CertaintyRanking(protected="z", epsilon=0.2).run(df, {"h1": "h1", "h2": "h2"})


def test_frame_and_summary(result):
    t = result.to_frame()
    assert t["decision_maker"].tolist() == ["h2", "h1"]  # h2 treats everyone at 50%
    assert t.loc[0, "disparity"] == 0 and t.loc[0, "selected"]
    assert list(result.summary().columns)[:2] == ["rank", "decision_maker"]
    assert result.counts_frame().shape == (6, 12)
    assert np.isnan(t["accuracy"]).all()  # no outcome given
    assert ((t["p_exceeds"] > 0) & (t["p_exceeds"] < 1)).all()
    t.loc[0, "utility"] = 99  # a copy: the result stays unchanged
    assert result.table.loc[0, "utility"] != 99
    assert "selected: h2" in str(result)


def test_frozen(result):
    with pytest.raises(AttributeError):
        result.selected = ("x",)


def test_to_dict_is_strict_json_with_none_for_nan(result):
    d = result.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["selected"] == ["h2"]
    assert d["decision_makers"][0]["accuracy"] is None
    assert d["criterion"] == "statistical_parity" and d["groups"] == ["a", "b", "c"]


def test_empty_group_rate_is_none_in_json():
    with pytest.warns(UserWarning):
        res = score_counts([[1, 0, 2]], [[3, 0, 2]], groups=["a", "b", "c"])
    rec = [r for r in res.to_dict()["counts"] if r["group"] == "b"][0]
    assert rec["rate"] is None and rec["norm_var"] is None


def test_plot_marks_selected(result):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = result.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("disparity")
    # 7 indifference curves + scatter of all + circle of the selected
    assert len(ax.lines) == 7 and len(ax.collections) == 2
    sel = ax.collections[1].get_offsets()
    assert sel.shape == (1, 2) and tuple(sel[0]) == (
        0.0,
        pytest.approx(result.table.loc[0, "uncertainty"]),
    )


# ---------------------------------------------------------------------------- words
def test_headline_gives_the_selected_pair_with_counts(result):
    # h2 treats a, b and c at 50 %: with ties="first" i* = a, j* = b (label order); the
    # uncertainty is the normalised variance of Beta(3, 3) for both groups:
    # 18 * 3 * 3 / (6^2 * 7) = 0.642857
    assert result.headline() == (
        "Most certainly fair decision-maker (statistical parity): h2 — disparity 0.000 between "
        "a (2 of 4) and b (2 of 4), uncertainty 0.6429; posterior probability that it has the "
        "smallest disparity 0.74 (10,000 draws)"
    )


def test_scope_gives_people_groups_and_the_rate_denominator(result):
    assert result.n_people == 10
    assert result.scope() == (
        "2 decision-maker(s) (h2, h1) on 10 people in 3 groups of z (a, b, c); criterion "
        "statistical parity: each rate is k of n rows of a group"
    )


def test_caveats_with_three_groups(result):
    assert result.caveats() == [
        "with 3 groups the disparity is the gap between the most and the least privileged "
        "group of each decision-maker; the other groups enter neither the disparity nor its "
        "uncertainty (see the group counts table)"
    ]


def test_headline_and_caveat_of_a_tie_broken_by_accuracy():
    # Table 3: SVM and RF both have k = (6, 0) of n = (6, 4); accuracy 0.7110 > 0.7020
    res = score_counts(
        [[6, 0], [6, 0]], [[6, 4], [6, 4]], names=["SVM", "RF"], groups=["Asian", "Native"],
        accuracy=[0.7110, 0.7020], tie_breaker="accuracy",
    )  # fmt: skip
    # uncertainty: (18*7*1/(8^2*9) + 18*1*5/(6^2*7)) / 2 = (0.21875 + 0.357143) / 2 = 0.287946
    assert res.headline() == (
        "Most certainly fair decision-maker (statistical parity): SVM — disparity 1.000 between "
        "Asian (6 of 6) and Native (0 of 4), uncertainty 0.2879; posterior probability that it "
        "has the smallest disparity 0.51 (10,000 draws)"  # identical posteriors: 1/2 +- MC error
    )
    assert res.caveats() == [
        "2 decision-makers share the best utility (SVM, RF); the accuracy tie-breaker chose SVM"
    ]
    assert res.scope() == (
        "2 decision-maker(s) (SVM, RF) in 2 groups (Asian, Native); criterion statistical "
        "parity: each rate is k of n rows of a group"
    )


def test_tie_without_tie_breaker_selects_all_and_says_so():
    res = score_counts([[6, 0], [6, 0]], [[6, 4], [6, 4]], names=["SVM", "RF"])
    assert res.headline().startswith(
        "Most certainly fair decision-makers (statistical parity): SVM, RF —"
    )
    assert res.caveats() == [
        "2 decision-makers share the best utility (SVM, RF); no tie-breaker was given, so all "
        "are selected"
    ]


def test_scope_and_caveats_name_an_empty_group():
    df = pd.DataFrame({"g": ["a", "a", "b", "b", "c"], "y": [1, 0, 1, 0, 0], "d": [1, 0, 1, 1, 0]})
    with pytest.warns(UserWarning, match="skipped"):
        res = CertaintyRanking(
            protected="g", outcome="y", criterion="equal_opportunity", on_empty="skip"
        ).run(df, {"d": "d"})
    # c has no row with y = 1: n = 0 for equal opportunity
    assert res.scope().endswith(
        "criterion equal opportunity: each rate is k of n rows with a favourable true outcome of "
        "a group; left out: 1 empty group(s) with no rows with a favourable true outcome (d: c)"
    )
    assert res.caveats()[0].startswith("1 group(s) have no rows with a favourable true outcome")


def test_scope_names_pooled_small_groups_and_caveats_name_extensions():
    df = pd.DataFrame({"g": ["a"] * 4 + ["b"] * 4 + ["c"], "d": [1, 0] * 4 + [1]})
    with pytest.warns(UserWarning, match="1 member"):
        res = CertaintyRanking(
            protected="g", min_group=2, disparity="bayesian", prior=(0.5, 0.5)
        ).run(df, {"d": "d"})
    assert res.scope().endswith("small groups pooled as 'merged: c'")
    assert res.caveats()[1:] == [
        "the disparity is the gap between posterior means (an extension; the paper uses the "
        "frequentist rates)",
        "prior Beta(0.5, 0.5) instead of the paper's Beta(1, 1): the uncertainty is renormalised "
        "by the largest variance this prior allows",
    ]
