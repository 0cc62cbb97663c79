"""Execution backends: map a function over chunks, locally (threads) or on Dask.

Engines split work into chunks of complainants / subgroups and call :func:`map_chunks`; the
result list is in chunk order whatever the backend, so outputs are identical across backends.
"""

from __future__ import annotations

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
            try:
                from distributed import Client
            except ImportError as exc:  # pragma: no cover - depends on the optional extra
                raise InputError(
                    "the dask backend needs the [dask] extra: pip install 'primafacie[dask]'"
                ) from exc
            client = Client(self.address) if self.address else Client(processes=False)
            try:
                futures = client.map(fn, items, pure=False)
                return client.gather(futures)
            finally:
                client.close()
        raise InputError(f"unknown compute backend {self.kind!r}; expected 'local' or 'dask'")


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
