"""The Gower coordinates of the factual rows, built per chunk into the search spaces' matrices.

A situation test searches two spaces: the protected rows (control groups) and the others
(test groups). Their coordinates used to be one matrix ``X`` of every row, from which each
search copied its rows (``X[ctrl_rows]``, ``X[test_rows]``): the whole ``X`` (42 B per row in
the credit world) beside its copies, and the transform's own temporaries over every row.
:func:`split_coordinates` transforms :data:`COORDINATE_CHUNK` rows at a time and writes each
chunk's rows straight into the matrix of the space they belong to, so the only whole-data
arrays are those matrices and a chunk's temporaries are bounded by the chunk.

Each row's coordinates depend only on that row and the fitted transformer (an element-wise
scaling, a code lookup), so the chunked matrices hold the bits of ``transform(frame)[rows]``.

Examples
--------
>>> import numpy as np, pandas as pd
>>> from primafacie.neighbors import GowerTransformer
>>> frame = pd.DataFrame({"x": [0.0, 1.0, 2.0, 4.0], "c": ["a", "b", "a", "b"]})
>>> tf = GowerTransformer({"x": "numeric", "c": "categorical"}).fit(frame)
>>> X = split_coordinates(tf, frame, [np.array([0, 3]), np.array([1, 2])], chunk=3)
>>> X[np.array([1, 2])].num.ravel().tolist(), X.codes.ravel().tolist()
([0.25, 0.5], [0, 1, 0, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..neighbors.gower import GowerMatrix

if TYPE_CHECKING:
    import pandas as pd

    from ..neighbors import GowerTransformer

__all__ = [
    "COORDINATE_CHUNK",
    "HeldMatrix",
    "HeldSplit",
    "SplitCoordinates",
    "held_coordinates",
    "holds",
    "split_coordinates",
]

#: Rows transformed at once (the transform's temporaries: a few columns of this many rows).
COORDINATE_CHUNK = 2**17


class _Split:
    """What a split of the coordinates is whether its parts are on the client or held on
    workers: its length and the matrices' levels and layout (``parts``, ``rows``: the
    dataclass's fields)."""

    parts: tuple[Any, ...]
    rows: tuple[np.ndarray, ...]

    def __len__(self) -> int:
        return sum(len(r) for r in self.rows)

    @property
    def levels(self) -> tuple[int, ...]:
        return self.parts[0].levels

    @property
    def layout(self) -> tuple[str, ...]:
        return self.parts[0].layout


@dataclass(frozen=True, eq=False)
class SplitCoordinates(_Split):
    """The Gower coordinates of every data row, held as one matrix per search space.

    Indexed like a :class:`~primafacie.neighbors.gower.GowerMatrix` of all rows: ``X[rows]``
    with sorted data-row positions gives their matrix. The rows of exactly one part are that
    part itself (no copy: the searches read, never write, it); a subset of a part is gathered
    from it; rows of several parts are gathered from each.

    Parameters
    ----------
    parts
        The matrices, one per space.
    rows
        Each part's data-row positions (sorted; together each row once).
    """

    parts: tuple[GowerMatrix, ...]
    rows: tuple[np.ndarray, ...]

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, numeric columns + categorical columns)``, as the whole matrix's."""
        return (len(self), self.parts[0].shape[1])

    @property
    def num(self) -> np.ndarray:
        """The numeric columns of every row in data order (assembled: a copy, for reading)."""
        return self[np.arange(len(self))].num

    @property
    def codes(self) -> np.ndarray:
        """The categorical codes of every row in data order (assembled: a copy)."""
        return self[np.arange(len(self))].codes

    def __getitem__(self, rows: Any) -> GowerMatrix:
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        rows = rows.reshape(-1)
        for part, own in zip(self.parts, self.rows, strict=True):
            if len(rows) == len(own) and np.array_equal(rows, own):
                return part
        first = self.parts[0]
        num = np.empty((len(rows), first.num.shape[1]), dtype=first.num.dtype)
        codes = np.empty((len(rows), first.codes.shape[1]), dtype=first.codes.dtype)
        found = np.zeros(len(rows), dtype=bool)
        for part, own in zip(self.parts, self.rows, strict=True):
            at = np.minimum(np.searchsorted(own, rows), max(len(own) - 1, 0))
            hit = own[at] == rows if len(own) else np.zeros(len(rows), dtype=bool)
            num[hit], codes[hit] = part.num[at[hit]], part.codes[at[hit]]
            found |= hit
        if not found.all():
            raise IndexError(f"row {int(rows[~found][0])} is not among the coordinates' rows")
        return GowerMatrix(num, codes, first.levels, first.layout)


def split_coordinates(
    transformer: GowerTransformer,
    frame: pd.DataFrame,
    rows: Sequence[np.ndarray],
    chunk: int = COORDINATE_CHUNK,
) -> SplitCoordinates:
    """``transformer.transform(frame)`` held as the matrices of ``rows`` (one per search space),
    transformed ``chunk`` rows at a time.

    Parameters
    ----------
    transformer
        A fitted :class:`~primafacie.neighbors.GowerTransformer`.
    frame
        The factual rows.
    rows
        Sorted data-row positions of each space; together every row of ``frame`` once.
    chunk
        Rows transformed at once.

    Returns
    -------
    SplitCoordinates

    Raises
    ------
    InputError
        What ``transformer.transform(frame)`` raises (a chunk that fails is transformed again
        whole, so the message names the same value, count and row).
    """
    rows = tuple(np.asarray(r, dtype=np.int64) for r in rows)
    nums: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    head: GowerMatrix | None = None
    for block, at in _transformed_chunks(transformer, frame, rows, chunk):
        if head is None:
            head = block
            nums = [np.empty((len(r), block.num.shape[1]), dtype=block.num.dtype) for r in rows]
            codes = [
                np.empty((len(r), block.codes.shape[1]), dtype=block.codes.dtype) for r in rows
            ]
        for j, (lo, hi, local) in enumerate(at):
            nums[j][lo:hi] = block.num[local]
            codes[j][lo:hi] = block.codes[local]
    assert head is not None
    parts = tuple(
        GowerMatrix(num, code, head.levels, head.layout)
        for num, code in zip(nums, codes, strict=True)
    )
    return SplitCoordinates(parts, rows)


def _transformed_chunks(
    transformer: Any, frame: Any, rows: tuple[np.ndarray, ...], chunk: int
) -> Any:
    """Each ``chunk`` rows of ``frame`` transformed, with where each of ``rows`` (sorted
    positions) falls in it: ``(block, [(lo, hi, local), ...])``, ``local`` the block's rows of
    ``rows[j][lo:hi]``. A chunk that fails is transformed again whole, so the error names
    the same value, count and row as one transform of the table."""
    from ..errors import InputError

    n = len(frame)
    for start in range(0, max(n, 1), chunk):
        stop = min(start + chunk, n)
        try:
            block = transformer.transform(frame.iloc[start:stop])
        except InputError:
            transformer.transform(frame)  # raises the whole table's message
            raise
        at = []
        for own in rows:
            lo, hi = np.searchsorted(own, [start, stop])
            at.append((int(lo), int(hi), own[lo:hi] - start))
        yield block, at
        del block  # not held while the next chunk is transformed


# ---- the same coordinates held on Dask workers (issue 22: the client at 10^7 rows)
def holds(backend: Any, plan: Any) -> bool:
    """Whether a run's coordinates stay on the workers (``hold`` of
    :meth:`~primafacie.situation.search.GroupSearch.space`):
    corrected mode on a Dask backend. Legacy mode's counterfactual centres are searched with
    the data's table (on the client), so it keeps the client's matrices."""
    from ..compute import get_backend

    return not plan.legacy and get_backend(backend).kind == "dask"


@dataclass(frozen=True, eq=False)
class HeldMatrix:
    """A :class:`~primafacie.neighbors.gower.GowerMatrix` whose rows are held on Dask workers,
    as consecutive pieces (futures), never on the client: what a search reads there
    (:meth:`~primafacie.situation.search.GroupSearch.search`).

    Parameters
    ----------
    pieces
        Futures of the pieces (each a ``GowerMatrix``), in row order.
    lengths
        Rows of each piece.
    levels, layout
        As the pieces' (every piece has the same columns).

    Examples
    --------
    >>> held = HeldMatrix(("f0", "f1"), (3, 2), (2,), ("n", "c"))
    >>> len(held), held.covering(2, 4)
    (5, (0, 2, 0))
    """

    pieces: tuple[Any, ...]
    lengths: tuple[int, ...]
    levels: tuple[int, ...]
    layout: tuple[str, ...]

    def __len__(self) -> int:
        return int(sum(self.lengths))

    def covering(self, lo: int, hi: int) -> tuple[int, int, int]:
        """``(first, stop, offset)``: the pieces ``[first, stop)`` hold the rows ``[lo, hi)``,
        and ``offset`` is the first of those pieces' first row."""
        ends = np.cumsum(self.lengths)
        first = int(np.searchsorted(ends, lo, side="right"))
        stop = max(first + 1, int(np.searchsorted(ends, hi, side="left")) + 1)
        stop = min(stop, len(self.lengths))
        first = min(first, max(stop - 1, 0))
        return first, stop, int(ends[first] - self.lengths[first]) if self.lengths else 0


@dataclass(frozen=True, eq=False)
class HeldSplit(_Split):
    """:class:`SplitCoordinates` whose matrices are held on Dask workers (one
    :class:`HeldMatrix` per search space, each one piece)."""

    parts: tuple[HeldMatrix, ...]
    rows: tuple[np.ndarray, ...]

    def locate(self, rows: np.ndarray) -> tuple[HeldMatrix, np.ndarray | None]:
        """The held matrix holding the data rows ``rows`` (sorted) and their positions in it
        (None when they are its rows, all of them in order).

        Raises
        ------
        IndexError
            When no one part holds them all.
        """
        rows = np.asarray(rows).reshape(-1)
        for part, own in zip(self.parts, self.rows, strict=True):
            if len(rows) == len(own) and np.array_equal(rows, own):
                return part, None
            at = np.minimum(np.searchsorted(own, rows), max(len(own) - 1, 0))
            if len(own) and bool((own[at] == rows).all()):
                return part, at
        raise IndexError("the rows are not those of one search space")


def held_coordinates(
    transformer: GowerTransformer,
    frame: pd.DataFrame,
    rows: Sequence[np.ndarray],
    client: Any,
    chunk: int = 0,
) -> HeldSplit:
    """:func:`split_coordinates` whose matrices are built on the Dask workers of ``client``:
    each chunk's rows of each space are transformed here and sent to a worker at once (the
    client holds one chunk's coordinates at a time, never a space's whole matrix nor the
    copy Dask makes of what it sends), then each space's pieces are stacked there into one
    matrix (:func:`stack_pieces`). The same bits as :func:`split_coordinates` (the same
    transform of the same chunks, stacked in row order).

    Parameters
    ----------
    transformer, frame, rows
        As :func:`split_coordinates`.
    chunk
        Rows transformed and sent at once (default :data:`COORDINATE_CHUNK`).
    client
        A ``distributed.Client``.

    Returns
    -------
    HeldSplit

    Raises
    ------
    InputError
        As :func:`split_coordinates`.
    """
    rows = tuple(np.asarray(r, dtype=np.int64) for r in rows)
    pieces: list[list[Any]] = [[] for _ in rows]
    head: GowerMatrix | None = None
    for block, at in _transformed_chunks(transformer, frame, rows, chunk or COORDINATE_CHUNK):
        head = block if head is None else head
        for j, (_, _, local) in enumerate(at):
            piece = GowerMatrix(block.num[local], block.codes[local], block.levels, block.layout)
            # hash=False: a fresh key per piece, never a stale copy of an earlier run's
            pieces[j].append(client.scatter([piece], hash=False)[0])
        del block
    assert head is not None
    parts = tuple(
        HeldMatrix(
            (client.submit(stack_pieces, *p, pure=False),), (len(r),), head.levels, head.layout
        )  # fmt: skip
        for p, r in zip(pieces, rows, strict=True)
    )
    return HeldSplit(parts, rows)


def stack_pieces(*pieces: GowerMatrix) -> GowerMatrix:
    """Task: consecutive pieces of a matrix as one (row order kept).

    Examples
    --------
    >>> a = GowerMatrix(np.array([[0.0]]), np.array([[1]]), (2,), ("n", "c"))
    >>> stack_pieces(a, a).num.ravel().tolist()
    [0.0, 0.0]
    """
    if len(pieces) == 1:
        return pieces[0]
    first = pieces[0]
    return GowerMatrix(np.concatenate([p.num for p in pieces]),
                       np.concatenate([p.codes for p in pieces]), first.levels,
                       first.layout)  # fmt: skip


def rows_of(
    pieces: Sequence[GowerMatrix], offset: int, lo: int, hi: int, positions: np.ndarray | None
) -> GowerMatrix:
    """On a worker: the rows ``[lo, hi)`` of a held matrix (or, with ``positions``, those
    rows), read from its ``pieces`` whose first row is ``offset``.

    Examples
    --------
    >>> a = GowerMatrix(np.array([[0.0], [1.0]]), np.zeros((2, 0), dtype=int), (), ("n",))
    >>> rows_of([a, a], 0, 1, 3, None).num.ravel().tolist()
    [1.0, 0.0]
    >>> rows_of([a, a], 2, 0, 2, np.array([2, 3])).num.ravel().tolist()
    [0.0, 1.0]
    """
    whole = stack_pieces(*pieces)
    if positions is None:
        return whole[np.arange(lo - offset, hi - offset)]
    return whole[np.asarray(positions) - offset]
