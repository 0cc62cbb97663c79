"""Rank stability: the re-weighted recourse tables against a refit of FACTS on each resample."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.recourse import RecourseFairness
from primafacie.recourse.stability import (
    RankStabilityResult,
    bootstrap_weights,
    competition_rank,
    rank_stability,
    score_table,
    weighted_tables,
)

# a tiny world where every (x, y, w) cell is well filled in both groups of the affected and the
# unaffected rows, so a resample keeps the same frequent subgroups and actions (the refit
# reference then mines exactly what the fast method conditions on)
RULE = Rule("((x == 'hi') and (g == 'a')) or ((x != 'lo') and (y == 'v') and (w == 'q'))")


def tiny_world(n=960, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "x": rng.choice(["lo", "mid", "hi"], n),
            "y": rng.choice(["u", "v"], n),
            "w": rng.choice(["p", "q"], n),
        }
    )


def make_audit(legacy: bool = False) -> RecourseFairness:
    return RecourseFairness(
        RULE,
        protected="g",
        support=0.001,
        feature_weights={"x": 2.0, "y": 1.0, "w": 0.5},
        legacy=legacy,
    )


@pytest.fixture(scope="module")
def fitted():
    df = tiny_world()
    audit = make_audit()
    res = audit.run(df, phi=[0.3, 0.7], budgets=[1.0, 2.5])
    return df, audit, res


def _ranks_by_label(audit, res, table=None) -> dict[str, dict[str, int]]:
    """Competition rank of every subgroup (by label) under every definition of ``res``."""
    labels = audit.subgroup_labels()
    out = {}
    for label, r in res.rankings.items():
        if table is None:
            dense = audit.scores(**r.definition())["rank"]
        else:
            dense = score_table(table, r.metric, r.viewpoint, r.param, audit.legacy)
        out[label] = dict(zip(labels, competition_rank(dense).tolist(), strict=True))
    return out


def test_unit_weights_give_back_the_fitted_table(fitted):
    _, audit, _ = fitted
    (table,) = weighted_tables(audit, np.ones((1, len(audit.frame_)), np.int64), need_seq=True)
    t = audit.table_
    for name in ("n", "eff", "cum", "n_rec", "seq_cum"):
        assert np.array_equal(getattr(table, name), getattr(t, name)), name
    assert np.allclose(table.rc_sum, t.rc_sum, rtol=1e-12)
    # score_table reproduces the engine's own ranks for every definition
    assert _ranks_by_label(audit, fitted[2], table) == _ranks_by_label(audit, fitted[2])


def test_hand_example_of_weighted_counts():
    # subgroups x=lo and x=lo; y=u, both with members r0 (group a) and r1, r2 (group b), and
    # one action each (x=hi, cost 1); resample weights 2, 0, 3 for r0, r1, r2
    df = pd.DataFrame(
        {"g": ["a", "b", "b", "a", "b"], "x": ["lo", "lo", "lo", "hi", "hi"], "y": ["u"] * 5}
    )
    audit = RecourseFairness(Rule("x == 'hi'"), protected="g", support=0.1).fit(df)
    assert audit.subgroup_labels() == ["x=lo", "x=lo; y=u"]
    assert audit.table_.cost.tolist() == [1.0, 1.0]
    (table,) = weighted_tables(audit, np.array([[2, 0, 3, 0, 0]]))
    # x=hi flips everyone: a counts 2 (r0 twice), b counts 3 (r2 thrice, r1 not drawn)
    assert table.n.tolist() == [[2, 3], [2, 3]]
    assert table.eff.tolist() == [[2, 3], [2, 3]] and table.cum.tolist() == [[2, 3], [2, 3]]
    assert table.n_rec.tolist() == [[2, 3], [2, 3]]
    assert table.rc_sum.tolist() == [[2.0, 3.0], [2.0, 3.0]]


@pytest.mark.parametrize("legacy", [False, True])
def test_matches_a_refit_on_each_resample(legacy):
    """Slow reference: refit FACTS on the resampled rows (duplicated by their weight)."""
    df = tiny_world()
    audit = make_audit(legacy)
    res = audit.run(df, phi=[0.3, 0.7], budgets=[1.0, 2.5])
    weights = np.concatenate(list(bootstrap_weights(len(df), 4, seed=11)))
    tables = weighted_tables(audit, weights, need_seq=legacy)
    for w, table in zip(weights, tables, strict=True):
        boot = df.iloc[np.repeat(np.arange(len(df)), w)].reset_index(drop=True)
        ref = make_audit(legacy)
        ref_res = ref.run(boot, phi=[0.3, 0.7], budgets=[1.0, 2.5])
        assert sorted(ref.subgroup_labels()) == sorted(audit.subgroup_labels())
        assert list(ref_res.rankings) == list(res.rankings)
        assert _ranks_by_label(audit, res, table) == _ranks_by_label(ref, ref_res)
    # and the shares reported are those of the refits
    stab = rank_stability(audit, res, n_boot=4, weights=weights, top=3)
    first = next(iter(res.rankings))
    row = stab.to_frame().query("definition == @first").iloc[0]
    hits = 0
    for w in weights:
        boot = df.iloc[np.repeat(np.arange(len(df)), w)].reset_index(drop=True)
        ref = make_audit(legacy)
        ref_res = ref.run(boot, phi=[0.3, 0.7], budgets=[1.0, 2.5])
        hits += 0 < _ranks_by_label(ref, ref_res)[first][row["subgroup"]] <= 3
    assert row["in_top"] == hits / 4


def test_seeded_deterministic_and_block_free(fitted, monkeypatch):
    _, audit, res = fitted
    a = rank_stability(audit, res, n_boot=7, seed=5)
    assert a.to_frame().equals(rank_stability(audit, res, n_boot=7, seed=5).to_frame())
    import primafacie.recourse.stability as st

    monkeypatch.setattr(st, "MAX_BLOCK", 1)  # one resample per block
    assert a.to_frame().equals(rank_stability(audit, res, n_boot=7, seed=5).to_frame())
    w1 = np.concatenate(list(bootstrap_weights(50, 7, seed=5, block=2)))
    w2 = next(bootstrap_weights(50, 7, seed=5))
    assert np.array_equal(w1, w2) and (w1.sum(axis=1) == 50).all()


def test_result_words_and_tables(fitted):
    _, audit, res = fitted
    stab = rank_stability(audit, res, n_boot=10, seed=0, top=10)
    t = stab.to_frame()
    assert set(t["definition"]) <= set(res.rankings)
    assert ((t["in_top"] >= 0) & (t["in_top"] <= 1)).all()
    assert np.allclose(t["in_top"] + t["fair_share"] + t["absent_share"] <= 1 + 1e-12, True)
    s = stab.summary()
    assert list(s.columns)[:2] == ["definition", "top_subgroups"]
    assert stab.headline().startswith("Rank stability (10 bootstrap resamples of 960 rows): ")
    assert "960 audited rows" in stab.scope()
    assert any("mining" in c for c in stab.caveats())
    d = stab.to_dict()
    assert d["n_boot"] == 10 and len(d["rows"]) == len(t)
    fig = stab.plot()
    assert fig.axes[0].get_xlim() == (0.0, 1.0)


def test_identical_resample_keeps_every_top_subgroup(fitted):
    _, audit, res = fitted
    stab = rank_stability(audit, res, n_boot=1, weights=np.ones((3, len(audit.frame_)), int))
    assert (stab.to_frame()["in_top"] == 1).all()
    assert (stab.to_frame()["median_rank"] <= 10).all()


def test_bad_input():
    df = tiny_world(200)
    audit = make_audit()
    res = audit.run(df, phi=0.5, budgets=[1.0])
    with pytest.raises(InputError, match="n_boot"):
        rank_stability(audit, res, n_boot=0)
    with pytest.raises(InputError, match="weights must have 200 columns"):
        rank_stability(audit, res, n_boot=1, weights=np.ones((2, 5), int))


def test_headline_of_a_hand_table():
    t = pd.DataFrame({"definition": ["EE"] * 3, "title": ["EE"] * 3, "rank": [1, 2, 3],
                      "subgroup": ["a", "b", "c"], "in_top": [1.0, 0.95, 0.5]})  # fmt: skip
    res = RankStabilityResult(t, n_boot=20, seed=0, top=10, n_rows=100)
    assert res.headline() == (
        "Rank stability (20 bootstrap resamples of 100 rows): 2 of the 3 top subgroups under "
        "EE stay in the top 10 in at least 90% of resamples; least stable 'c' (50%)"
    )


def test_a_subgroup_absent_from_a_resample_is_out(fitted):
    df, audit, res = fitted
    # drop every group-a row with y=u (weight 0), keep the others once
    w = (~((df["g"] == "a") & (df["y"] == "u"))).to_numpy().astype(np.int64)[None, :]
    stab = rank_stability(audit, res, n_boot=1, weights=w, top=25)
    t = stab.to_frame()
    has_yu = t["subgroup"].str.contains("y=u")
    assert has_yu.any() and (~has_yu).any()
    assert (t.loc[has_yu, "absent_share"] == 1).all() and (t.loc[has_yu, "in_top"] == 0).all()
    # (a subgroup without y=u in its label may still hold only y=u rows of group a among the
    # rejected, e.g. w=q; x=mid, since y=v there is accepted; the others stay present)
    assert (t.loc[~has_yu, "absent_share"] == 0).any()


def test_a_top_that_cuts_a_tie_says_so(fitted):
    """Under a 25-way tie at rank 1 the followed 10 were the first by label, unsaid."""
    _, audit, res = fitted
    stab = rank_stability(audit, res, n_boot=2, seed=0, top=1)
    t = stab.to_frame()
    for label, r in res.rankings.items():
        rows = t[t["definition"] == label]
        if not len(rows):
            continue
        tied = int((r.ranked()["rank"] == rows["rank"].iloc[-1]).sum())
        assert rows["tied_not_followed"].iloc[0] == tied - 1
    cut = t[t["tied_not_followed"] > 0]
    said = [c for c in stab.caveats() if "cuts through a tie" in c]
    assert len(said) == cut["definition"].nunique()
    t2 = pd.DataFrame({"definition": ["EE"] * 2, "title": ["EE"] * 2, "rank": [1, 1],
                       "subgroup": ["a", "b"], "in_top": [1.0, 0.5], "absent_share": 0.0,
                       "tied_not_followed": 23})  # fmt: skip
    (caveat,) = [c for c in RankStabilityResult(t2, 20, 0, 2, 100).caveats() if "tie" in c]
    assert caveat.startswith("EE: the top 2 cuts through a tie: 23 more subgroup(s) share rank 1")
