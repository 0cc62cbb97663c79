from functools import partial
from types import SimpleNamespace

import numpy as np
import pytest

from primafacie.compute import Backend, chunk_slices, get_backend, map_chunks
from primafacie.errors import InputError


def test_chunk_slices_cover_range():
    assert chunk_slices(10, 4) == [slice(0, 4), slice(4, 8), slice(8, 10)]
    assert chunk_slices(0, 4) == []
    with pytest.raises(InputError):
        chunk_slices(3, 0)


@pytest.mark.parametrize("backend", [None, "local", {"backend": "local", "n_jobs": 2}])
def test_map_chunks_in_order(backend):
    out = map_chunks(lambda idx: idx.sum(), np.arange(10), chunk_size=3, backend=backend)
    assert out == [3, 12, 21, 9]


def test_unknown_backend():
    with pytest.raises(InputError, match="unknown compute backend 'spark'"):
        Backend(kind="spark").map(len, [[1]])
    assert get_backend({"backend": "local"}).kind == "local"


def test_shared_input_is_the_first_argument_on_every_local_backend():
    """``shared`` is handed to every call, before the chunk; None is a valid shared value."""
    for backend in (Backend(), Backend(n_jobs=2)):
        assert backend.map(lambda s, x: s * x, [1, 2, 3], shared=10) == [10, 20, 30]
        assert backend.map(lambda s, x: (s, x), [1], shared=None) == [(None, 1)]
    out = map_chunks(lambda s, idx: int(idx.sum()) + s, np.arange(5), chunk_size=2, shared=100)
    assert out == [101, 105, 104]  # chunks [0, 1], [2, 3], [4]


def test_imap_yields_in_item_order_lazily():
    seen = []

    def fn(x):
        seen.append(x)
        return x * x

    it = Backend(n_jobs=1).imap(fn, [3, 1, 2])
    assert seen == []  # nothing runs before the first result is asked for
    assert next(it) == 9 and seen == [3]
    assert list(it) == [1, 4]
    assert list(Backend(n_jobs=2).imap(fn, [3, 1, 2])) == [9, 1, 4]
    with pytest.raises(InputError, match="unknown compute backend"):
        list(Backend(kind="spark").imap(fn, [1]))


def test_retries_from_a_mapping():
    assert get_backend({"backend": "dask", "address": "tcp://h:1", "retries": 0}).retries == 0
    assert Backend().retries == 3


def test_certainty_counts_over_partitions_equal_one_pass():
    """Rows 0-3 (group 0, 0, 1, 1) with E1 = (1, 0, 0, 1): k = (1, 1), n = (2, 2) by hand,
    whether counted at once or in partitions of 3 rows on threads."""
    from primafacie.certainty.counts import count_partitioned

    for backend in (None, "local", Backend(n_jobs=2)):
        k, n = count_partitioned([0, 0, 1, 1], 2, [1, 0, 0, 1], backend=backend, partition_rows=3)
        assert k.tolist() == [[1, 1]] and n.tolist() == [[2, 2]]
    rng = np.random.default_rng(0)
    codes, e1, e2 = rng.integers(0, 4, 1000), rng.integers(0, 2, (1000, 3)), None
    a = count_partitioned(codes, 4, e1, e2)
    b = count_partitioned(codes, 4, e1, e2, backend=Backend(n_jobs=2), partition_rows=77)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    with pytest.raises(InputError, match="the events have 2 rows"):
        count_partitioned([0, 1, 1], 2, [1, 0], backend="local")


def test_principal_bootstrap_blocks_equal_one_pass():
    """Bootstrap replicates evaluated in blocks of 256 on threads: the same intervals."""
    import pandas as pd

    from primafacie.principal import PrincipalFairness

    rng = np.random.default_rng(1)
    n = 800
    df = pd.DataFrame({"g": rng.choice(["f", "m"], n), "s": rng.integers(0, 2, n),
                       "y": rng.integers(0, 2, n)})  # fmt: skip
    kw = dict(definitions=[1, 2], n_boot=600, seed=3, protected={"g": "f"}, decision="s",
              outcome="y")  # fmt: skip
    one = PrincipalFairness(**kw).run(df)
    blocks = PrincipalFairness(**kw, backend=Backend(n_jobs=2)).run(df)
    assert one.boot is not None
    assert one.boot.keys() == blocks.boot.keys()
    for key in one.boot:
        assert np.array_equal(one.boot[key], blocks.boot[key], equal_nan=True), key


# ---------------------------------------------------------------------- issue 19 item 8
def _silent_server():
    """A TCP server on 127.0.0.1 that accepts connections and never answers."""
    import socket
    import threading

    srv = socket.create_server(("127.0.0.1", 0))
    held = []

    def serve():
        while True:
            try:
                held.append(srv.accept()[0])
            except OSError:
                return

    threading.Thread(target=serve, daemon=True).start()
    return srv, srv.getsockname()[1]


def _http_server():
    """An HTTP server on 127.0.0.1 (answers any request with an HTTP error page)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    srv = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, srv.server_address[1]


@pytest.mark.parametrize("server", [_silent_server, _http_server], ids=["silent", "http"])
def test_a_server_that_is_not_a_dask_scheduler_is_bad_input_within_the_timeout(server):
    import time

    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    import distributed  # noqa: F401 - imported before the clock starts

    srv, port = server()
    address = f"tcp://127.0.0.1:{port}"
    t0 = time.perf_counter()
    try:
        with pytest.raises(InputError) as info:
            Backend(kind="dask", address=address, timeout=1.0).connect()
    finally:
        srv.server_close() if hasattr(srv, "server_close") else srv.close()
    assert time.perf_counter() - t0 < 5
    message = str(info.value)
    assert address in message and "Dask scheduler" in message
    assert "MemoryError" not in message and "EiB" not in message


def test_an_unknown_scheme_is_bad_input_even_through_the_api():
    with pytest.raises(InputError, match="'bogus://h:1': the scheme 'bogus'"):
        Backend(kind="dask", address="bogus://h:1").map(len, [[1]])


def test_the_audit_exits_2_naming_the_address_before_reading_data(tmp_path):
    """`primafacie audit` with compute.address at a silent server: exit 2, the address named,
    within the configured timeout; the data (absent here) are never read."""
    import time

    from typer.testing import CliRunner

    from primafacie.cli import app

    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    import primafacie.audit  # noqa: F401 - imported before the clock starts
    import primafacie.config  # noqa: F401

    srv, port = _silent_server()
    (tmp_path / "audit.yaml").write_text(
        "data: absent.csv\ndecision: {column: y}\nfeatures: {x: numeric}\n"
        "protected: {g: 1}\nanalyses: {groups: {}}\n"
        f"compute: {{backend: dask, address: 'tcp://127.0.0.1:{port}', timeout: 1}}\n"
    )
    t0 = time.perf_counter()
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["audit", str(tmp_path / "audit.yaml"), "--out", str(out)])
    srv.close()
    assert time.perf_counter() - t0 < 10
    text = " ".join(res.output.split())
    assert res.exit_code == 2, text
    assert f"tcp://127.0.0.1:{port}" in text and "internal error" not in text
    assert not out.exists()


def _cgroup(tmp_path, v2=None, v1=None, path="/"):
    """A fake /proc/self/cgroup and /sys/fs/cgroup tree with the given CPU limits."""
    root = tmp_path / "cg"
    tmp_path.mkdir(parents=True, exist_ok=True)
    proc = tmp_path / "proc"
    proc.write_text(f"1:cpu,cpuacct:{path}\n0::{path}\n")
    own = root / path.lstrip("/")
    own.mkdir(parents=True, exist_ok=True)
    if v2 is not None:
        (own / "cpu.max").write_text(v2 + "\n")
    if v1 is not None:
        d = root / "cpu" / path.lstrip("/")
        d.mkdir(parents=True, exist_ok=True)
        (d / "cpu.cfs_quota_us").write_text(f"{v1[0]}\n")
        (d / "cpu.cfs_period_us").write_text(f"{v1[1]}\n")
    return str(root), str(proc)


def test_cgroup_quota_v2_v1_and_none(tmp_path):
    from primafacie.compute import _cgroup_quota

    assert _cgroup_quota(*_cgroup(tmp_path / "a", v2="150000 100000", path="/job")) == 1.5
    assert _cgroup_quota(*_cgroup(tmp_path / "b", v2="max 100000")) is None
    assert _cgroup_quota(*_cgroup(tmp_path / "c", v1=(50000, 100000))) == 0.5
    assert _cgroup_quota(*_cgroup(tmp_path / "d", v1=(-1, 100000))) is None
    assert _cgroup_quota(str(tmp_path / "none"), str(tmp_path / "none")) is None
    # a parent's limit binds the child: the smallest on the path to the root
    root, proc = _cgroup(tmp_path / "e", v2="400000 100000", path="/a/b")
    (tmp_path / "e" / "cg" / "a" / "cpu.max").write_text("200000 100000\n")
    assert _cgroup_quota(root, proc) == 2.0


def test_usable_cores_respects_affinity_and_quota(monkeypatch):
    import os

    import primafacie.compute as compute

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(compute, "_cgroup_quota", lambda: None)
    assert compute.usable_cores() == 4  # the affinity mask, not os.cpu_count()
    monkeypatch.setattr(compute, "_cgroup_quota", lambda: 1.5)
    assert compute.usable_cores() == 2  # 1.5 CPUs of quota: 2 threads
    monkeypatch.setattr(compute, "_cgroup_quota", lambda: 0.2)
    assert compute.usable_cores() == 1
    # the default backend (API, audit.yaml without n_jobs) uses them all
    assert Backend().n_jobs == 1 and Backend(n_jobs=3).n_jobs == 3
    assert get_backend(None).n_jobs == 1 and get_backend({"backend": "local"}).n_jobs == 1


def test_compute_spec_default_is_every_core_and_n_jobs_1_is_one_thread():
    from primafacie.compute import usable_cores
    from primafacie.config import ComputeSpec

    assert ComputeSpec().n_jobs is None and ComputeSpec().build() is None  # engines: Backend()
    assert get_backend(ComputeSpec().build()).n_jobs == usable_cores()
    assert ComputeSpec(n_jobs=1).build() == Backend(n_jobs=1)
    assert ComputeSpec(backend="dask", n_jobs=3).build().n_jobs == 3


def test_threads_keep_order_bound_the_work_in_flight_and_raise():
    """Local threads (the standard library's pool): results in item order, at most 2 x n_jobs
    chunks submitted ahead of the one yielded, a chunk's error raised to the caller."""
    import threading
    import time

    started = []
    lock = threading.Lock()

    def fn(x):
        with lock:
            started.append(x)
        time.sleep(0.002 * (x % 3))  # out-of-order completion
        return x * 10

    it = Backend(n_jobs=2).imap(fn, list(range(20)))
    assert next(it) == 0
    assert len(started) <= 5  # 4 in flight + the one submitted after the first yield
    assert list(it) == [x * 10 for x in range(1, 20)]

    def boom(x):
        if x == 3:
            raise ValueError("chunk 3")
        return x

    with pytest.raises(ValueError, match="chunk 3"):
        Backend(n_jobs=2).map(boom, list(range(6)))


def test_dask_task_body_leaves_the_heap_to_the_next_task(monkeypatch):
    """A Dask task does not trim the heap: the next task of the same map reuses the pages it
    freed (a trim per task made each task fault them in again), whether it returned or
    raised."""
    from primafacie import compute, release

    calls: list = []
    monkeypatch.setattr(release, "_libc", lambda: SimpleNamespace(malloc_trim=calls.append))
    assert compute._with_shared(3, fn=lambda s, x: s + x, shared=1) == 4
    with pytest.raises(ZeroDivisionError):
        compute._with_shared(0, fn=lambda s, x: s / x, shared=1)
    assert calls == []


def test_dask_map_trims_every_worker_once_its_results_are_gathered(monkeypatch):
    """Once the last result of a Dask map is gathered, every worker gives the heap its tasks
    freed back to the system (one ``client.run``), not before; a map of no items runs
    nothing."""
    from primafacie import compute, release

    ran: list = []

    class Future:
        def __init__(self, value: object) -> None:
            self.value = value

        def result(self) -> object:
            return self.value

    class Client:
        def scatter(self, data, **kw):  # noqa: ANN001, ANN202
            return data

        def map(self, task, items, **kw):  # noqa: ANN001, ANN202
            if "shared" in kw:
                task = partial(task, fn=kw["fn"], shared=kw["shared"])
            return [Future(task(x)) for x in items]

        def run(self, fn):  # noqa: ANN001, ANN202
            ran.append(fn)
            return {}

    monkeypatch.setattr(compute, "_dask_client", lambda *a: Client())
    backend = Backend(kind="dask", n_jobs=2)
    it = backend.imap(lambda s, x: s + x, [1, 2, 3], shared=10)
    assert [next(it), next(it), next(it)] == [11, 12, 13]
    assert ran == []  # the last result is out, the map has not ended
    assert list(it) == []
    assert ran == [release.trim_heap]
    assert backend.map(lambda x: -x, [4]) == [-4]
    assert ran == [release.trim_heap] * 2
    assert backend.map(lambda x: x, []) == []
    assert ran == [release.trim_heap] * 2


def test_keep_each_makes_each_argument_in_its_task_in_item_order():
    """Locally ``make`` runs in the task (the client never holds every argument at once) and
    the results come back in item order, with or without shared input, on any threads."""
    from primafacie.compute import keep_each

    made: list = []

    def make(i):
        made.append(i)
        return np.full(3, i)

    for n_jobs in (1, 2):
        made.clear()
        out = keep_each(Backend(n_jobs=n_jobs), lambda s, a: int(a.sum()) + s, make,
                        range(5), shared=100)  # fmt: skip
        assert out == [100, 103, 106, 109, 112] and sorted(made) == [0, 1, 2, 3, 4]
    assert keep_each(None, len, lambda i: [0] * i, [2, 0]) == [2, 0]


def test_overlapped_starts_the_next_call_at_go_and_keeps_the_order():
    """``go()`` starts the next call while this one still runs; results come back in the
    calls' order although the second ends first; overlap=False runs one after the other."""
    import threading

    from primafacie.compute import overlapped

    second_ran = threading.Event()
    log = []

    def first(go):
        go()
        assert second_ran.wait(5)  # the second ran to its end while the first waited
        log.append("first")
        return 1

    def second(go):
        log.append("second")
        second_ran.set()
        return 2

    assert overlapped([first, second]) == [1, 2]
    assert log == ["second", "first"]
    log.clear()
    assert overlapped([lambda go: (go(), log.append("a"), 1)[2], lambda go: log.append("b")],
                      overlap=False) == [1, None]  # fmt: skip
    assert log == ["a", "b"]


def test_overlapped_waits_for_a_call_that_never_lets_the_next_go():
    """Without ``go()`` the next call starts only after the call returned."""
    from primafacie.compute import overlapped

    log = []

    def step(name):
        def call(go):
            log.append(f"{name} start")
            log.append(f"{name} end")
            return name

        return call

    assert overlapped([step("a"), step("b"), step("c")]) == ["a", "b", "c"]
    assert log == ["a start", "a end", "b start", "b end", "c start", "c end"]


def test_overlapped_raises_the_first_error_in_order_as_a_sequential_run():
    """A call failing before ``go()`` starts nothing after it; one failing after ``go()``
    is reported rather than the later call's error (whose run it let start), once every
    started call has ended."""
    import threading

    from primafacie.compute import overlapped

    started = []

    def fails_first(go):
        raise ValueError("first")

    def record(name):
        def call(go):
            started.append(name)
            return name

        return call

    with pytest.raises(ValueError, match="first"):
        overlapped([fails_first, record("b")])
    assert started == []
    second_failed = threading.Event()

    def fails_after_go(go):
        go()
        assert second_failed.wait(5)
        raise ValueError("after go")

    def fails_second(go):
        second_failed.set()
        raise KeyError("second")

    with pytest.raises(ValueError, match="after go"):
        overlapped([fails_after_go, fails_second, record("c")])
    assert started == []  # nothing starts after a failed call
