"""RecourseFairness end to end on small synthetic data, checked against a brute-force reference."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.recourse import RecourseFairness
from primafacie.recourse.items import common_itemsets, frequent_itemsets


def synthetic(n=600, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "x": rng.choice(["lo", "mid", "hi"], n, p=[0.4, 0.3, 0.3]),
            "y": rng.choice(["u", "v", "Unknown"], n, p=[0.5, 0.4, 0.1]),
            "w": rng.choice(["p", "q"], n),
        }
    )


RULE = Rule("(x == 'hi') and ((g == 'a') or (y == 'v'))")
KINDS = {"x": {"ordinal": ["lo", "mid", "hi"]}, "y": "categorical", "w": "categorical"}


class Counting:
    def __init__(self, rule):
        self.rule = rule
        self.calls = 0
        self.rows = 0

    def __call__(self, df):
        self.calls += 1
        self.rows += len(df)
        return self.rule.predict(df)


def brute_force(audit, df):
    """Per (subgroup, action, group) flip counts by applying each action row by row."""
    yhat = RULE.predict(df)
    out = {}
    for s, items in enumerate(audit.sub_items_):
        cond = audit.space_.describe(items)
        members = (yhat == 0) & np.all([(df[c] == v).to_numpy() for c, v in cond.items()], axis=0)
        lo = audit.table_.starts[s]
        for k, then in enumerate(audit.sub_then_[s]):
            mod = df[members].copy()
            for j, it in enumerate(items):
                col = audit.space_.columns[audit.space_.item_col[it]]
                mod[col] = audit.space_.values[audit.space_.item_col[it]][then[j]]
            flip = RULE.predict(mod) == 1
            out[lo + k] = [int(flip[(mod["g"] == g).to_numpy()].sum()) for g in audit.groups_]
    return out


@pytest.fixture(scope="module")
def fitted():
    df = synthetic()
    model = Counting(RULE)
    audit = RecourseFairness(model, protected="g", support=0.05, features=KINDS,
                          feature_weights={"x": 2, "y": 3}).fit(df)  # fmt: skip
    return audit, df, model


def test_counts_match_brute_force(fitted):
    audit, df, _ = fitted
    ref = brute_force(audit, df)
    assert len(ref) == audit.table_.n_pairs > 0
    for p, counts in ref.items():
        assert audit.table_.eff[p].tolist() == counts


def test_subgroups_are_common_frequent_itemsets(fitted):
    audit, df, _ = fitted
    yhat = RULE.predict(df)
    aff = np.flatnonzero(yhat == 0)
    fams = [frequent_itemsets(audit.space_, aff[df["g"].to_numpy()[aff] == g], 0.05,
                              exclude_columns=["g"]) for g in ("a", "b")]  # fmt: skip
    common = common_itemsets(fams)
    assert set(audit.sub_items_) <= set(common)
    assert audit.stats_["common_subgroups"] == len(common)
    for s, items in enumerate(audit.sub_items_):
        assert tuple(audit.table_.n[s]) == common[items]


def test_batched_prediction_and_no_unknown_target(fitted):
    audit, _, model = fitted
    # one call for ŷ plus one batched call for every chunk (here a single chunk)
    assert model.calls == 2
    assert model.rows - audit.stats_["rows"] == audit.stats_["predicted_rows"]
    assert audit.stats_["predicted_rows"] <= audit.stats_["pair_rows"]
    ycol = audit.space_.col_index["y"]
    unknown = audit.space_.code_of("y", "Unknown")
    for items, then in zip(audit.sub_items_, audit.sub_then_, strict=False):
        cols = audit.space_.item_col[np.asarray(items)]
        src = audit.space_.item_code[np.asarray(items)]
        for j, c in enumerate(cols):
            if c == ycol and src[j] != unknown:
                assert not (then[:, j] == unknown).any()
            assert c != audit.space_.col_index["g"]


@pytest.mark.parametrize("chunk_rows", [1, 7, 50])
def test_small_chunks_split_subgroups_and_give_identical_tables(fitted, chunk_rows):
    """A subgroup with more (member, action) rows than chunk_rows is split into action blocks;
    every count, cumulative sequence and micro statistic equals the single-chunk run."""
    audit, df, _ = fitted
    model = Counting(RULE)
    small = RecourseFairness(model, protected="g", support=0.05, features=KINDS,
                          feature_weights={"x": 2, "y": 3}, chunk_rows=chunk_rows).fit(df)  # fmt: skip
    largest = max(len(m) * len(t) for m, t in zip(audit.members_, audit.sub_then_, strict=True))
    assert largest > chunk_rows  # the split path is exercised
    assert model.calls > 2
    for name in ("n", "starts", "cost", "eff", "cum", "n_rec", "rc_sum", "seq_order", "seq_cum"):
        np.testing.assert_array_equal(getattr(small.table_, name), getattr(audit.table_, name))
    assert small.stats_["pair_rows"] == audit.stats_["pair_rows"]


def test_same_cost_for_every_member(fitted):
    audit, _, _ = fitted
    # x: ordinal rank distance × 2, y: categorical × 3, w: × 1
    for s, items in enumerate(audit.sub_items_):
        lo = audit.table_.starts[s]
        src = audit.space_.item_code[np.asarray(items)]
        cols = [audit.space_.columns[c] for c in audit.space_.item_col[np.asarray(items)]]
        for k, then in enumerate(audit.sub_then_[s]):
            expect = 0.0
            for j, col in enumerate(cols):
                if col == "x":
                    expect += 2 * abs(int(then[j]) - int(src[j]))
                elif col == "y":
                    expect += 3 * (then[j] != src[j])
                else:
                    expect += 1 * (then[j] != src[j])
            assert audit.table_.cost[lo + k] == expect


def test_ranking_bias_against_group_b(fitted):
    audit, _, _ = fitted
    r = audit.rank("EE")
    top = r.ranked().iloc[0]
    assert top["rank"] == 1 and top["bias_against"] == "b"
    frame = r.to_frame()
    assert list(frame.columns[:4]) == ["rank", "score", "bias_against", "subgroup"]
    assert {"n[a]", "n[b]", "cov[a]", "cov[b]", "d[a]", "d[b]"} <= set(frame.columns)
    json.dumps(r.to_dict(), allow_nan=False)
    assert r.summary().loc[0, "subgroups"] == len(frame)


def test_evaluate_results_objects(fitted):
    audit, _, _ = fitted
    res = audit.evaluate(phi=(0.3, 0.7), budgets=[1.0, 5.0])
    assert list(res.rankings) == ["Ma.3", "Ma.7", "C.3", "C.7", "EE", "B1", "B5", "Mi.3", "Mi.7",
                                  "MR", "KS"]  # fmt: skip
    long = res.to_frame()
    assert list(long.columns) == ["metric", "viewpoint", "param", "rank", "score",
                                  "bias_against", "subgroup"]  # fmt: skip
    agg = res.aggregated_rankings()
    assert agg.shape == (11, 11) and np.isnan(agg.loc["EE", "EE"])
    assert (agg.to_numpy()[~np.isnan(agg.to_numpy())] >= 0).all()
    json.dumps(res.to_dict(), allow_nan=False)
    import matplotlib.figure

    assert isinstance(res.plot(), matplotlib.figure.Figure)
    assert isinstance(res.rankings["EE"].plot(), matplotlib.figure.Figure)
    sg = res.rankings["EE"].ranked()["subgroup"].iloc[0]
    cross = res.cross_table([sg])
    assert cross.loc[cross["label"] == "EE", "SG1 rank"].iloc[0] == 1


def test_csc_text_and_records(fitted):
    audit, _, _ = fitted
    c = audit.csc("EE", viewpoint="macro", top=2)
    assert len(c.records) == 2
    text = c.text
    assert text.startswith("If ")
    assert "    Protected Subgroup = 'a', " in text and "% covered" in text
    assert "Bias against b due to Equal Effectiveness (Macro). Unfairness score = " in text
    rec = c.records[0]
    shown = [a for g in rec.groups for a in g.actions]
    assert all(0 <= a.effectiveness <= 1 for a in shown)
    json.dumps(c.to_dict(), allow_nan=False)
    assert set(c.to_frame()["subgroup"]) == {r.label for r in c.records}
    import matplotlib.figure

    assert isinstance(c.plot(), matplotlib.figure.Figure)
    micro = audit.csc("ECE", viewpoint="micro", phi=0.5, top=1)
    if micro.records:
        assert "counterfactual cost = " in micro.text or "No recourses" in micro.text


def test_binned_numeric_actions_move_values_linearly():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"g": rng.choice(["a", "b"], 400), "z": rng.uniform(1, 100, 400),
                       "k": rng.choice(["p", "q", "r", "s", "t"], 400)})  # fmt: skip
    rule = Rule("z > 60")
    audit = RecourseFairness(rule, protected="g", support=0.05, bins={"z": [0, 50, 100]},
                          max_len=1).fit(df)  # fmt: skip
    s = audit.subgroup_index("z=(0, 50]")
    # (0, 50] -> (50, 100]: x -> x + 50 > 60 exactly when x > 10
    then = audit.sub_then_[s]
    assert then.tolist() == [[1]]
    members = df[(df.z <= 50)]
    p = audit.table_.starts[s]
    for i, g in enumerate(audit.groups_):
        m = members[members.g == g]
        assert audit.table_.eff[p, i] == int((m.z > 10).sum()) > 0
        assert audit.table_.n[s, i] == len(m)


def test_auditdata_input_and_multivalued_groups():
    df = synthetic(900, seed=4)
    df["g"] = np.random.default_rng(5).choice(["a", "b", "c"], len(df))
    data = AuditData(df, features=KINDS, protected={"g": "a"})
    audit = RecourseFairness(RULE, support=0.05).fit(data)
    assert audit.groups_ == ("a", "b", "c")
    out = audit.scores("EE")
    d = out["d"]
    assert out["score"] == pytest.approx(d.max(1) - d.min(1))


def test_linear_model_micro_equals_macro_ece():
    """All members share the subgroup's values, so a linear score shifts equally: flipped sets
    are nested and the union of cheap actions is the best single one (micro = macro)."""
    rng = np.random.default_rng(2)
    n = 800
    df = pd.DataFrame({"g": rng.choice(["a", "b"], n), "u": rng.choice(["0", "1", "2"], n),
                       "v": rng.choice(["0", "1"], n), "s": rng.normal(size=n)})  # fmt: skip
    rule = Rule("s + 1.0 * (u == '2') + 0.5 * (u == '1') + 0.7 * (v == '1') > 1.2")
    kinds = {"u": "categorical", "v": "categorical"}
    audit = RecourseFairness(rule, protected="g", support=0.05, features=kinds).fit(df)
    for phi in (0.3, 0.7):
        a = audit.scores("ECE", "macro", phi=phi)["d"]
        b = audit.scores("ECE", "micro", phi=phi)["d"]
        assert np.array_equal(a, b)


# ------------------------------------------------------------------------------ bad input
def test_model_without_predict():
    with pytest.raises(InputError, match="cannot use object"):
        RecourseFairness(object(), protected="g").fit(synthetic())


def test_predictions_not_binary():
    with pytest.raises(InputError, match="0/1"):
        RecourseFairness(lambda d: np.full(len(d), 2), protected="g").fit(synthetic())


def test_protected_with_one_group():
    df = synthetic()
    df["g"] = "a"
    with pytest.raises(InputError, match="only one group"):
        RecourseFairness(RULE, protected="g").fit(df)


@pytest.mark.parametrize("support", [0, -0.1, 1.5, True, "0.1"])
def test_support_outside_range(support):
    with pytest.raises(InputError, match=r"support must be a number in \(0, 1\]"):
        RecourseFairness(RULE, protected="g", support=support).fit(synthetic())


def test_no_affected_rows():
    with pytest.raises(InputError, match="no affected"):
        RecourseFairness(Rule("x == x"), protected="g").fit(synthetic())


def test_unknown_feature_weight_names_the_column():
    with pytest.raises(InputError, match="unknown column.*'salary'"):
        RecourseFairness(RULE, protected="g", feature_weights={"salary": 2}).fit(synthetic())
    with pytest.raises(InputError, match="'nope'"):
        RecourseFairness(RULE, protected="g", immutable=["nope"]).fit(synthetic())


def test_protected_column_missing_and_rank_before_fit():
    with pytest.raises(InputError, match="'sex' is not in the data"):
        RecourseFairness(RULE, protected="sex").fit(synthetic())
    with pytest.raises(InputError, match="call run"):
        RecourseFairness(RULE, protected="g").rank("EE")


def test_progress_callback_reports_every_stage_to_completion():
    calls = []
    audit = RecourseFairness(RULE, protected="g", support=0.05, features=KINDS).fit(
        synthetic(), progress=lambda stage, done, total: calls.append((stage, done, total))
    )
    stages = [c[0] for c in calls]
    assert stages[0] == "mining" and "actions" in stages and stages[-1] == "effectiveness"
    for stage in ("mining", "actions", "effectiveness"):
        seq = [(d, t) for s, d, t in calls if s == stage]
        assert seq[0][0] == 0
        assert [d for d, _ in seq] == sorted(d for d, _ in seq)
        assert seq[-1][0] == seq[-1][1]  # finished
    assert [c for c in calls if c[0] == "mining"][-1][2] == 3  # two groups + unaffected
    assert [c for c in calls if c[0] == "effectiveness"][-1][2] == audit.table_.n_subgroups
    scored = []
    audit.evaluate(phi=(0.5,), budgets=[1.0], progress=lambda *a: scored.append(a))
    assert scored[0] == ("scoring", 0, 7) and scored[-1] == ("scoring", 7, 7)


def test_nonlinear_model_micro_differs_from_macro():
    """XOR-type decision: in subgroup {u=0, v=0} action u:=1 flips the s>0 members and v:=1
    the s<=0 ones, so no single action reaches 0.7 (macro ECE = inf) while the two together flip
    everyone (micro ECE = cost of the dearer action); hand-computed below."""
    n = 400
    s = np.tile([1.0, -1.0], n // 2)
    g = np.repeat(["a", "b"], n // 2)
    u = np.where(np.arange(n) % 4 < 2, "0", "1")
    v = np.where(np.arange(n) % 8 < 4, "0", "1")
    df = pd.DataFrame({"g": g, "u": u, "v": v, "s": s})
    rule = Rule(
        "((u == '1') and (v == '0') and (s > 0)) or ((v == '1') and (u == '0') and (s <= 0))"
    )
    kinds = {"u": "categorical", "v": "categorical"}
    audit = RecourseFairness(rule, protected="g", support=0.05, features=kinds,
                          feature_weights={"u": 1, "v": 2}, exact_features=False).fit(df)  # fmt: skip
    k = audit.subgroup_index("u=0; v=0")
    ma = audit.scores("ECE", "macro", phi=0.7)["d"][k]
    mi = audit.scores("ECE", "micro", phi=0.7)["d"][k]
    assert np.isinf(ma).all()  # best single action flips half of each group
    assert mi.tolist() == [2.0, 2.0]  # u:=1 (cost 1) flips s>0, v:=1 (cost 2) the rest
    ee_ma = audit.scores("EE", "macro")["d"][k]
    ee_mi = audit.scores("EE", "micro")["d"][k]
    assert ee_ma.tolist() == [0.5, 0.5] and ee_mi.tolist() == [1.0, 1.0]


def test_ranking_analysis_share_is_used(fitted):
    """The top-share tally counts the first ⌊share · non-Fair⌋ ranked subgroups."""
    audit, _, _ = fitted
    res = audit.evaluate(phi=(0.5,), budgets=[1.0])
    ee = res.rankings["EE"]
    ranked = ee.ranked()
    for share in (0.1, 0.5, 1.0):
        k = int(np.floor(share * len(ranked)))
        want = ranked.iloc[:k]["bias_against"].value_counts()
        row = res.ranking_analysis(share).set_index("metric").loc["EE"]
        for g in res.groups:
            assert row[f"top{100 * share:g}_against[{g}]"] == int(want.get(g, 0))
    full = res.ranking_analysis(1.0).set_index("metric").loc["EE"]
    assert sum(full[f"top100_against[{g}]"] for g in res.groups) == len(ranked)
    with pytest.raises(InputError, match=r"share must be a number in \(0, 1\]; got 0"):
        res.ranking_analysis(0)


def test_run_is_fit_then_evaluate(fitted):
    """One verb: run(data) gives the same tables as fit(data) + evaluate() (table or AuditData)."""
    _, df, _ = fitted
    kw = {"protected": "g", "support": 0.05, "features": KINDS, "feature_weights": {"x": 2}}
    two = RecourseFairness(RULE, **kw).fit(df).evaluate(phi=(0.5,), budgets=[1.0])
    one = RecourseFairness(RULE, **kw).run(df, phi=0.5, budgets=1.0)
    assert list(one.rankings) == list(two.rankings)
    for label in one.rankings:
        pd.testing.assert_frame_equal(one.rankings[label].table, two.rankings[label].table)
    assert one.stats == two.stats and one.budgets == two.budgets == (1.0,)
    data = AuditData(df, features=KINDS, protected={"g": "b"})
    three = RecourseFairness(RULE, support=0.05, feature_weights={"x": 2}).run(
        data, phi=[0.5], budgets=[1.0]
    )
    pd.testing.assert_frame_equal(three.to_frame(), one.to_frame())
    assert three.audited.protected_values == ("b",)


def test_refit_forgets_the_previous_subgroups():
    audit = RecourseFairness(RULE, protected="g", support=0.05, features=KINDS)
    first = audit.fit(synthetic()).subgroup_labels()
    audit.support = 0.3
    second = audit.fit(synthetic()).subgroup_labels()
    assert len(second) < len(first) == len(set(first))
    assert second == [
        "; ".join(f"{k}={v}" for k, v in audit.space_.describe(items).items())
        for items in audit.sub_items_
    ]
    assert audit.subgroup_index(second[-1]) == len(second) - 1


def test_fit_stages_are_short_functions():
    """Issue 12: no function of the engine over 80 lines (the split of fit and _effectiveness)."""
    import ast
    import inspect

    from primafacie.recourse import engine as module

    tree = ast.parse(inspect.getsource(module))
    long = [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 80
    ]
    assert long == []


def test_fit_and_evaluate_are_deprecated_names_of_run_and_score():
    import warnings

    df = synthetic(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the one verb warns nothing
        engine = RecourseFairness(RULE, protected="g", support=0.1)
        ran = engine.run(df, phi=0.5, budgets=[1.0])
        scored = engine.score(phi=0.5, budgets=[1.0])
    with pytest.warns(DeprecationWarning, match=r"RecourseFairness\.fit is deprecated.*use "
                                                r"RecourseFairness\.run"):  # fmt: skip
        old = RecourseFairness(RULE, protected="g", support=0.1).fit(df)
    with pytest.warns(DeprecationWarning, match=r"RecourseFairness\.evaluate is deprecated.*use "
                                                r"RecourseFairness\.score"):  # fmt: skip
        evaluated = old.evaluate(phi=0.5, budgets=[1.0])
    for res in (scored, evaluated):
        pd.testing.assert_frame_equal(res.to_frame(), ran.to_frame())
