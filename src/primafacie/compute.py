"""Execution backends: map a function over chunks, locally (threads) or on Dask.

Engines split work into chunks of complainants / subgroups and call :func:`map_chunks`; the
result list is in chunk order whatever the backend, so outputs are identical across backends.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InputError

__all__ = ["Backend", "get_backend", "map_chunks", "chunk_slices"]


@dataclass(frozen=True)
class Backend:
    """Where chunks run. ``kind`` is ``"local"`` or ``"dask"``; ``n_jobs`` threads for local."""

    kind: str = "local"
    n_jobs: int = 1
    address: str | None = None

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """Apply ``fn`` to every item and return the results in item order."""
        items = list(items)
        if self.kind == "local":
            if self.n_jobs == 1 or len(items) <= 1:
                return [fn(item) for item in items]
            from joblib import Parallel, delayed

            return list(
                Parallel(n_jobs=self.n_jobs, prefer="threads")(delayed(fn)(i) for i in items)
            )
        if self.kind == "dask":
            client = _dask_client(self.address, self.n_jobs)
            futures = client.map(fn, items, pure=False)
            return client.gather(futures)
        raise InputError(f"unknown compute backend {self.kind!r}; expected 'local' or 'dask'")


_CLIENTS: dict[tuple[str | None, int], Any] = {}


def _dask_client(address: str | None, n_jobs: int) -> Any:
    """A Dask client, created once per (address, workers) and closed at interpreter exit.

    Without an address a ``LocalCluster`` of worker *processes* is started (``n_jobs`` of them,
    at least 2), so the distributed path is exercised exactly as on a real cluster.
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
        try:
            client = Client(address, timeout="3s")
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from exc
    else:
        cluster = LocalCluster(
            n_workers=max(2, n_jobs), threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    _CLIENTS[key] = client
    if len(_CLIENTS) == 1:
        atexit.register(close_dask_clients)
    return client


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
) -> list[Any]:
    """Split ``indices`` into chunks, apply ``fn`` to each, return results in order."""
    idx = np.asarray(list(indices) if not isinstance(indices, np.ndarray) else indices)
    chunks = [idx[s] for s in chunk_slices(len(idx), chunk_size)]
    return get_backend(backend).map(fn, chunks)
