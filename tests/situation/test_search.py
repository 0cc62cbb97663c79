"""situation/search.py: search spaces, neighbour searches and the groups they give."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from primafacie.data import AuditData
from primafacie.situation.planning import Planner
from primafacie.situation.search import GroupSearch, group_distances, group_members


def _run(method, k, legacy=False, cf=None):
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 0.5, 1.5, 2.5, 3.5],
                       "a": [1, 1, 1, 1, 0, 0, 0, 0], "y": [0, 0, 1, 1, 1, 1, 1, 0]})  # fmt: skip
    data = AuditData(df, features={"x": "numeric"}, protected={"a": 1}, decision="y")
    plan = Planner(methods=method, k=k, attribute=None, legacy=legacy, ties=None,
                   complainants="all", strict_k=True, reference=None).plan(data, None)  # fmt: skip
    search = GroupSearch(keep_neighbors=True, n_attributes=None, max_distance=None,
                         chunk_size=None, algorithm="auto", backend=None)  # fmt: skip
    space = search.space(data, plan, cf)
    return plan, space, search.search(data, plan, space, cf)


def test_range_scaled_space_and_lists_by_hand():
    plan, space, lists = _run(["st"], [1, 2])
    # one numeric feature of range 3.5: coordinates x / 3.5, Gower divisor 1
    assert np.allclose(space.X.num[:, 0], np.array([0, 1, 2, 3, 0.5, 1.5, 2.5, 3.5]) / 3.5)
    assert space.features == ["x"] and space.divisor == 1
    # control of row 0 (itself removed): rows 1, 2; factual test: rows 4, 5 (0.5, 1.5)
    assert lists.ctrl_list[0].tolist() == [1, 2] and lists.st_list[0].tolist() == [4, 5]
    # row 3 (x=3): test rows 7 (3.5) and 6 (2.5) tie at 0.5; the earlier row wins
    assert lists.st_list[3].tolist() == [6, 7]
    # negatives of the prefixes: control of row 0 = rows 1 (y=0), 2 (y=1) -> 1, 1
    assert lists.ctrl_counts.negatives(1)[0] == 1 and lists.ctrl_counts.negatives(2)[0] == 1
    assert lists.st_counts.sizes(2).tolist() == [2, 2, 2, 2]
    ctrl, test = group_members("st", 1, False, lists)
    assert ctrl[:, 0].tolist() == [1, 0, 1, 2] and test.shape == (4, 1)
    d_ctrl, d_test = group_distances((ctrl, test), "st", lists)
    assert d_ctrl.dtype == np.float32 and np.allclose(d_ctrl[:, 0], 1 / 3.5)
    assert np.allclose(d_test[0, 0], 0.5 / 3.5)


def test_legacy_control_lists_keep_the_complainant_and_pad_it():
    plan, _, lists = _run(["st"], [1], legacy=True)
    # legacy lists are the top k+1 protected rows, the complainant among them
    assert lists.self_pos.tolist() == [0, 0, 0, 0]
    ctrl, _ = group_members("st", 1, True, lists)
    assert (ctrl[:, 0] == -1).all()
    d_ctrl, _ = group_distances(group_members("st", 1, True, lists), "st", lists)
    assert np.isnan(d_ctrl[:, 0]).all()


def test_counterfactual_centres_use_the_factual_ranges():
    df_cf = pd.DataFrame({"x": [3.0, 4.0, 5.0, 6.0, 0.5, 1.5, 2.5, 3.5], "a": [1] * 4 + [0] * 4})
    plan, space, lists = _run(["cst"], [2], cf=df_cf)
    assert np.allclose(space.Xcf.num[:, 0], np.array([3, 4, 5, 6]) / 3.5)  # not re-fitted
    # searched at k + 1 (CST w/ reads one more); centre x = 3: 2.5 and 3.5 tie, earlier first
    assert lists.cf_list[0].tolist() == [6, 7, 5]
    assert lists.cf_counts.negatives(2).tolist() == [1, 1, 1, 1]  # row 7 is the one rejection
    assert lists.cf_counts.sizes(3).tolist() == [3, 3, 3, 3]


def test_a_held_search_builds_its_space_once_per_worker_and_answers_as_one_search(monkeypatch):
    """A search on held coordinates in 10 slices of at most 60 queries on two workers: each
    worker builds the search space's strata and trees once (``neighbors.reuse``: one build,
    then a hit per later slice, forgotten when the search ends) and the counts and lists are
    those of one local search of every query, whatever slice they were searched in."""
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    import dask
    from distributed import Client, LocalCluster

    from primafacie.compute import Backend
    from primafacie.neighbors import GowerMatrix, knn
    from primafacie.situation import search as S
    from primafacie.situation.coordinates import HeldMatrix
    from primafacie.situation.lists import ListReducer, prefix_lengths

    rng = np.random.default_rng(7)

    def matrix(n: int) -> GowerMatrix:
        num = np.round(rng.random((n, 3)), 2)  # rounded: ties at the k-th distance
        codes = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 3, n)]).astype(np.int16)
        return GowerMatrix(num, codes, (4, 3), ("n", "n", "n", "c", "c"))

    base, queries = matrix(3000), matrix(500)
    opts = {"algorithm": "tree", "divisor": 5.0, "decimals": 12, "ties": "first"}
    reducer = ListReducer(cols=prefix_lengths([5, 12], 13), neg=(rng.random(3000) < 0.4)
                          .astype(np.int8), keep=True)  # fmt: skip
    local = knn(queries, base, 13, **opts, reduce=reducer, backend=Backend(n_jobs=1))
    monkeypatch.setattr(S, "HELD_SLICE", 60)
    with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=":0")  # fmt: skip
        client = Client(cluster, set_as_default=False)
        try:
            reused: list = []
            real_run = client.run

            def run_spy(fn, *args, **kwargs):
                out = real_run(fn, *args, **kwargs)
                if fn is S.forget:
                    reused.append(sorted(v for v in out.values() if v is not None))
                return out

            monkeypatch.setattr(client, "run", run_spy)
            held_base = HeldMatrix(tuple(client.scatter([base], hash=False)), (3000,),
                                   base.levels, base.layout)  # fmt: skip
            pieces = [queries[np.arange(i, min(i + 100, 500))] for i in range(0, 500, 100)]
            held_q = HeldMatrix(tuple(client.scatter(pieces, hash=False)), (100,) * 5,
                                queries.levels, queries.layout)  # fmt: skip
            remote = S._held_knn(held_q, held_base, 13, opts, reducer)
        finally:
            client.close()
            cluster.close()
    assert len(S.held_slices(500, 2)) == 10
    assert len(remote) == len(local) == 4  # neg, size, list, dist
    for a, b in zip(remote, local, strict=True):
        np.testing.assert_array_equal(a, b)
    (per_worker,) = reused
    assert [b for b, _ in per_worker] == [1, 1], per_worker
    assert sum(h for _, h in per_worker) == 8
