"""A situation test's per-complainant table written as Parquet parts while it is computed.

Above :data:`PARQUET_MIN_ROWS` table rows, an audit does not hold the table of a single-attribute
test in memory: each (method, k) block is computed (:meth:`Statistics.blocks
<primafacie.situation.statistics.Statistics.blocks>`), written as one part
``tables/situation_single_<attr>/part-NNNNN.parquet`` of the staging folder, counted into its
summary row and released, so the client holds one block (1/12 of the table with four methods
and three k) instead of the whole table and its copies on the way out. Below the threshold the
table stays one CSV, as before.

The parts are named in table order ((k, method) blocks, ``part-00000`` first), so the dataset
read back part after part is the table the in-memory run gives: same rows, columns, dtypes
and values (tested). Each (method, k) is one family of the multiple-testing correction and
one part, so the adjustment and the summary row of a part need no other part: the summary is
bit for bit :func:`~primafacie.situation.results.summarize` of the whole table.

What reads the parts: :meth:`PartitionedResult.block` (a few columns of one (method, k), for
the caveats), :meth:`PartitionedResult.strongest` (the report's top rows: the sort keys of one
part, then only the row groups holding the top rows), :meth:`PartitionedResult.to_frame` (the
whole table, for a caller who asks) and ``primafacie diff`` (the flags of both audits).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .coordinates import HeldMatrix, HeldSplit
from .multiplicity import adjust_distinct, merge_histograms, p_histogram
from .results import SituationResult, _summary_row, counts_row, summary_frame

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    from collections.abc import Iterator

    import pandas as pd

__all__ = [
    "PARQUET_MIN_ROWS",
    "PARTITION_COMPLAINANTS",
    "PART_ROW_GROUP",
    "PartitionedResult",
    "Rows",
    "TOP_ROWS",
    "part_name",
    "read_parts",
    "run_parts",
]

#: A single-attribute test whose per-complainant table has more rows than this is written as
#: Parquet parts by the audit (one per (method, k)); at most this many rows stay one CSV.
#: 10^6 rows are ~140 MB in memory and ~180 MB of CSV: below it the one file is convenient
#: and its cost small; a 10^6-decision audit has 5·10^6 rows per attribute.
PARQUET_MIN_ROWS = 10**6

#: Rows per Parquet row group: the report reads only the groups holding its top rows.
PART_ROW_GROUP = 65_536


def _empty_frame() -> pd.DataFrame:
    """An empty table (the default summary; pandas is loaded when one is made)."""
    import pandas as pd

    return pd.DataFrame()


#: The report lists the strongest complaints of a test's main (method, k): this many rows,
#: whose control and test members an audit keeps (:class:`Rows`) instead of every list.
TOP_ROWS = 20


def rows_of(result: Any) -> int:
    """Rows of a test's table (a partitioned one holds none in memory)."""
    return int(getattr(result, "n_rows", len(result.table)))


@dataclass(frozen=True)
class Rows:
    """An ``(m, width)`` array of group members of which only a few rows are held: those of
    the complainants at ``positions`` (the report's top rows). Indexed by positions as the
    whole array would be; a position not held raises (nothing is made up).

    Examples
    --------
    >>> r = Rows(np.array([2, 7]), np.array([[5, 6], [8, -1]]))
    >>> r[np.array([7, 2])].tolist()
    [[8, -1], [5, 6]]
    """

    positions: np.ndarray
    values: np.ndarray

    def __getitem__(self, pos: Any) -> np.ndarray:
        pos = np.asarray(pos, dtype=np.int64)
        at = np.searchsorted(self.positions, pos)
        held = at < len(self.positions)
        held[held] = self.positions[at[held]] == pos[held]
        if not held.all():
            raise KeyError(
                f"members of complainant positions {pos[~held].tolist()[:5]} were not kept "
                f"(kept: the report's top {TOP_ROWS} rows)"
            )
        return self.values[at]

    def __len__(self) -> int:
        return len(self.positions)


def part_name(index: int) -> str:
    """``part-00003.parquet``: the name of the ``index``-th part (zero-padded, so the names
    sort in table order)."""
    return f"part-{index:05d}.parquet"


#: Columns of a part that hold a different value on every row (the complainant's data row and
#: id): Parquet's default tries a dictionary for every column and drops it for these after
#: building it. They are written without one, and as deltas when they are integers (the rows
#: increase): a 262,144-row part of the 10^6 credit world took 0.098 CPU s and 4.49 MB, and
#: takes 0.068 s and 1.58 MB (the same table read back).
_UNIQUE_COLUMNS = ("row", "id")


def write_part(path: Path, frame: pd.DataFrame) -> None:
    """One part, with the pandas metadata (dtypes come back as written) and no index; every
    column but :data:`_UNIQUE_COLUMNS` dictionary-encoded."""
    with _PartFile(path) as part:
        part.write(frame)


class _PartFile:
    """A part written a slice of rows at a time through one ``ParquetWriter``: the bytes of
    :func:`write_part` on the slices stacked (``pq.write_table`` is this writer given the
    whole table), while only one slice is held as a frame and as Arrow (issue 22: a
    2^18-complainant block was a 37 MB frame and its Arrow copy at the client's peak).

    The first slice fixes the schema (and the pandas metadata) and the encodings; the others
    are converted to that schema. Slices of :data:`PART_ROW_GROUP` rows are one row group
    each, as the whole table's are. A column with no value in the first slices (text ids
    missing for the first complainants) has no type yet: those slices are held, as Arrow,
    until a slice gives it one (or the part ends), then written in that type.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._writer: Any = None
        self._held: list[Any] = []

    def write(self, frame: pd.DataFrame) -> None:
        """Append ``frame``'s rows (in row groups of :data:`PART_ROW_GROUP`)."""
        import pyarrow as pa

        if self._writer is not None:
            table = pa.Table.from_pandas(frame, schema=self._writer.schema, preserve_index=False)
            self._writer.write_table(table, row_group_size=PART_ROW_GROUP)
            return
        self._held.append(pa.Table.from_pandas(frame, preserve_index=False))
        if not any(pa.types.is_null(f.type) for f in self._schema()):
            self._open()

    def _schema(self) -> Any:
        """The held slices' types unified (a column without a value takes the others' type),
        with the pandas metadata of the last slice (the one that typed the columns)."""
        import pyarrow as pa

        schema = pa.unify_schemas([t.schema for t in self._held])
        return schema.with_metadata(self._held[-1].schema.metadata)

    def _open(self) -> None:
        """Open the writer on the held slices' schema and write them."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = self._schema()
        unique = [c for c in _UNIQUE_COLUMNS if c in schema.names]
        deltas = {
            c: "DELTA_BINARY_PACKED" for c in unique if pa.types.is_integer(schema.field(c).type)
        }
        self._writer = pq.ParquetWriter(
            self.path,
            schema,
            use_dictionary=[c for c in schema.names if c not in unique],
            column_encoding=deltas or None,
        )
        held, self._held = self._held, []
        for table in held:
            self._writer.write_table(table.cast(schema), row_group_size=PART_ROW_GROUP)

    def __enter__(self) -> _PartFile:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._writer is None and self._held and exc[0] is None:
            self._open()  # every slice held: a column empty throughout keeps the null type
        if self._writer is not None:
            self._writer.close()


def read_parts(paths: list[Path], columns: list[str] | None = None) -> pd.DataFrame:
    """The parts read back in order and stacked (``columns``: only these)."""
    import pandas as pd
    import pyarrow.parquet as pq

    frames = [pq.read_table(p, columns=columns).to_pandas() for p in paths]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _read_rows(path: Path, rows: np.ndarray) -> pd.DataFrame:
    """The rows ``rows`` of one part, in that order, reading only the row groups that hold
    them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    part = pq.ParquetFile(path)
    # the row groups' first rows, from the file (whoever wrote it, whatever its group size)
    sizes = [part.metadata.row_group(g).num_rows for g in range(part.metadata.num_row_groups)]
    first = np.cumsum([0, *sizes])
    group = np.searchsorted(first, rows, side="right") - 1
    groups = sorted(set(group.tolist()))
    read = part.read_row_groups(groups)
    # position of each row inside the row groups read
    before = np.cumsum([0] + [sizes[g] for g in groups])
    at = {g: i for i, g in enumerate(groups)}
    local = np.array([before[at[g]] + r - first[g] for g, r in zip(group.tolist(), rows.tolist(),
                                                                  strict=True)], dtype=np.int64)  # fmt: skip
    return read.take(pa.array(local)).to_pandas()


@dataclass(frozen=True)
class PartitionedResult(SituationResult):
    """A :class:`SituationResult` whose per-complainant table lives in Parquet parts.

    ``table`` holds the table's columns and no row; every number (summary, headline,
    scope, caveats) is the in-memory result's.

    Attributes
    ----------
    folder
        The folder holding the parts (absolute; inside the audit's staging folder while the
        audit runs).
    see
        The folder relative to the audit's output folder (``tables/situation_single_x/``),
        named by ``results.json``.
    keys
        The (method, k) of each part, in part order.
    part_rows
        The number of rows of each part.
    summary_table
        The summary, counted part by part while the parts were written.
    """

    folder: Path = field(default=Path("."), repr=False)
    see: str = ""
    keys: tuple[tuple[str, int], ...] = ()
    part_rows: tuple[int, ...] = ()
    summary_table: pd.DataFrame = field(default_factory=_empty_frame, repr=False)

    @property
    def n_rows(self) -> int:
        """Rows of the whole table (every part)."""
        return int(sum(self.part_rows))

    @property
    def paths(self) -> list[Path]:
        """The parts, in table order."""
        return [self.folder / part_name(i) for i in range(len(self.keys))]

    @property
    def files(self) -> tuple[str, ...]:
        """The parts relative to the audit's output folder (listed in ``files``)."""
        return tuple(f"{self.see}{part_name(i)}" for i in range(len(self.keys)))

    def moved_to(self, root: str | Path) -> PartitionedResult:
        """The same result once its parts sit in the output folder ``root`` (the audit's
        staging folder is renamed into place after the run)."""
        from dataclasses import replace

        return replace(self, folder=Path(root) / self.see)

    def summary(self) -> pd.DataFrame:
        """As :meth:`SituationResult.summary`, from the counts taken part by part."""
        return self.summary_table.copy()

    def to_frame(self, neighbors: bool = False) -> pd.DataFrame:
        """The whole table read from the parts (every row in memory: for a caller who asks;
        the audit never does). ``neighbors`` is not offered for a partitioned table."""
        return read_parts(self.paths)

    def _parts_of(self, method: str, k: int) -> list[int]:
        """Indexes of the parts holding the rows of one (method, k), in table order."""
        return [i for i, key in enumerate(self.keys) if key == (method, k)]

    def block(self, method: str, k: int, columns: list[str] | None = None) -> pd.DataFrame:
        """The rows of one (method, k), read from its parts (``columns``: only these)."""
        index = self._parts_of(method, k)
        if not index:
            return self.table.iloc[:0] if columns is None else self.table[columns].iloc[:0]
        return read_parts([self.paths[i] for i in index], columns)

    def strongest(self, method: str, k: int, n: int, keys: list[str] | None = None) -> pd.DataFrame:
        """The ``n`` rows of one (method, k) first in the order of ``keys`` descending, or by
        default the direction's (:meth:`strength`; stable), reading the keys of its parts and
        then only the row groups that hold those rows. The index is each row's position in
        the (method, k) block."""
        import pandas as pd
        import pyarrow.parquet as pq

        keys, ascending = (keys, False) if keys is not None else self.strength()

        index = self._parts_of(method, k)
        if not index:
            return self.table.iloc[:0]
        # each part's own first n (stable) hold the block's first n: a row ahead of one of
        # them in the block's order is ahead of it in its part too
        candidates, offset = [], 0
        for i in index:
            order = _first(pq.read_table(self.paths[i], columns=keys).to_pandas(), keys,
                           ascending, n)  # fmt: skip
            order.index = order.index + offset
            candidates.append(order)
            offset += self.part_rows[i]
        merged = pd.concat(candidates) if len(candidates) > 1 else candidates[0]
        top = merged.sort_values(keys, ascending=ascending, kind="stable").head(n)
        top = top.index.to_numpy()
        starts = np.cumsum([0] + [self.part_rows[i] for i in index])
        which = np.searchsorted(starts, top, side="right") - 1
        pieces, got = [], []
        for j in sorted(set(which.tolist())):
            mine = top[which == j]  # in the order of the sort
            pieces.append(_read_rows(self.paths[index[j]], mine - starts[j]))
            got.append(mine)
        out = pd.concat(pieces, ignore_index=True) if len(pieces) > 1 else pieces[0]
        # the rows read part after part, put back in the order of the sort
        got_all = np.concatenate(got)
        order = np.argsort(got_all, kind="stable")
        out = out.iloc[order[np.searchsorted(got_all[order], top)]]
        out.index = pd.Index(top)
        return out

    def to_dict(
        self, neighbors: bool = False, max_rows: int | None = None, see: str | None = None
    ) -> dict:
        """As :meth:`SituationResult.to_dict`; ``complainants`` is always ``{"rows": n,
        "see": folder}`` (the parts' folder, whatever ``see`` is given)."""
        return self._dict_with({"rows": self.n_rows, "see": self.see})


def _first(frame: pd.DataFrame, keys: list[str], ascending: bool, n: int) -> pd.DataFrame:
    """``frame.sort_values(keys, ascending=ascending, kind="stable").head(n)``, sorting only
    the rows that can be among them: those whose first key is at least the n-th largest
    (ascending: at most the n-th smallest). Every other row is behind all of those in the
    full sort (a smaller first key, or a missing one, which sorts last), and the rows kept
    stay in table order, so the stable sort orders them and their ties as the whole one.
    """
    lead = frame[keys[0]].to_numpy() if len(keys) else np.empty(0)
    if lead.dtype.kind == "f" and 0 < n < np.count_nonzero(~np.isnan(lead)):
        known = lead[~np.isnan(lead)]
        if ascending:
            frame = frame[lead <= np.partition(known, n - 1)[n - 1]]
        else:
            frame = frame[lead >= -np.partition(-known, n - 1)[n - 1]]
    return frame.sort_values(keys, ascending=ascending, kind="stable").head(n)


def run_engine(
    engine: Any,
    data: Any,
    plan: Any,
    scm: Any,
    decider: Any,
    folder: Path,
    see: str,
    searched: Any = None,
) -> SituationResult:
    """Stages 2 to 5 of ``engine.run_to_parts`` (a
    :class:`~primafacie.situation.engine.SituationTest`): the counterfactual table lives until
    the search spaces are built (through the searches in legacy mode, whose centres' search
    reads it); the searches keep no neighbour list (only the counts the tests
    read; on a cluster nothing else comes back), the statistics are
    written as parts where they are computed when the table is large
    (:func:`run_parts`), and the members of the groups the report shows
    (the first :data:`TOP_ROWS` rows of the main test) are searched again
    for those complainants alone (:func:`_top_members`). ``searched()``, when given, is
    called once the searches are done (:func:`primafacie.compute.overlapped`)."""
    from ..release import release_memory
    from .planning import Planner
    from .search import GroupSearch
    from .statistics import Statistics

    # what an earlier test of the run freed (its searches' and statistics' buffers), handed
    # back before this one's counterfactuals and coordinates allocate
    release_memory()
    searcher = replace(engine._stage(GroupSearch), keep_neighbors=False)
    stats = replace(engine._stage(Statistics), keep_neighbors=False)
    # corrected mode reads the complainants' counterfactual rows alone: only those are built,
    # as tasks of the backend that keep them there (cf is then None)
    cf, space, ycf = engine._stage(Planner).counterfactual_space(
        data, plan, scm, decider, searcher, engine.backend
    )
    if not (plan.legacy and plan.need_cf):
        # only the legacy centres' search reads the counterfactual table again; released
        # before the searches, whose transient memory (the client's peak) then reuses it:
        # the complainants' rows (a whole copy of the data in legacy mode)
        cf = None
    # what the counterfactuals and the coordinates' transform freed, handed back before the
    # searches allocate their trees and chunks (else the allocators keep it: docs/scaling.md)
    release_memory()
    lists = searcher.search(data, plan, space, cf)
    if searched is not None:
        searched()
    # what the searches' reductions freed, handed back before the statistics allocate
    release_memory()
    rows = len(plan.comp_rows) * len(plan.ks) * len(plan.methods)
    if rows > PARQUET_MIN_ROWS:
        out: SituationResult = run_parts(
            lambda table: engine._result(data, plan, space, table, {}, lists),
            stats, data, plan, lists, ycf, folder, see, engine.backend,
        )  # fmt: skip
    else:
        table, _ = stats.run(data, plan, lists, ycf)
        out = engine._result(data, plan, space, table, {}, lists)
    if not engine.keep_neighbors:
        return out
    # the statistics' blocks and frames, handed back before the top rows' search allocates
    release_memory()
    return _top_members(engine, out, data, plan, space, cf)


def _top_members(
    engine: Any, out: SituationResult, data: Any, plan: Any, space: Any, cf: Any
) -> SituationResult:
    """``out`` with the control and test members of the complainants the report lists
    (the main test's first :data:`TOP_ROWS` rows by Δp), found by a search of those
    complainants alone: a complainant's lists do not depend on the others searched with
    it (the chunking never changes a result).

    The search runs in this process on the local backend and, on Dask, as one task on a
    worker (corrected mode: it reads the coordinates and the plan, not the data): its
    strata, trees and chunks (+143 MB on the client at 10^6, +230 MB at 2·10^6, measured)
    are then the worker's, and only the lists of these few complainants come back. Same
    code and numpy on both sides, and a local search inside the task: the same lists.
    Legacy mode's counterfactual search reads the data's table: it stays here."""
    from ..compute import get_backend
    from .search import GroupSearch, group_members

    if not rows_of(out):
        return out
    method, k = out.main_test()
    top = out.strongest(method, k, TOP_ROWS)
    pos = np.unique(np.searchsorted(plan.comp_rows, top["row"].to_numpy()))
    sub = replace(plan, comp_rows=plan.comp_rows[pos])
    opts = {**space.opts, "backend": None, "chunk_size": None}
    searcher = replace(engine._stage(GroupSearch), keep_neighbors=True, backend=None)
    run = get_backend(engine.backend)
    if isinstance(space.X, HeldSplit):
        # the coordinates are on the workers: the task reads them there
        lists = _held_top_lists(searcher, sub, space, opts, pos)
        ctrl, test = group_members(method, k, plan.legacy, lists)
        return replace(out, neighbors={(method, k): (Rows(pos, ctrl), Rows(pos, test))})
    xcf = None if space.Xcf is None else space.Xcf[pos]
    job = (searcher, sub, replace(space, Xcf=xcf, opts=opts))
    if run.kind == "dask" and cf is None:
        # the coordinates go to the workers once (scattered), the task carries nothing
        lists = run.map(_top_lists, [None], shared=job)[0]
    else:
        lists = job[0].search(data, job[1], job[2], cf)
    ctrl, test = group_members(method, k, plan.legacy, lists)
    held = (Rows(pos, ctrl), Rows(pos, test))
    return replace(out, neighbors={(method, k): held})


def _held_top_lists(searcher: Any, plan: Any, space: Any, opts: dict, pos: np.ndarray) -> Any:
    """:func:`_top_members`' search when the coordinates are held on the workers
    (:class:`~.coordinates.HeldSplit`): one task given the held matrices (and the pieces of
    the centres' holding the complainants ``pos``), which searches them locally; only the few
    complainants' lists come back."""
    client = space.X.parts[0].pieces[0].client  # the cluster holding the coordinates
    xcf, pieces, offset = space.Xcf, (), 0
    if isinstance(xcf, HeldMatrix):
        lo, hi = (int(pos[0]), int(pos[-1]) + 1) if len(pos) else (0, 0)
        first, stop, offset = xcf.covering(lo, hi)
        pieces, xcf = xcf.pieces[first:stop], None
    elif xcf is not None:
        xcf = xcf[pos]
    small = replace(space, X=None, Xcf=xcf, opts=opts)
    parts = tuple(part.pieces[0] for part in space.X.parts)
    # one future for the task's inputs (a list: Dask scatters a tuple's items apart)
    job = client.scatter([(searcher, plan, small, space.X.rows, len(parts), pos, offset)],
                         hash=False)[0]  # fmt: skip
    return client.submit(_held_top_task, job, *parts, *pieces, pure=False).result()


def _held_top_task(job: tuple, *held: Any) -> Any:
    """Task of :func:`_held_top_lists` on a worker: the held matrices as a
    :class:`~.coordinates.SplitCoordinates`, the centres of the complainants searched, and
    the kept lists of :meth:`GroupSearch.search` over them."""
    from .coordinates import SplitCoordinates, rows_of

    searcher, plan, space, rows, n_parts, pos, offset = job
    X = SplitCoordinates(tuple(held[:n_parts]), tuple(rows))
    xcf = space.Xcf
    if len(held) > n_parts:
        xcf = rows_of(held[n_parts:], offset, 0, 0, pos)
    return searcher.search(None, plan, replace(space, X=X, Xcf=xcf), None)


def _top_lists(job: tuple, _: Any) -> Any:
    """Task of :func:`_top_members` on a worker: the kept lists of the report's top
    complainants (corrected mode: no data, no counterfactual table)."""
    searcher, plan, space = job
    return searcher.search(None, plan, space, None)


def run_parts(
    result_of: Any,
    stats: Any,
    data: Any,
    plan: Any,
    lists: Any,
    ycf: np.ndarray | None,
    folder: Path,
    see: str,
    backend: Any = None,
) -> PartitionedResult:
    """The statistics stage of a run, computed and written where the partitions run.

    The complainants are cut into partitions of :data:`PARTITION_COMPLAINANTS`; each
    partition's counts go to a task of ``backend`` (a Dask worker, or a thread here), which
    computes its rows of every (method, k) and writes each as one part. The correction over
    each whole family is two passes (:mod:`.multiplicity`): the tasks first return the
    histogram of their p-values per family, the client merges them and computes the adjusted
    value of every distinct p-value, and the tasks then apply that table and write. What
    comes back to the client is counts: per part its rows, flags and the Δp of its cases
    (:func:`_merge_summary` averages them exactly as the whole column would be averaged).

    Parameters
    ----------
    result_of
        ``result_of(table)``: the engine's Result around a table (given the table's columns
        and no row).
    stats
        The run's :class:`~primafacie.situation.statistics.Statistics`.
    data, plan, lists, ycf
        The run's data, plan, reduced lists and counterfactual decisions.
    folder, see
        Where the parts go (created; on a cluster, a folder every worker can write) and the
        folder as ``results.json`` names it (ending with ``/``).
    backend
        The :mod:`primafacie.compute` backend (None: local threads).

    Returns
    -------
    PartitionedResult
    """
    from ..compute import chunk_slices, get_backend

    folder.mkdir(parents=True, exist_ok=True)
    m = len(plan.comp_rows)
    slices = chunk_slices(m, PARTITION_COMPLAINANTS) if m else [slice(0, 0)]
    ids = np.asarray(data.ids)
    parts = [_Part.of(i, s, plan, ids, lists, ycf) for i, s in enumerate(slices)]
    job = _Job(stats, plan.methods, plan.ks, plan.legacy, str(folder), len(parts))
    run = get_backend(backend)
    # pass 1: each family's p-values as histograms, merged into the adjusted value of each.
    # The partitions' counts travel to the workers once: each task's (histograms, partition)
    # stays where it ran (a future on Dask), only the histograms come back, and pass 2 runs
    # on the worker holding its partition
    held = run.keep(_histograms, parts, shared=job)
    hists = run.map(_histograms_of, held)
    grid = [(method, k) for k in plan.ks for method in plan.methods]
    tables = {}
    for key in grid:
        values, counts = merge_histograms([h[key] for h in hists])
        tables[key] = (values, adjust_distinct(values, counts, stats.multiplicity))
    del hists
    # pass 2: the tasks apply the tables and write their parts; counts come back
    written = run.map(_write_partition, held, shared=replace(job, tables=tables))
    del held
    keys = [key for key in grid for _ in parts]
    names = {part_name(i) for i in range(len(keys))}
    for stray in folder.iterdir():  # a part a lost worker left half-written
        if stray.name not in names:
            stray.unlink()
    params = {"alpha": float(stats.alpha), "multiplicity": stats.multiplicity}
    n_protected = int(plan.prot.sum())
    summary = [
        _merge_summary(method, k, [w[1][b] for w in written], n_protected, params)
        for b, (method, k) in enumerate(grid)
    ]
    rows = [len_ for b in range(len(grid)) for len_ in (w[1][b]["n"] for w in written)]
    base = result_of(written[0][0])
    return _partitioned(base, folder, see, keys, rows, summary_frame(summary))


#: Complainants per partition of a partitioned table: a task computes and writes the rows of
#: this many complainants for every (method, k), one part each. 2^18 complainants are
#: ~37 MB of rows per (method, k) in a worker's memory and 3·10^4 rows per MB of counts sent.
PARTITION_COMPLAINANTS = 2**18


@dataclass(frozen=True)
class _Part:
    """What a partition's task reads: its complainants' data rows, ids, decisions,
    counterfactual decisions and reduced lists."""

    index: int
    rows: np.ndarray
    ids: np.ndarray
    y: np.ndarray
    ycf: np.ndarray | None
    lists: Any

    @classmethod
    def of(cls, index: int, s: slice, plan: Any, ids: np.ndarray, lists: Any,
           ycf: np.ndarray | None) -> _Part:  # fmt: skip
        rows = plan.comp_rows[s]
        return cls(index, rows, ids[rows], plan.y[rows], None if ycf is None else ycf[s],
                   _slice_lists(lists, s))  # fmt: skip

    def plan(self, job: _Job) -> Any:
        """A plan of this partition alone: its complainants numbered from 0, their
        decisions (what :meth:`Statistics.blocks` reads of a plan)."""
        from .planning import Plan

        local = np.arange(len(self.rows))
        return Plan(methods=list(job.methods), ks=list(job.ks), attribute="", legacy=job.legacy,
                    ties="", y=self.y, prot=None, comp_rows=local, ctrl_rows=local,
                    test_rows=local)  # fmt: skip


@dataclass(frozen=True)
class _Job:
    """What every partition's task shares (sent once per worker): the statistics, the grid,
    the folder, and in the second pass the adjusted value of every distinct p-value."""

    stats: Any
    methods: tuple
    ks: tuple
    legacy: bool
    folder: str
    n_parts: int
    tables: dict | None = None


def _slice_lists(lists: Any, s: slice) -> Any:
    """The reduced lists of the complainants ``s``: views, not copies (a slice of rows is
    contiguous, and a view is serialised as its own rows only, so a task is sent its own)."""
    from .lists import PrefixCounts
    from .search import Lists

    def counts(c: Any) -> Any:
        return None if c is None else PrefixCounts(c.cols, c.neg[s], c.size[s])

    def column(a: Any) -> Any:
        return None if a is None else a[s]

    return Lists(
        self_pos=column(lists.self_pos),
        ctrl_counts=counts(lists.ctrl_counts),
        st_counts=counts(lists.st_counts),
        cf_counts=counts(lists.cf_counts),
        cf_counts_cfneg=counts(lists.cf_counts_cfneg),
        centre_rank=column(lists.centre_rank),
    )


def _no_adjustment(method: str, k: int, block: dict) -> None:
    """Pass 1 reads the raw p-values only."""


def _histograms(job: _Job, part: _Part) -> tuple[dict, _Part]:
    """Task of pass 1: the histogram of each family's p-values in this partition, and the
    partition itself (kept where the task ran, for pass 2: :func:`_write_partition`)."""
    blocks = job.stats.blocks(part.plan(job), part.lists, part.ycf, adjust=_no_adjustment)
    return {(method, k): p_histogram(block["p_value"]) for method, k, block, _ in blocks}, part


def _histograms_of(done: tuple[dict, _Part]) -> dict:
    """What pass 1 sends the client: the histograms of :func:`_histograms`, not its
    partition."""
    return done[0]


def _write_partition(job: _Job, done: tuple[dict, _Part]) -> tuple[pd.DataFrame, list[dict]]:
    """Task of pass 2 on the result of pass 1 (:func:`_histograms`): this partition's rows of
    every (method, k), adjusted with the family's table and written as parts; returns the
    table's empty frame and each part's counts (:func:`_partial`)."""
    part = done[1]
    plan = part.plan(job)
    alpha = float(job.stats.alpha)

    def adjust(method: str, k: int, block: dict) -> None:
        values, adjusted = job.tables[(method, k)]
        p = block["p_value"]
        out = np.full(p.shape, np.nan)
        ok = ~np.isnan(p)
        out[ok] = adjusted[np.searchsorted(values, p[ok])]
        block["p_adjusted"] = out
        with np.errstate(invalid="ignore"):
            block["significant_adjusted"] = out <= alpha

    cf_flag = job.stats.cf_flag(plan, part.ycf)
    who = (part.rows, part.ids, part.y)
    partials, empty = [], None
    blocks = job.stats.blocks(plan, part.lists, part.ycf, adjust=adjust)
    for b, (method, k, block, _) in enumerate(blocks):
        partials.append(_partial(block))
        frames = _block_frames(plan, method, k, block, part.ycf, cf_flag, who)
        first = _write_atomic(Path(job.folder) / part_name(b * job.n_parts + part.index), frames)
        empty = first if empty is None else empty
    return empty, partials


def _block_frames(
    plan: Any,
    method: str,
    k: int,
    block: dict,
    ycf: np.ndarray | None,
    cf_flag: np.ndarray | None,
    who: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> Iterator[pd.DataFrame]:
    """The rows of one (method, k) of a partition as frames of :data:`PART_ROW_GROUP`
    complainants (one at least, empty for an empty partition): stacked, the frame of the
    whole block, built one slice at a time so only one is held (:class:`_PartFile`)."""
    from ..compute import chunk_slices
    from .statistics import block_frame

    m = len(who[0])
    for s in chunk_slices(m, PART_ROW_GROUP) or [slice(0, 0)]:
        piece = {name: values[s] for name, values in block.items()}
        cut = (None if ycf is None else ycf[s], None if cf_flag is None else cf_flag[s])
        yield block_frame(None, plan, method, k, piece, *cut, who=tuple(w[s] for w in who))


def _write_atomic(path: Path, frames: Iterator[pd.DataFrame]) -> pd.DataFrame:
    """``frames`` written as one part (:class:`_PartFile`) under a temporary name, then
    renamed: a task re-run after its worker died rewrites the same bytes, and a half-written
    file never takes a part's name. Returns the table's columns and dtypes (an empty
    frame)."""
    import os
    import uuid

    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    first = None
    try:
        with _PartFile(tmp) as part:
            for frame in frames:
                part.write(frame)
                # no row kept: a 0-row view would keep the slice's arrays alive
                first = frame.iloc[:0].copy() if first is None else first
                del frame  # else held while the next slice is built
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return first


def _partial(block: dict) -> dict[str, Any]:
    """What the summary needs of one part: its counts, and the Δp of its cases and of its
    significant cases (whose means are the summary's; one float per case, not a row)."""
    delta = block["delta"]
    flag, sig = block["discriminated"].astype(bool), block["significant"].astype(bool)
    return {
        "n": len(delta),
        "untested": int(np.isnan(delta).sum()),
        "cases": int(flag.sum()),
        "significant": int(sig.sum()),
        "significant_adjusted": int(block["significant_adjusted"].astype(bool).sum()),
        "delta_cases": delta[flag],
        "delta_significant": delta[sig],
    }


def _merge_summary(
    method: str, k: int, partials: list[dict], n_protected: int, params: dict
) -> dict[str, Any]:
    """The summary row of one (method, k) from its parts' counts: bit for bit
    :func:`~.results._summary_row` of the whole block (the counts add up; the means are taken
    over the concatenated Δp, the very array the whole column would give)."""
    total = {name: np.int64(sum(p[name] for p in partials))
             for name in ("n", "untested", "cases", "significant", "significant_adjusted")}  # fmt: skip
    n, untested = int(total["n"]), int(total["untested"])
    counts = (total["cases"], total["significant"], total["significant_adjusted"])
    d_cases = np.concatenate([p["delta_cases"] for p in partials])
    d_sig = np.concatenate([p["delta_significant"] for p in partials])
    return counts_row(
        method, k, n, untested, n_protected, counts, (d_cases, d_sig), params.get("alpha"),
        params.get("multiplicity"),
    )  # fmt: skip


def write_result(
    result_of: Any,
    frames: Any,
    folder: Path,
    see: str,
    n_protected: int,
    params: dict,
) -> PartitionedResult:
    """Write every ``(method, k, frame)`` of ``frames`` as a part of ``folder`` and count it.

    Parameters
    ----------
    result_of
        ``result_of(table)``: the :class:`SituationResult` the engine builds around a table
        (called with the table's columns and no row).
    frames
        Iterator of ``(method, k, frame)`` in table order.
    folder
        Where the parts go (created).
    see
        ``folder`` relative to the audit's output folder, ending with ``/``.
    n_protected
        The shares' denominator (as for :func:`~primafacie.situation.results.summarize`).
    params
        The run's parameters (grid, α, correction).

    Returns
    -------
    PartitionedResult
    """
    import pandas as pd

    folder.mkdir(parents=True, exist_ok=True)
    keys, rows, summary, empty = [], [], [], None
    for index, (method, k, frame) in enumerate(frames):
        write_part(folder / part_name(index), frame)
        keys.append((method, int(k)))
        rows.append(len(frame))
        summary.append(_block_summary(frame, method, k, n_protected, params))
        empty = frame.iloc[:0] if empty is None else empty
    summary_table = summary_frame(summary)
    base = result_of(empty if empty is not None else pd.DataFrame())
    return _partitioned(base, folder, see, keys, rows, summary_table)


def _partitioned(
    base: SituationResult,
    folder: Path,
    see: str,
    keys: list[tuple[str, int]],
    rows: list[int],
    summary_table: pd.DataFrame,
) -> PartitionedResult:
    fields = {name: getattr(base, name) for name in SituationResult.__dataclass_fields__}
    return PartitionedResult(
        **fields,
        folder=folder,
        see=see,
        keys=tuple(keys),
        part_rows=tuple(rows),
        summary_table=summary_table,
    )


def _block_summary(
    frame: pd.DataFrame, method: str, k: int, n_protected: int, params: dict
) -> dict[str, Any]:
    """The summary row of one part (:func:`~.results._summary_row` on its columns)."""
    names = ["discriminated", "significant", "significant_adjusted"]
    cols = {c: frame[c].to_numpy(dtype=bool) for c in names if c in frame}
    cols["delta"] = frame["delta"].to_numpy(dtype=float)
    return _summary_row(
        method, k, cols, int(n_protected), params.get("alpha"), params.get("multiplicity")
    )
