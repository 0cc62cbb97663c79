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

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .results import SituationResult, _summary_row, summary_frame

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PARQUET_MIN_ROWS", "PART_ROW_GROUP", "PartitionedResult", "part_name", "read_parts"]

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


def part_name(index: int) -> str:
    """``part-00003.parquet``: the name of the ``index``-th part (zero-padded, so the names
    sort in table order)."""
    return f"part-{index:05d}.parquet"


def write_part(path: Path, frame: pd.DataFrame) -> None:
    """One part, with the pandas metadata (dtypes come back as written) and no index."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table, path, row_group_size=PART_ROW_GROUP)


def read_parts(paths: list[Path], columns: list[str] | None = None) -> pd.DataFrame:
    """The parts read back in order and stacked (``columns``: only these)."""
    import pandas as pd
    import pyarrow.parquet as pq

    frames = [pq.read_table(p, columns=columns).to_pandas() for p in paths]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


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

    def block(self, method: str, k: int, columns: list[str] | None = None) -> pd.DataFrame:
        """The rows of one (method, k), read from its part (``columns``: only these)."""
        if (method, k) not in self.keys:
            return self.table.iloc[:0] if columns is None else self.table[columns].iloc[:0]
        return read_parts([self.paths[self.keys.index((method, k))]], columns)

    def strongest(self, method: str, k: int, n: int, keys: list[str]) -> pd.DataFrame:
        """The ``n`` rows of one (method, k) first by ``keys`` descending (stable), reading
        the keys of its part and then only the row groups that hold those rows."""
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        if (method, k) not in self.keys:
            return self.table.iloc[:0]
        path = self.paths[self.keys.index((method, k))]
        order = pq.read_table(path, columns=keys).to_pandas()
        top = order.sort_values(keys, ascending=False, kind="stable").head(n).index.to_numpy()
        groups = sorted(set((top // PART_ROW_GROUP).tolist()))
        part = pq.ParquetFile(path)
        read = part.read_row_groups(groups)
        # position of each top row inside the row groups read
        starts = {g: i * PART_ROW_GROUP for i, g in enumerate(groups)}
        local = np.array([starts[g] + r for g, r in zip(top // PART_ROW_GROUP, top % PART_ROW_GROUP,
                                                         strict=True)], dtype=np.int64)  # fmt: skip
        out = read.take(pa.array(local)).to_pandas()
        out.index = pd.Index(top)
        return out

    def to_dict(
        self, neighbors: bool = False, max_rows: int | None = None, see: str | None = None
    ) -> dict:
        """As :meth:`SituationResult.to_dict`; ``complainants`` is always ``{"rows": n,
        "see": folder}`` (the parts' folder, whatever ``see`` is given)."""
        return self._dict_with({"rows": self.n_rows, "see": self.see})


def run_parts(
    result_of: Any,
    stats: Any,
    data: Any,
    plan: Any,
    space: Any,
    lists: Any,
    ycf: np.ndarray | None,
    folder: Path,
    see: str,
) -> PartitionedResult:
    """The statistics stage of a run, block by block, each block written as a part and
    released (:func:`write_result`).

    Parameters
    ----------
    result_of
        The engine's ``_result(data, plan, space, table, neighbours, lists)``.
    stats
        The run's :class:`~primafacie.situation.statistics.Statistics`.
    data, plan, space, lists, ycf
        The run's data, plan, search spaces, lists and counterfactual decisions.
    folder, see
        As for :func:`write_result`.

    Returns
    -------
    PartitionedResult
    """
    from .statistics import block_frame

    cf_flag = stats.cf_flag(plan, ycf)
    neighbours: dict = {}

    def frames() -> Any:
        for method, k, block, members in stats.blocks(plan, lists, ycf):
            if members is not None:
                neighbours[(method, k)] = members
            yield method, k, block_frame(data, plan, method, k, block, ycf, cf_flag)

    params = {"methods": plan.methods, "k": plan.ks, "alpha": float(stats.alpha),
              "multiplicity": stats.multiplicity}  # fmt: skip
    return write_result(
        lambda table: result_of(data, plan, space, table, neighbours, lists),
        frames(),
        folder,
        see,
        int(plan.prot.sum()),
        params,
    )


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
