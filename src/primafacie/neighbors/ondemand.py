"""Indexes built on their first query, so a stratum no query reaches costs no tree.

On the credit world nearly every query finds its k nearest in its own stratum (its own
employment × region cell) and skips the strata of one or two keyed mismatches, yet each of
those strata indexed every base row: four trees over the whole base where one is searched
(measured by ``benchmarks/slope.py``: 3.6 of 13.9 CPU seconds of a 10^6-row search went to
building them, growing as n log n). An :class:`OnDemand` index is built by the first chunk
that needs it, under a lock (local threads share one build); building is deterministic, so
every thread and every Dask worker searches the same index.

An optional ``tune(index)``, given by the caller of :meth:`OnDemand.tuned`, runs once right
after the build, under the same lock (the search chooses there how many candidates the index's
queries fetch, :mod:`~primafacie.neighbors.candidates`); :meth:`OnDemand.tuned` returns the
index and its setting. It is the first caller's: an index kept for later searches
(:class:`~primafacie.neighbors.reuse.SpaceCache`) keeps the setting its first queries chose,
which changes what a query costs, never its answer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["OnDemand"]


class OnDemand:
    """``make_index(embed(), maxabs)``, built on the first :meth:`get`.

    Parameters
    ----------
    make_index
        The index constructor (``emb, maxabs -> _Index``).
    embed
        Returns the embedding to index; called once, at the build.
    maxabs
        Largest absolute coordinate (passed through to ``make_index``).

    Examples
    --------
    >>> built = []
    >>> lazy = OnDemand(lambda e, m: built.append(len(e)) or "tree", lambda: np.zeros((3, 1)), 0.0)
    >>> len(built)
    0
    >>> lazy.get(), lazy.get(), built
    ('tree', 'tree', [3])
    >>> OnDemand(lambda e, m: "tree", lambda: np.zeros((3, 1)), 0.0).tuned(tune=len)
    ('tree', 4)
    """

    def __init__(
        self, make_index: Callable[[np.ndarray, float], Any], embed: Callable[[], np.ndarray],
        maxabs: float,
    ) -> None:  # fmt: skip
        self._make, self._embed, self._maxabs = make_index, embed, maxabs
        self._index: Any = None
        self._setting: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        """The index, built (and tuned) on first use."""
        return self.tuned()[0]

    def tuned(self, tune: Callable[[Any], Any] | None = None) -> tuple[Any, Any]:
        """The index and the setting ``tune(index)`` chose for it (``None`` without one),
        both computed on first use (deterministic, like the build); a later ``tune`` is not
        run."""
        with self._lock:
            if self._index is None:
                index = self._make(self._embed(), self._maxabs)
                self._embed = None  # the embedding's closure may hold a large matrix
                if tune is not None:
                    self._setting = tune(index)
                self._index = index
            return self._index, self._setting
