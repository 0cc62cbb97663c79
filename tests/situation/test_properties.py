"""Invariants of the engine on random data (hypothesis, few examples to stay fast)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.situation import SituationTest

SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KS = [1, 3, 5]


def _world(seed: int, discrete: bool):
    rng = np.random.default_rng(seed)
    n = 60
    a = np.zeros(n, dtype=int)
    a[rng.choice(n, 25, replace=False)] = 1
    x1 = rng.normal(size=n) - 0.5 * a
    x2 = rng.normal(size=n)
    if discrete:
        x1, x2 = np.round(x1), np.round(x2)
    y = (x1 + x2 + rng.normal(scale=0.5, size=n) > 0).astype(int)
    df = pd.DataFrame({"x1": x1, "x2": x2, "a": a, "y": y, "uid": np.arange(n) + 100})
    data = AuditData(
        df,
        features={"x1": "numeric", "x2": "numeric"},
        protected={"a": 1},
        decision="y",
        id_column="uid",
    )
    cf = df.copy()
    cf.loc[a == 1, "x1"] += 0.5
    return data, cf


RULE = Rule("x1 + x2 > 0")
ALL = ["st", "cst", "cst_centers", "cf"]


@SETTINGS
@given(seed=st.integers(0, 10_000), discrete=st.booleans(), legacy=st.booleans())
def test_ranges_subsets_and_shared_control(seed, discrete, legacy):
    data, cf = _world(seed, discrete)
    # legacy reproduces the authors' Wald interval; the corrected runs use the default
    extra = {"interval": "wald"} if legacy else {}
    res = SituationTest(methods=ALL, k=KS, legacy=legacy, **extra).run(
        data, counterfactuals=cf, decider=RULE
    )
    t = res.to_frame(neighbors=True)
    assert t.delta.between(-1, 1).all()
    assert not (t.significant & ~t.discriminated).any()
    st_, cst = t[t.method == "st"].reset_index(), t[t.method == "cst"].reset_index()
    assert (st_.control_ids == cst.control_ids).all()
    assert np.array_equal(st_.p_c.to_numpy(), cst.p_c.to_numpy())
    cf_rows = t[t.method == "cf"]
    flags = cf_rows.groupby("row").discriminated.nunique()
    assert (flags == 1).all()  # CF flags do not depend on k
    summ = res.summary()
    assert (summ.n_significant <= summ.cases).all() and (summ.denominator == 25).all()


@SETTINGS
@given(seed=st.integers(0, 10_000), discrete=st.booleans())
def test_identity_counterfactuals_make_cst_equal_st(seed, discrete):
    data, _ = _world(seed, discrete)
    t = SituationTest(methods=["st", "cst"], k=KS).run(data, counterfactuals=data.frame).to_frame()
    a = t[t.method == "st"].drop(columns="method").reset_index(drop=True)
    b = t[t.method == "cst"].drop(columns="method").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


@SETTINGS
@given(seed=st.integers(0, 10_000), tau=st.floats(0, 0.5))
def test_raising_tau_never_adds_cases(seed, tau):
    data, cf = _world(seed, True)
    lo = SituationTest(methods=ALL, k=KS, tau=0.0).run(data, counterfactuals=cf, decider=RULE)
    hi = SituationTest(methods=ALL, k=KS, tau=tau).run(data, counterfactuals=cf, decider=RULE)
    t0, t1 = lo.to_frame(), hi.to_frame()
    assert not (t1.discriminated & ~t0.discriminated).any()
    assert not (t1.significant & ~t0.significant).any()


@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_row_order_does_not_matter_without_ties(seed):
    data, cf = _world(seed, False)  # continuous features: no distance ties
    perm = np.random.default_rng(seed).permutation(data.n)
    data2 = data.replace(frame=data.frame.iloc[perm].reset_index(drop=True))
    cf2 = cf.iloc[perm].reset_index(drop=True)
    cols = ["method", "k", "id", "p_c", "p_t", "delta", "discriminated", "significant"]
    r1 = SituationTest(methods=ALL, k=KS).run(data, counterfactuals=cf, decider=RULE).to_frame()
    r2 = SituationTest(methods=ALL, k=KS).run(data2, counterfactuals=cf2, decider=RULE).to_frame()
    a = r1[cols].sort_values(["method", "k", "id"]).reset_index(drop=True)
    b = r2[cols].sort_values(["method", "k", "id"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


@SETTINGS
@given(seed=st.integers(0, 10_000), chunk=st.integers(1, 9))
def test_local_and_chunked_runs_agree(seed, chunk):
    data, cf = _world(seed, True)
    r1 = SituationTest(methods=ALL, k=KS).run(data, counterfactuals=cf, decider=RULE)
    r2 = SituationTest(methods=ALL, k=KS, chunk_size=chunk).run(
        data, counterfactuals=cf, decider=RULE
    )
    r3 = SituationTest(methods=ALL, k=KS, algorithm="tree").run(
        data, counterfactuals=cf, decider=RULE
    )
    pd.testing.assert_frame_equal(r1.to_frame(neighbors=True), r2.to_frame(neighbors=True))
    pd.testing.assert_frame_equal(r1.to_frame(neighbors=True), r3.to_frame(neighbors=True))


def test_k_grid_equals_separate_runs():
    data, cf = _world(3, True)
    grid = SituationTest(methods=ALL, k=KS).run(data, counterfactuals=cf, decider=RULE).to_frame()
    for k in KS:
        one = SituationTest(methods=ALL, k=k).run(data, counterfactuals=cf, decider=RULE).to_frame()
        pd.testing.assert_frame_equal(grid[grid.k == k].reset_index(drop=True), one)


def test_threaded_backend_agrees_with_local():
    from primafacie.compute import Backend

    # issue 22: the default uses every usable core; one thread, two threads on small chunks
    # and the default give the same table bit for bit
    data, cf = _world(5, True)
    one = Backend(n_jobs=1)
    r1 = SituationTest(methods=ALL, k=KS, backend=one).run(data, counterfactuals=cf, decider=RULE)
    r2 = SituationTest(methods=ALL, k=KS, chunk_size=4, backend=Backend(n_jobs=2)).run(
        data, counterfactuals=cf, decider=RULE
    )
    r3 = SituationTest(methods=ALL, k=KS, chunk_size=7).run(data, counterfactuals=cf, decider=RULE)
    for r in (r2, r3):
        pd.testing.assert_frame_equal(
            r1.to_frame(neighbors=True), r.to_frame(neighbors=True), check_exact=True
        )


def test_rejected_complainants_filter():
    data, cf = _world(9, True)
    t = SituationTest(methods="st", k=3, complainants="rejected").run(data).to_frame()
    assert (t.decision == 0).all()
    assert len(t) == int(((data.decision_array() == 0) & data.protected_mask()).sum())
