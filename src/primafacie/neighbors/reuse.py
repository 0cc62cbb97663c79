"""What a search builds from its search space alone, kept for the next queries searched there.

An exact search (:func:`~primafacie.neighbors.knn`, stratified backends) first builds, from the
search space alone, each stratum's keys, row order and group bounds, and then, on demand, the
trees of the groups its queries reach. On a Dask cluster a large search runs as slices of its
queries, several per worker thread so that a slow worker holds up no other
(:func:`~primafacie.situation.search.held_slices`); each slice rebuilt all of it: ~8 of the
~29 CPU seconds of a 2^19-query slice at 10^7 rows (credit world, gender, ``cProfile``:
strata 2.7 s, trees and their tuning 5 s), paid ten times per search. A :class:`SpaceCache`
given to ``knn`` (``reuse=``) builds it once per process and serves every later query set
it covers.

What may be shared is only what does not depend on the queries, and the queries' numeric
range is one thing it does depend on: the weight of the key column in an index's embedding
must exceed every other part of a query's distance to a row. The cache is therefore made
with the range of *every* query it will serve (``bounds``); a query set outside it is
searched with strata of its own (nothing cached, the same answer). Each index keeps the
number of candidates its first queries chose (:func:`~primafacie.neighbors.search._tune_kq`):
a cost, never an answer. Every answer is the brute-force one, whatever was reused (tests).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

__all__ = ["SpaceCache"]


class SpaceCache:
    """The base side of one search space's strata, built once for queries within ``bounds``.

    A cache belongs to one search space (the base given to ``knn`` with it) and holds one
    entry: the settings of the latest search (k, tie rule, backend, rounding) name it, and a
    search with other settings replaces it.

    Parameters
    ----------
    bounds
        ``(lo, hi)``: each numeric column's least and greatest value over every query the
        cache will serve (:func:`~primafacie.neighbors.search.bounds_of` of them all, or of
        a superset of their rows).

    Attributes
    ----------
    builds, hits
        How many times the base side was built and how many times it was reused.

    Examples
    --------
    >>> from primafacie.neighbors import knn
    >>> base = np.array([[0.0], [1.0], [1.0], [3.0]])
    >>> cache = SpaceCache((np.array([0.0]), np.array([3.0])))
    >>> [knn(np.array([[q]]), base, 2, algorithm="tree", reuse=cache).indices.tolist()
    ...  for q in (0.9, 2.9)]
    [[[1, 2]], [[3, 1]]]
    >>> cache.builds, cache.hits
    (1, 1)
    """

    def __init__(self, bounds: tuple[np.ndarray, np.ndarray]) -> None:
        lo, hi = bounds
        self.bounds = (np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
        self.builds = 0
        self.hits = 0
        self._key: Hashable = None
        self._value: Any = None
        self._lock = threading.Lock()

    def covers(self, num: np.ndarray) -> bool:
        """Whether the numeric columns ``num`` of a query set lie within :attr:`bounds`.

        Examples
        --------
        >>> cache = SpaceCache((np.array([0.0]), np.array([1.0])))
        >>> cache.covers(np.array([[0.5]])), cache.covers(np.array([[1.5]]))
        (True, False)
        """
        lo, hi = self.bounds
        if num.shape[1] != len(lo):
            return False
        if not len(num) or not num.shape[1]:
            return True
        return bool((num.min(axis=0) >= lo).all() and (num.max(axis=0) <= hi).all())

    def strata(self, key: Hashable, num: np.ndarray, build: Callable[[tuple], Any]) -> Any:
        """The base side for the search settings ``key`` and queries ``num``: the kept one,
        else ``build(bounds)``, kept when it may serve other queries (its ``reusable``).
        None when ``num`` lies outside :attr:`bounds` (the caller builds its own)."""
        if not self.covers(num):
            return None
        with self._lock:
            if self._value is not None and self._key == key:
                self.hits += 1
                return self._value
            value = build(self.bounds)
            self.builds += 1
            if getattr(value, "reusable", False):
                self._key, self._value = key, value
            return value

    def clear(self) -> None:
        """Let go of what is kept (its indexes may be large)."""
        with self._lock:
            self._key, self._value = None, None


#: The caches of this process by search (a Dask worker's: :func:`process_cache`).
_PROCESS: dict[Hashable, SpaceCache] = {}
_PROCESS_LOCK = threading.Lock()


def process_cache(name: Hashable, bounds: tuple[np.ndarray, np.ndarray]) -> SpaceCache:
    """This process's cache for the search ``name`` (made with ``bounds`` on first call).

    A Dask worker runs a search's slices one after another as separate tasks; each asks for
    its search's cache here, so the worker builds the search space's strata once. A process
    keeps one search's cache: a new name lets the others go (their indexes may be large), as
    does :func:`forget` when the search ends.

    Examples
    --------
    >>> bounds = (np.zeros(1), np.ones(1))
    >>> process_cache("a", bounds) is process_cache("a", bounds)
    True
    >>> first = process_cache("a", bounds)
    >>> process_cache("b", bounds) is first, forget("b"), forget("b")
    (False, (0, 0), None)
    """
    with _PROCESS_LOCK:
        cache = _PROCESS.get(name)
        if cache is None:
            _PROCESS.clear()
            cache = _PROCESS[name] = SpaceCache(bounds)
        return cache


def forget(name: Hashable) -> tuple[int, int] | None:
    """Let go of this process's cache for the search ``name``; its ``(builds, hits)``, or
    None when it had none."""
    with _PROCESS_LOCK:
        cache = _PROCESS.pop(name, None)
    return None if cache is None else (cache.builds, cache.hits)
