"""The search on worlds with a known answer, its determinism, and local = Dask."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.alternatives import AlternativeSearch
from primafacie.compute import Backend
from primafacie.errors import InputError

from .worlds import world

FAST = dict(n_boot=200, folds=3)


@pytest.fixture(scope="module")
def proxy():
    data, model = world("proxy")
    return data, model, AlternativeSearch(**FAST).run(data, model)


def test_dropping_a_proxy_is_a_less_discriminatory_alternative(proxy):
    _, _, res = proxy
    assert res.lda_found
    best = res.best
    assert "proxy" in best["dropped"].split("; ")
    assert best["qualifies"] and best["status"] == "chosen: qualifies"
    t = res.test
    # the disparity improves with an interval above 0, on the held-out rows
    assert t["disparity_gain_low"] > 0
    assert best["holdout_disparity"] > res.baseline["holdout_disparity"]
    # and the utility is non-inferior within the tolerance
    assert t["utility_diff_bound"] > -0.01
    assert res.headline().startswith("Less discriminatory alternative found among")
    numbers = res.numbers()
    assert numbers["lda_found"] is True
    assert numbers["candidates"] == len(res.table) - 1
    assert "proxy" in numbers["best"]["dropped"]
    lo, hi = numbers["best"]["disparity_ci"]
    assert lo <= numbers["best"]["disparity"] <= hi


def test_the_choice_ignores_the_held_out_rows(proxy):
    data, model, res = proxy
    # the chosen candidate is the best certainty rank among those within tolerance with less
    # cross-validated disparity: a rule on cross-validated columns only
    t = res.table.iloc[1:]
    pool = t[t["within_tolerance"] & t["less_disparity_cv"]]
    assert (
        res.best["candidate"]
        == pool.sort_values("certainty_rank", kind="stable").iloc[0]["candidate"]
    )


def test_the_protected_attribute_is_never_an_input():
    data, model = world("proxy", n=1500)
    frame = data.frame.assign(g01=(data.frame["group"] == "p").astype(int))
    from sklearn.linear_model import LogisticRegression

    from primafacie.data import AuditData

    # the audited model reads the protected attribute itself (disparate treatment)
    lr = LogisticRegression().fit(frame[["x", "proxy", "g01"]], frame["y"])
    feats = {"x": "numeric", "proxy": "numeric"}
    d2 = AuditData(frame, features=feats, protected={"g01": 1}, decision="decision", outcome="y")
    res = AlternativeSearch(**FAST).run(d2, lr)
    assert not res.table["dropped"].str.contains("g01").any()  # never offered as a choice
    assert "disparate treatment" in " ".join(res.caveats())


@pytest.mark.parametrize("kind", ["legitimate", "fair"])
def test_none_found(kind):
    data, model = world(kind)
    res = AlternativeSearch(**FAST).run(data, model)
    assert not res.lda_found
    assert not res.table["qualifies"].any()
    assert res.headline().startswith("No less discriminatory alternative found among")
    if kind == "fair":
        assert res.nothing_to_improve()
        assert "no significant disparity to reduce" in res.headline()
    else:
        assert not res.nothing_to_improve()


def test_same_seed_same_table():
    data, model = world("proxy", n=800)
    a = AlternativeSearch(**FAST).run(data, model).to_frame()
    b = AlternativeSearch(**FAST).run(data, model).to_frame()
    assert a.to_csv(index=False) == b.to_csv(index=False)
    c = AlternativeSearch(**FAST, seed=1).run(data, model).to_frame()
    assert a.to_csv(index=False) != c.to_csv(index=False)


def test_threads_and_dask_give_the_same_table():
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    from primafacie.compute import close_dask_clients

    data, model = world("proxy", n=600)
    small = dict(n_boot=50, folds=2, drop_features=False, estimators=["decision_tree"])
    local = AlternativeSearch(**small).run(data, model).to_frame()
    threads = AlternativeSearch(**small).run(data, model, backend=Backend(n_jobs=2)).to_frame()
    try:
        dask = AlternativeSearch(**small).run(data, model, backend=Backend(kind="dask", n_jobs=2))
    finally:
        close_dask_clients()
    pd.testing.assert_frame_equal(local, threads)
    pd.testing.assert_frame_equal(local, dask.to_frame())


def test_search_space_counts_and_words():
    data, model = world("fair", n=1500)
    res = AlternativeSearch(
        **FAST, estimators=["decision_tree"], params={"clf__C": [0.1, 1.0]}
    ).run(data, model)
    t = res.table
    # 3 single drops + C(3, 2) pairs + 3 tree depths + 2 C values
    assert len(t) - 1 == 3 + 3 + 3 + 2
    words = res.search_space()
    assert "3 with one feature neutralised" in words
    assert "3 with a pair among the 3 features" in words or "3 with a pair" in words
    assert "3 other estimators (decision_tree)" in words
    assert "2 settings of the audited model's hyperparameters" in words
    assert np.isfinite(t["cv_utility"]).all()


def test_bad_settings_name_the_key():
    data, model = world("fair", n=300)
    with pytest.raises(InputError, match="analyses.alternatives.tolerance"):
        AlternativeSearch(tolerance=2).run(data, model)
    with pytest.raises(InputError, match="analyses.alternatives.params"):
        AlternativeSearch(params={"clf__nope": [1]}, **FAST).run(data, model)
    with pytest.raises(InputError, match="profit"):
        AlternativeSearch(utility={"profit": {"tp": 1}}).run(data, model)
    with pytest.raises(InputError, match="scikit-learn estimator"):
        AlternativeSearch().run(data, object())


def test_training_rows_refit_and_every_audited_row_compares():
    train, model = world("proxy", n=4000, seed=1)
    data, _ = world("proxy", n=3000, seed=2)
    res = AlternativeSearch(**FAST).run(data, model, train=train)
    s = res.settings
    assert (s["train"], s["n_search"], s["n_holdout"]) == ("file", 4000, 3000)
    assert res.lda_found and "proxy" in res.best["dropped"].split("; ")
    assert "training data file" in res.scope() and "4000 rows" in res.scope()
    # without training rows the audited rows are split: 30% held out
    own = AlternativeSearch(**FAST).run(data, model)
    assert own.settings["train"] == "audited rows" and own.settings["n_holdout"] == 900
    no_outcome = world("proxy", n=500, seed=3)[0]
    no_outcome.outcome = None
    with pytest.raises(InputError, match="train data file needs the true outcome"):
        AlternativeSearch(**FAST).run(data, model, train=no_outcome)
    missing = world("proxy", n=500, seed=3)[0]
    missing.frame = missing.frame.drop(columns=["noise"])
    with pytest.raises(InputError, match=r"\['noise'\] are not columns of the train data"):
        AlternativeSearch(**FAST).run(data, model, train=missing)
