"""situation/planning.py: who is tested against whom, and their counterfactuals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.decisions import Rule
from primafacie.errors import InputError
from primafacie.situation.planning import Planner, cf_decisions
from tests.shared import credit_audit


def _planner(**kw) -> Planner:
    base = dict(methods="st", k=2, attribute=None, legacy=False, ties=None,
                complainants="all", strict_k=True, reference=None)  # fmt: skip
    return Planner(**{**base, **kw})


@pytest.fixture()
def data():
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 2.5, 3.5],
                       "a": [1, 1, 1, 1, 0, 0, 0, 0], "y": [0, 0, 1, 1, 1, 1, 1, 0]})  # fmt: skip
    return AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")


def test_plan_rows_and_resolved_settings(data):
    plan = _planner(methods=["cst_w", "st", "cst"], k=[3, 1, 3]).plan(data, None)
    assert plan.methods == ["cst_centers", "st", "cst"] and plan.ks == [1, 3] and plan.kmax == 3
    assert plan.attribute == "a" and plan.ties == "first" and not plan.legacy
    assert plan.comp_rows.tolist() == [0, 1, 2, 3] == plan.ctrl_rows.tolist()
    assert plan.test_rows.tolist() == [4, 5, 6, 7]
    assert plan.need_cf and plan.need_centres
    assert _planner(legacy=True).plan(data, None).ties == "last"
    # decisions held in one byte per row (the plan lives through the whole test)
    assert plan.y.dtype == np.int8 and plan.y.tolist() == [0, 0, 1, 1, 1, 1, 1, 0]


def test_complainants_rejected_and_mask_narrow_only_the_complainants(data):
    plan = _planner(complainants="rejected").plan(data, None)
    assert plan.comp_rows.tolist() == [0, 1] and plan.ctrl_rows.tolist() == [0, 1, 2, 3]
    mask = np.array([True, False, True, False, True, True, True, True])
    assert _planner().plan(data, mask).comp_rows.tolist() == [0, 2]
    with pytest.raises(InputError, match="complainant_mask must have 8 booleans"):
        _planner().plan(data, np.ones(3, bool))


def test_strict_k_names_the_search_space_that_is_too_small(data):
    with pytest.raises(InputError, match="only 3 other protected rows"):
        _planner(k=4).plan(data, None)
    assert _planner(k=4, strict_k=False).plan(data, None).kmax == 4


def test_counterfactual_stage(data):
    assert _planner().counterfactual_stage(data, _planner().plan(data, None), None, None, None) == (
        None,
        None,
    )
    planner = _planner(methods="cst_centers")
    plan = planner.plan(data, None)
    cf = data.frame.assign(x=data.frame.x + 3.0 * data.frame.a)
    table, ycf = planner.counterfactual_stage(data, plan, None, cf, Rule("x < 2.9"))
    # centres x = 3, 4, 5, 6: none below 2.9, so b(x^CF) = 0 for every complainant
    assert table is not None and ycf.tolist() == [0, 0, 0, 0] and ycf.dtype == np.int64
    with pytest.raises(InputError, match="has 3 rows but the data have 8"):
        planner.counterfactual_stage(data, plan, None, cf.head(3), None)


def test_cf_decisions_decider_or_table_and_legacy_prefers_the_table(data):
    cf = data.frame.assign(y=[1, 1, 1, 1, 0, 0, 0, 0])
    rows = np.array([0, 1])
    rule = Rule("x < 0.5")  # row 0 only
    assert cf_decisions(data, cf, rows, rule, "cf", legacy=False).tolist() == [1, 0]
    assert cf_decisions(data, cf, rows, rule, "cf", legacy=True).tolist() == [1, 1]
    assert cf_decisions(data, cf, rows, None, "cf", legacy=False).tolist() == [1, 1]
    with pytest.raises(InputError, match="method 'cf' needs the counterfactual decision"):
        cf_decisions(data, cf.drop(columns="y"), rows, None, "cf", legacy=False)


def test_complainants_only_builds_the_complainants_rows_of_the_whole_table():
    from primafacie.causal import SCM
    from primafacie.situation.planning import complainant_rows

    rng = np.random.default_rng(0)
    n = 400
    a = rng.choice(["f", "m"], n)
    region = np.where(rng.random(n) < np.where(a == "f", 0.7, 0.3), "urban", "rural")
    x = rng.normal(size=n) + (a == "f") + (region == "urban")
    df = pd.DataFrame({"a": a, "region": region, "x": x, "id": np.arange(n).astype(str)})
    data = AuditData(df.assign(y=(x > 0.8).astype(int)), features={"x": "numeric",
                     "region": "categorical"}, protected={"a": "f"}, decision="y")  # fmt: skip
    scm = SCM([("a", "region"), ("a", "x"), ("region", "x")]).fit(data)
    planner = _planner(methods=["cst", "cf"], k=3, complainants="rejected")
    plan = planner.plan(data, None)
    rule = Rule("x > 0.8 and region != 'urban'")
    whole, ycf = planner.counterfactual_stage(data, plan, scm, None, rule)
    rows, ycf_rows = planner.counterfactual_stage(data, plan, scm, None, rule,
                                                  complainants_only=True)  # fmt: skip
    assert len(whole) == n and len(rows) == len(plan.comp_rows) < n
    # the same rows, bit for bit, with the same index, dtypes and centres' decisions
    pd.testing.assert_frame_equal(rows, whole.iloc[plan.comp_rows], check_exact=True)
    assert np.array_equal(ycf_rows, ycf) and ycf_rows.dtype == np.int64
    assert (rows["region"] != whole["region"].iloc[plan.comp_rows]).sum() == 0
    assert (rows["x"] != data.frame["x"].iloc[plan.comp_rows]).any()  # they did change
    for table in (whole, rows):
        pd.testing.assert_frame_equal(complainant_rows(table, plan), rows, check_exact=True)
    # a given table, or legacy mode (which reads every row), is whole whatever is asked
    legacy = _planner(methods="cst", k=3, legacy=True, complainants="rejected")
    table, _ = legacy.counterfactual_stage(data, legacy.plan(data, None), scm, None, None,
                                           complainants_only=True)  # fmt: skip
    assert len(table) == n
    table, _ = planner.counterfactual_stage(data, plan, None, whole, rule, complainants_only=True)
    assert len(table) == n


def test_complainants_only_stops_on_missing_counterfactual_values(data):
    class NaNSCM:  # an SCM whose counterfactual x is missing on every changed row
        edges = [("a", "x")]

        def counterfactual(self, frame, intervention, rows=None):
            out = frame.copy()
            out.loc[out.index if rows is None else out.index[rows], "x"] = np.nan
            return out

    planner = _planner(methods="cst", k=1)
    plan = planner.plan(data, None)
    for compact in (False, True):
        with pytest.raises(InputError, match=r"missing values in \['x'\] for complainant rows"):
            planner.counterfactual_stage(data, plan, NaNSCM(), None, None,
                                         complainants_only=compact)  # fmt: skip


def test_complainants_only_is_computed_in_chunks_bit_for_bit(monkeypatch):
    """The compact stage computes COUNTERFACTUAL_CHUNK complainants at a time (what the SCM
    allocates is bounded by a chunk, not by the data) and stacks the very rows, index, dtypes
    and centres' decisions of the one-shot table."""
    from primafacie.causal import SCM
    from primafacie.situation import planning

    rng = np.random.default_rng(1)
    n = 300
    a = rng.choice(["f", "m"], n)
    region = np.where(rng.random(n) < np.where(a == "f", 0.7, 0.3), "urban", "rural")
    x = rng.normal(size=n) + (a == "f") + (region == "urban")
    df = pd.DataFrame({"a": a, "region": region, "x": x})
    data = AuditData(df.assign(y=(x > 0.8).astype(int)), features={"x": "numeric",
                     "region": "categorical"}, protected={"a": "f"}, decision="y")  # fmt: skip
    scm = SCM([("a", "region"), ("a", "x"), ("region", "x")]).fit(data)
    planner = _planner(methods=["cst", "cf"], k=3)
    plan = planner.plan(data, None)
    rule = Rule("x > 0.8 and region != 'urban'")
    whole, ycf = planner._compact_stage(data, plan, scm, rule, "cf", chunk=len(plan.comp_rows))
    sizes = []
    real = SCM.counterfactual

    def spy(self, frame, *args, **kwargs):
        sizes.append(len(frame))
        return real(self, frame, *args, **kwargs)

    monkeypatch.setattr(SCM, "counterfactual", spy)
    monkeypatch.setattr(planning, "COUNTERFACTUAL_CHUNK", 16)
    rows, ycf_rows = planner.counterfactual_stage(data, plan, scm, None, rule,
                                                  complainants_only=True)  # fmt: skip
    m = len(plan.comp_rows)
    assert sizes == [16] * (m // 16) + ([m % 16] if m % 16 else []) and len(sizes) > 5
    pd.testing.assert_frame_equal(rows, whole, check_exact=True)
    assert rows.index.equals(pd.Index(plan.comp_rows))
    for col in ("x",):
        assert rows[col].to_numpy().tobytes() == whole[col].to_numpy().tobytes()
    assert np.array_equal(ycf_rows, ycf) and ycf_rows.dtype == np.int64
    # ST alone with the counterfactual methods' table: no decisions, same rows
    cst = _planner(methods=["cst"], k=3)
    table, none = cst.counterfactual_stage(data, cst.plan(data, None), scm, None, rule,
                                           complainants_only=True)  # fmt: skip
    assert none is None
    pd.testing.assert_frame_equal(table, whole, check_exact=True)


def test_complainants_only_chunks_whose_dtypes_differ_are_computed_in_one_go(monkeypatch):
    """Chunks that would stack into another dtype fall back to the one-shot table."""
    from primafacie.situation import planning

    class MixedSCM:  # x is float in the first chunk, object in the others
        edges = [("a", "x")]
        calls: list = []

        def counterfactual(self, frame, intervention, rows=None):
            self.calls.append(len(frame))
            out = frame.copy()
            if len(self.calls) > 1 and len(frame) < 4:
                out["x"] = out["x"].astype(object)
            return out

    planner = _planner(methods="cst", k=1)
    data = AuditData(
        pd.DataFrame({"x": np.arange(8.0), "a": [1] * 6 + [0] * 2, "y": [0, 1] * 4}),  # fmt: skip
        features={"x": "numeric"},
        protected={"a": 1},
        decision="y",
    )
    plan = planner.plan(data, None)
    monkeypatch.setattr(planning, "COUNTERFACTUAL_CHUNK", 3)
    scm = MixedSCM()
    table, _ = planner.counterfactual_stage(data, plan, scm, None, None, complainants_only=True)
    assert scm.calls == [3, 3, 6] and table["x"].dtype == np.float64 and len(table) == 6


# ---- the counterfactual stage as backend tasks (Planner.counterfactual_space)
def _searcher():
    from primafacie.situation.search import GroupSearch

    return GroupSearch(keep_neighbors=False, n_attributes=None, max_distance=None,
                       chunk_size=None, algorithm="auto", backend=None)  # fmt: skip


def _serial(planner, data, plan, scm, rule):
    """The stage as it runs in one process: the compact table, then the space from it."""
    cf, ycf = planner.counterfactual_stage(data, plan, scm, None, rule, complainants_only=True)
    return _searcher().space(data, plan, cf), ycf


def _fetched(space, client):
    """A space whose coordinates a Dask run held on the workers, with them gathered (the test
    reads them; the run's client never does): the factual matrices and the centres' pieces
    must be held, one chunk's centres per piece."""
    from dataclasses import replace

    from primafacie.situation.coordinates import (
        HeldMatrix,
        HeldSplit,
        SplitCoordinates,
        stack_pieces,
    )

    assert isinstance(space.X, HeldSplit) and isinstance(space.Xcf, HeldMatrix)
    assert len(space.Xcf.pieces) == len(space.Xcf.lengths) > 1
    parts = tuple(stack_pieces(*client.gather(list(p.pieces))) for p in space.X.parts)
    xcf = stack_pieces(*client.gather(list(space.Xcf.pieces)))
    assert len(xcf) == len(space.Xcf)
    return replace(space, X=SplitCoordinates(parts, space.X.rows), Xcf=xcf)


def _same_space(got, want) -> None:
    """Two spaces' coordinates and categories, bit for bit."""
    for a, b in ((got.X, want.X), (got.Xcf, want.Xcf)):
        assert a.num.tobytes() == b.num.tobytes() and a.num.shape == b.num.shape
        assert a.codes.tobytes() == b.codes.tobytes() and a.codes.dtype == b.codes.dtype
        assert a.levels == b.levels and a.layout == b.layout
    assert got.transformer.categories_ == want.transformer.categories_
    assert got.divisor == want.divisor


@pytest.mark.parametrize("methods", [["cst", "cf"], ["cst"]])
def test_counterfactual_space_in_chunks_on_threads_equals_the_serial_stage(monkeypatch, methods):
    """Chunks computed on the backend's threads give the serial stage's coordinates, ŷ^CF and
    categories bit for bit, and the table never comes back (cf is None)."""
    from primafacie.compute import Backend
    from primafacie.situation import planning

    data, rule, scm = credit_audit(900)
    planner = _planner(methods=methods, k=3)
    plan = planner.plan(data, None)
    want, ycf = _serial(planner, data, plan, scm, rule)
    monkeypatch.setattr(planning, "COUNTERFACTUAL_CHUNK", 64)
    for backend in (None, Backend(n_jobs=1), Backend(n_jobs=2)):
        cf, got, ycf_got = planner.counterfactual_space(data, plan, scm, rule, _searcher(),
                                                        backend)  # fmt: skip
        assert cf is None
        _same_space(got, want)
        if ycf is None:
            assert ycf_got is None
        else:
            assert ycf_got.dtype == np.int64 and ycf_got.tobytes() == ycf.tobytes()


class _RelabelSCM:
    """Wraps a fitted SCM: region 'urban' becomes a value the data never hold ('zz') in the
    rows from position ``after`` on (so only a later chunk holds it), and x optionally inf."""

    def __init__(self, scm, after, inf=False):
        self.scm, self.after, self.inf, self.edges = scm, after, inf, scm.edges

    def counterfactual(self, frame, intervention, rows=None):
        out = self.scm.counterfactual(frame, intervention=intervention, rows=rows)
        late = out.index >= self.after
        out.loc[late & (out["region"] == "urban"), "region"] = "zz"
        if self.inf:
            out.loc[late, "income"] = np.inf
        return out


def test_counterfactual_space_learns_a_category_only_a_later_chunk_holds(monkeypatch):
    """A counterfactual category absent from the data and from the first chunks gets the code
    the whole table gives it (the chunks' first-occurrence rows carry it to the fit)."""
    from primafacie.situation import planning

    data, rule, fitted = credit_audit(900)
    planner = _planner(methods=["cst", "cf"], k=3)
    plan = planner.plan(data, None)
    scm = _RelabelSCM(fitted, after=int(plan.comp_rows[300]))
    want, ycf = _serial(planner, data, plan, scm, rule)
    assert "zz" in want.transformer.categories_["region"]
    monkeypatch.setattr(planning, "COUNTERFACTUAL_CHUNK", 64)
    cf, got, ycf_got = planner.counterfactual_space(data, plan, scm, rule, _searcher(), None)
    assert cf is None
    _same_space(got, want)
    assert ycf_got.tobytes() == ycf.tobytes()


def test_counterfactual_space_stops_as_the_serial_stage(monkeypatch, data):
    """A value the coordinates refuse (inf in a later chunk), a missing value, no decider:
    the very error of the serial stage."""
    from primafacie.situation import planning

    credit, rule, fitted = credit_audit(600)
    planner = _planner(methods=["cst", "cf"], k=3)
    plan = planner.plan(credit, None)
    scm = _RelabelSCM(fitted, after=int(plan.comp_rows[200]), inf=True)
    with pytest.raises(InputError) as serial:
        _serial(planner, credit, plan, scm, rule)
    monkeypatch.setattr(planning, "COUNTERFACTUAL_CHUNK", 64)
    with pytest.raises(InputError) as tasks:
        planner.counterfactual_space(credit, plan, scm, rule, _searcher(), None)
    assert str(tasks.value) == str(serial.value) and "infinite" in str(tasks.value)
    with pytest.raises(InputError, match="method 'cf' needs the counterfactual decision"):
        planner.counterfactual_space(credit, plan, fitted, None, _searcher(), None)

    class NaNSCM:  # the counterfactual x is missing on every changed row
        edges = [("a", "x")]

        def counterfactual(self, frame, intervention, rows=None):
            return frame.assign(x=np.nan)

    small = _planner(methods="cf", k=1)
    with pytest.raises(InputError, match=r"missing values in \['x'\] for complainant rows"):
        small.counterfactual_space(data, small.plan(data, None), NaNSCM(), None, _searcher(), None)


def test_counterfactual_space_runs_as_worker_tasks_bit_for_bit(monkeypatch):
    """On a 2-worker LocalCluster the chunks' counterfactuals are computed by the workers
    (both hold some of the kept tables; this process never calls the SCM) and the space and
    ŷ^CF are the serial stage's bit for bit (a task runs with one BLAS thread, this process
    with the machine's)."""
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    import dask
    from distributed import Client, LocalCluster

    from primafacie import compute
    from primafacie.causal import SCM
    from primafacie.compute import Backend
    from primafacie.situation import planning

    data, rule, scm = credit_audit(1500)
    planner = _planner(methods=["st", "cst", "cst_centers", "cf"], k=3)
    plan = planner.plan(data, None)
    want, ycf = _serial(planner, data, plan, scm, rule)
    monkeypatch.setattr(planning, "COUNTERFACTUAL_CHUNK", 100)
    held: list = []
    real_keep_each = compute.keep_each

    def keep_spy(*args, **kwargs):
        out = real_keep_each(*args, **kwargs)
        held.extend(out)
        return out

    calls: list = []
    real = SCM.counterfactual

    def here(self, *args, **kwargs):  # this process only: the workers import their own SCM
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(compute, "keep_each", keep_spy)
    monkeypatch.setattr(SCM, "counterfactual", here)
    with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=":0")  # fmt: skip
        client = Client(cluster, set_as_default=False)
        try:
            monkeypatch.setitem(compute._CLIENTS, (None, 2), client)
            backend = Backend(kind="dask", n_jobs=2)
            cf, got, ycf_got = planner.counterfactual_space(data, plan, scm, rule, _searcher(),
                                                            backend)  # fmt: skip
            holders = {w for f in held for w in client.who_has([f]).get(f.key, ())}
            # the coordinates stayed on the workers (gathered here only to compare them)
            got = _fetched(got, client)
        finally:
            client.close()
            cluster.close()
    m = len(plan.comp_rows)
    assert len(held) == -(-m // 100) > 4 and not calls and cf is None
    assert len(holders) == 2
    _same_space(got, want)
    assert ycf_got.dtype == np.int64 and ycf_got.tobytes() == ycf.tobytes()


def test_counterfactual_space_lost_chunks_fall_back_to_the_serial_stage(monkeypatch):
    """A pass that fails for a reason other than bad input (a worker lost with the chunks
    scattered to it) is computed again by the serial stage: the same bits."""
    from primafacie.situation import planning

    data, rule, scm = credit_audit(600)
    planner = _planner(methods=["cst", "cf"], k=3)
    plan = planner.plan(data, None)
    want, ycf = _serial(planner, data, plan, scm, rule)

    def lost(done):
        raise RuntimeError("a worker died")

    monkeypatch.setattr(planning, "_cf_summary", lost)
    cf, got, ycf_got = planner.counterfactual_space(data, plan, scm, rule, _searcher(), None)
    assert cf is not None and len(cf) == len(plan.comp_rows)
    _same_space(got, want)
    assert ycf_got.tobytes() == ycf.tobytes()
