"""AuditData: a table plus the roles its columns play in an audit, validated at the boundary."""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .data_dictionary import encode, value_counts
from .data_files import (
    ReadOptions,
    check_field_counts,
    choose_reader,
    csv_read_kwargs,
    duckdb_csv,
    duckdb_frame,
    duckdb_parquet,
    excel_header,
    excel_sheet,
    merge_repeated,
    placeholder_names,
    read_excel,
    side_by_side,
    source_kind,
    source_label,
)
from .errors import InputError
from .formats import listing
from .reference import ReferenceMixin, parse_reference, split_protected

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AuditData",
    "FeatureSpec",
    "MAX_LEVELS",
    "check_listed_values",
    "check_spellings",
    "constructor_roles",
    "drop_missing",
    "parquet_files",
    "read_table",
    "sniff_delimiter",
    "table_columns",
    "to_pandas",
]

FEATURE_KINDS = ("numeric", "categorical", "ordinal")
#: The field's common synonyms of a feature kind (case-insensitive), e.g. ``nominal``.
KIND_SYNONYMS = {
    "continuous": "numeric",
    "numerical": "numeric",
    "interval": "numeric",
    "ratio": "numeric",
    "nominal": "categorical",
    "categoric": "categorical",
    "category": "categorical",
    "binary": "categorical",
    "ordered": "ordinal",
}


@dataclass(frozen=True)
class FeatureSpec:
    """How one feature is compared and perturbed.

    ``kind`` is ``"numeric"``, ``"categorical"`` or ``"ordinal"``; ``order`` lists the ordinal
    levels from lowest to highest (``None`` for an ordinal column that is already numeric).
    """

    name: str
    kind: str
    order: tuple | None = None


def _module_of(obj: Any) -> str:
    """Top-level package that defined ``obj``'s type (``"polars"``, ``"pyarrow"``...)."""
    return type(obj).__module__.partition(".")[0]


def to_pandas(table: Any) -> pd.DataFrame:
    """The pandas DataFrame behind any table a user may pass to the API.

    The type is recognised by the package that defined it, so polars and pyarrow are never
    imported here: a pandas user does not need them installed.

    Parameters
    ----------
    table
        A :class:`pandas.DataFrame` (returned as it is, not copied); a ``polars.DataFrame``
        or ``polars.LazyFrame`` (collected); a ``pyarrow.Table`` or ``pyarrow.RecordBatch``;
        a ``pyarrow.dataset.Dataset`` (read whole); anything else with ``to_pandas()``; or a
        mapping of column name to values.

    Returns
    -------
    pandas.DataFrame
        Column names, order and values as in ``table``; text columns as pandas' string
        dtype, so the three kinds of table give identical audits.

    Raises
    ------
    InputError
        For any other type (the message names it).

    Examples
    --------
    >>> to_pandas({"a": [1, 2]}).a.tolist()
    [1, 2]
    >>> to_pandas([1, 2])
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: data must be a pandas/polars/pyarrow table or a mapping of columns, got list
    """
    import pandas as pd

    if isinstance(table, pd.DataFrame):
        return table
    package = _module_of(table)
    if package == "polars" and hasattr(table, "collect") and not hasattr(table, "to_pandas"):
        table = table.collect()  # a LazyFrame: run its query once, here at the boundary
    elif package == "pyarrow" and hasattr(table, "to_table") and not hasattr(table, "to_pandas"):
        table = table.to_table()  # a pyarrow.dataset.Dataset
    if hasattr(table, "to_pandas"):
        frame = table.to_pandas()
        if isinstance(frame, pd.DataFrame):
            return frame
    if isinstance(table, Mapping):
        return pd.DataFrame(table)
    raise InputError(
        f"data must be a pandas/polars/pyarrow table or a mapping of columns, got {type(table).__name__}"
    )


#: Delimiters a CSV file may use; the one that splits the header most consistently wins.
CSV_DELIMITERS = (",", ";", "|", "\t")


def sniff_delimiter(path: str | os.PathLike, encoding: str = "utf-8") -> str:
    """The delimiter of a CSV file among :data:`CSV_DELIMITERS` (``","`` when unsure).

    The first lines are split on each candidate; the candidate that gives the same number (> 1)
    of fields on every line, and the most of them, wins.
    """
    with open(path, encoding=encoding, errors="replace") as fh:
        lines = [line for line in (fh.readline() for _ in range(20)) if line.strip()]
    best, best_fields = ",", 1
    for delim in CSV_DELIMITERS:
        counts = {line.count(delim) for line in lines}
        if len(counts) == 1 and (fields := counts.pop() + 1) > best_fields:
            best, best_fields = delim, fields
    return best


#: File name endings read as Parquet (a folder of such files is one table).
PARQUET_SUFFIXES = (".parquet", ".pq")


def parquet_files(folder: Path) -> list[Path]:
    """The Parquet files of a dataset folder, in sorted path order (the row order of the table).

    Names starting with ``.`` or ``_`` at any depth are skipped, as Spark and pyarrow do
    (``_SUCCESS``, ``_metadata``, ``.part-0.crc``, ``_temporary/``).
    """
    files = sorted(
        f
        for f in folder.rglob("*")
        if f.is_file()
        and f.suffix.lower() in PARQUET_SUFFIXES
        and not any(part[:1] in "._" for part in f.relative_to(folder).parts)
    )
    if not files:
        raise InputError(
            f"data file {folder} is a folder that holds no Parquet file (*.parquet, *.pq); give "
            "a CSV or Parquet file, or a folder of Parquet files"
        )
    return files


def _parquet_dataset(path: Path, dictionary: Sequence[str] = ()) -> Any:
    """A ``pyarrow.dataset.Dataset`` over one file or a folder of files (hive partitions
    ``key=value/`` become columns), with every file checked to have the same columns; the
    text columns among ``dictionary`` are decoded as dictionary arrays (pandas categorical,
    :mod:`primafacie.data_dictionary`), never as one string per row."""
    try:
        import pyarrow.dataset as ds
        import pyarrow.parquet as pq
    except ImportError as exc:  # a core dependency, but an environment may lack it
        raise InputError(
            f"reading {path} needs pyarrow, which is not installed: pip install pyarrow"
        ) from exc
    fmt: Any = "parquet"
    if dictionary:
        read = ds.ParquetReadOptions(dictionary_columns=list(dictionary))
        fmt = ds.ParquetFileFormat(read_options=read)
    if not path.is_dir():
        return ds.dataset(str(path), format=fmt)
    files = parquet_files(path)
    first = pq.read_schema(files[0])
    for f in files[1:]:  # footers only: cheap, and a clear message instead of pyarrow's
        schema = pq.read_schema(f)
        if schema.names != first.names or schema.types != first.types:
            diff = sorted(
                set(zip(schema.names, map(str, schema.types), strict=True))
                ^ set(zip(first.names, map(str, first.types), strict=True))
            )
            raise InputError(
                f"data folder {path}: {f.relative_to(path)} has other columns than "
                f"{files[0].relative_to(path)} (differing name: type {diff[:6]}); every file of "
                "a Parquet folder must have the same columns and types"
            )
    return ds.dataset(
        [str(f) for f in files], format=fmt, partitioning="hive", partition_base_dir=str(path)
    )


def _csv_header(path: Path, sep: str, encoding: str = "utf-8") -> list[str]:
    """The header of a CSV file as pandas names the columns (leading spaces skipped)."""
    import csv

    if codecs.lookup(encoding).name == "utf-8":
        encoding = "utf-8-sig"  # a byte-order mark (Excel's CSV export) is not part of a name
    with open(path, encoding=encoding, newline="") as fh:
        return next(csv.reader(fh, delimiter=sep, skipinitialspace=True), [])


def _check_path(path: Path) -> None:
    if not path.exists():
        raise InputError(f"data file not found: {path}")
    if not path.is_file() and not path.is_dir():
        raise InputError(f"data file {path} is not a file")


def _options(sep: str | None, decimal: str, extra: Mapping[str, Any]) -> ReadOptions:
    """The reading options of :func:`read_table`'s keyword arguments, checked."""
    unknown = sorted(set(extra) - READ_OPTION_KEYS)
    if unknown:
        raise TypeError(f"unknown reading option(s) {unknown}; known: {sorted(READ_OPTION_KEYS)}")
    opts = dict(extra)
    for key in ("names", "na_values"):
        if opts.get(key) is not None:
            opts[key] = tuple(map(str, opts[key]))
    opts["na_values"] = opts.get("na_values") or ()
    return ReadOptions(sep=sep, decimal=decimal, **opts)


#: Keyword arguments of :func:`read_table` and :func:`table_columns` beyond ``sep``/``decimal``.
READ_OPTION_KEYS = frozenset(
    {"encoding", "header", "names", "na_values", "sheet", "table", "sql", "reader", "base_dir"}
)


def _check_kind_options(kind: str, options: ReadOptions, path: Path | None) -> None:
    """An option given for a kind of file it does not apply to is an error naming it."""
    if options.sheet is not None and kind != "excel":
        raise InputError(f"data.sheet applies to Excel files (.xlsx, .xls, .ods), not {path}")
    if options.table is not None and kind != "duckdb":
        raise InputError(f"data.table applies to a DuckDB file (.duckdb), not {path}")
    if options.sql is not None and kind not in ("sql", "duckdb"):
        raise InputError(
            f"data.sql runs on its own or over a .duckdb file; give either sql or path: {path}"
        )


def _header_names(path: Path, kind: str, options: ReadOptions, sep: str) -> list[str]:
    """The column names of a CSV or Excel file: its header, or ``names`` (count checked)."""
    if kind == "excel":
        sheet, _ = excel_sheet(path, options.sheet)
        found = excel_header(path, sheet)
    else:
        found = _csv_header(path, sep, options.encoding)
    if not found:
        raise InputError(f"cannot read {path}: the file is empty (no header row)")
    if options.names is None:
        return [str(n) for n in found]
    if len(options.names) != len(found):
        what = "header" if options.header else "first row"
        raise InputError(
            f"{path}: names lists {len(options.names)} columns but the {what} has "
            f"{len(found)} fields; give one name per field"
        )
    return list(options.names)


def table_columns(
    path: str | os.PathLike | None, sep: str | None = None, **options: Any
) -> list[str]:
    """The column names of a table, rows unread (a name repeated in the header once).

    Parameters
    ----------
    path
        As for :func:`read_table`.
    sep
        The CSV delimiter (detected when None).
    **options
        The reading options of :func:`read_table` (``names``, ``sheet``, ``sql``...).

    Returns
    -------
    list of str
        The names in file order (a Parquet folder's hive partition keys last).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("income;age\\n1;2\\n")
    >>> table_columns(p)
    ['income', 'age']
    """
    opts = _options(sep, ".", options)
    path = None if path is None else Path(path)
    kind = source_kind(path, opts)
    if path is not None:
        _check_path(path)
    _check_kind_options(kind, opts, path)
    with _reading(path, path, opts.encoding):
        if kind in ("sql", "duckdb"):
            return [str(c) for c in duckdb_frame(path, opts, None, head=True).columns]
        assert path is not None
        if kind == "parquet":
            schema = _parquet_dataset(path).schema
            index = (schema.pandas_metadata or {}).get("index_columns", [])
            # a pandas index stored as a column (__index_level_0__) is not data
            return [n for n in schema.names if n not in {i for i in index if isinstance(i, str)}]
        names = _header_names(path, kind, opts, sep or sniff_delimiter(path, opts.encoding))
        return list(dict.fromkeys(names))


@contextmanager
def _reading(path: Path | None, label: Any, encoding: str) -> Iterator[None]:
    """A reader's errors as :class:`InputError` naming the file (``label``): text that is
    not in ``encoding`` says so; anything else pyarrow, pandas or DuckDB raise (many types)
    is ``cannot read <label>``; an InputError passes as it is."""
    try:
        yield
    except InputError:
        raise
    except UnicodeDecodeError as exc:
        raise InputError(_not_text(path, encoding, exc)) from exc
    except Exception as exc:  # the user needs the file name, not the library's type
        raise InputError(f"cannot read {label}: {type(exc).__name__}: {exc}") from exc


def _not_text(path: Path | None, encoding: str, exc: UnicodeDecodeError) -> str:
    shown = "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding
    return (
        f"cannot read {path}: it is not {shown} text (byte {exc.object[exc.start]:#04x} at "
        f"offset {exc.start}); save it as UTF-8, or give its encoding: data: {{path: FILE, "
        "encoding: latin-1} in audit.yaml (encoding=... in Python; e.g. latin-1, cp1252)"
    )


# Over 80 lines: the docstring documents every input form and error with a doctest.
def read_table(
    path: str | os.PathLike | None,
    sep: str | None = None,
    columns: Sequence[str] | None = None,
    decimal: str = ".",
    dictionary: Sequence[str] = (),
    **options: Any,
) -> pd.DataFrame:
    """Read a CSV, Parquet, Excel or DuckDB table (or a folder of Parquet files) into pandas.

    Parameters
    ----------
    path
        ``.csv`` (any of ``, ; | tab`` as delimiter, detected when ``sep`` is None; UTF-8
        unless ``encoding`` says otherwise), ``.parquet`` / ``.pq``, or a folder of Parquet
        files read as one table: the files in sorted path order (zero-pad numbered parts:
        ``part-00010`` after ``part-00009``), names starting with ``.`` or ``_`` skipped,
        hive folders ``key=value/`` read as a column ``key``; every file must have the same
        columns and types. ``.xlsx``/``.xls``/``.ods`` (the ``excel`` extra) and
        ``.duckdb`` with ``table`` or ``sql`` (the ``sql`` extra); None with ``sql``.
    sep
        The CSV delimiter, when detection should not be used.
    columns
        Read only these columns (column projection: a Parquet file or folder then reads only
        their bytes, and a CSV file parses only them). The frame keeps the file's column
        order. ``None`` reads every column.
    decimal
        The decimal mark of a CSV file: ``"."`` or ``","`` (``12,5``; the delimiter must then
        be another character). Parquet stores numbers, not text: ignored.
    dictionary
        Columns to hold dictionary-encoded (pandas categorical) when they are text with few
        distinct values (:mod:`primafacie.data_dictionary`: the rules, and why); a Parquet
        file decodes them so from the read on. Their names are in
        ``attrs["encoded_columns"]``. Empty (the default): every column as read.
    **options
        ``encoding`` (CSV, default utf-8), ``header`` (False: the first row is data),
        ``names`` (the column names, one per field), ``na_values`` (texts meaning missing),
        ``sheet`` (Excel: name or 0-based index), ``table`` / ``sql`` (DuckDB; a query must be
        one read-only SELECT), ``reader`` (``auto``, ``duckdb`` or ``pandas``: which reader
        reads a CSV or Parquet file; :func:`~primafacie.data_files.choose_reader`),
        ``base_dir`` (the folder relative paths in ``sql`` start from).
        See :class:`~primafacie.data_files.ReadOptions`.

    Returns
    -------
    pandas.DataFrame
        The table; the file itself is never modified. A header name repeated with identical
        values is one column (``attrs["merged_columns"]``); repeated with different values it
        is left out (``attrs["ambiguous_columns"]``) unless ``columns`` asks for it (an error).

    Raises
    ------
    InputError
        The file is missing, unreadable, not in its encoding, a row has more or fewer fields
        than the header (its line is named), a repeated header name with different values is
        asked for, a column of numbers is written with thousands separators (``1,234``: the
        value and its row are named), a folder has no Parquet file or files of different
        columns, or ``columns`` names a column that is absent (the message suggests the
        closest name and lists the columns).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("income;income\\n1;2\\n")
    >>> read_table(p, columns=["income"])
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: ...t.csv: column 'income' appears 2 times in the header...
    >>> _ = p.write_text("income,age,city\\n10,30,Pisa\\n")
    >>> read_table(p, columns=["city", "income"])
       income  city
    0      10  Pisa
    >>> read_table(p, columns=["agee"])
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: ...t.csv: column 'agee' is not in the data (did you mean 'age'?)...
    """
    opts = _options(sep, decimal, options)
    path = None if path is None else Path(path)
    kind = source_kind(path, opts)
    read_encoded: list[str] = []
    if path is not None:
        _check_path(path)
        if kind in ("csv", "excel", "duckdb") and not path.is_file():
            raise InputError(f"data file {path} is not a file")
    _check_kind_options(kind, opts, path)
    wanted = None if columns is None else list(dict.fromkeys(map(str, columns)))
    label = source_label(path, opts)
    with _reading(path, label, opts.encoding):
        reader, fallback = choose_reader(kind, path, opts)
        if kind in ("sql", "duckdb"):
            if wanted is not None:
                _check_columns(label, wanted, table_columns(path, **options))
            frame = duckdb_frame(path, opts, wanted)
        elif kind == "parquet":
            assert path is not None
            dataset = _parquet_dataset(path)
            if wanted is not None:
                _check_columns(path, wanted, table_columns(path))
                wanted = [c for c in dataset.schema.names if c in set(wanted)]  # file order
            if reader == "duckdb":
                frame = duckdb_parquet(path, wanted)
            else:
                read_encoded = _text_fields(dataset.schema, dictionary)
                dataset = _parquet_dataset(path, read_encoded) if read_encoded else dataset
                frame = parquet_pandas(dataset, wanted)
        else:
            assert path is not None
            frame = _read_positional(path, kind, opts, wanted, reader == "duckdb")
    _check_thousands(frame, label, read_encoded)
    if dictionary:
        encode(frame, dictionary, read_encoded)  # names them in attrs["encoded_columns"]
    if opts.reader != "auto":  # said only when asked for: the default output is unchanged
        frame.attrs["reader"] = {"requested": opts.reader, "used": reader, "fallback": fallback}
    return frame


def parquet_pandas(dataset: Any, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """A Parquet dataset as pandas, read and converted one column at a time.

    The frame equals ``dataset.to_table(columns=columns).to_pandas()`` (values, dtypes,
    column order and labels, index, ``attrs``), but the whole Arrow table and the whole frame
    never coexist: each column is read, converted and its Arrow buffers dropped before the
    next is read, so the read's peak is the frame plus one column's Arrow data and decoding
    buffers (issue 22, the audit's read of the credit world: its peak over the RSS before it
    went from 206 to 133 MB at 10^6 rows and from 365 to 254 MB at 2 x 10^6, for frames of 43
    and 86 MB). pyarrow's own conversion makes each column (its dtype, nulls, dictionary and
    text handling: the schema's pandas metadata is the same for every column), and
    :func:`~primafacie.data_files.side_by_side` puts them together.

    A table that stores a pandas index as columns, repeats a column name or has fewer than
    two columns is converted whole, as before (the index needs its columns together).

    Parameters
    ----------
    dataset
        A ``pyarrow.dataset.Dataset`` (:func:`_parquet_dataset`).
    columns
        The columns to read, in the order wanted (None: every column of the schema).

    Returns
    -------
    pandas.DataFrame
    """
    schema = dataset.schema
    names = list(schema.names) if columns is None else list(columns)
    index = (schema.pandas_metadata or {}).get("index_columns", [])
    stored_index = any(isinstance(i, str) for i in index)
    if len(names) < 2 or stored_index or len(set(schema.names)) != len(schema.names):
        return dataset.to_table(columns=columns).to_pandas()
    template = schema.empty_table().select(names).to_pandas()  # labels and attrs, no rows
    parts = []
    for name in names:
        one = dataset.to_table(columns=[name])
        parts.append(one.to_pandas())
        del one  # this column's Arrow buffers go before the next column is read
    return side_by_side(parts, template)


def _text_fields(schema: Any, names: Sequence[str]) -> list[str]:
    """The fields of ``schema`` among ``names`` that are Arrow text (``string``,
    ``large_string``): the ones a Parquet read may decode as dictionary arrays."""
    import pyarrow as pa

    wanted = set(names)
    return [
        f.name
        for f in schema
        if f.name in wanted and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
    ]


def _read_positional(
    path: Path, kind: str, opts: ReadOptions, wanted: list[str] | None, duck: bool = False
) -> pd.DataFrame:
    """A CSV or Excel file read with positional column names, then named by its header (or
    ``names``) with repeated names merged (:func:`~primafacie.data_files.merge_repeated`);
    ``duck``: the CSV file is read by DuckDB (:func:`~primafacie.data_files.duckdb_csv`)."""
    import pandas as pd

    sep = ""
    if kind == "csv":
        sep = opts.sep or sniff_delimiter(path, opts.encoding)
        if opts.decimal not in (".", ","):
            raise InputError(f'decimal must be "." or ","; got {opts.decimal!r}')
        if opts.decimal == sep:
            raise InputError(
                f"{path}: the delimiter and the decimal mark are both {sep!r}; the "
                'delimiter must differ (sep: ";" with decimal: ",")'
            )
    names = _header_names(path, kind, opts, sep)
    positions = None
    if wanted is not None:
        _check_columns(path, wanted, names)
        keep = set(wanted)
        positions = [i for i, n in enumerate(names) if n in keep or names.count(n) > 1]
    if kind == "excel":
        frame = read_excel(path, opts, names, positions)
    else:
        check_field_counts(path, sep, opts.encoding, opts.header)
        if duck:
            frame = duckdb_csv(path, sep, opts, len(names), positions)
            return merge_repeated(frame, names, wanted, path)
        frame = pd.read_csv(
            path,
            sep=sep,
            skipinitialspace=True,
            names=placeholder_names(len(names)),
            usecols=positions,
            decimal=opts.decimal,
            index_col=False,
            **csv_read_kwargs(opts),
        )
    return merge_repeated(frame, names, wanted, path)


def header_hint(names: Sequence[Any]) -> str:
    """A hint when a column name is a number (``10.5``): the file's first row is probably
    data, read as the header because ``header: false`` was not given."""
    numbers = [str(n) for n in names if re.fullmatch(r"\s*[-+]?[\d.,]*\d[\d.,]*\s*", str(n))]
    if not numbers:
        return ""
    return (
        f"; the header holds numbers ({', '.join(numbers[:3])}), so the first row may be data: "
        "give data: {path: FILE, header: false, names: [...]}"
    )


def _check_columns(path: Path | str, wanted: Sequence[str], present: Sequence[str]) -> None:
    """Every requested column is in the file; else an error with a did-you-mean (and, when
    the header looks like a row of data, the hint ``header: false``)."""
    import difflib

    names = [str(c) for c in present]
    for col in wanted:
        if col in names:
            continue
        close = [c for c in names if c.lower() == col.lower()]
        close = close or difflib.get_close_matches(col, names, n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        shown = ", ".join(names[:50]) + (f" and {len(names) - 50} more" if len(names) > 50 else "")
        hint += header_hint(names)
        raise InputError(f"{path}: column {col!r} is not in the data{hint}; columns are: {shown}")


#: A number written with thousands separators (``1,234``, ``1.234.567,5``, ``1 234``, ``1'234``).
_THOUSANDS = r"[+-]?\d{1,3}(?:([,.' \u00a0])\d{3})(?:\1\d{3})*(?:[.,]\d+)?"
_PLAIN = r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)"


_DECIMAL_COMMA = r"[+-]?\d*,\d+"


def _check_decimal_comma(name: str, col: pd.Series) -> None:
    """A numeric feature read as text because its numbers have a decimal comma (``12,5``):
    the fix is the reading option, not declaring it categorical."""
    text = col.dropna().astype(str).str.strip()
    comma = text.str.fullmatch(_DECIMAL_COMMA)
    if text.empty or not comma.any() or not (comma | text.str.fullmatch(r"[+-]?\d+")).all():
        return
    example = text[comma.to_numpy()].iloc[0]
    raise InputError(
        f"feature {name!r} is declared numeric but its numbers use a decimal comma, such as "
        f'{example!r}; read the file with data: {{path: FILE, decimal: ","}} in audit.yaml '
        '(read_table(..., decimal=",") in Python; the delimiter must then be another '
        'character, e.g. sep: ";")'
    )


def _check_thousands(frame: pd.DataFrame, path: Path | str, text: Sequence[str] = ()) -> None:
    """A text column whose every value is a number, some with thousands separators, is an
    error: read as text, it would become a categorical feature with one level per amount.
    ``text``: categorical columns the reader decoded from text (checked as the text)."""
    import pandas as pd

    for col in frame.columns:
        values = frame[col]
        if not _is_text_column(values) or (
            isinstance(values.dtype, pd.CategoricalDtype) and col not in text
        ):
            continue
        present = values.dropna()
        if present.empty:
            continue
        # Each distinct value tested once: the patterns match per element in Python (1.2 CPU s
        # for the five text columns of a 10^6-row table, 0.1 s on their distinct values). The
        # test is the same on the rows: they hold exactly the distinct values' texts.
        if not _thousands_only(_distinct(present)):
            continue
        text = present.astype(str).str.strip()  # the rows: the first one is named
        sep_hit = text.str.fullmatch(_THOUSANDS)
        row = int(np.flatnonzero(values.index.isin(text.index[sep_hit.to_numpy()]))[0])
        raise InputError(
            f"{path}: column {col!r} holds numbers written with thousands separators, e.g. "
            f"{values.iloc[row]!r} in data row {row + 1} (line {row + 2} of the file); write "
            "plain numbers (1234.5) or use a different delimiter than the separator; if the "
            "comma is the decimal mark (1,234 meaning 1.234), read the file with data: "
            '{path: FILE, decimal: ","}'
        )


def _distinct(values: pd.Series) -> pd.Series:
    """The distinct values of ``values`` (all of them when a cell cannot be hashed)."""
    import pandas as pd

    try:
        return pd.Series(pd.unique(values))
    except TypeError:  # a list or dict in a cell: test every row
        return values


def _thousands_only(values: pd.Series) -> bool:
    """Whether every value, as stripped text, is a number and some use thousands
    separators."""
    text = values.astype(str).str.strip()
    sep_hit = text.str.fullmatch(_THOUSANDS)
    return bool(sep_hit.any() and (sep_hit | text.str.fullmatch(_PLAIN)).all())


def _as_tuple(value: Any) -> tuple:
    if isinstance(value, (list, tuple, set, frozenset, np.ndarray)):
        return tuple(value)
    return (value,)


def _parse_feature(name: str, spec: Any) -> FeatureSpec:
    if isinstance(spec, FeatureSpec):
        return spec
    if isinstance(spec, str):
        spec = KIND_SYNONYMS.get(spec.strip().lower(), spec.strip().lower())
        if spec not in FEATURE_KINDS:
            raise InputError(
                f"feature {name!r}: unknown kind {spec!r}; expected one of {', '.join(FEATURE_KINDS)} "
                f"(or a synonym: {', '.join(KIND_SYNONYMS)}) or {{'ordinal': [levels low..high]}}"
            )
        return FeatureSpec(name, spec)
    if isinstance(spec, Mapping) and set(spec) == {"ordinal"}:
        levels = spec["ordinal"]
        if levels is None:
            return FeatureSpec(name, "ordinal")
        levels = tuple(levels)
        if len(set(levels)) != len(levels):
            raise InputError(f"feature {name!r}: ordinal levels repeat a value: {list(levels)}")
        return FeatureSpec(name, "ordinal", levels)
    raise InputError(
        f"feature {name!r}: expected 'numeric', 'categorical', 'ordinal' or "
        f"{{'ordinal': [levels]}}, got {spec!r}"
    )


def _value_mask(values: pd.Series, target: Any) -> np.ndarray:
    """Rows equal to ``target``; '1' also matches 1 (CSV round-trips change dtypes)."""
    mask = values.isin([target]).to_numpy()
    if not mask.any():
        mask = (values.astype(str) == str(target)).to_numpy()
    return mask


def _matches(values: pd.Series, targets: tuple) -> np.ndarray:
    """Rows equal to any of ``targets`` (each matched as in :func:`_value_mask`)."""
    mask = np.zeros(len(values), dtype=bool)
    for target in targets:
        mask |= _value_mask(values, target)
    return mask


#: Words YAML 1.1 reads as booleans when they are not quoted.
YAML_BOOL_WORDS = frozenset(
    "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF".split()
)


def _norm(value: Any) -> str:
    return str(value).strip().casefold()


def _counts(col: pd.Series) -> dict[str, int]:
    return {str(k): int(v) for k, v in value_counts(col).items()}


def _is_text_column(col: pd.Series) -> bool:
    """Object, string (pandas 3's default for text) or categorical columns."""
    import pandas as pd

    return (
        col.dtype == object
        or pd.api.types.is_string_dtype(col.dtype)
        or isinstance(col.dtype, pd.CategoricalDtype)
    )


def check_spellings(col: pd.Series, name: str, role: str) -> None:
    """A text column holding two spellings of one value (``female`` and ``Female ``) is an
    error naming both spellings and their row counts: they would form two groups."""
    import pandas as pd

    if not _is_text_column(col):
        return
    counts = value_counts(col)  # an encoded column counted as its text
    spelled = pd.Series(counts.to_numpy(), index=counts.index.astype(str))
    if spelled.index.duplicated().any():  # e.g. 1 and "1" in one object column
        value = spelled.index[spelled.index.duplicated()][0]
        kinds = [f"{v!r} ({int(c)} rows)" for v, c in counts.items() if str(v) == value]
        raise InputError(
            f"{role} column {name!r} holds the value {value} both as text and as a number: "
            f"{', '.join(kinds)}; they would count as different values"
        )
    norm = pd.Series(spelled.index.str.strip().str.casefold(), index=spelled.index)
    clash = norm[norm.duplicated(keep=False)]
    if clash.empty:
        return
    same = sorted(clash.index[clash == clash.iloc[0]])
    listed = ", ".join(f"{v!r} ({int(spelled[v])} rows)" for v in same)
    raise InputError(
        f"{role} column {name!r} spells one value in several ways: {listed}; they would "
        "count as different values. Clean the column so each value has one spelling"
    )


def check_listed_values(col: pd.Series, name: str, values: tuple, role: str, key: str) -> None:
    """Every value listed for ``col`` must occur in it, spelled exactly as in the data.

    Parameters
    ----------
    col
        The data column.
    name
        Its name.
    values
        The listed values (protected values, favourable values).
    role
        What the column is, for the message (``"protected"``, ``"decision"``...).
    key
        Where the values were given, for the message (``"protected value"``...).

    Raises
    ------
    InputError
        For a value that does not occur: when it matches only after case-folding or
        stripping spaces, both spellings and their row counts are named; otherwise the
        closest values present are suggested, and a YAML boolean (from an unquoted
        ``yes``/``no``/``on``/``off``) is pointed out with a suggestion to quote it.
    """
    import difflib

    counts = _counts(col)
    present = list(counts)
    for value in values:
        if _value_mask(col, value).any():
            continue
        near = [v for v in present if _norm(v) == _norm(value)]
        if near:
            listed = ", ".join(f"{v!r} ({counts[v]} rows)" for v in near)
            raise InputError(
                f"{key} {value!r} of {role} column {name!r} does not occur as written; the data "
                f"spell it {listed}. Give the exact spelling (or clean the data)"
            )
        words = sorted(v for v in present if v in YAML_BOOL_WORDS)
        if isinstance(value, bool) and words:
            raise InputError(
                f"{key} {value!r} of {role} column {name!r} is a boolean, but the column holds "
                f"the words {words}: YAML reads unquoted yes/no/on/off/true/false as booleans. "
                f"Quote the value in audit.yaml, e.g. '{words[0]}'"
            )
        close = difflib.get_close_matches(str(value), present, n=3, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        shown = sorted(present)[:10]
        more = f" and {len(present) - 10} more" if len(present) > 10 else ""
        raise InputError(
            f"{key} {value!r} of {role} column {name!r} never occurs{hint}; values present: "
            f"{shown}{more}"
        )


def _check_ids(ids: pd.Series, name: str) -> None:
    """A duplicated id is named with its rows, as a spelling is (a missing one is allowed: a
    complainant without an id keeps an empty cell, tests/audit/test_partitioned.py)."""
    if _has_duplicates(ids):
        counts = ids.value_counts(sort=True)
        dup = counts[counts > 1]
        shown = listing((f"{v!r} ({c:,} rows)" for v, c in dup.items()), 5)
        raise InputError(f"id column {name!r} has duplicated values: {shown}")


def _ids_as_written(values: np.ndarray) -> np.ndarray:
    """Whole-number ids that a blank cell made floats (a CSV reader's NaN) as the integers the
    file holds, the blank as None: they were shown ``16.0``, named the dossier ``16.0.html``,
    and ``--id 16`` did not find it. Any other ids as they are."""
    if values.dtype.kind != "f":
        return values
    whole = ~np.isnan(values)
    if not (whole.any() and np.all(values[whole] == np.round(values[whole]))):
        return values
    if np.abs(values[whole]).max() >= 2**53:  # beyond exact integers: as read
        return values
    out = np.full(len(values), None, dtype=object)
    out[whole] = values[whole].astype(np.int64).tolist()
    return out


def constructor_roles(engine: Any) -> dict[str, Any]:
    """The data roles an engine was constructed with, as :meth:`AuditData.replace` takes them.

    ``decision``, ``outcome``, ``favorable`` and ``outcome_favorable`` when not None (None keeps
    the data's), and ``protected`` when it is a mapping (a bare name only picks one of the
    data's attributes, it declares none).

    Parameters
    ----------
    engine
        An object with those attributes (e.g. ``GroupMetrics``, ``PrincipalFairness``).

    Returns
    -------
    dict

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> eng = SimpleNamespace(decision="y", outcome=None, favorable=1, outcome_favorable=None,
    ...                       protected={"sex": "F"})
    >>> constructor_roles(eng)
    {'decision': 'y', 'favorable': 1, 'protected': {'sex': 'F'}}
    """
    roles: dict[str, Any] = {
        key: getattr(engine, key)
        for key in ("decision", "outcome", "favorable", "outcome_favorable")
        if getattr(engine, key) is not None
    }
    if isinstance(engine.protected, Mapping):
        roles["protected"] = dict(engine.protected)
    return roles


def _no_missing(col: pd.Series, what: str, name: str) -> None:
    """A column with missing values is an error naming it, the count and ``dropna``."""
    n_missing = int(col.isna().sum())
    if n_missing:
        raise InputError(
            f"{what} has missing values: {n_missing} row(s); drop those rows with "
            f"dropna: [{name}] in audit.yaml"
        )


def drop_missing(
    frame: pd.DataFrame, columns: Sequence[str], groups: Sequence[str] = ()
) -> pd.DataFrame:
    """The rows with a value in every one of ``columns``, and what was dropped.

    Parameters
    ----------
    frame
        The table.
    columns
        The columns whose missing values drop a row (none: ``frame`` is returned as it is).
    groups
        The protected attributes: the dropped rows are counted per value of each.

    Returns
    -------
    pandas.DataFrame
        The kept rows, index reset; ``attrs["dropped"]`` holds ``{"columns", "rows_read",
        "rows_dropped", "per_column"}`` (missing values per column, a row missing two counted
        in both) and ``"per_group"`` (``{attribute: {value: rows dropped}}``, a missing
        value as ``"(missing)"``).

    Raises
    ------
    InputError
        When every row would be dropped.

    Examples
    --------
    >>> df = pd.DataFrame({"a": [1, None, 3, None], "g": ["f", "m", None, "f"]})
    >>> out = drop_missing(df, ["a", "g"], ["g"])
    >>> out.a.tolist(), out.attrs["dropped"]["per_column"], out.attrs["dropped"]["per_group"]
    ([1.0], {'a': 2, 'g': 1}, {'g': {'(missing)': 1, 'f': 1, 'm': 1}})
    """
    if not columns:
        return frame
    missing = frame[list(columns)].isna()
    drop = missing.any(axis=1).to_numpy()
    per_group: dict[str, dict[str, int]] = {}
    for attr in groups:
        if attr in frame.columns:
            values = frame.loc[drop, attr].astype(object).where(frame.loc[drop, attr].notna())
            counts = values.fillna("(missing)").astype(str).value_counts()
            per_group[str(attr)] = {str(k): int(v) for k, v in sorted(counts.items())}
    if drop.all():
        raise InputError(
            f"dropna: every one of the {len(frame)} rows has a missing value in "
            f"{list(columns)}; nothing is left to audit"
        )
    out = frame.loc[~drop].reset_index(drop=True)
    out.attrs["dropped"] = {
        "columns": [str(c) for c in columns],
        "rows_read": int(len(frame)),
        "rows_dropped": int(drop.sum()),
        "per_column": {str(c): int(n) for c, n in missing.sum().items()},
        "per_group": per_group,
    }
    return out


#: Default largest number of levels of a categorical feature (see ``AuditData(max_levels=)``):
#: none. The k-NN search compares a categorical feature's codes for equality, so its cost does
#: not grow with the levels; an analysis whose memory does (the item matrix of recourse, the
#: covariate cells of principal strata) refuses with its estimate (:mod:`primafacie.budget`).
MAX_LEVELS: int | None = None


def _text_values(col: pd.Series) -> set[str]:
    """``set(col.astype(str))``: the distinct values of a column as text.

    A categorical column's are its used categories as text: pandas turns a categorical into
    text by its categories' text taken by the codes, so this is the same set, without the
    column of text and one Python string per row that iterating it makes (issue 22: 67 B
    per row at 2 x 10^6 rows, the largest term of the audit's data checks).
    """
    import pandas as pd

    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy()
        if not (codes < 0).any():  # no missing value (code -1), which astype(str) spells
            return set(col.cat.categories[np.unique(codes)].astype(str))
    return set(col.astype(str))


def _has_duplicates(col: pd.Series) -> bool:
    """``col.duplicated().any()``.

    Integers are sorted instead (a copy, 8 B per row, and one comparison) where pandas'
    hash table held 27 B per row (measured at 2 x 10^6 ids); the answer is the same.
    """
    if not (isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu"):  # not Int64 (NA)
        return bool(col.duplicated().any())
    ordered = np.sort(col.to_numpy())
    return bool((ordered[1:] == ordered[:-1]).any())


class AuditData(ReferenceMixin):
    """A decision table with roles: features, protected attributes, decision, outcome.

    Parameters
    ----------
    data
        pandas DataFrame (or a polars/pyarrow table, or a mapping of columns).
    features
        ``{column: kind}`` with kind ``"numeric"``, ``"categorical"``, ``"ordinal"`` or
        ``{"ordinal": [levels low..high]}``. ``None`` infers: numeric dtype -> numeric,
        otherwise categorical, over every column that has no other role.
    protected
        ``{column: protected value or list of values}``. Rows whose value is in the list form
        the protected group of that attribute; all other rows are the non-protected group.
        Or ``{column: {"values": [..], "reference": [..] | "rest" | "highest"}}``: the
        protected values are compared with the listed reference values only (rows holding
        neither are left out of that comparison, and counted), with every other row
        (``"rest"``, the default), or with the non-protected value of highest selection rate
        (``"highest"``; see :mod:`primafacie.reference`).
    decision
        Column holding the recorded decision ŷ (optional when a model or rule supplies it).
    favorable
        Value (or values) of the decision column that mean the favourable outcome.
    outcome
        Optional column with the ground truth Y.
    outcome_favorable
        Value (or values) of ``outcome`` that mean the favourable truth.
    id_column
        Optional column of row identifiers; the row position is used otherwise.
    max_levels
        Largest number of distinct values of a categorical feature; more is an error. The
        default ``None`` allows any number: a declared feature is taken as declared, and the
        audit notes a feature that looks like an id (``max_levels:`` in ``audit.yaml``).
    reference
        ``{column: [values] | "rest" | "highest"}``: the reference of a protected attribute,
        as in the mapping form of ``protected`` (which it completes).
    weights
        Optional column of non-negative sample weights (group metrics and certainty weight
        their rates; see :mod:`primafacie.weights`).

    Every listed protected value and favourable value must occur in the data, spelled exactly
    as there: a value that matches only after case-folding or stripping spaces, a column
    holding two spellings of one value, an absent value (with a did-you-mean) and a YAML
    boolean from an unquoted ``yes``/``no`` are errors naming the column and the values.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"salary": [30, 50, 40, 60], "gender": ["f", "m", "f", "m"],
    ...                    "approved": [0, 1, 0, 1]})
    >>> data = AuditData(df, features={"salary": "numeric"}, protected={"gender": "f"},
    ...                  decision="approved")
    >>> data.protected_mask().tolist()
    [True, False, True, False]
    >>> data.decision_array().tolist()
    [0, 1, 0, 1]
    """

    _check_listed = staticmethod(check_listed_values)
    _matches = staticmethod(_matches)

    def __init__(
        self,
        data: Any,
        features: Mapping[str, Any] | Sequence[str] | None = None,
        protected: Mapping[str, Any] | None = None,
        decision: str | None = None,
        favorable: Any = 1,
        outcome: str | None = None,
        outcome_favorable: Any = 1,
        id_column: str | None = None,
        max_levels: int | None = MAX_LEVELS,
        reference: Mapping[str, Any] | None = None,
        weights: str | None = None,
    ) -> None:
        import pandas as pd

        frame = to_pandas(data)
        if frame.columns.duplicated().any():
            dup = frame.columns[frame.columns.duplicated()].tolist()
            raise InputError(f"the table has duplicated column names: {dup}")
        if len(frame) == 0:
            raise InputError("the table has no rows")
        self.frame = frame.reset_index(drop=True)
        self.protected, self.reference = split_protected(protected or {})
        for attr, ref in dict(reference or {}).items():
            parsed = parse_reference(str(attr), ref)
            self.reference.pop(str(attr), None)
            if parsed is not None:
                self.reference[str(attr)] = parsed
        self.weights = weights
        self._highest: dict[str, Any] = {}
        #: the comparisons of the table this one was cut from by :meth:`compared` (else None)
        self.comparison_info: list[dict[str, Any]] | None = None
        self._compared: AuditData | None = None
        self.decision = decision
        self.favorable = _as_tuple(favorable)
        self.outcome = outcome
        self.outcome_favorable = _as_tuple(outcome_favorable)
        self.id_column = id_column
        if max_levels is not None and (isinstance(max_levels, bool) or int(max_levels) < 1):
            raise InputError(f"max_levels must be a positive integer or None, got {max_levels!r}")
        self.max_levels = max_levels
        roles = set(self.protected) | {c for c in (decision, outcome, id_column, weights) if c}
        if features is None:
            features = {
                c: ("numeric" if pd.api.types.is_numeric_dtype(frame[c]) else "categorical")
                for c in frame.columns
                if c not in roles
            }
        elif not isinstance(features, Mapping):
            features = list(features)
            if len(set(features)) != len(features):
                raise InputError(f"a feature is listed twice: {features}")
            features = {
                c: (
                    "numeric"
                    if c in frame and pd.api.types.is_numeric_dtype(frame[c])
                    else "categorical"
                )
                for c in features
            }
        self.features = {str(k): _parse_feature(str(k), v) for k, v in features.items()}
        self._validate()

    # ------------------------------------------------------------------ validation
    def _require_column(self, col: str, role: str) -> None:
        for item in self.frame.attrs.get("ambiguous_columns", ()):
            if item["column"] == col:
                raise InputError(
                    f"{role} column {col!r} appears {item['copies']} times in the file's header "
                    f"with different values in {item['differing_rows']} rows; rename the "
                    "copies (data: {path: FILE, names: [...]}) or remove all but one"
                )
        if col not in self.frame.columns:
            import difflib

            # columns primafacie adds itself (e.g. __decision__) are not the user's to name
            names = [
                str(c)
                for c in self.frame.columns
                if not (str(c).startswith("__") and str(c).endswith("__"))
            ]
            close = [c for c in names if c.lower() == str(col).lower()]
            close = close or difflib.get_close_matches(str(col), names, n=1, cutoff=0.75)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(
                f"{role} column {col!r} is not in the data{hint}; columns are: {', '.join(names)}"
                + header_hint(names)
            )

    def _validate(self) -> None:
        import pandas as pd

        for name, spec in self.features.items():
            self._require_column(name, "feature")
            col = self.frame[name]
            n_missing = int(col.isna().sum())
            if n_missing:
                first = int(np.flatnonzero(col.isna().to_numpy())[0])
                raise InputError(
                    f"feature {name!r} has {n_missing} missing value(s) (first at row {first}); "
                    f"impute them, or drop those rows with dropna: [{name}] in audit.yaml"
                )
            if spec.kind == "numeric" and not pd.api.types.is_numeric_dtype(col):
                _check_decimal_comma(name, col)
                raise InputError(
                    f"feature {name!r} is declared numeric but holds non-numeric values "
                    f"such as {col.iloc[0]!r}; declare it categorical or ordinal"
                )
            if spec.kind == "categorical" and self.max_levels is not None:
                levels = int(col.nunique())
                if levels > self.max_levels:
                    raise InputError(
                        f"categorical feature {name!r} has {levels} distinct values, more than "
                        f"max_levels={self.max_levels}; a column with that many levels is "
                        "usually an id or a number read as text. Declare it numeric, bin it, "
                        "or raise the limit (max_levels: in audit.yaml, AuditData(max_levels=))"
                    )
            if spec.kind == "ordinal":
                if spec.order is None and not pd.api.types.is_numeric_dtype(col):
                    raise InputError(
                        f"ordinal feature {name!r} is not numeric: give its levels, "
                        f"e.g. {{'ordinal': {sorted(col.astype(str).unique())[:5]}}}"
                    )
                if spec.order is not None:
                    bad = sorted(_text_values(col) - {str(v) for v in spec.order})
                    if bad:
                        raise InputError(
                            f"ordinal feature {name!r} has value(s) {bad[:5]} not among its "
                            f"declared levels {list(spec.order)}"
                        )
        overlap = set(self.features) & set(self.protected)
        if overlap:
            raise InputError(
                f"column(s) {sorted(overlap)} are both a feature and a protected attribute; "
                "a protected attribute is never a distance feature"
            )
        for attr, values in self.protected.items():
            self._require_column(attr, "protected")
            col = self.frame[attr]
            _no_missing(col, f"protected attribute {attr!r}", attr)
            check_spellings(col, attr, "protected")
            check_listed_values(col, attr, values, "protected", "protected value")
            mask = _matches(col, values)
            if mask.all():
                raise InputError(
                    f"every row of {attr!r} is protected ({list(values)}): there is no "
                    "non-protected group to compare with"
                )
        self._validate_references()  # and the weights
        for col, role, fav in (
            (self.decision, "decision", self.favorable),
            (self.outcome, "outcome", self.outcome_favorable),
        ):
            if col is None:
                continue
            self._require_column(col, role)
            user_column = not (col.startswith("__") and col.endswith("__"))
            if user_column:  # two spellings first: they would also make the column non-binary
                check_spellings(self.frame[col], col, role)
            self.binary_array(col, fav, role)
            if user_column:
                check_listed_values(
                    self.frame[col], col, fav, role,
                    "favourable value" if role == "decision" else "outcome_favorable value",
                )  # fmt: skip
        if self.id_column is not None:
            self._require_column(self.id_column, "id")
            _check_ids(self.frame[self.id_column], self.id_column)

    # ------------------------------------------------------------------ accessors
    @property
    def n(self) -> int:
        """Number of rows."""
        return len(self.frame)

    @property
    def feature_names(self) -> list[str]:
        """Feature columns in declaration order."""
        return list(self.features)

    @property
    def ids(self) -> np.ndarray:
        """Row identifiers: the id column when given (:func:`_ids_as_written`), else the row
        position 0..n-1."""
        if self.id_column is None:
            return np.arange(self.n)
        return _ids_as_written(self.frame[self.id_column].to_numpy())

    def binary_array(
        self, column: str, favorable: Iterable[Any], role: str = "column"
    ) -> np.ndarray:
        """0/1 int8 array: 1 where ``column`` takes a favourable value.

        Raises :class:`InputError` when the column is not binary or has missing values.
        """
        import pandas as pd

        col = self.frame[column]
        if col.isna().any():
            first = int(np.flatnonzero(col.isna().to_numpy())[0])
            raise InputError(
                f"{role} column {column!r} has missing values: {int(col.isna().sum())} row(s) "
                f"(first at row {first}); drop those rows with dropna: [{column}] in audit.yaml"
            )
        values = pd.unique(col)
        if len(values) > 2:
            raise InputError(
                f"{role} column {column!r} must be binary; it has {len(values)} distinct values: "
                f"{sorted(map(str, values))[:10]}"
            )
        fav = tuple(favorable)
        mask = _matches(col, fav)
        if len(values) == 2 and not mask.any():
            key = "outcome_favorable value" if role == "outcome" else "favourable value"
            check_listed_values(col, column, fav, role, key)
        if len(values) == 2 and (mask.all() or not mask.any()):
            raise InputError(
                f"favourable value(s) {list(fav)} of {role} column {column!r} do not match its "
                f"values {sorted(map(str, values))}"
            )
        return mask.astype(np.int8)

    def decision_array(self) -> np.ndarray:
        """Recorded decision as 0/1 (1 = favourable). Requires ``decision``."""
        if self.decision is None:
            raise InputError("no decision column was given (decision=...)")
        return self.binary_array(self.decision, self.favorable, "decision")

    def outcome_array(self) -> np.ndarray:
        """Ground truth Y as 0/1 (1 = favourable). Requires ``outcome``."""
        if self.outcome is None:
            raise InputError(
                "no outcome column was given (--outcome on the CLI, outcome: in audit.yaml, outcome=... in Python)"
            )
        return self.binary_array(self.outcome, self.outcome_favorable, "outcome")

    def protected_attribute(self, name: str | None = None, how: str = "name the one to use") -> str:
        """The protected attribute ``name``, or the only one when ``name`` is None.

        Parameters
        ----------
        name
            The attribute to audit; None picks the only protected attribute.
        how
            How the caller's user names one, quoted in the error when there are several.

        Returns
        -------
        str
            The attribute's column name.

        Raises
        ------
        InputError
            When ``name`` is None and there are none or several protected attributes (the
            message lists them), or when ``name`` is not a protected attribute.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"sex": ["F", "M"], "race": ["a", "b"], "d": [1, 0]})
        >>> AuditData(df, protected={"sex": "F"}, decision="d").protected_attribute()
        'sex'
        >>> two = AuditData(df, protected={"sex": "F", "race": "b"}, decision="d")
        >>> two.protected_attribute("race")
        'race'
        """
        if name is None:
            if not self.protected:
                raise InputError(
                    "the data declare no protected attribute (AuditData(..., "
                    "protected={column: value}))"
                )
            if len(self.protected) != 1:
                raise InputError(f"several protected attributes {list(self.protected)}: {how}")
            return next(iter(self.protected))
        if name not in self.protected:
            raise InputError(
                f"{name!r} is not a protected attribute; protected: {list(self.protected)}"
            )
        return name

    def protected_mask(self, attribute: str | Sequence[str] | None = None) -> np.ndarray:
        """Boolean mask of the protected group.

        ``attribute=None`` uses the only protected attribute (error when there are several);
        a list of attributes gives the intersection (protected on every one of them).
        """
        if attribute is None:
            attribute = self.protected_attribute()
        attrs = [attribute] if isinstance(attribute, str) else list(attribute)
        mask = np.ones(self.n, dtype=bool)
        for attr in attrs:
            if attr not in self.protected:
                raise InputError(
                    f"{attr!r} is not a protected attribute; protected: {list(self.protected)}"
                )
            mask &= _matches(self.frame[attr], self.protected[attr])
        return mask

    def replace(self, frame: pd.DataFrame | None = None, **roles: Any) -> AuditData:
        """A copy with another frame and/or changed roles (validated again)."""
        reference = {a: r for a, r in self.reference.items() if a in roles.get("protected", {a: 1})}
        if frame is not None:  # other rows (a time window): the value highest chose stays
            reference = {a: self.reference_values(a) if r == "highest" else r
                         for a, r in reference.items()}  # fmt: skip
        kwargs = dict(
            data=self.frame if frame is None else frame,
            features=self.features,
            protected=self.protected,
            decision=self.decision,
            favorable=self.favorable,
            outcome=self.outcome,
            outcome_favorable=self.outcome_favorable,
            id_column=self.id_column,
            max_levels=self.max_levels,
            reference=reference,
            weights=self.weights,
        )
        kwargs.update(roles)
        out = AuditData(**kwargs)
        if frame is None:
            out.comparison_info = self.comparison_info
        return out

    def __repr__(self) -> str:
        return (
            f"AuditData(n={self.n}, features={self.feature_names}, protected={self.protected}, "
            f"decision={self.decision!r}, outcome={self.outcome!r})"
        )
