"""Fitting an SCM's structural equations: one task per node, each on one BLAS thread.

Each node's mechanism is fitted on its own design (built from its parents' factual columns)
and its own factual values, so the nodes' fits are independent of one another. A
:class:`NodeFit` holds what one fit needs (the node's settings and its columns alone);
:func:`fit_nodes` runs the tasks one after another in this thread, on the threads of a local
:class:`~primafacie.compute.Backend`, or as one task per node on its Dask workers (each sent
only its node's columns, as compact arrays; only the fitted mechanism comes back; a node
whose worker was lost is sent again, :func:`_on_dask`).

Every fit runs with its BLAS and OpenMP libraries held to ONE thread (:func:`one_thread`):
a least-squares solve split over two BLAS threads adds its partial sums in another order and
gives other bits (measured on the credit world at 2·10^5 rows: the ``income`` coefficients
differ between 1 and 2 threads), so the fitted model, and every counterfactual after it,
would depend on the machine's core count. With one thread per fit the bits are the same
serially, on threads, on Dask workers and on any machine with the same libraries.

Examples
--------
>>> import numpy as np
>>> task = NodeFit("x", "numeric", "linear", None, ("a",), {}, {"a": np.array([0.0, 1.0, 2.0]),
...                "x": np.array([1.0, 3.0, 5.0])})
>>> fit_nodes([task])["x"].coef_.round(6).tolist()
[1.0, 2.0]
"""

from __future__ import annotations

import pickle
import sys
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import InputError
from . import encoding
from .mechanisms import LinearANM, Mechanism, make_mechanism

__all__ = [
    "FIT_BUDGET",
    "FitFailure",
    "NodeFit",
    "compact_codes",
    "fit_bytes",
    "fit_node",
    "fit_nodes",
    "one_thread",
    "parallel_fits",
]


@dataclass(frozen=True)
class NodeFit:
    """One node's fit: its settings and its own columns (its parents' and its own).

    Attributes
    ----------
    node
        The node whose mechanism is fitted.
    kind
        ``"numeric"`` or ``"categorical"``.
    setting
        The node's ``mechanism`` setting (a name or an unfitted scikit-learn estimator).
    n_categories
        The category count of a categorical node (``None`` for a numeric one).
    parents
        The node's parents, in the design's order.
    categories
        ``{parent: categories}`` of its categorical parents (their one-hot blocks).
    columns
        ``{name: values}`` of the parents and the node: codes (any integer dtype; widened to
        int64 before the fit) or float64 values.
    sklearn_config
        scikit-learn's configuration in the caller's thread (``None`` when scikit-learn was
        not imported there): its settings are per thread, so they are set again where the
        task runs.
    """

    node: str
    kind: str
    setting: Any
    n_categories: int | None
    parents: tuple[str, ...]
    categories: dict[str, list]
    columns: dict[str, np.ndarray]
    sklearn_config: dict[str, Any] | None = None


@dataclass(frozen=True)
class FitFailure:
    """A node whose mechanism raised while fitting: the message, and the error itself when
    it could travel back from a worker (``None`` otherwise)."""

    node: str
    message: str
    error: BaseException | None


_LOCK = threading.Lock()
_DEPTH = 0
_BLAS_BEFORE: list[tuple[Any, int]] = []


@contextmanager
def one_thread() -> Iterator[None]:
    """Hold BLAS to one thread in this process, and OpenMP to one thread in this thread.

    BLAS's (OpenBLAS's) thread count is one setting per process, so concurrent fits (local
    threads, a Dask worker with several threads) share one limit: the first to enter sets
    it, the last to leave restores it; a per-fit ``threadpool_limits`` would let the first
    fit to finish hand its neighbours their threads back mid-fit. threadpoolctl lets only
    one "controlling" thread change OpenBLAS and silently ignores the others, so the limit
    is set and restored after releasing that ownership (:func:`_set_blas`). OpenMP's count
    is per thread and is set in each. Libraries loaded after the limit was set are not
    held: :func:`fit_node` imports what a mechanism will call before entering.

    Examples
    --------
    >>> with one_thread():
    ...     pass
    """
    global _DEPTH, _BLAS_BEFORE
    from threadpoolctl import ThreadpoolController  # lazily: start-up without a fit

    with _LOCK:
        if _DEPTH == 0:
            libs = ThreadpoolController().select(user_api="blas").lib_controllers
            _BLAS_BEFORE = [(lib, lib.num_threads) for lib in libs]
            _set_blas([(lib, 1) for lib in libs])
        _DEPTH += 1
    try:
        # a controller of the per-thread libraries alone (OpenMP, and a BLAS built on it):
        # leaving restores them, not the process-wide BLAS set above
        per_thread = ThreadpoolController().select(user_api="openmp", threading_layer="openmp")
        with per_thread.limit(limits=1):
            yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0:
                _set_blas(_BLAS_BEFORE)
                _BLAS_BEFORE = []


def _set_blas(counts: list[tuple[Any, int]]) -> None:
    """Set each BLAS library's thread count from this thread, whichever thread threadpoolctl
    holds as OpenBLAS's controller (it is released before and after: a thread that set a
    limit and is still alive would otherwise keep every other thread from changing it)."""
    from threadpoolctl import OpenBLASController

    clear = getattr(OpenBLASController, "clear_controlling_thread", None)
    if clear is not None:
        clear(force=True)
    for lib, n in counts:
        lib.set_num_threads(n)
    if clear is not None:
        clear(force=True)


def compact_codes(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Codes ``0 .. n_categories − 1`` in the narrowest unsigned dtype that holds them (sent
    to a worker at 1 byte per row rather than 8; :func:`fit_node` widens them back).

    Examples
    --------
    >>> compact_codes(np.array([0, 2, 1]), 3).dtype
    dtype('uint8')
    """
    for dtype in (np.uint8, np.uint16, np.uint32):
        if n_categories <= np.iinfo(dtype).max + 1:
            return codes.astype(dtype, copy=False)
    return codes


def _sklearn_config() -> dict[str, Any] | None:
    """scikit-learn's settings in this thread, when it is imported (never importing it)."""
    module = sys.modules.get("sklearn")
    return None if module is None else dict(module.get_config())


def node_tasks(
    order: Sequence[str],
    parents: Mapping[str, Sequence[str]],
    kinds: Mapping[str, str],
    categories: Mapping[str, Sequence[Any]],
    setting_for: Any,
    values: Mapping[str, np.ndarray],
) -> list[NodeFit]:
    """One :class:`NodeFit` per node with parents, in ``order``.

    Parameters
    ----------
    order
        The nodes in topological order.
    parents
        ``{node: parents}``.
    kinds, categories
        Each node's kind; each categorical node's category order.
    setting_for
        ``setting_for(node)``: the node's ``mechanism`` setting.
    values
        ``{node: codes or floats}``: the factual columns (held by reference, not copied).

    Returns
    -------
    list of NodeFit
    """
    config = _sklearn_config()
    tasks = []
    for v in order:
        if not parents[v]:
            continue
        tasks.append(
            NodeFit(
                node=v,
                kind=kinds[v],
                setting=setting_for(v),
                n_categories=len(categories[v]) if v in categories else None,
                parents=tuple(parents[v]),
                categories={p: list(categories[p]) for p in parents[v] if p in categories},
                columns={c: values[c] for c in (*parents[v], v)},
                sklearn_config=config,
            )
        )
    return tasks


def fit_node(task: NodeFit) -> Mechanism | FitFailure:
    """Fit one node's mechanism on its columns, under :func:`one_thread`.

    Parameters
    ----------
    task
        The node's settings and columns.

    Returns
    -------
    Mechanism or FitFailure
        The fitted mechanism; or, when building or fitting it raised, what was raised (the
        caller names the node in its error).
    """
    mech = make_mechanism(task.setting, task.kind, task.n_categories)
    if not isinstance(mech, LinearANM):
        # scikit-learn's solvers call SciPy's BLAS: loaded now, so the limit below holds it
        import sklearn.linear_model  # noqa: F401
    # codes widened to int64 (the classifier's classes keep the dtype the serial fit gives)
    cols = {
        c: np.asarray(x, dtype=np.int64) if x.dtype.kind in "iu" else x
        for c, x in task.columns.items()
    }
    config: Any = nullcontext()
    if task.sklearn_config is not None:
        from sklearn import config_context

        config = config_context(**task.sklearn_config)
    try:
        with config, one_thread():
            mech.fit(encoding.design(task.parents, cols, task.categories), cols[task.node])
    except Exception as exc:  # the user's estimator: the caller reports which node failed
        return FitFailure(task.node, str(exc), exc)
    return mech


def _fit_on_worker(task: NodeFit) -> tuple[Mechanism | FitFailure, list[tuple]]:
    """Dask task body: :func:`fit_node`, the warnings it raised (shown again in the client,
    where the user reads them), and the freed heap handed back to the worker's system."""
    from ..release import trim_heap

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fit_node(task)
        if isinstance(out, FitFailure):
            try:
                pickle.dumps(out.error)
            except Exception:  # an error that cannot travel: its message does
                out = replace(out, error=None)
        said = [(str(w.message), w.category, w.filename, w.lineno) for w in caught]
        return out, said
    finally:
        trim_heap()


def fit_nodes(tasks: Sequence[NodeFit], backend: Any = None) -> dict[str, Mechanism]:
    """Fit every task's mechanism: here, on a backend's threads, or on its Dask workers.

    Parameters
    ----------
    tasks
        One per node with parents, in topological order.
    backend
        ``None``: one after another in this thread (stopping at the first failure). Otherwise
        a :class:`~primafacie.compute.Backend` (or what :func:`~primafacie.compute.get_backend`
        accepts): local, the nodes on its ``n_jobs`` threads (fewer when their fits would
        hold more than :data:`FIT_BUDGET` at once, :func:`parallel_fits`); Dask, one task per node on the
        workers, each sent its own columns with codes in one byte (sent again when the
        worker holding them is lost). The mechanisms are the same bits whichever runs them
        (each fit on one BLAS thread).

    Returns
    -------
    dict
        ``{node: fitted mechanism}`` in the tasks' order.

    Raises
    ------
    InputError
        A mechanism failed to fit: the first such node in topological order, named, with
        the estimator's message.
    """
    if backend is None:
        out = {}
        for task in tasks:
            out[task.node] = _checked(fit_node(task), task)
        return out
    from ..compute import get_backend

    backend = get_backend(backend)
    if backend.kind != "dask":
        jobs = parallel_fits(tasks, backend.n_jobs)
        results = replace(backend, n_jobs=jobs).map(fit_node, list(tasks))
        return {t.node: _checked(r, t) for t, r in zip(tasks, results, strict=True)}
    fitted = _on_dask(backend, list(tasks))
    for _, said in fitted:  # the workers' warnings, in the nodes' order
        for message, category, filename, lineno in said:
            warnings.warn_explicit(message, category, filename, lineno)
    return {t.node: _checked(r, t) for t, (r, _) in zip(tasks, fitted, strict=True)}


#: Bytes the fits running at once on local threads may hold in all (their designs and their
#: solvers' arrays, :func:`fit_bytes`): above it the nodes are fitted one after another. At
#: 10^6 rows two of the credit world's fits side by side took the audit's client from 209 to
#: 764 MB (its peak; 2·10^5 rows: 168 to 325 MB), one at a time 203 MB over its start.
FIT_BUDGET = 2**28


def fit_bytes(task: NodeFit) -> int:
    """An upper estimate of one fit's transient memory: per row, 8 bytes for each of twice
    the design's columns (the design and a solver's copy of it) and three times the classes
    (a classifier's scores, probabilities and gradient). Measured with ``tracemalloc`` on
    the credit world at 10^6 rows: 76–153 B per row for its five nodes; this gives 84–168
    (1.05–1.1× each), so at 10^6 rows its nodes are fitted one at a time, at 2·10^5 two.

    Examples
    --------
    >>> t = NodeFit("y", "categorical", "linear", 4, ("g", "x"), {"g": ["a", "b", "c"]}, {})
    >>> fit_bytes(replace(t, columns={"x": np.zeros(1000)}))  # (2·(2 + 1) + 3·4) · 8 per row
    144000
    """
    rows = len(next(iter(task.columns.values()))) if task.columns else 0
    width = sum(len(task.categories[p]) - 1 if p in task.categories else 1 for p in task.parents)
    return 8 * rows * (2 * width + 3 * (task.n_categories or 1))


def parallel_fits(tasks: Sequence[NodeFit], n_jobs: int) -> int:
    """How many fits run at once on local threads: ``n_jobs``, fewer when that many of the
    largest would hold more than :data:`FIT_BUDGET` (at least one). The bits do not depend
    on it (each fit on one BLAS thread); only the memory and the fit's wall time do.

    Examples
    --------
    >>> parallel_fits([], 4)
    4
    """
    widest = max((fit_bytes(t) for t in tasks), default=0)
    return max(1, min(n_jobs, FIT_BUDGET // max(widest, 1)))


def _on_dask(backend: Any, tasks: list[NodeFit]) -> list[tuple[Any, list[tuple]]]:
    """:func:`_fit_on_worker` over ``tasks`` on Dask, each task's columns sent to one worker;
    the tasks lost with a worker sent again, up to ``backend.retries`` times.

    A chunk task of :meth:`~primafacie.compute.Backend.map` reads what was scattered to
    every worker, so the scheduler re-runs it elsewhere when its worker dies. A node's
    columns are sent to one worker only (sending every node's columns to every worker would
    multiply the bytes sent by the number of workers), so a worker lost before its fit was
    collected takes its only copy with it: Dask cancels the fit (``FutureCancelledError``,
    "lost dependencies" / "already forgotten"), and no scheduler could recompute data that
    came from the client. The client still holds every node's columns (the tasks' arrays
    are its own), so the cancelled nodes are compacted and sent again to the workers alive,
    and fitted there with the same bits (one BLAS thread per fit). Only cancellations are
    sent again: an error the fit itself raised is already a :class:`FitFailure`, and one
    Dask raises for the task (``KilledWorker``: the task itself killed its workers) is not
    made better by resending it.

    Returns
    -------
    list
        ``(mechanism or FitFailure, warnings)`` per task, in the tasks' order.

    Raises
    ------
    concurrent.futures.CancelledError
        A node still lost after ``backend.retries`` resends (Dask's own error).
    """
    from concurrent.futures import CancelledError

    from ..compute import scatter

    out: list[Any] = [None] * len(tasks)
    todo = list(range(len(tasks)))
    for attempt in range(backend.retries + 1):
        futures = backend.keep(_fit_on_worker, scatter(backend, [_compact(tasks[i]) for i in todo]))
        lost: list[int] = []
        for j, i in enumerate(todo):
            try:
                out[i] = futures[j].result()
            except CancelledError:
                if attempt == backend.retries:
                    raise
                lost.append(i)
            futures[j] = None  # the result released on the cluster
        if not lost:
            break
        todo = lost
    return out


def _compact(task: NodeFit) -> NodeFit:
    """The task with its code columns in one byte per row (what travels to a worker)."""
    sizes = {p: len(c) for p, c in task.categories.items()}
    if task.n_categories is not None:
        sizes[task.node] = task.n_categories
    cols = {c: compact_codes(x, sizes[c]) if c in sizes else x for c, x in task.columns.items()}
    return replace(task, columns=cols)


def _checked(result: Mechanism | FitFailure, task: NodeFit) -> Mechanism:
    """The fitted mechanism, or the InputError naming the node whose fit failed."""
    if not isinstance(result, FitFailure):
        return result
    what = "classifier" if task.kind == "categorical" else "mechanism"
    raise InputError(f"the {what} for node {task.node!r} failed to fit: {result.message}") from (
        result.error
    )
