"""Gower's distance: the transformer, its numeric + codes matrix and the exact distance kernel.

Gower's distance between two rows is the mean over the ``|X|`` attributes of a per-attribute
distance: ``|x - x'| / range`` for numeric and ordinal attributes, and the overlap
``1{x != x'}`` for categorical ones. :class:`GowerTransformer` maps a table to a
:class:`GowerMatrix`: the numeric/ordinal columns scaled (``x / range``) and the categorical
columns as integer codes. A categorical column therefore costs one column whatever its number of
levels: kernels compare codes for equality, never one one-hot column per level.

The *canonical arithmetic* every backend reproduces bit for bit (so that which distances tie
never depends on the backend) is: start from the number of differing categorical codes (an exact
integer), add ``|q_j - b_j|`` of the numeric columns one at a time, left to right, divide by
``|X|`` and, when asked, round to ``decimals``. When the categorical columns come first (the CST
authors' attribute order, used by ``legacy=True``) this is exactly the L1 distance of the old
one-hot-times-0.5 matrix (sums of halves are exact), so published tables are unchanged.

Ranges and categories are learned on the *factual* data only and reused for counterfactual rows,
so counterfactual values outside the observed range give ``md > 1`` (never clipped). The legacy
options reproduce the CST authors' code: z-scored numeric columns compared by raw absolute
difference (``scale="zscore"``) and a divisor that counts every declared attribute.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..data import FeatureSpec
from ..errors import InputError
from ..standardize import standard_scale

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["GowerTransformer", "GowerMatrix", "as_gower_matrix", "code_dtype", "gower_distances"]


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


def code_dtype(codes: np.ndarray, levels: tuple[int, ...] = ()) -> np.dtype:
    """The smallest signed integer dtype holding every value of ``codes`` and every code
    ``range(levels[j])`` allows (an exact fit: no code is ever wrapped).

    Examples
    --------
    >>> code_dtype(np.array([[0, 3]]), (4, 128)), code_dtype(np.array([[0, 3]]), (4, 129))
    (dtype('int8'), dtype('int16'))
    >>> code_dtype(np.array([[-1, 40_000]]))
    dtype('int32')
    """
    lo = int(codes.min()) if codes.size else 0
    hi = max([int(codes.max()) if codes.size else 0, *(int(v) - 1 for v in levels)])
    for dtype in (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def aligned(x: np.ndarray) -> np.ndarray:
    """``x`` itself, or its copy when its data are not aligned to its item size.

    Dask's transfers hand a worker arrays that point into a received frame at any byte
    offset: a float64 matrix at an address ending in ``...30``. Row gathers
    (``take(axis=0)``) of such a matrix run a slow unaligned copy, 3-10x slower: at 10^7
    rows the worker that had received the search space searched ~4.6x slower per chunk
    than the one that had built it (docs/scaling.md, tenth session).

    Examples
    --------
    >>> raw = bytearray(8 * 4 + 1)
    >>> x = np.frombuffer(memoryview(raw)[1:], dtype=float).reshape(2, 2)
    >>> x.flags.aligned, aligned(x).flags.aligned
    (False, True)
    >>> y = np.zeros((2, 2))
    >>> aligned(y) is y
    True
    """
    return x if x.flags.aligned else np.require(x, requirements=("C", "A"))


@dataclass(frozen=True, eq=False)
class GowerMatrix:
    """Transformed rows: scaled numeric columns plus integer codes of categorical columns.

    Behaves like the 2-D matrix the search functions take: ``X[rows]`` (integer positions, a
    boolean mask or a slice) selects rows, ``len(X)`` counts them and ``X.shape`` is
    ``(rows, numeric columns + categorical columns)``. ``np.asarray(X)`` (or
    :meth:`to_dense`) gives the equivalent one-hot matrix of earlier releases, whose L1
    distance is the same Gower distance.

    Parameters
    ----------
    num
        ``(n, p)`` float64 scaled numeric/ordinal columns, in feature order.
    codes
        ``(n, c)`` integer codes of the categorical columns, in feature order; held in the
        smallest signed integer dtype that holds every code and level count
        (:func:`code_dtype`: ``int8`` up to 128 levels), since a search holds the codes of
        every row. Arithmetic on them widens first (``neighbors.search._keys``).
    levels
        Number of levels of each categorical column (codes lie in ``range(levels[j])``).
    layout
        Feature order as ``"n"``/``"c"`` tags (only :meth:`to_dense` uses it).

    Examples
    --------
    >>> X = GowerMatrix(np.array([[0.0], [0.5]]), np.array([[0], [2]]), (3,), ("n", "c"))
    >>> X.shape, len(X[[1]])
    ((2, 2), 1)
    >>> X.to_dense().tolist()
    [[0.0, 0.5, 0.0, 0.0], [0.5, 0.0, 0.0, 0.5]]
    """

    num: np.ndarray
    codes: np.ndarray
    levels: tuple[int, ...] = ()
    layout: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        num = np.ascontiguousarray(self.num, dtype=float)
        codes = np.asarray(self.codes)
        if codes.dtype.kind not in "iu":
            codes = codes.astype(np.int64)
        if num.ndim != 2 or codes.ndim != 2 or len(num) != len(codes):
            raise InputError(
                f"GowerMatrix needs 2-D num and codes with equal rows, got {num.shape} and "
                f"{codes.shape}"
            )
        levels = tuple(int(v) for v in self.levels) or tuple(
            int(codes[:, j].max()) + 1 if len(codes) else 1 for j in range(codes.shape[1])
        )
        if len(levels) != codes.shape[1]:
            raise InputError(f"{len(levels)} level counts for {codes.shape[1]} code columns")
        codes = np.ascontiguousarray(codes, dtype=code_dtype(codes, levels))
        layout = tuple(self.layout) or ("n",) * num.shape[1] + ("c",) * codes.shape[1]
        object.__setattr__(self, "num", num)
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "layout", layout)

    def __reduce__(self) -> tuple:
        return (_unpickled, (self.num, self.codes, self.levels, self.layout))

    def __len__(self) -> int:
        return len(self.num)

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, numeric columns + categorical columns)``."""
        return (len(self.num), self.num.shape[1] + self.codes.shape[1])

    def __getitem__(self, rows: Any) -> GowerMatrix:
        if isinstance(rows, (int, np.integer)):
            rows = [rows]  # a single row stays a one-row matrix, as kernels expect 2-D input
        return GowerMatrix(self.num[rows], self.codes[rows], self.levels, self.layout)

    def to_dense(self) -> np.ndarray:
        """The one-hot matrix of earlier releases: each categorical level a column of 0 / 0.5."""
        blocks, jn, jc, n = [], 0, 0, len(self)
        for tag in self.layout:
            if tag == "n":
                blocks.append(self.num[:, jn : jn + 1])
                jn += 1
            else:
                onehot = np.zeros((n, self.levels[jc]))
                onehot[np.arange(n), self.codes[:, jc]] = 0.5
                blocks.append(onehot)
                jc += 1
        return np.ascontiguousarray(np.hstack(blocks)) if blocks else np.zeros((n, 0))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        import warnings

        # Until 0.1 transform() returned this one-hot array; keep such code working a release.
        warnings.warn(
            "GowerTransformer.transform now returns a GowerMatrix (numeric columns + "
            "categorical codes); converting it to the one-hot array is deprecated: call "
            ".to_dense(), or pass the GowerMatrix itself to knn / gower_distances",
            DeprecationWarning,
            stacklevel=2,
        )
        out = self.to_dense()
        return out if dtype is None else out.astype(dtype)


def as_gower_matrix(x: Any) -> GowerMatrix:
    """A :class:`GowerMatrix` as is, or a float matrix as a matrix of numeric columns only.

    Parameters
    ----------
    x
        A :class:`GowerMatrix` or anything :func:`numpy.asarray` turns into a 2-D float array.

    Returns
    -------
    GowerMatrix

    Examples
    --------
    >>> as_gower_matrix([[1.0, 2.0]]).shape
    (1, 2)
    """
    if isinstance(x, GowerMatrix):
        return x
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 2:
        raise InputError(f"expected a 2-D matrix of transformed rows, got shape {arr.shape}")
    return GowerMatrix(arr, np.zeros((len(arr), 0), dtype=np.int64), (), ())


@dataclass
class GowerTransformer:
    """Map a table to a :class:`GowerMatrix` whose canonical distance is Gower's distance.

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
    >>> float(gower_distances(M[[0]], M[[1]], t.divisor)[0, 0])  # (|10-20|/20 + 1) / 2
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
            Further tables (e.g. counterfactual rows) whose categorical values need a code;
            they never change a range.

        Returns
        -------
        GowerTransformer
            ``self``, fitted.
        """
        import pandas as pd

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
            # the CST authors' code, so legacy distances (and their ties) are bit-identical;
            # standard_scale is its arithmetic without importing scikit-learn (start-up).
            mean, scale = standard_scale(frame[zcols].to_numpy(dtype=float))
            for j, name in enumerate(zcols):
                self.center_[name] = float(mean[j])
                self.width_[name] = float(scale[j])
        return self

    @staticmethod
    def _numeric(spec: FeatureSpec, col: pd.Series) -> np.ndarray:
        if spec.kind == "ordinal" and spec.order is not None:
            codes = {str(v): i for i, v in enumerate(spec.order)}
            if str(getattr(col.dtype, "name", "")) == "category":
                # a dictionary-encoded column: each level's text mapped once, then taken by the
                # row codes (a missing row: NaN, as the text's). The text of every row made
                # ~105 B per row at once (the Dask client's peak at 2·10^6: docs/scaling.md)
                levels = [codes.get(str(c), np.nan) for c in col.cat.categories]
                per_level = np.array([*levels, np.nan], dtype=float)
                x = per_level[col.cat.codes.to_numpy()]  # code -1 (missing): the last entry
                if not np.isnan(x).any():
                    return x
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

    def transform(self, frame: pd.DataFrame) -> GowerMatrix:
        """The transformed rows; pass them (or ``X[rows]``) to :func:`knn` with ``divisor``.

        Parameters
        ----------
        frame
            Rows to transform (factual or counterfactual) with every feature column.

        Returns
        -------
        GowerMatrix
            Scaled numeric columns and categorical codes; ``gower_distances(X, Y, divisor)``
            is Gower's distance. The division comes last (as in the authors' code) so sums
            that tie before it still tie after it.
        """
        import pandas as pd

        if not self.specs_:
            raise InputError("GowerTransformer.transform called before fit")
        nums, codes, levels, layout = [], [], [], []
        for spec in self.specs_:
            if spec.name not in frame.columns:
                raise InputError(f"feature column {spec.name!r} is not in the data")
            if spec.kind == "categorical":
                cats = self.categories_[spec.name]
                col = frame[spec.name]
                if col.isna().any():
                    raise InputError(f"feature {spec.name!r} has missing values")
                code = pd.Index(cats).get_indexer(col)
                if (code < 0).any():
                    bad = col[code < 0].iloc[0]
                    raise InputError(
                        f"categorical feature {spec.name!r}: value {bad!r} was not seen when "
                        "the distance was fitted"
                    )
                codes.append(code)
                levels.append(len(cats))
                layout.append("c")
            else:
                x = self._numeric(spec, frame[spec.name])
                nums.append((x - self.center_[spec.name]) / self.width_[spec.name])
                layout.append("n")
        n = len(frame)
        num = np.column_stack(nums) if nums else np.zeros((n, 0))
        code = np.column_stack(codes) if codes else np.zeros((n, 0), dtype=np.int64)
        return GowerMatrix(num, code, tuple(levels), tuple(layout))


def canonical_sums(
    q: GowerMatrix,
    b: GowerMatrix,
    qi: Any,
    bi: Any,
    equal: Collection[int] = (),
    differ: Collection[int] = (),
) -> np.ndarray:
    """Undivided distances of the row pairs ``(q[qi], b[bi])`` in the canonical arithmetic.

    ``qi`` and ``bi`` broadcast against each other (a ``(m, 1)`` and a ``(1, n)`` index give
    the ``(m, n)`` block; two flat arrays give one sum per pair). Mismatching codes are counted
    first (an exact integer), then the numeric columns are added left to right: every backend
    calls this, so equal distances are equal bits everywhere.

    ``equal`` names code columns on which every pair is known to agree (the keyed columns of
    a k-NN stratum): their mismatches are all 0, and adding 0 to the zeros the sum starts
    from changes no bit, so they are not gathered nor compared (the same bits, ~2/7 fewer
    gathers on the credit world).

    ``differ`` names code columns on which every pair is known to disagree (the keyed columns
    outside a stratum, once the rows agreeing on them are skipped): the sum starts from their
    number, the exact integer their mismatches add up to, so the bits are the same and their
    codes are neither gathered nor compared (a postcode stratum's pairs read no code at all).

    Parameters
    ----------
    q, b
        Query and base rows.
    qi, bi
        Integer positions in ``q`` and ``b`` that broadcast against each other.
    equal, differ
        Code columns every pair agrees on, and disagrees on (disjoint).

    Returns
    -------
    numpy.ndarray
        The undivided sums, of the broadcast shape of ``qi`` and ``bi``.

    Examples
    --------
    >>> X = GowerMatrix(np.array([[0.0], [0.5]]), np.array([[1, 2], [1, 3]]), (2, 4))
    >>> canonical_sums(X, X, np.array([0, 0]), np.array([0, 1])).tolist()
    [0.0, 1.5]
    >>> canonical_sums(X, X, np.array([0, 0]), np.array([0, 1]), equal=(0,)).tolist()
    [0.0, 1.5]
    >>> canonical_sums(X, X, np.array([1]), np.array([0]), equal=(0,), differ=(1,)).tolist()
    [1.5]
    """
    shape = np.broadcast_shapes(np.shape(qi), np.shape(bi))
    # the known mismatches first: an exact small integer, as their 0/1 terms summed would give
    out = np.full(shape, float(len(differ)))
    skipped = set(equal) | set(differ)
    codes = [j for j in range(q.codes.shape[1]) if j not in skipped]
    if len(shape) == 1 and np.ndim(qi) == 1 and np.ndim(bi) == 1:
        return _pair_sums(q, b, qi, bi, codes, out)
    # ``column.take(rows)`` on a column's (strided) view: the same values as ``X[rows, j]``,
    # but numpy's 1-D take instead of its 2-D fancy-index path, ~2.5x faster per pair for
    # 1.4·10^6 random pairs among 5·10^5 rows (docs/scaling.md, "the k-NN kernels"). A block
    # (a row of queries against every base row) reads every base row anyway.
    for j in codes:
        out += q.codes[:, j].take(qi) != b.codes[:, j].take(bi)
    # One scratch block for |q - b|, reused column after column: the same operations in the
    # same order (so the same bits), without two fresh blocks per column (a brute-force
    # block is ~32 MB; allocating and faulting them in was a third of the scan).
    scratch = np.empty(shape) if q.num.shape[1] else None
    for j in range(q.num.shape[1]):
        np.subtract(q.num[:, j].take(qi), b.num[:, j].take(bi), out=scratch)
        out += np.abs(scratch, out=scratch)
    return out


#: Pairs summed at a time by :func:`_pair_sums`: their gathered rows (2 × 48 B per pair on
#: the credit world) stay in a core's cache from the first column to the last.
_PAIR_BLOCK = 1 << 15


def _pair_sums(
    q: GowerMatrix, b: GowerMatrix, qi: np.ndarray, bi: np.ndarray, codes: list[int],
    out: np.ndarray, first: np.ndarray | None = None,
) -> np.ndarray:  # fmt: skip
    """:func:`canonical_sums` of flat pairs into ``out``: the same operations in the same
    order on the same values (so the same bits), from whole rows gathered a block of pairs at
    a time instead of one column at a time.

    ``column.take(rows)`` on a column of a row-major matrix first copies the whole column
    (numpy's take wants a contiguous source): 2.8 ms per column at 5·10^5 rows, 48 ms at
    5·10^6, paid 14 times per chunk of queries whatever its size, so a search's cost grew
    faster than its rows (docs/scaling.md, "The k-NN search CPU, profiled at 2·10^6").
    ``take(axis=0)`` reads a row-major matrix in place; a matrix that is not (the reversed
    base of ``ties="last"``) is read by fancy indexing, which does not copy it either.
    ``first``, when given, receives each pair's sum after the codes and the first numeric
    column (the partial sum the stratified search prunes on). The sums are added to what
    ``out`` holds (zeros, or the mismatches of columns known to differ); ``codes`` are the
    code columns compared.
    """

    def rows(x: np.ndarray, at: np.ndarray) -> np.ndarray:
        return x.take(at, axis=0) if x.flags.c_contiguous else x[at]

    p = q.num.shape[1]
    for lo in range(0, len(out), _PAIR_BLOCK):  # a loop over blocks of pairs, not over rows
        sl = slice(lo, lo + _PAIR_BLOCK)
        o = out[sl]
        if codes:
            qc, bc = rows(q.codes, qi[sl]), rows(b.codes, bi[sl])
            for j in codes:  # loops over columns, never over rows
                o += qc[:, j] != bc[:, j]
        if p:
            qn, bn = rows(q.num, qi[sl]), rows(b.num, bi[sl])
            scratch = np.empty(len(o))
            for j in range(p):
                np.subtract(qn[:, j], bn[:, j], out=scratch)
                o += np.abs(scratch, out=scratch)
                if j == 0 and first is not None:
                    first[sl] = o
        elif first is not None:
            first[sl] = o
    return out


def gower_distances(query: Any, base: Any, divisor: float = 1.0) -> np.ndarray:
    """Exact Gower distances between every query row and every base row, ``(m, n)``.

    Parameters
    ----------
    query, base
        :class:`GowerMatrix` (from :meth:`GowerTransformer.transform`) or float matrices of
        numeric columns, with the same columns.
    divisor
        ``|X|``; the sums are divided by it at the end.

    Returns
    -------
    numpy.ndarray
        float64 distances in the canonical arithmetic (see the module docstring).

    Examples
    --------
    >>> gower_distances(np.array([[0.0, 0.0]]), np.array([[0.5, 0.25], [0.0, 1.0]])).tolist()
    [[0.75, 1.0]]
    """
    q, b = as_gower_matrix(query), as_gower_matrix(base)
    out = canonical_sums(q, b, np.arange(len(q))[:, None], np.arange(len(b))[None, :])
    if divisor != 1:
        out /= divisor
    return out


def _unpickled(
    num: np.ndarray, codes: np.ndarray, levels: tuple[int, ...], layout: tuple[str, ...]
) -> GowerMatrix:
    """A :class:`GowerMatrix` as pickled (already validated), its arrays :func:`aligned`."""
    out = object.__new__(GowerMatrix)
    for name, value in (("num", aligned(num)), ("codes", aligned(codes)), ("levels", levels),
                        ("layout", layout)):  # fmt: skip
        object.__setattr__(out, name, value)
    return out
