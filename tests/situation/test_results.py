"""Result objects (src/primafacie/situation/results.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.situation import SituationTest
from primafacie.situation.results import _group_rows, json_safe, summarize


def _result():
    df = pd.DataFrame(
        {
            "x": [0.0, 1, 2, 3, 0.5, 1.5, 2.5, 3.5],
            "a": [1] * 4 + [0] * 4,
            "y": [0, 0, 1, 1, 1, 1, 1, 0],
        }
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    return SituationTest(methods="st", k=[1, 2], max_distance=0.2).run(data)


def test_summary_counts_shares_and_denominators():
    # ε = 0.2 leaves every complainant of this table without a control group: all four are
    # untested, so every share has an empty denominator (issue 11: they used to count as
    # tested negatives, 0 of 4)
    res = _result()
    s = res.summary()
    t = res.to_frame()
    for row in s.itertuples():
        g = t[(t.method == row.method) & (t.k == row.k)]
        assert row.cases == int(g.discriminated.sum())
        assert row.untested == int(g.delta.isna().sum()) == 4
        assert row.tested == 0 and row.denominator == 4 - row.untested
        assert np.isnan(row.cases_share)


@pytest.fixture()
def isolated():
    # protected x = 0, 1, 2, 10 (y = 0, 0, 1, 0); non-protected x = 0.5, 1.5, 2.5, 3.5
    # (y = 1, 1, 0, 1). Gower distance = |Δx| / 10; ε = 0.12 keeps neighbours within 1.2.
    df = pd.DataFrame(
        {
            "x": [0.0, 1, 2, 10, 0.5, 1.5, 2.5, 3.5],
            "a": [1] * 4 + [0] * 4,
            "y": [0, 0, 1, 0, 1, 1, 0, 1],
        }
    )
    return AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")


def test_untested_complainants_leave_numerators_and_denominators_by_hand(isolated):
    res = SituationTest(methods="st", k=[1, 2], max_distance=0.12, interval="wald").run(isolated)
    t = res.to_frame().query("k == 2").set_index("row")
    # row 0: control {x=1: neg}, test {0.5: pos} -> Δp = 1 (groups of 1)
    # row 1: control {0: neg, 2: pos}, test {0.5, 1.5: pos} -> Δp = 0.5
    # row 2: control {1: neg}, test {1.5: pos, 2.5: neg} -> Δp = 1 - 0.5 = 0.5
    # row 3 (x = 10): nobody within 1.2 -> untested
    assert t.delta.tolist()[:3] == [1.0, 0.5, 0.5] and np.isnan(t.delta[3])
    assert (t.k_c.tolist(), t.k_t.tolist()) == ([1, 2, 1, 0], [1, 2, 2, 0])
    # Wald, z = 1.6449: rows 1 and 2 have w = z·sqrt(0.25/2) = 0.5816 > 0.5; row 0 has w = 0
    assert t.significant.tolist() == [True, False, False, False]
    s = res.summary().set_index("k")
    assert s.loc[2, ["complainants", "tested", "untested", "denominator"]].tolist() == [4, 3, 1, 3]
    assert s.loc[2, ["cases", "n_significant"]].tolist() == [3, 1]
    assert s.loc[2, "cases_share"] == 1.0 and s.loc[2, "significant_share"] == 1 / 3
    assert s.loc[2, "mean_delta_cases"] == pytest.approx(2 / 3)
    # k = 1: every tested complainant has p_c = 1, p_t = 0 -> three significant of three
    assert s.loc[1, ["tested", "n_significant", "denominator"]].tolist() == [3, 3, 3]


def test_headline_scope_and_caveats_by_hand(isolated):
    # by hand with Wald intervals (the zero-width and tail caveats are Wald's)
    res = SituationTest(methods="st", k=[1, 2], max_distance=0.12, interval="wald").run(isolated)
    assert res.main_test() == ("st", 2)
    assert res.headline() == (
        "ST, k=2 (α = 0.05, τ = 0): 1 of 3 tested individuals protected on 'a' (33.3%) are "
        "significant cases of potential discrimination after the Benjamini–Hochberg "
        "adjustment (false discovery rate 0.05; 1 before the Benjamini–Hochberg adjustment); "
        "1 more could not be tested within max_distance 0.12 and is left out. Of 3 tests at "
        "α = 0.05, about 0.2 would be significant by chance alone if no one were "
        "discriminated against."
    )
    assert res.scope() == (
        "4 individuals protected on 'a', all of them complainants; 3 tested with every "
        "method; 1 could not be tested within max_distance 0.12 and is left out of every "
        "numerator and denominator. Methods ST; k = 1, 2; α = 0.05, τ = 0."
    )
    caveats = res.caveats()
    assert len(caveats) == 4
    assert caveats[0].startswith("1 of 4 complainants could not be tested within max_distance")
    # rows 0 and 2 have a control group of 1 < k = 2
    assert caveats[1].startswith("2 tested complainants (ST, k=2) had fewer than k neighbours")
    # row 0 is significant with p_c = 1, p_t = 0: a zero-width Wald interval
    assert caveats[2].startswith("1 significant case (ST, k=2) rests on a zero-width Wald")
    # Wald with an adjustment (the default bh): the measured calibration of its tails
    assert caveats[3].startswith("Wald p-values of small groups are too small in the far tail")
    unadjusted = SituationTest(
        methods="st", k=[1, 2], max_distance=0.12, multiplicity="none", interval="wald"
    )
    assert len(unadjusted.run(isolated).caveats()) == 3
    d = res.to_dict()
    assert (d["headline"], d["scope"], d["caveats"]) == (res.headline(), res.scope(), caveats)
    # Newcombe intervals (the default) are never zero-width, and without ε nothing is left out
    plain = SituationTest(methods="st", k=2).run(isolated)
    assert plain.caveats() == []
    assert plain.summary()[["tested", "untested", "denominator"]].values.tolist() == [[4, 0, 4]]
    assert "could not be tested" not in plain.headline() + plain.scope()


def test_rejected_complainants_keep_the_protected_denominator(isolated):
    res = SituationTest(methods="st", k=1, complainants="rejected", max_distance=0.12).run(isolated)
    # rejected protected rows 0, 1, 3; row 3 untested; row 2 (accepted) needs no test
    s = res.summary().iloc[0]
    assert (s.complainants, s.tested, s.untested, s.denominator) == (3, 2, 1, 3)
    assert "1 of them" not in res.scope() and "the other 1 need no test" in res.scope()
    assert "rejected ones tested, the others need no test" in res.headline()
    assert any(c.startswith("Only complainants with an unfavourable") for c in res.caveats())


def test_summary_and_frame_columns_have_the_same_type(isolated):
    res = SituationTest(methods="st", k=[1, 2], max_distance=0.12).run(isolated)
    s, t = res.summary(), res.to_frame()
    shared = sorted(set(s.columns) & set(t.columns))
    assert shared == ["k", "method"]  # significant (a flag) is n_significant (a count) here
    for col in shared:
        assert s[col].dtype == t[col].dtype
    ints = ["complainants", "tested", "untested", "denominator", "cases"]
    assert all(s[c].dtype.kind == "i" for c in ints)


def test_to_dict_is_json_safe():
    d = _result().to_dict()
    text = json.dumps(d, allow_nan=False)
    assert "Infinity" not in text and "NaN" not in text
    with_ids = _result().to_dict(neighbors=True)
    json.dumps(with_ids, allow_nan=False)
    first = with_ids["complainants"][0]  # st, k=1, row 0 (x=0): ε=0.2 keeps test row 4 only
    assert (first["control_ids"], first["test_ids"]) == ([], [4])
    assert "control_ids" not in d["complainants"][0]
    assert json_safe([np.nan, np.inf, -np.inf, np.int64(3)]) == [None, "inf", "-inf", 3]


def test_plot_returns_figure():
    import matplotlib.figure

    fig = _result().plot()
    assert isinstance(fig, matplotlib.figure.Figure)


def test_result_is_frozen():
    res = _result()
    try:
        res.n_protected = 3
    except Exception as exc:  # dataclasses.FrozenInstanceError
        assert "cannot assign" in str(exc)
    else:
        raise AssertionError("SituationResult must be frozen")


def test_summary_with_no_complainants_lists_every_method_and_k_with_zero_counts():
    df = pd.DataFrame(
        {"x": [0.0, 1, 2, 3, 0.5, 1.5], "a": [1] * 4 + [0] * 2, "y": [1, 1, 1, 1, 0, 1]}
    )
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    res = SituationTest(methods="st", k=[1, 2], complainants="rejected").run(data)
    assert res.n_complainants == 0 and len(res.to_frame()) == 0
    s = res.summary()
    assert s[["method", "k", "complainants", "cases", "n_significant"]].values.tolist() == [
        ["st", 1, 0, 0, 0],
        ["st", 2, 0, 0, 0],
    ]
    assert (s.denominator == 4).all() and (s.cases_share == 0).all()
    assert s.mean_delta_cases.isna().all()


def test_summary_reads_blocks_as_slices_and_any_order_the_same():
    """An engine table holds each (method, k) as one block (found as slices, no copy); the
    same rows in any order give the same summary through groupby."""
    t = pd.DataFrame(
        {
            "method": ["st", "st", "st", "cf", "cf", "st"],
            "k": [1, 1, 2, 1, 1, 3],
            "delta": [0.5, np.nan, 0.2, -0.1, 0.3, 0.4],
            "discriminated": [True, False, True, False, True, True],
            "significant": [True, False, False, False, True, False],
        }
    )
    groups = _group_rows(t)
    assert groups == {("st", 1): slice(0, 2), ("st", 2): slice(2, 3), ("cf", 1): slice(3, 5),
                      ("st", 3): slice(5, 6)}  # fmt: skip
    s = summarize(t, 10)
    assert s.set_index(["method", "k"]).loc[
        ("st", 1), ["tested", "cases", "n_significant"]
    ].tolist() == [1, 1, 1]
    shuffled = t.iloc[[5, 3, 0, 2, 4, 1]].reset_index(drop=True)
    assert not isinstance(next(iter(_group_rows(shuffled).values())), slice)
    pd.testing.assert_frame_equal(summarize(shuffled, 10), s)


def test_summary_of_an_interleaved_table_goes_through_groupby_at_once():
    """More runs than (method, k) pairs: not blocks, so no per-run key list is built."""
    t = pd.DataFrame(
        {
            "method": ["st"] * 6,
            "k": [1, 2, 1, 2, 1, 2],
            "delta": [0.5, 0.1, 0.2, np.nan, 0.3, 0.4],
            "discriminated": [True, True, True, False, True, True],
            "significant": [True, False, False, False, True, False],
        }
    )
    groups = _group_rows(t)
    assert {key: list(v) for key, v in groups.items()} == {
        ("st", 1): [0, 2, 4],
        ("st", 2): [1, 3, 5],
    }
    s = summarize(t, 10).set_index("k")
    assert s.loc[1, "cases"] == 3 and s.loc[2, "tested"] == 2 and s.loc[1, "n_significant"] == 2


def test_to_dict_with_max_rows_is_the_pruned_dict_without_the_records():
    from primafacie.analysis import _prune_rows

    res = _result()  # 2 k × 4 complainants = 8 rows
    full = res.to_dict()
    assert len(full["complainants"]) == 8
    assert res.to_dict(max_rows=8, see="t.csv") == full  # at the limit: every row
    paged = res.to_dict(max_rows=7, see="tables/x.csv")
    assert paged["complainants"] == {"rows": 8, "see": "tables/x.csv"}
    assert paged == _prune_rows(full, "tables/x.csv", limit=7)


def test_to_frame_is_a_copy_a_change_never_reaches_the_result():
    res = _result()
    before = res.table.copy()
    frame = res.to_frame()
    frame["delta"] = 99.0
    frame.loc[0, "k"] = -1
    del frame["p_c"]
    pd.testing.assert_frame_equal(res.table, before)
    pd.testing.assert_frame_equal(res.to_frame(), before)


def test_stacked_puts_the_label_column_first_and_an_empty_input_gives_an_empty_frame():
    from primafacie.situation.results import stacked

    out = stacked({"a": pd.DataFrame({"x": [1]}), "b": pd.DataFrame({"x": [2, 3]})}, "test")
    assert list(out.columns) == ["test", "x"]
    assert out["test"].tolist() == ["a", "b", "b"] and out["x"].tolist() == [1, 2, 3]
    assert stacked({}, "test").empty


def test_verdict_count_is_the_adjusted_count_only_under_a_correction():
    from primafacie.situation.results import in_force, verdict_count

    row = {"n_significant": 7, "n_significant_adjusted": 2}
    assert verdict_count({**row, "multiplicity": "bh"}) == 2 and in_force({"multiplicity": "bh"})
    for none in ("none", None, np.nan):
        assert verdict_count({**row, "multiplicity": none}) == 7
