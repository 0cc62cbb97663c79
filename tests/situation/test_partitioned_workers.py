"""Issue 22 item 4: the partitioned table computed and written where its partitions run.

The complainants are cut into partitions; each partition's task (a thread here, a Dask worker
on a cluster) computes its rows of every (method, k) and writes them as parts, after a first
pass that sends the client only each family's p-value histogram (the client turns the merged
histograms into the adjusted value of every distinct p-value). Every check compares with the
in-memory run of the same engine: the parts read back are its table row for row, the summary
is bit for bit its summary, whatever the partitioning and the correction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie import SCM, Rule, SituationTest
from primafacie.compute import Backend
from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data
from primafacie.neighbors.gower import GowerMatrix
from primafacie.situation import coordinates, partitioned, planning
from primafacie.situation.multiplicity import (
    adjust_distinct,
    adjust_p,
    merge_histograms,
    p_histogram,
)

METHODS = ["st", "cst", "cst_centers", "cf"]
CORRECTIONS = ["none", "bonferroni", "holm", "bh", "by"]


def test_adjust_distinct_by_hand():
    """p = .01, .02, .02, .5 (m = 4). BH: the tie .02 takes its last rank, 3: .02·4/3 =
    .02667; .01·4/1 = .04 is lowered to it; .5·4/4 = .5. Holm: the tie takes its first rank,
    2: .02·3 = .06; .01·4 = .04; .5·1 = .5 raised to nothing (.5 > .06)."""
    values, counts = p_histogram(np.array([0.02, 0.5, 0.01, np.nan, 0.02]))
    assert values.tolist() == [0.01, 0.02, 0.5] and counts.tolist() == [1, 2, 1]
    assert adjust_distinct(values, counts, "bh") == pytest.approx([0.08 / 3, 0.08 / 3, 0.5])
    assert adjust_distinct(values, counts, "holm") == pytest.approx([0.04, 0.06, 0.5])
    assert adjust_distinct(values, counts, "bonferroni") == pytest.approx([0.04, 0.08, 1.0])
    # BY: BH times c(4) = 1 + 1/2 + 1/3 + 1/4 = 25/12, capped at 1
    c4 = 25 / 12
    assert adjust_distinct(values, counts, "by") == pytest.approx(
        [0.08 / 3 * c4, 0.08 / 3 * c4, 1.0]
    )


@pytest.mark.parametrize("method", CORRECTIONS)
def test_adjust_distinct_is_adjust_p_bit_for_bit(method):
    """Histograms of arbitrary parts, merged, give every member the adjusted value
    adjust_p gives it over the whole family (ties, NaN, rounded p-values): exactly."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        m = int(rng.integers(1, 2000))
        p = np.round(rng.random(m) ** 3, int(rng.integers(1, 5)))
        p[rng.random(m) < 0.1] = np.nan
        cuts = np.sort(rng.integers(0, m, 3))
        values, counts = merge_histograms([p_histogram(x) for x in np.split(p, cuts)])
        assert counts.sum() == (~np.isnan(p)).sum()
        table = adjust_distinct(values, counts, method)
        got = np.full(m, np.nan)
        ok = ~np.isnan(p)
        got[ok] = table[np.searchsorted(values, p[ok])]
        assert np.array_equal(got.view(np.int64), adjust_p(p, method).view(np.int64))


@pytest.fixture(scope="module")
def loan():
    data = loan_world_data(n=700, seed=3)
    scm = SCM(edges=LOAN_EDGES).fit(data)
    return data, scm, Rule("AnnualSalary + 5 * AccountBalance > 225000")


def _parts_run(engine, loan, folder, monkeypatch, per_part):
    data, scm, rule = loan
    monkeypatch.setattr(partitioned, "PARQUET_MIN_ROWS", 10)
    monkeypatch.setattr(partitioned, "PARTITION_COMPLAINANTS", per_part)
    return engine.run_to_parts(data, folder, "tables/x/", scm=scm, decider=rule)


@pytest.mark.parametrize("correction", ["bh", "holm", "by"])
def test_partitions_equal_the_in_memory_table(loan, tmp_path, monkeypatch, correction):
    """Partitions of 37 complainants (several per family, the last one short): the parts, in
    name order, are the in-memory table row for row (values and dtypes), the correction being
    over every complainant of a family; the summary is the in-memory summary exactly."""
    data, scm, rule = loan
    engine = SituationTest(methods=METHODS, k=[5, 12], multiplicity=correction)
    whole = engine.run(data, scm=scm, decider=rule)
    res = _parts_run(engine, loan, tmp_path / "p", monkeypatch, 37)
    assert isinstance(res, partitioned.PartitionedResult)
    m = whole.n_complainants
    n_parts = -(-m // 37)
    assert n_parts > 3 and len(res.paths) == 8 * n_parts
    names = sorted(p.name for p in (tmp_path / "p").iterdir())
    assert names == [partitioned.part_name(i) for i in range(8 * n_parts)]  # nothing stray
    back = partitioned.read_parts(res.paths)
    pd.testing.assert_frame_equal(back, whole.table.reset_index(drop=True))
    pd.testing.assert_frame_equal(res.summary(), whole.summary())
    # a family's parts hold different complainants yet one correction: some adjusted p-value
    # differs from the one its partition alone would give
    differ = [
        not np.array_equal(adjust_p(part["p_value"].to_numpy(), correction),
                           part["p_adjusted"].to_numpy(), equal_nan=True)
        for part in (partitioned.read_parts([path]) for path in res.paths)
    ]  # fmt: skip
    assert any(differ)
    for method, k in [("cst", 12), ("st", 5)]:
        got = res.strongest(method, k, 20, ["delta", "ci_low"])
        want = whole.strongest(method, k, 20, ["delta", "ci_low"])
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True))
        block = whole.block(method, k).reset_index(drop=True)
        pd.testing.assert_frame_equal(block.iloc[got.index.to_numpy()], got)


def test_parts_rerun_byte_identical_whatever_the_threads(loan, tmp_path, monkeypatch):
    engine = SituationTest(methods=METHODS, k=[5, 12])
    _parts_run(engine, loan, tmp_path / "a", monkeypatch, 50)
    threads = SituationTest(methods=METHODS, k=[5, 12], backend=Backend(n_jobs=1))
    _parts_run(threads, loan, tmp_path / "b", monkeypatch, 50)
    a = {p.name: p.read_bytes() for p in sorted((tmp_path / "a").iterdir())}
    b = {p.name: p.read_bytes() for p in sorted((tmp_path / "b").iterdir())}
    assert a == b and len(a) > 8


def test_top_members_are_those_of_the_whole_lists(loan, tmp_path, monkeypatch):
    """The audit keeps no neighbour list: the members of the report's top rows are searched
    again for those complainants alone, and equal the lists of a run that kept them all."""
    data, scm, rule = loan
    engine = SituationTest(methods=METHODS, k=[5, 12])
    whole = engine.run(data, scm=scm, decider=rule)
    res = _parts_run(engine, loan, tmp_path / "p", monkeypatch, 64)
    method, k = res.main_test()
    assert list(res.neighbors) == [(method, k)]
    top = res.strongest(method, k, partitioned.TOP_ROWS, ["delta", "ci_low"])
    pos = top.index.to_numpy()
    ctrl, test = res.neighbors[(method, k)]
    want_ctrl, want_test = whole.neighbors[(method, k)]
    assert np.array_equal(ctrl[pos], want_ctrl[pos])
    assert np.array_equal(test[pos], want_test[pos])
    others = np.setdiff1d(np.arange(whole.n_complainants), pos)[:1]
    with pytest.raises(KeyError, match="not kept"):
        ctrl[others]


@pytest.mark.parametrize("legacy", [False, True])
def test_counterfactual_table_released_before_the_searches(loan, tmp_path, monkeypatch, legacy):
    """The audit's run drops the counterfactual table once the search spaces are built (its
    memory then serves the searches, the client's peak): the searches of a corrected run get
    no table; legacy mode's centres' search still reads its decisions, so there it is kept.
    The parts are those of a run that kept it (the in-memory table)."""
    from primafacie.situation.search import GroupSearch

    data, scm, rule = loan
    given = []
    search = GroupSearch.search

    def spy(self, data, plan, space, cf):
        given.append(cf)
        return search(self, data, plan, space, cf)

    monkeypatch.setattr(GroupSearch, "search", spy)
    opts = {"legacy": True, "interval": "wald"} if legacy else {}
    engine = SituationTest(methods=METHODS, k=[5, 12], **opts)
    res = _parts_run(engine, loan, tmp_path / "p", monkeypatch, 64)
    # the first call is the run's searches (the second, the report's top rows again)
    assert (given[0] is not None) == legacy
    whole = SituationTest(methods=METHODS, k=[5, 12], **opts).run(data, scm=scm, decider=rule)
    pd.testing.assert_frame_equal(res.to_frame(), whole.table.reset_index(drop=True))


def test_workers_write_and_the_client_gets_counts_only(loan, tmp_path, monkeypatch):
    """On a 2-worker LocalCluster the parts are byte-identical to the local run's (the held
    searches cut into slices of 40 queries, taken by the workers in turn), and what
    the tasks return to the client holds no per-complainant row: histograms of p-values,
    empty frames (the columns) and per part counts with the Δp of its cases. A partition's
    counts are sent once: pass 1 keeps them on its worker (futures, never gathered) and
    pass 2 runs on those futures, not on counts the client sends again."""
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    import dask
    from distributed import Client, LocalCluster

    from primafacie import compute

    data, scm, rule = loan
    local = _parts_run(SituationTest(methods=METHODS, k=[5, 12]), loan, tmp_path / "l",
                       monkeypatch, 90)  # fmt: skip
    returned: list = []
    real_map = Backend.map

    def spy(self, fn, items, shared=compute._NOTHING):
        out = real_map(self, fn, items, shared=shared)
        returned.append((fn.__name__, out))
        return out

    kept: list = []
    real_keep = Backend.keep

    def keep_spy(self, fn, items, shared=compute._NOTHING):
        out = real_keep(self, fn, items, shared=shared)
        kept.append((fn.__name__, [type(x).__name__ for x in out]))
        return out

    given: dict = {}

    def map_spy(self, fn, items, shared=compute._NOTHING):
        given[fn.__name__] = [type(x).__name__ for x in items]
        return spy(self, fn, items, shared)

    monkeypatch.setattr(Backend, "map", map_spy)
    monkeypatch.setattr(Backend, "keep", keep_spy)
    # what the client materialises of the coordinates: every GowerMatrix made in this process
    # (the workers are other processes); chunks of 64 rows, so a whole space's matrix shows
    made: list = []
    real_init = GowerMatrix.__post_init__

    def made_spy(self):
        real_init(self)
        made.append(len(self.num))

    top: list = []
    real_top = partitioned._held_top_lists

    def top_spy(*args):
        out = real_top(*args)
        top.append(out)
        return out

    # searches of at most 40 queries a task: every worker thread takes several slices in
    # turn (the next as it finishes one), and the parts are still the local run's bytes
    from primafacie.situation import search as search_module

    sliced: list = []
    real_slices = search_module.held_slices

    def slices_spy(m, threads, size=None):
        out = real_slices(m, threads, size)
        sliced.append((m, threads, len(out)))
        return out

    monkeypatch.setattr(search_module, "HELD_SLICE", 40)
    monkeypatch.setattr(search_module, "held_slices", slices_spy)
    monkeypatch.setattr(GowerMatrix, "__post_init__", made_spy)
    monkeypatch.setattr(partitioned, "_held_top_lists", top_spy)
    monkeypatch.setattr(coordinates, "COORDINATE_CHUNK", 64)
    monkeypatch.setattr(planning, "COUNTERFACTUAL_CHUNK", 64)
    with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=":0")  # fmt: skip
        client = Client(cluster, set_as_default=False)
        try:
            backend = Backend(kind="dask", n_jobs=2)
            monkeypatch.setitem(compute._CLIENTS, (None, 2), client)
            engine = SituationTest(methods=METHODS, k=[5, 12], backend=backend)
            remote = _parts_run(engine, loan, tmp_path / "d", monkeypatch, 90)
            pids = client.run(lambda: __import__("os").getpid())
        finally:
            client.close()
            cluster.close()
    assert len(pids) == 2
    # the run's three searches (control, test, centres) ran in 4 or more slices of <= 40
    assert len(sliced) >= 3 and all(t == 2 and n % 2 == 0 and n >= 4 for _, t, n in sliced)
    assert all(-(-m // n) <= 40 for m, _, n in sliced)
    a = {p.name: p.read_bytes() for p in sorted((tmp_path / "l").iterdir())}
    b = {p.name: p.read_bytes() for p in sorted((tmp_path / "d").iterdir())}
    assert a == b and len(a) == 8 * -(-local.n_complainants // 90) >= 16
    pd.testing.assert_frame_equal(remote.summary(), local.summary())
    tasks = {name: out for name, out in returned if name in ("_histograms_of", "_write_partition")}
    assert set(tasks) == {"_histograms_of", "_write_partition"}
    # pass 1's results (histograms and the partition's counts) stay on the workers: futures;
    # so do the coordinates of the counterfactual centres, one future per chunk of 64
    n_parts = -(-local.n_complainants // 90)
    n_chunks = -(-local.n_complainants // 64)
    assert kept == [
        ("_cf_coordinates", ["Future"] * n_chunks),
        ("_histograms", ["Future"] * n_parts),
    ]
    # the client made no coordinates but a chunk's (64 rows) while the data have 700 rows and
    # the complainants' centres ~350: the spaces' matrices and the centres stayed on the workers
    assert made and max(made) <= 64 < local.n_complainants
    # pass 1's histograms and pass 2 are tasks on those futures: the counts are not sent again
    assert given["_histograms_of"] == given["_write_partition"] == ["Future"] * n_parts
    for hist in tasks["_histograms_of"]:
        assert all(len(v) == len(c) <= 200 for v, c in hist.values())
    cases = remote.summary()[["cases", "n_significant"]].to_numpy().sum()
    floats = 0
    for empty, partials in tasks["_write_partition"]:
        assert isinstance(empty, pd.DataFrame) and len(empty) == 0
        assert len(empty.columns) == len(local.table.columns)
        for p in partials:
            assert set(p) == {"n", "untested", "cases", "significant", "significant_adjusted",
                              "delta_cases", "delta_significant"}  # fmt: skip
            floats += len(p["delta_cases"]) + len(p["delta_significant"])
    assert floats == cases  # one Δp per case, not a row per complainant
    # the report's top rows were searched on a worker (one task reading the held coordinates;
    # its lists came back), not by the client, and they are the local run's members bit for bit
    assert "_top_lists" not in given
    (lists,) = top
    assert lists.ctrl_list is not None and len(lists.ctrl_list) <= partitioned.TOP_ROWS
    assert list(remote.neighbors) == list(local.neighbors) == [remote.main_test()]
    for got, want in zip(remote.neighbors[remote.main_test()],
                         local.neighbors[local.main_test()], strict=True):  # fmt: skip
        assert np.array_equal(got.positions, want.positions)
        assert np.array_equal(got.values, want.values) and got.values.dtype == want.values.dtype


def test_top_members_search_stays_off_the_client_on_dask(loan):
    """On a Dask backend the top rows' search is one task (corrected mode: the client builds
    no strata or trees for it); locally it runs in this process. Either way the members are
    those of a run that kept every list."""
    data, scm, rule = loan
    calls: list = []

    class Recorded(Backend):  # runs the tasks here, recording which
        def map(self, fn, items, shared=None):
            calls.append(fn.__name__)
            return [fn(shared, item) for item in items]

    engine = SituationTest(methods=METHODS, k=[5, 12])
    out = engine.run(data, scm=scm, decider=rule, keep_state=True)
    plan, space = engine.state_.plan, engine.state_.space
    method, k = out.main_test()
    for kind, want in [("dask", ["_top_lists"]), ("local", [])]:
        calls.clear()
        tester = SituationTest(methods=METHODS, k=[5, 12], backend=Recorded(kind=kind, n_jobs=2))
        held = partitioned._top_members(tester, out, data, plan, space, None)
        assert calls == want
        ctrl, test = held.neighbors[(method, k)]
        want_ctrl, want_test = out.neighbors[(method, k)]
        assert len(ctrl) == partitioned.TOP_ROWS
        assert np.array_equal(ctrl.values, want_ctrl[ctrl.positions])
        assert np.array_equal(test.values, want_test[test.positions])
