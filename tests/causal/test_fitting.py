"""Tests for primafacie.causal.fitting: one BLAS thread per fit, the nodes' fits in parallel
(local threads and Dask workers) with the same bits as the serial fit, and failures named."""

from __future__ import annotations

import hashlib
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_info, threadpool_limits

from primafacie.causal import SCM
from primafacie.causal.fitting import (
    NodeFit,
    _compact,
    fit_node,
    fit_nodes,
    node_tasks,
    one_thread,
)
from primafacie.compute import Backend
from primafacie.errors import InputError

#: A node with 12 numeric parents at 40,000 rows: OpenBLAS splits its least-squares solve
#: over two threads and the coefficients' last bits change (measured: 5 seeds of 5).
WIDE = [(f"p{i}", "y") for i in range(12)]


def _wide(n: int = 40_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 12))
    frame = pd.DataFrame(X, columns=[f"p{i}" for i in range(12)])
    frame["y"] = X @ rng.normal(size=12) + rng.normal(size=n)
    return frame


def _world(n: int = 3_000, seed: int = 1) -> pd.DataFrame:
    """Categorical and numeric nodes: two classifiers, two linear equations."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["f", "m"], n)
    race = rng.choice(["a", "b", "c"], n)
    edu = np.where(rng.random(n) < 0.3 + 0.2 * (race == "a"), "high", "low")
    region = rng.choice(["n", "s", "w"], n)
    age = rng.integers(20, 70, n).astype(float)
    income = 30 + 5 * (g == "m") + 8 * (edu == "high") + 0.3 * age + rng.normal(0, 3, n)
    savings = 0.2 * income + 2 * (race == "b") + rng.normal(0, 1, n)
    return pd.DataFrame(
        {"g": g, "race": race, "edu": edu, "region": region, "age": age,
         "income": income, "savings": savings}
    )  # fmt: skip


EDGES = [
    ("race", "edu"), ("race", "region"), ("edu", "region"), ("g", "income"),
    ("edu", "income"), ("age", "income"), ("race", "savings"), ("income", "savings"),
]  # fmt: skip


def _state(obj, h) -> None:
    """Feed ``h`` the bits of every number an object holds (arrays by their bytes and dtype,
    estimators and pipelines through their attributes); pickles are not compared, since
    pickle's memo makes equal states differ when objects are shared differently."""
    if isinstance(obj, np.ndarray):
        h.update(str(obj.dtype).encode() + obj.tobytes())
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _state(x, h)
    elif isinstance(obj, dict):
        for k in sorted(obj):
            h.update(str(k).encode())
            _state(obj[k], h)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        h.update(type(obj).__name__.encode())
        _state(vars(obj), h)
    else:
        h.update(repr(obj).encode())


def _bits(scm: SCM) -> dict[str, str]:
    """A hash of every fitted mechanism's numbers, by node."""
    out = {}
    for v, m in scm.mechanisms_.items():
        h = hashlib.sha256()
        _state(m, h)
        out[v] = h.hexdigest()
    return out


def _tasks(scm: SCM, frame: pd.DataFrame) -> tuple[list, dict]:
    """The node tasks of ``scm`` (fitted) on ``frame``, as ``SCM.fit`` builds them, and the
    columns they were built from."""
    vals = {v: scm._factual(frame, v, None) for v in scm.nodes}
    tasks = node_tasks(
        scm.topological_order, scm.dag_.parents, scm.kinds_, scm.categories_,
        scm._mechanism_for, vals,
    )  # fmt: skip
    return tasks, vals


def _blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


# ---------------------------------------------------------------- one thread
def test_the_fit_has_the_same_bits_under_any_blas_thread_count():
    """The determinism defect: on main the wide node's coefficients differ between 1 and 2
    BLAS threads; every fit now runs on one thread, whatever the caller's setting."""
    frame = _wide()
    fits = []
    for threads in (1, 2, 4):
        with threadpool_limits(threads):
            fits.append(SCM(WIDE).fit(frame).mechanisms_["y"].coef_)
    for other in fits[1:]:
        assert other.tobytes() == fits[0].tobytes()


def test_one_thread_holds_blas_to_one_and_restores_it_after_the_last_of_concurrent_fits():
    with threadpool_limits(2, user_api="blas"):
        before = _blas_threads()
        inside, entered, leave = [], threading.Barrier(2), threading.Event()

        def fit(first: bool) -> None:
            with one_thread():
                entered.wait()
                if first:
                    return  # leaves while the other is still inside
                leave.wait()
                inside.append(_blas_threads())

        a = threading.Thread(target=fit, args=(True,))
        b = threading.Thread(target=fit, args=(False,))
        a.start(), b.start()
        a.join()
        leave.set()
        b.join()
        assert inside == [[1] * len(before)]  # still one after the first fit left
        assert _blas_threads() == before


# ---------------------------------------------------------------- tasks
def test_node_tasks_hold_only_each_nodes_columns_and_compact_codes():
    scm = SCM(EDGES).fit(_world())
    tasks, vals = _tasks(scm, _world())
    assert [t.node for t in tasks] == ["edu", "region", "income", "savings"]
    income = tasks[2]
    assert list(income.columns) == ["g", "edu", "age", "income"]
    assert income.columns["income"] is vals["income"]  # by reference, not copied
    small = _compact(income)
    assert small.columns["g"].dtype == np.uint8 and small.columns["age"].dtype == np.float64
    assert fit_node(small).coef_.tobytes() == fit_node(income).coef_.tobytes()


# ---------------------------------------------------------------- backends
@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_local_threads_give_the_serial_bits(n_jobs):
    frame = _world()
    serial = _bits(SCM(EDGES).fit(frame))
    assert _bits(SCM(EDGES).fit(frame, backend=Backend(n_jobs=n_jobs))) == serial
    assert _bits(SCM(EDGES).fit(frame, backend="local")) == serial


class Broken(BaseEstimator, RegressorMixin):
    def fit(self, X, y):
        raise np.linalg.LinAlgError("singular")

    def predict(self, X):
        return np.zeros(len(X))


@pytest.mark.parametrize("backend", [None, Backend(n_jobs=2)])
def test_a_failing_estimator_names_its_node(backend):
    with pytest.raises(InputError) as err:
        SCM(EDGES, mechanism={"savings": Broken()}).fit(_world(), backend=backend)
    assert str(err.value) == "the mechanism for node 'savings' failed to fit: singular"
    assert isinstance(err.value.__cause__, np.linalg.LinAlgError)


def test_the_first_failing_node_in_order_is_named_on_threads():
    mech = {"income": Broken(), "savings": Broken()}
    with pytest.raises(InputError, match="node 'income'"):
        SCM(EDGES, mechanism=mech).fit(_world(), backend=Backend(n_jobs=2))


class SeesConfig(BaseEstimator, RegressorMixin):
    """Records scikit-learn's ``assume_finite`` where it is fitted."""

    seen: list = []

    def fit(self, X, y):
        import sklearn

        SeesConfig.seen.append(sklearn.get_config()["assume_finite"])
        return self

    def predict(self, X):
        return np.zeros(len(X))


def test_the_callers_sklearn_settings_reach_the_threads():
    import sklearn

    SeesConfig.seen = []
    with sklearn.config_context(assume_finite=True):
        SCM(EDGES, mechanism={"savings": SeesConfig()}).fit(_world(), backend=Backend(n_jobs=2))
    assert SeesConfig.seen == [True]


def test_fit_nodes_serially_in_this_thread():
    task = NodeFit(
        "x", "numeric", "linear", None, ("a",), {},
        {"a": np.array([0.0, 1.0, 2.0]), "x": np.array([1.0, 3.0, 5.0])},
    )  # fmt: skip
    assert fit_nodes([task])["x"].coef_.round(9).tolist() == [1.0, 2.0]


# ---------------------------------------------------------------- Dask
@pytest.fixture(scope="module")
def dask_backend():
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    from primafacie.compute import close_dask_clients

    backend = Backend(kind="dask", n_jobs=2)
    assert backend.map(len, [[1]]) == [1]  # the LocalCluster is created here
    yield backend
    close_dask_clients()


def test_dask_workers_give_the_serial_bits(dask_backend):
    """One task per node on the workers, each sent its own columns: the same mechanisms as
    the serial fit and the local threads, bit for bit (also the wide node whose bits depend
    on the BLAS thread count)."""
    frame = _world()
    serial = _bits(SCM(EDGES).fit(frame))
    assert _bits(SCM(EDGES).fit(frame, backend=dask_backend)) == serial
    wide = _wide()
    with threadpool_limits(2):
        here = SCM(WIDE).fit(wide).mechanisms_["y"].coef_
    there = SCM(WIDE).fit(wide, backend=dask_backend).mechanisms_["y"].coef_
    assert there.tobytes() == here.tobytes()


def test_dask_fits_run_on_the_workers(dask_backend, monkeypatch):
    """The client builds no design: a fit in this process would call the spy."""
    from primafacie.causal import encoding

    def refuse(*args, **kwargs):
        raise AssertionError("a design was built in the client")

    monkeypatch.setattr(encoding, "design", refuse)
    scm = SCM(EDGES).fit(_world(), backend=dask_backend)
    assert set(scm.mechanisms_) == {"edu", "region", "income", "savings"}


def test_a_failing_estimator_names_its_node_on_dask(dask_backend):
    bad = RandomForestRegressor(n_estimators=0)  # refused by scikit-learn at fit
    with pytest.raises(InputError) as err:
        SCM(EDGES, mechanism={"savings": bad}).fit(_world(), backend=dask_backend)
    with pytest.raises(InputError) as here:
        SCM(EDGES, mechanism={"savings": bad}).fit(_world())
    assert str(err.value) == str(here.value)
    assert str(err.value).startswith("the mechanism for node 'savings' failed to fit: ")
    assert type(err.value.__cause__) is type(here.value.__cause__)


def test_the_workers_warnings_are_shown_in_the_client(dask_backend):
    slow = LogisticRegression(max_iter=1)  # stops before converging: a ConvergenceWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SCM(EDGES, mechanism={"edu": slow}).fit(_world(), backend=dask_backend)
    assert any("ConvergenceWarning" == w.category.__name__ for w in caught)


class DiesOnce(BaseEstimator, RegressorMixin):
    """Least squares (numpy's, on the design as given) that kills the process fitting it the
    first time it is fitted anywhere: ``marker`` is created, then the process exits at once,
    as a worker lost mid-fit (out of memory, a lost machine) does."""

    def __init__(self, marker: str = "") -> None:
        self.marker = marker

    def fit(self, X, y):
        import os

        if not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)
        self.coef_ = np.linalg.lstsq(np.asarray(X), np.asarray(y), rcond=None)[0]
        return self

    def predict(self, X):
        return np.asarray(X) @ self.coef_


def test_a_worker_lost_during_the_fit_is_survived_with_the_serial_bits(tmp_path):
    """The worker fitting 'savings' dies mid-fit, taking with it the columns sent to it
    (data the client scattered, which no task can recompute): the nodes it held are sent
    again to the worker alive and the fit is the serial fit, bit for bit. On main the
    run failed (``FutureCancelledError``)."""
    pytest.importorskip("distributed", reason="the [dask] extra is not installed")
    from distributed import Client, LocalCluster

    from primafacie import compute

    marker = tmp_path / "died"
    marker.touch()  # the serial fit, in this process, must not die
    frame = _world()
    mech = {"savings": DiesOnce(str(marker))}
    serial = _bits(SCM(EDGES, mechanism=mech).fit(frame))
    marker.unlink()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0")  # fmt: skip
    client = Client(cluster)
    for nanny in cluster.workers.values():
        nanny.close_gracefully()  # a dead worker stays dead (a restart only slows the close)
    try:
        compute._CLIENTS[(None, 2)] = client
        scm = SCM(EDGES, mechanism=mech).fit(frame, backend=Backend(kind="dask", n_jobs=2))
        alive = len(client.scheduler_info()["workers"])
    finally:
        compute._CLIENTS.pop((None, 2), None)
        client.close()
        cluster.close()
    assert marker.exists() and alive == 1  # a worker did die in the fit
    assert _bits(scm) == serial


class _Lost:
    """A Dask future whose worker was lost: ``result()`` raises as Dask's does."""

    def result(self):
        from concurrent.futures import CancelledError

        raise CancelledError("lost dependencies")


class _Done:
    def __init__(self, value) -> None:
        self.value = value

    def result(self):
        return self.value


class _Flaky:
    """A backend whose workers lose the node ``lose`` on its first ``times`` submissions."""

    kind = "local"  # compute.scatter hands the items back as they are

    def __init__(self, lose: str, times: int, retries: int = 2) -> None:
        self.lose, self.times, self.retries, self.sent = lose, times, retries, []

    def keep(self, fn, items):
        self.sent.append([t.node for t in items])
        out = []
        for t in items:
            if t.node == self.lose and self.times > 0:
                self.times -= 1
                out.append(_Lost())
            else:
                out.append(_Done(fn(t)))
        return out


def test_only_the_lost_nodes_are_sent_again_up_to_retries_times():
    """A node lost twice is sent again twice, alone, and fitted with the serial bits; a node
    lost once more than ``retries`` allows fails the run with Dask's error."""
    from concurrent.futures import CancelledError

    from primafacie.causal.fitting import _on_dask

    frame = _world()
    scm = SCM(EDGES).fit(frame)
    tasks, _ = _tasks(scm, frame)
    flaky = _Flaky("income", times=2, retries=2)
    got = _on_dask(flaky, tasks)
    assert flaky.sent == [["edu", "region", "income", "savings"], ["income"], ["income"]]
    assert [w for _, w in got] == [[], [], [], []]
    for task, (mech, _) in zip(tasks, got, strict=True):
        h1, h2 = hashlib.sha256(), hashlib.sha256()
        _state(mech, h1)
        _state(scm.mechanisms_[task.node], h2)
        assert h1.hexdigest() == h2.hexdigest(), task.node
    with pytest.raises(CancelledError):
        _on_dask(_Flaky("income", times=3, retries=2), tasks)


class SeesThread(BaseEstimator, RegressorMixin):
    """Records the thread it is fitted in."""

    seen: list = []

    def fit(self, X, y):
        SeesThread.seen.append(threading.current_thread().name)
        self.coef_ = np.zeros(X.shape[1])
        return self

    def predict(self, X):
        return np.zeros(len(X))


def test_fits_above_the_budget_run_one_at_a_time(monkeypatch):
    """Local threads fit the nodes side by side while their fits fit in FIT_BUDGET; above
    it one after another (one pool thread), with the same bits."""
    from primafacie.causal import fitting

    frame = _world()
    serial = _bits(SCM(EDGES).fit(frame))
    scm = SCM(EDGES).fit(frame)
    tasks, _ = _tasks(scm, frame)
    widest = max(fitting.fit_bytes(t) for t in tasks)
    assert fitting.parallel_fits(tasks, 4) == 4  # 3,000 rows: far below the budget
    monkeypatch.setattr(fitting, "FIT_BUDGET", 2 * widest)
    assert fitting.parallel_fits(tasks, 4) == 2
    monkeypatch.setattr(fitting, "FIT_BUDGET", widest - 1)
    assert fitting.parallel_fits(tasks, 4) == 1
    mech = {v: SeesThread() for v in ("income", "savings")}
    SeesThread.seen = []
    one = SCM(EDGES, mechanism=mech).fit(frame, backend=Backend(n_jobs=2))
    assert SeesThread.seen == [threading.current_thread().name] * 2  # this thread alone
    assert _bits(SCM(EDGES).fit(frame, backend=Backend(n_jobs=2))) == serial
    assert set(one.mechanisms_) == {"edu", "region", "income", "savings"}


def test_fit_bytes_counts_the_design_and_the_classes():
    from primafacie.causal.fitting import fit_bytes

    rows = np.zeros(10)
    numeric = NodeFit("y", "numeric", "linear", None, ("a", "g"), {"g": ["p", "q", "r"]},
                      {"a": rows, "g": rows, "y": rows})  # fmt: skip
    assert fit_bytes(numeric) == 8 * 10 * (2 * 3 + 3)
    assert fit_bytes(NodeFit("y", "numeric", "linear", None, (), {}, {})) == 0
