"""Indexes built on their first query, so a stratum no query reaches costs no tree.

On the credit world nearly every query finds its k nearest in its own stratum (its own
employment × region cell) and skips the strata of one or two keyed mismatches, yet each of
those strata indexed every base row: four trees over the whole base where one is searched
(measured by ``benchmarks/slope.py``: 3.6 of 13.9 CPU seconds of a 10^6-row search went to
building them, growing as n log n). An :class:`OnDemand` index is built by the first chunk
that needs it, under a lock (local threads share one build); building is deterministic, so
every thread and every Dask worker searches the same index.

An optional ``tune(index)`` runs once right after the build, under the same lock (the search
chooses there how many candidates the index's queries fetch,
:mod:`~primafacie.neighbors.candidates`); :meth:`OnDemand.tuned` returns the index and its
setting.
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
    tune
        Optional ``tune(index) -> setting``, run once after the build (deterministic, like
        the build); ``None`` gives the setting ``None``.

    Examples
    --------
    >>> built = []
    >>> lazy = OnDemand(lambda e, m: built.append(len(e)) or "tree", lambda: np.zeros((3, 1)), 0.0)
    >>> len(built)
    0
    >>> lazy.get(), lazy.get(), built
    ('tree', 'tree', [3])
    >>> OnDemand(lambda e, m: "tree", lambda: np.zeros((3, 1)), 0.0, tune=len).tuned()
    ('tree', 4)
    """

    def __init__(
        self, make_index: Callable[[np.ndarray, float], Any], embed: Callable[[], np.ndarray],
        maxabs: float, tune: Callable[[Any], Any] | None = None,
    ) -> None:  # fmt: skip
        self._make, self._embed, self._maxabs, self._tune = make_index, embed, maxabs, tune
        self._index: Any = None
        self._setting: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        """The index, built (and tuned) on first use."""
        return self.tuned()[0]

    def tuned(self) -> tuple[Any, Any]:
        """The index and the setting ``tune`` chose for it, both computed on first use."""
        with self._lock:
            if self._index is None:
                index = self._make(self._embed(), self._maxabs)
                self._embed = None  # the embedding's closure may hold a large matrix
                if self._tune is not None:
                    self._setting = self._tune(index)
                    self._tune = None  # its closure may hold the queries' sample
                self._index = index
            return self._index, self._setting
