"""KD-trees over rows stored in Z (Morton) order, so a leaf's rows sit together in memory.

scikit-learn's KD-tree keeps the rows in the order given and reaches a leaf's rows through a
permutation: with the rows in data order every leaf visited costs cache misses scattered over
the whole matrix, and the tree outgrows the cache as n grows (``docs/scaling.md``, "The
slope"). Stored in Z order, rows close in space are close in memory. The index answers with
positions in the caller's order, so nothing outside sees the permutation; among rows tied at
the ``kq``-th distance it may return others than the unsorted tree, which the certificate of
:func:`~primafacie.neighbors.search._index_pairs` absorbs (rows tied past ``k + extra`` are
fetched by a radius search, and the final ranking is the canonical one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["MIN_ROWS", "z_sorted"]

#: Indexes of fewer rows fit the cache: stored as given.
MIN_ROWS = 10_000


def z_sorted(
    make_index: Callable[[np.ndarray, float], Any], z_order: Callable[[np.ndarray], np.ndarray]
) -> Callable:
    """``make_index`` over the rows of ``emb`` in the order ``z_order(emb)`` gives (the search's
    Z order, passed in so this module does not import the search), answering in ``emb``'s
    positions."""

    def make(emb: np.ndarray, maxabs: float) -> Any:
        if len(emb) < MIN_ROWS:
            return make_index(emb, maxabs)
        # int32 positions (held as long as the index): 4 B per row less than argsort's int64
        order = z_order(emb).astype(np.int32 if len(emb) < 2**31 else np.int64)
        inner = make_index(np.ascontiguousarray(emb[order]), maxabs)

        def search(e: np.ndarray, kq: int) -> tuple[np.ndarray, np.ndarray]:
            d, i = inner.search(e, kq)
            i = np.asarray(i, dtype=np.int64)
            return d, np.where(i >= 0, order[np.maximum(i, 0)], -1)

        def radius(e: np.ndarray, r: np.ndarray) -> list[np.ndarray]:
            lists = inner.radius(e, r)
            lens = np.fromiter((len(a) for a in lists), dtype=np.int64, count=len(lists))
            flat = order[np.concatenate([*lists, np.zeros(0, np.int64)]).astype(np.int64)]
            return np.split(flat, np.cumsum(lens)[:-1])

        # the index's own class (search._Index): no import of the search module
        return type(inner)(
            search=search, radius=None if inner.radius is None else radius, tol=inner.tol
        )

    return make
