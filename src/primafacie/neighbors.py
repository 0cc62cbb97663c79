"""Gower distance as an exact L1 distance on a transformed matrix, and exact k-NN search.

Gower's distance (the KDD 2011 situation-testing distance) between two rows is the mean over
the ``|X|`` attributes of a per-attribute distance: ``|x - x'| / range`` for numeric and ordinal
attributes, and the overlap ``1{x != x'}`` for categorical ones. Writing every numeric/ordinal
column as ``x / range`` and every categorical column as a one-hot block times ``0.5``, the
distance is exactly the L1 distance of the transformed rows divided by ``|X|`` (two different
categories differ in two one-hot cells, ``0.5 + 0.5 = 1``). :class:`GowerTransformer` builds
that matrix and :func:`knn` searches it exactly (dividing the L1 sums by ``|X|``).

Ranges and categories are learned on the *factual* data only and reused for counterfactual rows,
so counterfactual values outside the observed range give ``md > 1`` (never clipped). The legacy
options reproduce the CST authors' code: z-scored numeric columns compared by raw absolute
difference (``scale="zscore"``) and a divisor that counts every declared attribute.

Ties are broken deterministically by a documented rule: ``ties="first"`` keeps the row that
comes first in the search space (stable by row order, the default), ``ties="last"`` keeps the
later row (the CST authors' heap keeps the larger row index).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .data import FeatureSpec
from .errors import InputError

__all__ = ["GowerTransformer", "knn", "KnnResult", "TIE_RULES", "ALGORITHMS", "gower_distances"]

#: Search backends of :func:`knn`.
ALGORITHMS = ("auto", "brute", "tree", "faiss")

#: Tie rules: "first" keeps the earlier row of the search space, "last" the later one.
TIE_RULES = ("first", "last")

#: Upper bound on the number of float64 cells of one distance block (~32 MB).
_BLOCK_CELLS = 4_000_000


def _spec(name: str, kind: Any) -> FeatureSpec:
    if isinstance(kind, FeatureSpec):
        return kind
    if isinstance(kind, str):
        if kind not in ("numeric", "categorical", "ordinal"):
            raise InputError(f"feature {name!r}: unknown kind {kind!r}")
        return FeatureSpec(name, kind)
    if isinstance(kind, Mapping) and "ordinal" in kind:
        levels = kind["ordinal"]
        return FeatureSpec(name, "ordinal", None if levels is None else tuple(levels))
    raise InputError(f"feature {name!r}: cannot understand kind {kind!r}")


@dataclass
class GowerTransformer:
    """Map a table to a float matrix whose L1 distance is Gower's distance.

    Parameters
    ----------
    features
        ``{column: "numeric" | "categorical" | "ordinal" | {"ordinal": [levels]}}`` or
        :class:`~primafacie.data.FeatureSpec` values, in the order used for the columns.
    scale
        ``"range"`` (Gower, default): numeric/ordinal columns divided by ``max - min`` of the
        fitted data. ``"zscore"`` (legacy CST code): ``(x - mean) / sd`` with the population sd,
        compared by raw absolute difference. ``"none"``: raw values.
    n_attributes
        Divisor ``|X|``; defaults to the number of features. The CST authors' code also counted
        the protected attribute (legacy): it rescales every distance and never changes a ranking.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"salary": [10.0, 20.0, 30.0], "region": ["a", "b", "a"]})
    >>> t = GowerTransformer({"salary": "numeric", "region": "categorical"}).fit(df)
    >>> M = t.transform(df)
    >>> float(abs(M[0] - M[1]).sum() / t.divisor)  # (|10-20|/20 + 1) / 2
    0.75
    """

    features: Mapping[str, Any]
    scale: str = "range"
    n_attributes: int | None = None
    specs_: list[FeatureSpec] = field(default_factory=list, init=False, repr=False)
    center_: dict[str, float] = field(default_factory=dict, init=False, repr=False)
    width_: dict[str, float] = field(default_factory=dict, init=False, repr=False)
    categories_: dict[str, list] = field(default_factory=dict, init=False, repr=False)

    def fit(
        self, frame: pd.DataFrame, extra_categories: Sequence[pd.DataFrame] = ()
    ) -> GowerTransformer:
        """Learn ranges (or means and sds) from ``frame``; categories also from ``extra_categories``.

        Parameters
        ----------
        frame
            The factual data. Scaling statistics come from it only.
        extra_categories
            Further tables (e.g. counterfactual rows) whose categorical values need a one-hot
            column; they never change a range.

        Returns
        -------
        GowerTransformer
            ``self``, fitted.
        """
        if self.scale not in ("range", "zscore", "none"):
            raise InputError(f"scale must be 'range', 'zscore' or 'none', got {self.scale!r}")
        self.specs_ = [_spec(str(n), k) for n, k in self.features.items()]
        if not self.specs_:
            raise InputError("the distance needs at least one feature")
        zcols = []
        for spec in self.specs_:
            if spec.name not in frame.columns:
                raise InputError(f"feature column {spec.name!r} is not in the data")
            if spec.kind == "categorical":
                values = pd.concat(
                    [frame[spec.name]] + [f[spec.name] for f in extra_categories if spec.name in f]
                )
                self.categories_[spec.name] = sorted(pd.unique(values), key=str)
                continue
            x = self._numeric(spec, frame[spec.name])
            center, width = 0.0, 1.0
            if self.scale == "zscore" and spec.kind == "numeric":
                zcols.append(spec.name)
            elif self.scale == "zscore":
                # Legacy (h): the authors divide ordinal codes by nunique - 1 of the data.
                width = float(len(np.unique(x)) - 1)
            elif self.scale == "range":
                width = float(x.max() - x.min())
            # A constant column carries no information; divide by 1 so it adds 0, not NaN.
            self.center_[spec.name] = center
            self.width_[spec.name] = width if width > 0 else 1.0
        if zcols:
            # scikit-learn's StandardScaler fitted on all numeric columns at once, exactly as
            # the CST authors' code, so legacy distances (and their ties) are bit-identical.
            from sklearn.preprocessing import StandardScaler

            sc = StandardScaler().fit(frame[zcols].to_numpy(dtype=float))
            for j, name in enumerate(zcols):
                self.center_[name] = float(sc.mean_[j])
                self.width_[name] = float(sc.scale_[j])
        return self

    @staticmethod
    def _numeric(spec: FeatureSpec, col: pd.Series) -> np.ndarray:
        if spec.kind == "ordinal" and spec.order is not None:
            codes = {str(v): i for i, v in enumerate(spec.order)}
            mapped = col.astype(str).map(codes)
            if mapped.isna().any():
                bad = sorted(set(col.astype(str)) - set(codes))[:5]
                raise InputError(f"ordinal feature {spec.name!r} has unknown level(s) {bad}")
            return mapped.to_numpy(dtype=float)
        if col.isna().any():
            raise InputError(f"feature {spec.name!r} has missing values")
        try:
            x = col.to_numpy(dtype=float)
        except (TypeError, ValueError) as exc:
            raise InputError(f"feature {spec.name!r} is not numeric: {exc}") from exc
        bad = ~np.isfinite(x)
        if bad.any():
            raise InputError(
                f"feature {spec.name!r} has {int(bad.sum())} infinite value(s) (first at row "
                f"{int(np.flatnonzero(bad)[0])}); a distance needs finite numbers"
            )
        return x

    @property
    def divisor(self) -> int:
        """The ``|X|`` every distance is divided by."""
        return int(self.n_attributes or len(self.specs_))

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """The transformed matrix (float64, C order); divide its L1 distances by ``divisor``.

        Parameters
        ----------
        frame
            Rows to transform (factual or counterfactual) with every feature column.

        Returns
        -------
        numpy.ndarray
            ``(len(frame), n_columns)``; ``abs(M[i] - M[j]).sum() / divisor`` is Gower's
            distance. The division comes last (as in the authors' code) so sums that tie
            before it still tie after it.
        """
        if not self.specs_:
            raise InputError("GowerTransformer.transform called before fit")
        blocks = []
        for spec in self.specs_:
            if spec.name not in frame.columns:
                raise InputError(f"feature column {spec.name!r} is not in the data")
            if spec.kind == "categorical":
                cats = self.categories_[spec.name]
                col = frame[spec.name]
                if col.isna().any():
                    raise InputError(f"feature {spec.name!r} has missing values")
                codes = pd.Index(cats).get_indexer(col)
                if (codes < 0).any():
                    bad = col[codes < 0].iloc[0]
                    raise InputError(
                        f"categorical feature {spec.name!r}: value {bad!r} was not seen when "
                        "the distance was fitted"
                    )
                onehot = np.zeros((len(frame), len(cats)))
                onehot[np.arange(len(frame)), codes] = 0.5
                blocks.append(onehot)
            else:
                x = self._numeric(spec, frame[spec.name])
                blocks.append(((x - self.center_[spec.name]) / self.width_[spec.name])[:, None])
        return np.ascontiguousarray(np.hstack(blocks))


def gower_distances(query: np.ndarray, base: np.ndarray, divisor: float = 1.0) -> np.ndarray:
    """Exact L1 distances between every query row and every base row, ``(m, n)``.

    Columns are accumulated one at a time, left to right, so the rounding (and therefore which
    distances tie) is the same for every backend of :func:`knn`.

    Parameters
    ----------
    query, base
        Transformed matrices (see :class:`GowerTransformer`) with the same columns.
    divisor
        ``|X|``; the L1 sums are divided by it at the end.

    Returns
    -------
    numpy.ndarray
        float64 distances.

    Examples
    --------
    >>> gower_distances(np.array([[0.0, 0.0]]), np.array([[0.5, 0.25], [0.0, 1.0]])).tolist()
    [[0.75, 1.0]]
    """
    query = np.asarray(query, dtype=float)
    base = np.asarray(base, dtype=float)
    out = np.abs(query[:, 0][:, None] - base[:, 0][None, :])
    for j in range(1, query.shape[1]):
        out += np.abs(query[:, j][:, None] - base[:, j][None, :])
    if divisor != 1:
        out /= divisor
    return out


@dataclass(frozen=True)
class KnnResult:
    """Neighbours of every query, nearest first.

    ``indices`` are positions in the base matrix (``-1`` pads rows with fewer than ``k``
    neighbours, e.g. a small search space or a maximum distance); ``distances`` are the Gower
    distances (``inf`` for padding); ``counts`` the number of real neighbours of each row.
    """

    indices: np.ndarray
    distances: np.ndarray
    counts: np.ndarray


def _topk_block(d: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact k smallest per row, ties to the smaller column, sorted by (distance, column)."""
    m, n = d.shape
    if k >= n:
        order = np.argsort(d, axis=1, kind="stable")
        return order, np.take_along_axis(d, order, axis=1)
    kth = np.partition(d, k - 1, axis=1)[:, k - 1]
    rows, cols = np.nonzero(d <= kth[:, None])
    dv = d[rows, cols]
    less = dv < kth[rows]
    need = k - np.bincount(rows[less], minlength=m)
    # Among the cells equal to the k-th value keep the first `need` in column order
    # (np.nonzero lists them row by row, columns ascending).
    eq = (~less).astype(np.int64)
    csum = np.cumsum(eq)
    starts = np.searchsorted(rows, np.arange(m))
    before = np.concatenate([[0], csum])[starts]
    keep = less | ((csum - before[rows]) <= need[rows])
    cols = cols[keep].reshape(m, k)
    dist = dv[keep].reshape(m, k)
    order = np.lexsort((cols, dist))
    return np.take_along_axis(cols, order, axis=1), np.take_along_axis(dist, order, axis=1)


def _faiss_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("faiss") is not None


def knn(
    query: np.ndarray,
    base: np.ndarray,
    k: int,
    *,
    ties: str = "first",
    max_distance: float | None = None,
    chunk_size: int | None = None,
    algorithm: str = "auto",
    divisor: float = 1.0,
    backend: Any = None,
    decimals: int | None = None,
) -> KnnResult:
    """Exact k nearest base rows of every query row under the L1 (Gower) distance.

    Parameters
    ----------
    query
        ``(m, p)`` transformed search centres.
    base
        ``(n, p)`` transformed search space.
    k
        Number of neighbours (at most ``n``; fewer are returned, padded, when ``n < k``).
    ties
        ``"first"`` (default): among equal distances the base row that comes first wins;
        ``"last"``: the later row wins (the CST authors' code).
    max_distance
        Optional ε: neighbours farther than this are dropped (``counts`` says how many remain).
    chunk_size
        Query rows per block; default keeps a block under ~32 MB of distances.
    algorithm
        ``"brute"`` (chunked numpy), ``"tree"`` (scikit-learn KD-tree candidates re-ranked
        exactly; for few columns and large n), ``"faiss"`` (faiss flat L1 index candidates
        re-ranked exactly; needs the ``[fast]`` extra) or ``"auto"`` (tree when p <= 8 and
        n > 2,000; faiss for more columns and n > 20,000 when installed; brute otherwise). Every choice
        returns exactly the brute-force answer, tie rule included.
    divisor
        ``|X|`` (``GowerTransformer.divisor``); distances are L1 sums divided by it.
    backend
        :mod:`primafacie.compute` backend (``None``/"local", a ``Backend(n_jobs=2)``, or
        ``"dask"``) the query chunks are mapped over; results are identical on every backend.
    decimals
        Round every distance to this many decimals before ranking, so that distances that
        are equal in exact arithmetic but differ by floating-point noise (``|3 - 2.5| / 3.5``
        and ``|3 - 3.5| / 3.5`` computed on the scaled matrix) are ties and ``ties`` decides
        them. ``None`` (default) ranks the raw float64 sums, as the CST authors' code does.

    Returns
    -------
    KnnResult
        Neighbour positions and distances, nearest first, with the documented tie rule.

    Examples
    --------
    >>> base = np.array([[0.0], [1.0], [1.0], [3.0]])
    >>> knn(np.array([[0.9]]), base, 2).indices.tolist()
    [[1, 2]]
    >>> knn(np.array([[0.0]]), base, 2, ties="last").indices.tolist()
    [[0, 2]]
    """
    if ties not in TIE_RULES:
        raise InputError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    if decimals is not None and (isinstance(decimals, bool) or not 0 <= int(decimals) <= 15):
        raise InputError(f"decimals must be an integer in [0, 15] or None, got {decimals!r}")
    query = np.ascontiguousarray(query, dtype=float)
    base = np.ascontiguousarray(base, dtype=float)
    if query.ndim != 2 or base.ndim != 2 or query.shape[1] != base.shape[1]:
        raise InputError(
            f"query {query.shape} and base {base.shape} must be 2-D with equal columns"
        )
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    m, n = len(query), len(base)
    kk = min(k, n)
    if ties == "last":
        # "later row wins" is "first row wins" on the reversed search space.
        base = base[::-1]
    if m == 0 or n == 0:
        idx = np.full((m, k), -1, dtype=np.int64)
        return KnnResult(idx, np.full((m, k), np.inf), np.zeros(m, dtype=np.int64))
    # Identical centres have identical neighbour lists: search each distinct centre once
    # (the law-school data have ~1200 distinct (LSAT, UGPA) pairs among 21790 rows).
    uniq, inverse = np.unique(query, axis=0, return_inverse=True)
    if len(uniq) < 0.9 * m:
        res = knn(
            uniq,
            base[::-1] if ties == "last" else base,
            k,
            ties=ties,
            max_distance=max_distance,
            chunk_size=chunk_size,
            algorithm=algorithm,
            divisor=divisor,
            backend=backend,
            decimals=decimals,
        )
        inverse = inverse.reshape(-1)
        return KnnResult(res.indices[inverse], res.distances[inverse], res.counts[inverse])
    if algorithm not in ALGORITHMS:
        raise InputError(f"algorithm must be one of {ALGORITHMS}, got {algorithm!r}")
    if algorithm == "auto":
        algorithm = "brute"
        if base.shape[1] <= 8 and n > 2_000 and kk < n:
            algorithm = "tree"
        elif n > 20_000 and kk < n and _faiss_available():
            algorithm = "faiss"
    search = {"brute": _brute, "tree": _knn_tree, "faiss": _knn_faiss}[algorithm]
    idx, dist = search(query, base, kk, chunk_size, divisor, backend, decimals=decimals)
    if ties == "last":
        idx = n - 1 - idx
    if kk < k:
        idx = np.hstack([idx, np.full((m, k - kk), -1, dtype=np.int64)])
        dist = np.hstack([dist, np.full((m, k - kk), np.inf)])
    if max_distance is not None:
        if not max_distance > 0:
            raise InputError(f"max_distance must be positive, got {max_distance}")
        far = dist > max_distance
        idx = np.where(far, -1, idx)
        dist = np.where(far, np.inf, dist)
    counts = (idx >= 0).sum(axis=1)
    return KnnResult(idx, dist, counts)


def _map_chunks(
    fn: Callable[[slice], tuple[np.ndarray, np.ndarray]], m: int, rows: int, backend: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``fn`` to contiguous query chunks on a compute backend; results in chunk order."""
    from .compute import chunk_slices, get_backend

    parts = get_backend(backend).map(fn, chunk_slices(m, rows))
    return np.vstack([p[0] for p in parts]), np.vstack([p[1] for p in parts])


def _brute(
    query: np.ndarray,
    base: np.ndarray,
    k: int,
    chunk_size: int | None,
    divisor: float,
    backend: Any = None,
    decimals: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    rows = chunk_size or max(1, _BLOCK_CELLS // max(len(base), 1))

    def one(sl: slice) -> tuple[np.ndarray, np.ndarray]:
        d = gower_distances(query[sl], base, divisor)
        if decimals is not None:
            np.round(d, decimals, out=d)
        return _topk_block(d, k)

    return _map_chunks(one, len(query), rows, backend)


def _candidates_then_exact(
    query: np.ndarray,
    base: np.ndarray,
    k: int,
    chunk_size: int | None,
    divisor: float,
    search: Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]],
    rel: float,
    abs_tol: float,
    backend: Any = None,
    decimals: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Approximate-distance candidates (k + 8 per query), re-ranked exactly.

    ``search(q, kq)`` returns ``(distances, indices)`` of the kq nearest base rows, ascending,
    with distances accurate to ``rel`` (relative) and ``abs_tol``. When the last candidate is
    farther than the k-th by more than twice that error, every row that can enter the exact top
    k is a candidate; candidates are re-ranked with :func:`gower_distances`' arithmetic and the
    "first row wins" rule. Other queries (ties at the boundary) fall back to brute force, so the
    result equals brute force exactly.
    """
    n, m = len(base), len(query)
    kq = min(k + 8, n)
    if decimals is not None:
        # Rounding merges distances up to one unit of the last kept decimal apart: a row that
        # far beyond the k-th candidate can still tie with it, so widen the safety margin.
        abs_tol += 10.0**-decimals

    def one(sl: slice) -> tuple[np.ndarray, np.ndarray]:
        q = query[sl]
        dq, iq = search(q, kq)
        iq = np.asarray(iq, dtype=np.int64)
        dk = np.asarray(dq[:, k - 1], dtype=float)
        ok = np.asarray(dq[:, -1], dtype=float) > dk * (1 + 2 * rel) + 2 * abs_tol
        if kq >= n:
            ok[:] = True
        ok &= (iq >= 0).all(axis=1)
        safe = np.maximum(iq, 0)
        d = np.abs(q[:, 0][:, None] - base[safe, 0])
        for j in range(1, q.shape[1]):
            d += np.abs(q[:, j][:, None] - base[safe, j])
        if divisor != 1:
            d /= divisor
        if decimals is not None:
            np.round(d, decimals, out=d)
        order = np.lexsort((iq, d))
        out_i = np.take_along_axis(iq, order, axis=1)[:, :k]
        out_d = np.take_along_axis(d, order, axis=1)[:, :k]
        bad = np.flatnonzero(~ok)
        if len(bad):
            out_i[bad], out_d[bad] = _brute(q[bad], base, k, None, divisor, decimals=decimals)
        return out_i, out_d

    return _map_chunks(one, m, chunk_size or 50_000, backend)


def _knn_tree(
    query: np.ndarray,
    base: np.ndarray,
    k: int,
    chunk_size: int | None,
    divisor: float,
    backend: Any = None,
    decimals: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn KD-tree (Manhattan, float64) candidates, re-ranked exactly."""
    from sklearn.neighbors import KDTree

    tree = KDTree(base, metric="manhattan")
    return _candidates_then_exact(
        query,
        base,
        k,
        chunk_size,
        divisor,
        lambda q, kq: tree.query(q, k=kq),
        1e-9,
        1e-12,
        backend,
        decimals,
    )


def _knn_faiss(
    query: np.ndarray,
    base: np.ndarray,
    k: int,
    chunk_size: int | None,
    divisor: float,
    backend: Any = None,
    decimals: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """faiss exact flat L1 index (float32) candidates, re-ranked exactly in float64."""
    try:
        import faiss
    except ImportError as exc:
        raise InputError(
            "algorithm='faiss' needs the [fast] extra: pip install 'primafacie[fast]'"
        ) from exc
    index = faiss.IndexFlat(base.shape[1], faiss.METRIC_L1)
    index.add(np.ascontiguousarray(base, dtype=np.float32))
    scale = float(np.abs(base).sum(axis=1).max()) if len(base) else 1.0

    def search(q: np.ndarray, kq: int) -> tuple[np.ndarray, np.ndarray]:
        return index.search(np.ascontiguousarray(q, dtype=np.float32), kq)

    # float32 sums of p terms: error well below 1e-4 relative plus 1e-5 of the data's scale.
    return _candidates_then_exact(
        query, base, k, chunk_size, divisor, search, 1e-4, 1e-5 * scale, backend, decimals
    )
