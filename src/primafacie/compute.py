"""Execution backends: map a function over chunks, locally (threads) or on Dask.

Engines split work into chunks of complainants / subgroups / replicates / row partitions and
call :meth:`Backend.map`; the result list is in chunk order whatever the backend, so outputs are
identical across backends.

What every chunk reads but never writes (a search index, a base matrix, a fitted model) is
passed as ``shared=``: locally it is simply handed to each call; on Dask it is scattered ONCE to
every worker (``broadcast=True``) and each task receives a reference to the worker's copy, so
it is not re-sent with every chunk. Tasks are pure functions of (shared, chunk): when a worker
dies mid-run, the scheduler re-runs its tasks elsewhere (``retries`` covers tasks that raise,
e.g. a lost connection) and the gathered list is the same.

Examples
--------
>>> Backend().map(lambda scale, x: scale * x, [1, 2, 3], shared=10)
[10, 20, 30]
"""

from __future__ import annotations

import atexit
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .errors import InputError

__all__ = [
    "Backend",
    "get_backend",
    "map_chunks",
    "chunk_slices",
    "close_dask_clients",
    "check_address",
    "usable_cores",
]

#: Schemes of a Dask scheduler address primafacie connects to.
SCHEMES = ("tcp", "tls", "ucx")

#: Size of a graph (its items) above which Dask's "Sending large graph" warning is kept: at
#: 1 GiB the copy through the client is a real cost (10^8 complainants' counts), below it the
#: graph is the intended carrier (:meth:`Backend._submit`).
GRAPH_WARNING = "1GiB"

#: Held while Dask's configuration carries :data:`GRAPH_WARNING`: ``dask.config.set`` changes
#: the process's configuration and restores it on exit, so two threads submitting at once
#: (overlapped analyses) could restore each other's value and leave it changed.
_GRAPH_LOCK = threading.Lock()

#: Sentinel of :meth:`Backend.map`: no shared input (``None`` is a valid shared value).
_NOTHING: Any = object()


def usable_cores() -> int:
    """CPUs this process may use: its affinity mask, capped by its cgroup's CPU quota.

    ``os.cpu_count()`` counts the machine's CPUs, not the ones a container or ``taskset``
    grants; threads beyond the grant only queue. The quota (cgroup v2 ``cpu.max`` or v1
    ``cpu.cfs_quota_us / cpu.cfs_period_us``, the smallest on the path to the root) is rounded
    up: 1.5 CPUs gives 2 threads.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> usable_cores() >= 1
    True
    """
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    quota = _cgroup_quota()
    if quota is not None:
        n = min(n, math.ceil(quota))
    return max(1, n)


def _cgroup_quota(root: str = "/sys/fs/cgroup", proc: str = "/proc/self/cgroup") -> float | None:
    """The CPU quota (in CPUs) of this process's cgroup and its ancestors, or None (no limit,
    or nothing readable)."""
    try:
        with open(proc) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    v2 = next((ln.split(":", 2)[2] for ln in lines if ln.startswith("0::")), "/")
    v1 = next((ln.split(":", 2)[2] for ln in lines if "cpu" in ln.split(":")[1].split(",")), "/")
    quotas = []
    for path in _ancestors(v2):
        text = _read(os.path.join(root, path.lstrip("/"), "cpu.max"))
        if text and text.split()[0] != "max":
            quotas.append(float(text.split()[0]) / float(text.split()[1]))
    for path in _ancestors(v1):
        base = os.path.join(root, "cpu", path.lstrip("/"))
        q, per = _read(base + "/cpu.cfs_quota_us"), _read(base + "/cpu.cfs_period_us")
        if q and per and float(q) > 0:
            quotas.append(float(q) / float(per))
    return min(quotas) if quotas else None


def _ancestors(path: str) -> list[str]:
    """``/a/b`` -> ``["/a/b", "/a", "/"]``."""
    parts = [p for p in path.split("/") if p]
    return ["/" + "/".join(parts[:i]) for i in range(len(parts), -1, -1)]


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip() or None
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class Backend:
    """Where chunks run.

    Attributes
    ----------
    kind
        ``"local"`` (threads of this process) or ``"dask"`` (a Dask cluster).
    n_jobs
        Threads for local; worker processes of the ``LocalCluster`` started when ``kind`` is
        dask and no ``address`` is given (at least 2). ``None`` (the default): every usable
        core (:func:`usable_cores`). Results do not depend on it.
    address
        Scheduler address of an existing Dask cluster (``"tcp://host:8786"``).
    retries
        Dask only: how many times a task that raised is re-run before the run fails (tasks lost
        with a dead worker are re-run by the scheduler regardless).
    timeout
        Dask with an ``address`` only: seconds allowed for the whole connection (connect and
        handshake) before the run is refused with an error naming the address.
    """

    kind: str = "local"
    n_jobs: int | None = None
    address: str | None = None
    retries: int = 3
    timeout: float = 30.0

    def connect(self) -> None:
        """Reach the cluster now (Dask with an ``address``), so that a wrong address or a
        server that is not a Dask scheduler fails before any work, within ``timeout``."""
        if self.kind == "dask" and self.address:
            _dask_client(self.address, self.n_jobs, self.timeout)

    def __post_init__(self) -> None:
        if self.n_jobs is None:
            object.__setattr__(self, "n_jobs", usable_cores())

    def map(
        self, fn: Callable[..., Any], items: Sequence[Any], shared: Any = _NOTHING
    ) -> list[Any]:
        """Apply ``fn`` to every item and return the results in item order.

        Parameters
        ----------
        fn
            ``fn(item)``, or ``fn(shared, item)`` when ``shared`` is given. On Dask it must be
            picklable (a module-level function, or a closure over small values only: large
            read-only inputs go in ``shared``).
        items
            The chunks.
        shared
            Read-only input of every call, sent once per worker on Dask.

        Returns
        -------
        list
            ``[fn(item) for item in items]`` (or ``fn(shared, item)``), in item order.

        Examples
        --------
        >>> Backend(n_jobs=2).map(len, [[1], [1, 2]])
        [1, 2]
        """
        return list(self.imap(fn, items, shared=shared))

    def imap(
        self, fn: Callable[..., Any], items: Sequence[Any], shared: Any = _NOTHING
    ) -> Iterator[Any]:
        """:meth:`map` as a generator: results one at a time, in item order.

        On Dask every task is submitted at once (``shared`` scattered once) and each result is
        released from the cluster as soon as it is yielded, so a caller that folds the results
        in order holds one at a time.

        Examples
        --------
        >>> list(Backend().imap(lambda s, x: s + x, [1, 2], shared=1))
        [2, 3]
        """
        items = list(items)
        if self.kind == "local":
            call = fn if shared is _NOTHING else partial(fn, shared)
            if self.n_jobs == 1 or len(items) <= 1:
                yield from (call(item) for item in items)
                return
            yield from _threads(call, items, min(self.n_jobs, len(items)))
            return
        if self.kind == "dask":
            futures = self._submit(fn, items, shared)
            for i, future in enumerate(futures):
                yield future.result()
                futures[i] = None  # release the result on the cluster
            if futures:
                _trim_workers(_dask_client(self.address, self.n_jobs, self.timeout))
            return
        raise InputError(f"unknown compute backend {self.kind!r}; expected 'local' or 'dask'")

    def keep(
        self, fn: Callable[..., Any], items: Sequence[Any], shared: Any = _NOTHING
    ) -> list[Any]:
        """:meth:`map` whose results stay where they were computed: on Dask one future per
        item, nothing gathered; locally the results themselves.

        Give the list as the ``items`` of a later :meth:`map` or :meth:`keep`: on Dask each of
        its tasks runs on the worker holding its item (the item never travels through the
        client), and a result lost with its worker is recomputed from its task. The results
        live as long as the list.

        Examples
        --------
        >>> b = Backend(n_jobs=2)
        >>> b.map(lambda s, x: s * x, b.keep(lambda x: x + 1, [1, 2]), shared=10)
        [20, 30]
        """
        items = list(items)
        if self.kind == "dask":
            return self._submit(fn, items, shared)
        return self.map(fn, items, shared=shared)

    def _submit(self, fn: Callable[..., Any], items: list[Any], shared: Any) -> list[Any]:
        """The Dask futures of ``fn`` over ``items`` (``shared`` scattered once to every
        worker; an item that is a future is its result, on the worker that holds it)."""
        if not items:
            return []
        import dask

        client = _dask_client(self.address, self.n_jobs, self.timeout)
        # The items travel inside the graph on purpose: a task whose worker is lost is run again
        # from them, where a scattered item would be lost with it (tests/test_compute_dask.py,
        # the killed worker). Dask warns above 10 MB ("Sending large graph ... consider loading
        # the data with Dask"), advice for data Dask could read itself; ours are the
        # complainants' counts (221 MiB at 10^7 rows, docs/scaling.md), so the warning only
        # alarmed the user.
        call, extra = fn, {}
        if shared is not _NOTHING:  # scattered outside the lock: it sends no graph
            # hash=False: a fresh key per run, so a rerun never reads a stale copy
            ref = client.scatter(shared, broadcast=True, hash=False)
            call, extra = _with_shared, {"fn": fn, "shared": ref}
        threshold = {"distributed.admin.large-graph-warning-threshold": GRAPH_WARNING}
        with _GRAPH_LOCK, dask.config.set(threshold):
            return client.map(call, items, **extra, pure=False, retries=self.retries)


def _threads(call: Callable[[Any], Any], items: list[Any], n: int) -> Iterator[Any]:
    """``call`` over ``items`` on ``n`` threads, results in item order, at most ``2 n`` chunks
    in flight (a caller folding results holds a few at a time).

    The standard library's pool, not joblib's: importing joblib cost 0.12 s of every short
    run's start-up (issue 22), and the chunks' work (tree queries, numpy sorts and sums)
    releases the GIL either way.
    """
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="primafacie")
    pending: deque = deque()
    try:
        for item in items:
            if len(pending) >= 2 * n:
                yield pending.popleft().result()
            pending.append(pool.submit(call, item))
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _with_shared(item: Any, fn: Callable[..., Any], shared: Any) -> Any:
    """Dask task body: ``fn(shared, item)`` (``shared`` resolved to the worker's copy).

    No trim here: the next task of the same map reuses the heap this one freed (see
    :func:`_trim_workers`)."""
    return fn(shared, item)


def _trim_workers(client: Any) -> None:
    """glibc's ``malloc_trim(0)`` on every worker, once a map's results are all gathered.

    A worker runs with glibc's adaptive mmap threshold (:func:`_worker_environ`), so it keeps
    the heap its tasks freed, and would keep its largest task's transient memory while the
    client works between maps (measured at 2·10^5: +250 MB on the cluster's total peak without
    any trim). Trimming after every task instead made the next task fault the same pages in
    afresh: on one 10^6-row search (22 tasks, load ~20) 1.9-2.4 workers' CPU s of the
    18-22, most of it system time (minor faults 300k -> 80k without), the pages being the
    ones the next task of the same map reuses. A worker running a task of another map when
    this arrives trims what it has free; nothing is lost but the pages it would have reused.
    """
    from .release import trim_heap

    client.run(trim_heap)


_CLIENTS: dict[tuple[str | None, int], Any] = {}


def check_address(address: str) -> str:
    """``address`` when it can name a Dask scheduler: ``tcp://``, ``tls://`` or ``ucx://`` with a
    host, or no scheme at all (the path of a scheduler file, checked where it is resolved).

    Raises
    ------
    InputError
        Another scheme, or a scheme without a host; the message names the address.

    Examples
    --------
    >>> check_address("tcp://10.0.0.5:8786")
    'tcp://10.0.0.5:8786'
    >>> check_address("bogus://h:1")
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: compute.address 'bogus://h:1': the scheme 'bogus' is not ...
    """
    if "://" not in address:
        return address
    scheme, _, rest = address.partition("://")
    if scheme not in SCHEMES:
        raise InputError(
            f"compute.address {address!r}: the scheme {scheme!r} is not one of "
            f"{', '.join(SCHEMES)} (e.g. tcp://host:8786), nor is it the path of a scheduler file"
        )
    if not rest.strip("/"):
        raise InputError(f"compute.address {address!r} names no host (e.g. {scheme}://host:8786)")
    return address


def _connect(address: str, timeout: float) -> Any:
    """A Client of the scheduler at ``address`` (or described by the scheduler file
    ``address``), connected and handshaken within ``timeout`` seconds.

    Dask's own timeout covers the connect only: a server that accepts and never answers holds
    the handshake forever, and one that answers in another protocol (HTTP) makes Dask read its
    reply as a frame length (a MemoryError of exabytes). So the whole Client is made in a
    thread with a deadline, and any failure is bad input naming the address.
    """
    from distributed import Client

    box: dict[str, Any] = {}
    # Dask's own connect timeout a little shorter, so a refused connection reports its reason
    # (to 3 significant digits: Dask prints it, "after 2.4 s", not "after 2.4000000000000004
    # s"; never rounded to 0 for a tiny timeout)
    connect = float(f"{0.8 * timeout:.3g}")

    def attempt() -> None:
        try:
            if "://" in address:
                client = Client(address, timeout=connect, set_as_default=False)
            else:
                client = Client(scheduler_file=address, timeout=connect, set_as_default=False)
        except BaseException as exc:  # noqa: BLE001 - reported to the caller below
            box["error"] = exc
            return
        box["client"] = client
        if box.get("abandoned"):  # connected after the deadline: nobody will use it
            client.close()

    worker = threading.Thread(target=attempt, name="primafacie-dask-connect", daemon=True)
    worker.start()
    worker.join(timeout)
    if "client" in box:
        return box["client"]
    hint = "is a Dask scheduler listening there? (compute.address, compute.timeout)"
    if "error" not in box:
        box["abandoned"] = True
        raise InputError(
            f"the Dask scheduler at {address!r} did not complete the handshake within "
            f"{timeout:g} s; {hint}"
        )
    exc = box["error"]
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, MemoryError):  # a reply read as a frame length: not the Dask protocol
        detail = "the server's reply is not the Dask protocol"
    raise InputError(f"cannot connect to the Dask scheduler at {address!r}: {detail}; {hint}")


def _dask_client(address: str | None, n_jobs: int, timeout: float = 30.0) -> Any:
    """A Dask client, created once per (address, workers) and closed at interpreter exit.

    Without an address a ``LocalCluster`` of worker *processes* is started (``n_jobs`` of them,
    at least 2), so the distributed path is exercised exactly as on a real cluster. With an
    address, the connection and handshake must complete within ``timeout`` seconds.
    """
    key = (address, n_jobs)
    client = _CLIENTS.get(key)
    if client is not None and client.status == "running":
        return client
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise InputError(
            "the dask backend needs the [dask] extra: pip install 'primafacie[dask]'"
        ) from exc
    if address:
        client = _connect(check_address(address), timeout)
    else:
        import dask

        with dask.config.set(_worker_config()):
            cluster = LocalCluster(
                n_workers=max(2, n_jobs),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
            )
        client = Client(cluster)
    _CLIENTS[key] = client
    if len(_CLIENTS) == 1:
        atexit.register(close_dask_clients)
    return client


def _worker_config() -> dict[str, Any]:
    """The Dask settings of the ``LocalCluster`` started here (a nanny hands them to its
    worker process): the environment of :func:`_worker_environ`, and no statistical profiler.

    A worker's profiler samples the stack of its running task every 10 ms (for the
    dashboard's profile page), holding the GIL the task needs, and its event loop every
    10 ms when idle. Measured on a 2-worker LocalCluster (load ~33): 0.029 CPU s per second
    per idle worker with it, 0.017 without; 12 CPU s of tasks cost the workers 13.4-13.8 CPU
    s with it, 12.9-13.3 without. A cluster given by ``address`` keeps its own settings.
    """
    return {
        "distributed.nanny.pre-spawn-environ": _worker_environ(),
        "distributed.worker.profile.enabled": False,
    }


def _worker_environ() -> dict[str, Any]:
    """The environment Dask sets in the worker processes of the ``LocalCluster`` started here:
    Dask's default without its ``MALLOC_TRIM_THRESHOLD_=65536``.

    Setting that variable fixes glibc's mmap threshold at 128 kB (an explicit trim threshold
    turns its adjustment off), so every larger array a search chunk allocates is mapped fresh
    from the kernel and unmapped when freed: page faults on every chunk. Measured on one
    credit-world search of 10^5 complainants (2·10^5 rows): 2.2–2.5 s of system CPU per
    search on the workers with it, 0.5 s without; a worker then keeps freed memory for reuse
    as this process does. A value set in this process's own environment is still inherited.
    """
    import dask

    env = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    env.pop("MALLOC_TRIM_THRESHOLD_", None)
    return env


def close_dask_clients() -> None:
    """Close every Dask client (and local cluster) this process started."""
    for client in list(_CLIENTS.values()):
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None:
            cluster.close()
    _CLIENTS.clear()


def get_backend(spec: Backend | dict | str | None = None) -> Backend:
    """Build a :class:`Backend` from ``None`` (local), a name, or ``{"backend": ..., ...}``."""
    if spec is None:
        return Backend()
    if isinstance(spec, Backend):
        return spec
    if isinstance(spec, str):
        return Backend(kind=spec)
    if isinstance(spec, dict):
        spec = dict(spec)
        kind = spec.pop("backend", spec.pop("kind", "local"))
        return Backend(kind=kind, **spec)
    raise InputError(f"compute must be a backend name or mapping, got {spec!r}")


def chunk_slices(n: int, chunk_size: int) -> list[slice]:
    """Contiguous slices covering ``range(n)`` with at most ``chunk_size`` elements each."""
    if chunk_size <= 0:
        raise InputError(f"chunk_size must be positive, got {chunk_size}")
    return [slice(s, min(s + chunk_size, n)) for s in range(0, n, chunk_size)]


def map_chunks(
    fn: Callable[[np.ndarray], Any],
    indices: np.ndarray | Iterable[int],
    chunk_size: int = 4096,
    backend: Backend | dict | str | None = None,
    shared: Any = _NOTHING,
) -> list[Any]:
    """Split ``indices`` into chunks, apply ``fn`` to each, return results in order.

    ``fn(chunk)``, or ``fn(shared, chunk)`` with ``shared`` sent once per worker (see
    :meth:`Backend.map`).
    """
    idx = np.asarray(list(indices) if not isinstance(indices, np.ndarray) else indices)
    chunks = [idx[s] for s in chunk_slices(len(idx), chunk_size)]
    return get_backend(backend).map(fn, chunks, shared=shared)


def scatter(backend: Backend, items: Sequence[Any]) -> list[Any]:
    """``items`` placed where ``backend`` runs its tasks: on Dask each item is sent once to
    one worker and stands for a future (give the list as the ``items`` of :meth:`Backend.map`
    and each task runs on the worker holding its item, which never travels again);
    locally the items themselves.

    Examples
    --------
    >>> scatter(Backend(), [1, 2])
    [1, 2]
    """
    items = list(items)
    if backend.kind != "dask" or not items:
        return items
    client = _dask_client(backend.address, backend.n_jobs, backend.timeout)
    # hash=False: a fresh key per call, so equal items of two calls are never shared
    return client.scatter(items, hash=False)


def keep_each(
    backend: Backend | dict | str | None,
    fn: Callable[..., Any],
    make: Callable[[Any], Any],
    items: Sequence[Any],
    shared: Any = _NOTHING,
) -> list[Any]:
    """:meth:`Backend.keep` of ``fn`` over ``make(item)`` for every item, each argument made
    only when its task is handed out: the client never holds every argument at once.

    On Dask each argument is made, scattered to one worker (the scheduler deals them out in
    turn) and released here before the next is made; its task runs where it landed, so the
    argument never sits in the task graph (nor on the scheduler). Locally ``make`` runs in
    the task, on the backend's threads.

    Parameters
    ----------
    backend
        The :mod:`primafacie.compute` backend (None: local).
    fn
        ``fn(argument)``, or ``fn(shared, argument)`` when ``shared`` is given.
    make
        ``make(item)``: the argument of ``item``'s task (e.g. a table's rows of one chunk).
    items
        The chunks (small: slices or positions).
    shared
        Read-only input of every call, sent once per worker on Dask.

    Returns
    -------
    list
        As :meth:`Backend.keep`: futures on Dask, the results locally, in item order.

    Examples
    --------
    >>> keep_each(None, lambda s, x: s + x, lambda i: 10 * i, [1, 2], shared=1)
    [11, 21]
    """
    backend = get_backend(backend)
    call = fn if shared is _NOTHING else partial(fn, shared)
    if backend.kind != "dask":
        return backend.keep(lambda item: call(make(item)), list(items))
    client = _dask_client(backend.address, backend.n_jobs, backend.timeout)
    ref = None if shared is _NOTHING else client.scatter(shared, broadcast=True, hash=False)
    futures = []
    for item in items:
        # hash=False: a fresh key per chunk, never a stale copy of an earlier run's
        arg = client.scatter(make(item), hash=False)
        if ref is None:
            futures.append(client.submit(fn, arg, pure=False, retries=backend.retries))
        else:
            futures.append(client.submit(_with_shared, arg, fn=fn, shared=ref, pure=False,
                                         retries=backend.retries))  # fmt: skip
    return futures


def overlapped(
    calls: Sequence[Callable[[Callable[[], None]], Any]], overlap: bool = True
) -> list[Any]:
    """Run ``calls`` in order, each allowed to let the next one start before it ends.

    ``calls[i](go)`` runs in a thread of its own; when it calls ``go()`` (once it holds what
    the next call competes for no more, e.g. after its searches: its statistics and report
    rows then leave the client idle most of the time), ``calls[i + 1]`` starts beside it. A
    call that never calls ``go`` makes the next wait until it returns. Used by the audit to
    prepare a protected attribute's test while the workers compute the previous one's last
    stages (docs/scaling.md, "The 10^7 run's idle cores, overlapped").

    The results come back in the calls' order whatever order they finish in; each call must
    place what it makes by its own index, never by arrival. When calls raise, every started
    call is waited for and the error of the first failing call in order is raised: the error a
    sequential run raises (a call after it that it let start may fail too; its error is not
    the one reported, as the sequential run would never have reached it).

    Parameters
    ----------
    calls
        ``call(go)``: the work of one step; ``go()`` lets the next step start.
    overlap
        False: one call after the other in this thread (``go`` does nothing).

    Returns
    -------
    list
        ``[calls[0](go), calls[1](go), ...]``, in order.

    Examples
    --------
    >>> overlapped([lambda go: 1, lambda go: (go(), 2)[1]])
    [1, 2]
    """
    calls = list(calls)
    if not overlap or len(calls) <= 1:
        return [call(lambda: None) for call in calls]
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException | None] = [None] * len(calls)
    let = [False] * len(calls)  # the call let the next start (else it ran to its end)
    started = [threading.Event() for _ in calls]
    threads: list[threading.Thread] = []

    def go(i: int) -> None:
        let[i] = True
        started[i].set()

    def step(i: int) -> None:
        try:
            results[i] = calls[i](partial(go, i))
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            errors[i] = exc
        finally:
            started[i].set()  # a call that returned (or failed) lets the next go

    try:
        for i in range(len(calls)):
            if any(e is not None for e in errors[:i]):
                break  # a sequential run stops at the first error: none after it starts
            thread = threading.Thread(target=step, args=(i,), daemon=True,
                                      name=f"primafacie-step-{i}")  # fmt: skip
            thread.start()
            threads.append(thread)
            while not started[i].wait(0.1):  # a timed wait: Ctrl-C reaches this thread
                pass
            if not let[i]:  # it ran to its end: its error (if any) is known now
                thread.join()
    finally:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.1)
    for error in errors:
        if error is not None:
            raise error
    return results
