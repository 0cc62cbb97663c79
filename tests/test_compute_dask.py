"""The Dask backend on a LocalCluster of processes gives results identical to the local one.

Every analysis whose work grows with the data maps its chunks through
:mod:`primafacie.compute`: situation testing (complainant chunks, index scattered once),
recourse (subgroup x action batches, model scattered once), principal fairness (bootstrap
replicates) and certainty (counts over row partitions). Each test compares the Dask run with
the local one exactly; one kills a worker mid-run; one runs ``primafacie audit`` on an
existing cluster named by ``compute: {backend: dask, address: ...}``.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import yaml

pytest.importorskip("distributed", reason="the [dask] extra is not installed")

from distributed import Client, LocalCluster  # noqa: E402

from primafacie import SCM, Rule, SituationTest  # noqa: E402
from primafacie.compute import Backend, close_dask_clients, map_chunks  # noqa: E402
from primafacie.datasets.loan_world import LOAN_EDGES, loan_world_data  # noqa: E402
from tests.shared import credit_audit  # noqa: E402

METHODS = ["st", "cst", "cst_centers", "cf"]

#: This process's MALLOC_TRIM_THRESHOLD_ before any cluster started (a nanny writes Dask's).
_TRIM_BEFORE = os.environ.get("MALLOC_TRIM_THRESHOLD_")

#: This process's setting of the workers' profiler before any cluster started.
_PROFILE_BEFORE = __import__("dask").config.get("distributed.worker.profile.enabled")


@pytest.fixture(scope="module")
def dask_backend():
    # The cluster starts without Dask's active memory manager: every 2 s it may drop all but
    # one replica of the broadcast ``shared`` input when no task needs it yet (a slow, loaded
    # machine lets 2 s pass between scatter and submission); the other worker then fetches a
    # copy of the peer's object, not the pristine one, and the per-worker counter below starts
    # above 1 (seen under make test's parallel workers at load 20).
    import dask

    backend = Backend(kind="dask", n_jobs=2)
    with dask.config.set({"distributed.scheduler.active-memory-manager.start": False}):
        assert backend.map(len, [[1]]) == [1]  # the LocalCluster is created here
    yield backend
    close_dask_clients()


def test_map_chunks_on_processes_in_order(dask_backend):
    out = map_chunks(lambda idx: int(idx.sum()), np.arange(10), chunk_size=3, backend=dask_backend)
    assert out == [3, 12, 21, 9]


def test_shared_input_is_scattered_once_not_sent_per_chunk(dask_backend):
    """A 4 MB shared input reaches every task, but each worker process holds ONE copy that all
    its tasks read: a counter kept in it (a test-only write) counts every task of its worker,
    where per-task copies would each count 1."""
    # not a dict or tuple: Dask rebuilds those containers (shallowly) for every task
    shared = SimpleNamespace(data=np.arange(500_000, dtype=np.float64), calls=0)  # 4 MB

    def fn(shared, idx):
        shared.calls += 1
        return os.getpid(), shared.calls, float(shared.data[idx].sum())

    chunks = [np.arange(i, i + 3) for i in range(0, 60, 3)]
    out = dask_backend.map(fn, chunks, shared=shared)
    assert [o[2] for o in out] == [float(c.sum()) for c in chunks]
    per_worker: dict[int, list[int]] = {}
    for pid, calls, _ in out:
        per_worker.setdefault(pid, []).append(calls)
    for calls in per_worker.values():
        assert sorted(calls) == list(range(1, len(calls) + 1)), per_worker
    assert max(len(c) for c in per_worker.values()) > 1


def test_items_carried_in_the_graph_raise_no_large_graph_warning(dask_backend):
    """Items of 16 MB (over Dask's 10 MB threshold) go in the graph without Dask's "Sending
    large graph" warning reaching the user (the audit at 10^7 printed it twice), below
    :data:`compute.GRAPH_WARNING`; this process's Dask setting is left as it was."""
    import warnings

    import dask

    from primafacie import compute

    before = dask.config.get("distributed.admin.large-graph-warning-threshold")
    items = [np.ones(1_000_000), np.ones(1_000_000)]  # 2 x 8 MB
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert dask_backend.map(len, items) == [1_000_000, 1_000_000]
        kept = dask_backend.keep(len, items)
        assert [f.result() for f in kept] == [1_000_000, 1_000_000]
    assert not [w for w in seen if "large graph" in str(w.message)], [str(w.message) for w in seen]
    assert dask.config.get("distributed.admin.large-graph-warning-threshold") == before
    assert dask.utils.parse_bytes(compute.GRAPH_WARNING) == 2**30


def test_threads_submitting_at_once_leave_the_dask_setting_as_it_was(dask_backend):
    """Overlapped analyses submit from several threads: each raises the graph threshold for
    its own submission only, and after them the process's setting is the one before (the
    threads' restores do not interleave)."""
    from concurrent.futures import ThreadPoolExecutor

    import dask

    before = dask.config.get("distributed.admin.large-graph-warning-threshold")
    items = [np.ones(10) for _ in range(4)]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: dask_backend.map(len, items), range(32)))
    assert got == [[10] * 4] * 32
    assert dask.config.get("distributed.admin.large-graph-warning-threshold") == before


def test_workers_keep_glibcs_adaptive_mmap_threshold(dask_backend):
    """The LocalCluster's workers run without Dask's ``MALLOC_TRIM_THRESHOLD_=65536``, which
    fixes glibc's mmap threshold (every large chunk array mapped and unmapped: measured ~4x the
    system CPU of a search); a value set in this process's environment is inherited. (Dask's
    nanny also writes its variables into the environment of the process that starts the
    cluster: compared with the value before any cluster started.)"""
    from primafacie import compute

    client = compute._dask_client(None, 2)
    seen = client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_"))
    assert len(seen) == 2
    assert set(seen.values()) == {_TRIM_BEFORE}


def test_workers_run_without_the_statistical_profiler(dask_backend):
    """The LocalCluster's workers do not sample their tasks' stacks every 10 ms for the
    dashboard (CPU taken from the tasks, and from idle workers); this process's own Dask
    configuration is left as it was."""
    import dask

    from primafacie import compute

    client = compute._dask_client(None, 2)
    seen = client.run(lambda: dask.config.get("distributed.worker.profile.enabled"))
    assert len(seen) == 2
    assert set(seen.values()) == {False}
    assert dask.config.get("distributed.worker.profile.enabled") == _PROFILE_BEFORE


def test_situation_test_identical_on_dask(dask_backend):
    data = loan_world_data(n=1500, seed=3)
    scm = SCM(edges=LOAN_EDGES).fit(data)
    rule = Rule("AnnualSalary + 5 * AccountBalance > 225000")
    settings = dict(methods=METHODS, k=[5, 15], chunk_size=97)
    local = SituationTest(**settings).run(data, scm=scm, decider=rule)
    remote = SituationTest(**settings, backend=dask_backend).run(data, scm=scm, decider=rule)
    a, b = local.to_frame(), remote.to_frame()
    assert len(a) > 0
    assert a.equals(b)
    assert local.summary().equals(remote.summary())


@pytest.mark.parametrize("algorithm", ["tree", "brute"])
def test_credit_world_situation_identical_on_dask(dask_backend, algorithm):
    """The credit world (7 mixed features, 11 Gower columns): stratified tree and blocked
    brute force, neighbour lists kept, identical on Dask."""
    data, rule, scm = credit_audit(1200)
    settings = dict(methods=METHODS, k=[5, 15], chunk_size=150, algorithm=algorithm)
    local = SituationTest(**settings).run(data, scm=scm, decider=rule)
    remote = SituationTest(**settings, backend=dask_backend).run(data, scm=scm, decider=rule)
    assert local.to_frame().equals(remote.to_frame())
    assert local.summary().equals(remote.summary())


def _adult_slice(fit_adult_model, data_dir: Path, rows: int):
    model, _, X_test, _, _ = fit_adult_model(data_dir, seed=131313, protected="sex")
    return model, X_test.iloc[:rows].reset_index(drop=True)


def test_adult_recourse_identical_on_dask(dask_backend, require_data, data_dir, adult_fit):
    """FACTS on 4,000 Adult test rows: chunks of 20,000 (member, action) rows on Dask give the
    same table, statistics (rows sent to the model included) and rankings as one thread."""
    from primafacie.recourse import RecourseFairness

    require_data("adult", "adult.data")
    require_data("adult", "adult.test")
    model, X = _adult_slice(adult_fit, data_dir, 4000)
    features = {c: "categorical" for c in X.columns}
    features.update({"capital-gain": "numeric", "capital-loss": "numeric"})

    def fit(backend):
        return RecourseFairness(
            model, protected="sex", support=0.05, immutable=["sex", "race"], features=features,
            chunk_rows=20_000, backend=backend,
        ).fit(X)  # fmt: skip

    local, remote = fit(None), fit(dask_backend)
    assert local.stats_["valid_pairs"] > 0
    assert remote.stats_ == local.stats_
    assert pickle.dumps(remote.table_) == pickle.dumps(local.table_)
    ranked = [a.rank("equal-effectiveness", phi=0.3).to_frame() for a in (local, remote)]
    assert ranked[0].equals(ranked[1])


def test_recourse_threads_identical_and_predicted_rows_replayed():
    """Threads (no shared cache between tasks) count the rows sent to the model as one thread
    does: 3 distinct modified rows per action set here, whatever the chunking."""
    from primafacie.recourse import RecourseFairness

    rng = np.random.default_rng(0)
    n = 600
    table = pd.DataFrame({
        "g": rng.choice(["f", "m"], n), "a": rng.choice(list("abc"), n),
        "b": rng.choice(list("xy"), n), "c": rng.integers(0, 4, n).astype(str),
    })  # fmt: skip
    rule = Rule("c == '3'")
    kw = dict(protected="g", support=0.05, chunk_rows=50)
    one = RecourseFairness(rule, **kw).fit(table)
    two = RecourseFairness(rule, **kw, backend=Backend(n_jobs=2)).fit(table)
    assert two.stats_ == one.stats_
    assert pickle.dumps(two.table_) == pickle.dumps(one.table_)


def test_principal_bootstrap_identical_on_dask(dask_backend):
    from primafacie.principal import PrincipalFairness

    rng = np.random.default_rng(4)
    n = 3000
    df = pd.DataFrame({
        "g": rng.choice(["f", "m"], n), "s": rng.integers(0, 2, n),
        "y": rng.integers(0, 2, n), "c": rng.choice(["u", "v"], n),
    })  # fmt: skip
    kw = dict(definitions=[1, 2], covariates=["c"], n_boot=600, seed=7, protected={"g": "f"},
              decision="s", outcome="y")  # fmt: skip
    local = PrincipalFairness(**kw).run(df)
    remote = PrincipalFairness(**kw, backend=dask_backend).run(df)
    assert local.boot is not None
    assert pickle.dumps(local.boot) == pickle.dumps(remote.boot)
    assert local.to_frame().equals(remote.to_frame())


def test_certainty_partitioned_counts_identical_on_dask(dask_backend):
    from primafacie.certainty import CertaintyRanking
    from primafacie.certainty.counts import count_events, count_partitioned

    rng = np.random.default_rng(5)
    codes = rng.integers(0, 3, 2500)
    e1, e2 = rng.integers(0, 2, (2500, 4)), rng.integers(0, 2, (2500, 4))
    k, n = count_events(codes, 3, e1, e2)
    k2, n2 = count_partitioned(codes, 3, e1, e2, backend=dask_backend, partition_rows=700)
    assert np.array_equal(k, k2) and np.array_equal(n, n2)
    # by hand: group 0's trials of decision-maker 0 are its rows in E2
    assert n[0, 0] == int(((codes == 0) & (e2[:, 0] == 1)).sum())

    df = pd.DataFrame({"g": rng.choice(["f", "m", "x"], 2500), "d1": rng.integers(0, 2, 2500),
                       "d2": rng.integers(0, 2, 2500)})  # fmt: skip
    dms = {"one": "d1", "two": "d2"}
    local = CertaintyRanking(protected="g", favorable=1).run(df, dms)
    remote = CertaintyRanking(protected="g", favorable=1, backend=dask_backend).run(df, dms)
    assert local.to_frame().equals(remote.to_frame())


def _kill_a_worker_mid_run(client: Client, done: threading.Event, killed: list) -> None:
    """Once a chunk task of the run has finished, SIGKILL the worker process running tasks."""

    def finished(dask_scheduler=None):
        return sum(
            ts.state == "memory" and "with_shared" in str(ts.key)
            for ts in dask_scheduler.tasks.values()
        )

    while not done.is_set():
        if client.run_on_scheduler(finished) >= 1:
            pids = client.run(os.getpid)  # {worker address: its process id}
            victim = sorted(pids)[0]
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(victim)
            return
        time.sleep(0.02)


def test_killed_worker_changes_nothing():
    """A worker process SIGKILLed after the first chunk completes: the scheduler re-runs its
    tasks on the other worker (and the restarted one), the scattered index survives on the
    other replica, and the output equals the local one."""
    data, rule, scm = credit_audit(2000)
    settings = dict(methods=METHODS, k=[5, 15], chunk_size=10, algorithm="brute")
    local = SituationTest(**settings).run(data, scm=scm, decider=rule)
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    client = Client(cluster)
    try:
        backend = Backend(kind="dask", address=cluster.scheduler_address, retries=3)
        done, killed = threading.Event(), []
        killer = threading.Thread(target=_kill_a_worker_mid_run, args=(client, done, killed))
        killer.start()
        try:
            remote = SituationTest(**settings, backend=backend).run(data, scm=scm, decider=rule)
        finally:
            done.set()
            killer.join()
        assert killed, "the run finished before a worker could be killed"
        assert local.to_frame().equals(remote.to_frame())
        assert local.summary().equals(remote.summary())
    finally:
        close_dask_clients()
        client.close()
        cluster.close()


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix in (".csv", ".json") and "manifest" not in p.name
    }


def test_audit_on_an_existing_cluster_through_audit_yaml(tmp_path):
    """``compute: {backend: dask, address: ...}`` in audit.yaml: ``primafacie audit`` runs
    every analysis on the running cluster and writes the same tables and results.json as the
    local audit (the config's compute block aside)."""
    from typer.testing import CliRunner

    from primafacie.cli import app
    from tests.shared import demo_with_result, private_copy

    # the local audit: the demo tests/test_audit.py reads, built once per test run (the
    # comparison holds for any demo; a private copy, as the Dask config is written beside it)
    private_copy(demo_with_result(n=300, seed=1)[0], tmp_path).rename(tmp_path / "local")
    cfg = yaml.safe_load((tmp_path / "local" / "audit.yaml").read_text())
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    try:
        cfg["compute"] = {"backend": "dask", "address": cluster.scheduler_address}
        dask_yaml = tmp_path / "local" / "audit_dask.yaml"
        dask_yaml.write_text(yaml.safe_dump(cfg, sort_keys=False))  # key order matters
        out = tmp_path / "dask"
        result = CliRunner().invoke(app, ["audit", str(dask_yaml), "--out", str(out),
                                          "--no-progress"])  # fmt: skip
        assert result.exit_code == 0, result.output
        with Client(cluster.scheduler_address) as probe:  # the cluster did the work
            prefixes = probe.run_on_scheduler(
                lambda dask_scheduler: sorted(dask_scheduler.task_prefixes)
            )
            assert "with_shared" in prefixes  # chunk tasks ran there
    finally:
        close_dask_clients()
        cluster.close()
    a, b = _files(tmp_path / "local"), _files(out)
    assert any(name.startswith("tables/") for name in b)
    different = [name for name in b if name in a and a[name] != b[name]]
    if different and different != ["results.json"]:
        pytest.fail(f"{different} differ between the local and the Dask audit")
    if different:  # results.json echoes the compute block and the configuration file's name
        import json  # and hash (provenance): compare it without those

        ja, jb = (json.loads(x["results.json"]) for x in (a, b))
        for j in (ja, jb):
            j.get("config", {}).pop("compute", None)
            j.pop("provenance", None)
        assert ja == jb


def test_unreachable_scheduler_is_an_input_error():
    from primafacie.errors import InputError

    # A refused connection is retried by Dask until its connect timeout (0.8 x timeout) runs
    # out: with the default 30 s this test waited 24 s of wall time doing nothing (measured,
    # ~0 CPU s). 5 s takes the same path (Dask gives up at 4 s with the refusal, before the
    # 5 s deadline of the handshake): the refusal arrived 0.03 s after Dask's 3.2 s at 4 s
    # (0.4 s after 1.6 s at 2 s, the first Client of the process), so 1 s of margin; a host
    # slower than that reports the deadline instead, an InputError naming the address too.
    with pytest.raises(
        InputError,
        match=r"(cannot connect to the Dask scheduler at 'tcp://127\.0\.0\.1:9'"
        r"|the Dask scheduler at 'tcp://127\.0\.0\.1:9' did not complete the handshake)",
    ):
        Backend(kind="dask", address="tcp://127.0.0.1:9", timeout=5.0).map(len, [[1]])


def _gower_block(n: int, p: int):
    from primafacie.neighbors import GowerMatrix

    rng = np.random.default_rng(0)
    return GowerMatrix(rng.random((n, p)), rng.integers(0, 300, (n, 2)), (300, 300))


def _layout(X) -> tuple:
    return (X.num.flags.aligned, X.codes.flags.aligned, X.codes.dtype.str, float(X.num.sum()))


def test_a_search_space_read_on_another_worker_is_aligned(dask_backend):
    """A Gower matrix built on one worker and read on the other arrives through Dask's frames,
    whose arrays can start at any byte (without the realignment, 3 of these 4 shapes arrived
    with their float64 matrix 4, 10 or 30 bytes past an 8-byte boundary): it is realigned on
    arrival. Row gathers of an unaligned float64 matrix ran the 10^7 search ~4.6x slower on
    the receiving worker."""
    from primafacie import compute

    client = compute._dask_client(None, 2)
    first, second = sorted(client.nthreads())
    for n, p in [(1000, 3), (1000, 6), (100_003, 3), (100_003, 6)]:
        X = client.submit(_gower_block, n, p, workers=[first], pure=False)
        here = client.submit(_layout, X, workers=[first], pure=False).result()
        there = client.submit(_layout, X, workers=[second], pure=False).result()
        total = float(_gower_block(n, p).num.sum())
        assert here == there == (True, True, "<i2", total), (n, p)
