"""Real files: CSV reading options, Excel and DuckDB sources, repeated headers, ragged rows.

:func:`primafacie.data.read_table` reads every kind of table through this module:

* CSV with ``sep``, ``decimal``, ``encoding``, ``header``, ``names`` and ``na_values``; every
  record must have as many fields as the header (:func:`check_field_counts`, an error naming
  the line);
* Excel (``.xlsx``, ``.xlsm``, ``.xls``, ``.ods``) through the calamine reader (the ``excel``
  extra), one ``sheet`` by name or 0-based index;
* DuckDB: a read-only ``SELECT``/``WITH`` query, or a table of a ``.duckdb`` file (the ``sql``
  extra), on a connection that cannot install or load extensions;
* which reader reads a CSV or Parquet file (``reader: auto | duckdb | pandas``,
  :func:`choose_reader`): ``auto`` is pandas for CSV and pyarrow for Parquet, measured faster
  than DuckDB once DuckDB's result is converted to pandas (``benchmarks/read_csv.py``, table in
  docs/architecture.md); ``duckdb`` reads them through DuckDB with the same pandas dtypes
  (:func:`duckdb_csv`, :func:`duckdb_parquet`), and falls back to pandas, saying why, for an
  option DuckDB cannot honour;
* a header that repeats a name (COMPAS's ``compas-scores-two-years.csv`` repeats
  ``decile_score`` and ``priors_count``): copies holding identical values are merged into one
  column, copies that differ are dropped and recorded, so that only an audit that uses the
  column fails (:func:`merge_repeated`).

What was merged or dropped is recorded in ``frame.attrs["merged_columns"]`` and
``frame.attrs["ambiguous_columns"]`` (carried into ``results.json`` as ``data.merged_columns``).
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import InputError

# pandas is imported in the functions that use it: importing the situation engine must not
# load it (issue 22, start-up); the annotations name it only for type checkers.
if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "EXCEL_SUFFIXES",
    "DUCKDB_SUFFIXES",
    "READERS",
    "choose_reader",
    "duckdb_csv",
    "duckdb_parquet",
    "ReadOptions",
    "check_field_counts",
    "check_text_options",
    "check_sql",
    "excel_sheet",
    "merge_repeated",
    "source_kind",
]

#: File name endings read as spreadsheets (calamine reads all of them).
EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".xls", ".ods")
#: File name endings read as DuckDB databases (a ``table`` or ``sql`` names what to read).
DUCKDB_SUFFIXES = (".duckdb", ".ddb")
#: ``data.reader``: ``auto`` chooses by the measurement (see :func:`choose_reader`).
READERS = ("auto", "duckdb", "pandas")


@dataclass(frozen=True)
class ReadOptions:
    """How a table is read (``data: {...}`` in audit.yaml; keyword arguments of read_table).

    Attributes
    ----------
    sep, decimal, encoding
        CSV only: the delimiter (None: detected), the decimal mark and the text encoding.
    header
        False: the first row is data (CSV and Excel); ``names`` then names the columns.
    names
        Column names replacing the header (as many as the header has fields).
    na_values
        Cell texts meaning a missing value, beyond pandas' defaults (empty, ``NA``, ``NaN``...).
    sheet
        Excel only: the sheet's name or 0-based index (default: the first).
    table, sql
        DuckDB only: a table of the ``.duckdb`` file, or a read-only query.
    reader
        ``auto`` (pandas for CSV, pyarrow for Parquet, DuckDB for SQL and ``.duckdb``),
        ``duckdb`` or ``pandas`` (see :func:`choose_reader`).
    base_dir
        The folder relative file names in ``sql`` are resolved from (DuckDB's
        ``file_search_path``): the configuration's folder.
    """

    sep: str | None = None
    decimal: str = "."
    encoding: str = "utf-8"
    header: bool = True
    names: tuple[str, ...] | None = None
    na_values: tuple[str, ...] = ()
    sheet: str | int | None = None
    table: str | None = None
    sql: str | None = None
    reader: str = "auto"
    base_dir: Path | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.reader not in READERS:
            raise InputError(
                f"data.reader {self.reader!r} is not a reader; expected one of {', '.join(READERS)}"
            )
        check_text_options(self.encoding, self.header, self.names)


def check_text_options(encoding: str, header: bool, names: Sequence[str] | None) -> None:
    """Refuse an unknown text encoding, ``header: false`` without ``names``, or a name given
    twice: the one check of :class:`ReadOptions` and of ``data:`` in audit.yaml (``DataSpec``).

    >>> check_text_options("utf-8", False, ["a", "b", "a"])
    Traceback (most recent call last):
    ...
    primafacie.errors.InputError: [data.names] ['a'] listed more than once; each column needs its own name
    """
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(
            f"[data.encoding] {encoding!r} is not a known text encoding; use e.g. utf-8, "
            "latin-1, cp1252, utf-16"
        ) from None
    if not header and names is None:
        raise InputError(
            "[data.names] header: false needs names: [...], one column name per field of the "
            "first row"
        )
    if names is not None and len(set(names)) != len(names):
        dup = sorted({n for n in names if list(names).count(n) > 1})
        raise InputError(
            f"[data.names] {dup} listed more than once; each column needs its own name"
        )


def source_kind(path: Path | None, options: ReadOptions) -> str:
    """``"sql"``, ``"duckdb"``, ``"excel"``, ``"parquet"`` or ``"csv"``, from the file name."""
    if path is None:
        if options.sql is None:
            raise InputError("data: give a path, or sql: a query")
        return "sql"
    suffix = path.suffix.lower()
    if suffix in DUCKDB_SUFFIXES:
        return "duckdb"
    if suffix in EXCEL_SUFFIXES:
        return "excel"
    if path.is_dir() or suffix in (".parquet", ".pq"):
        return "parquet"
    return "csv"


# ---------------------------------------------------------------------- repeated headers
def placeholder_names(count: int) -> list[str]:
    """Positional names given to pandas, so that a repeated header is never renamed ``x.1``."""
    return [f"__pf_col_{i}__" for i in range(count)]


def _same_values(a: pd.Series, b: pd.Series) -> bool:
    """Equal values at every row, a missing value equal only to a missing value."""
    if a.dtype != b.dtype:
        a, b = a.astype(object), b.astype(object)
    na_a, na_b = a.isna().to_numpy(), b.isna().to_numpy()
    if not np.array_equal(na_a, na_b):
        return False
    keep = ~na_a
    return bool(np.array_equal(a.to_numpy()[keep], b.to_numpy()[keep]))


def merge_repeated(
    frame: pd.DataFrame, header: Sequence[str], wanted: Sequence[str] | None, source: Path | str
) -> pd.DataFrame:
    """Name the positional columns of ``frame`` by ``header``, merging repeated names.

    Parameters
    ----------
    frame
        Columns named by :func:`placeholder_names` (position ``i`` of the header).
    header
        The header's names, in file order (a name may repeat).
    wanted
        The columns the caller uses (None: every column). A repeated name whose copies
        differ is an error when it is wanted, and is dropped (and recorded) otherwise.
    source
        The file, for messages.

    Returns
    -------
    pandas.DataFrame
        One column per name (per wanted name when ``wanted`` is given: the copies of a
        repeated name are read to be checked, and returned only when wanted), in the order of
        first appearance; ``attrs["merged_columns"]``
        lists ``{"column", "copies"}`` of each merged name and ``attrs["ambiguous_columns"]``
        ``{"column", "copies", "differing_rows"}`` of each dropped one.
    """
    import pandas as pd

    positions: dict[str, list[int]] = {}
    for i, name in enumerate(header):
        positions.setdefault(str(name), []).append(i)
    if len(positions) == len(header):  # no name repeats: rename in place, no copy
        index = {f"__pf_col_{i}__": str(name) for i, name in enumerate(header)}
        frame.columns = [index[c] for c in frame.columns]
        return frame
    merged, ambiguous, out = [], [], {}
    for name, pos in positions.items():
        cols = [c for c in (f"__pf_col_{i}__" for i in pos) if c in frame.columns]
        if not cols:
            continue
        first = frame[cols[0]]
        if len(cols) > 1:
            differ = [c for c in cols[1:] if not _same_values(first, frame[c])]
            if differ:
                rows = int((first.astype(str) != frame[differ[0]].astype(str)).sum())
                if wanted is None or name not in wanted:
                    ambiguous.append({"column": name, "copies": len(pos), "differing_rows": rows})
                    continue
                raise InputError(
                    f"{source}: column {name!r} appears {len(pos)} times in the header "
                    f"(fields {', '.join(str(i + 1) for i in pos)}) with different values in "
                    f"{rows} rows, and the audit uses it; rename the copies (names: [...]) or "
                    "remove all but one"
                )
            merged.append({"column": name, "copies": len(pos)})
        if wanted is None or name in wanted:  # unwanted copies were read only to be checked
            out[name] = first
    result = pd.DataFrame(out, index=frame.index)
    if merged:
        result.attrs["merged_columns"] = merged
    if ambiguous:
        result.attrs["ambiguous_columns"] = ambiguous
    return result


def repeated_note(item: dict[str, Any]) -> str:
    """One sentence for the report about a merged or dropped repeated column."""
    if "differing_rows" in item:
        return (
            f"column {item['column']!r} appears {item['copies']} times in the header with "
            f"different values in {item['differing_rows']} rows; it is not used, so it was "
            "left out"
        )
    return (
        f"column {item['column']!r} appears {item['copies']} times in the header with "
        "identical values; the copies were merged into one column"
    )


# ---------------------------------------------------------------------- ragged rows
def check_field_counts(path: Path, sep: str, encoding: str, header: bool) -> None:
    """Every record of a CSV file has as many fields as the first one; else an error naming
    the first record that does not, by its line in the file.

    pandas fills a short row with missing values and, when only some columns are read,
    drops the extra fields of a long one without a word; the count is checked here by
    pyarrow's C++ tokenizer, converting one column only (measured: 0.7 s for 10^6 rows of
    10 fields, single-threaded, against 1.6 s for pandas' own read). Only an offending file
    is read again, by Python's csv module, to find the line (a quoted value may span lines).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    bad: list[Any] = []

    def _on_bad(row: Any) -> str:
        bad.append(row)
        return "skip"

    read = pacsv.ReadOptions(
        use_threads=False,  # measured faster on a shared 2-core machine, and deterministic
        encoding=_arrow_encoding(encoding),
        autogenerate_column_names=True,
        block_size=1 << 24,
    )
    parse = pacsv.ParseOptions(delimiter=sep, newlines_in_values=True, invalid_row_handler=_on_bad)
    convert = pacsv.ConvertOptions(include_columns=["f0"], column_types={"f0": pa.binary()})
    try:
        pacsv.read_csv(str(path), read_options=read, parse_options=parse, convert_options=convert)
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return  # pandas reads the file next and reports what is wrong with it
    if bad:
        _raise_ragged(path, sep, encoding, header)


def _arrow_encoding(encoding: str) -> str:
    name = codecs.lookup(encoding).name
    return "utf8" if name == "utf-8" else name


def _raise_ragged(path: Path, sep: str, encoding: str, header: bool) -> None:
    import csv

    with open(path, encoding=encoding, newline="", errors="replace") as fh:
        reader = csv.reader(fh, delimiter=sep, skipinitialspace=True)
        expected, start = None, 1
        for record in reader:
            if len(record) > 1 or (record and record[0].strip()):  # not a blank line
                if expected is None:
                    expected = len(record)
                elif len(record) != expected:
                    what = "header" if header else "first row"
                    raise InputError(
                        f"{path}: line {start} has {len(record)} fields, but the {what} has "
                        f"{expected}; every row needs one value per column (an unquoted "
                        f"{sep!r} inside a value, or a missing delimiter?)"
                    )
            start = reader.line_num + 1


# ---------------------------------------------------------------------- Excel
def _calamine() -> Any:
    try:
        import python_calamine
    except ImportError:
        raise InputError(
            'reading Excel files needs the calamine reader: pip install "primafacie[excel]"'
        ) from None
    return python_calamine


def excel_sheet(path: Path, sheet: str | int | None) -> tuple[str, list[str]]:
    """The sheet to read (its name) and the workbook's sheet names.

    Raises
    ------
    InputError
        When ``sheet`` is not a sheet of the file: the message lists the sheets.
    """
    book = _calamine().CalamineWorkbook.from_path(str(path))
    try:
        names = list(book.sheet_names)
    finally:
        book.close()
    if sheet is None:
        if not names:
            raise InputError(f"{path}: the workbook has no sheet")
        return names[0], names
    if isinstance(sheet, int) and not isinstance(sheet, bool):
        if 0 <= sheet < len(names):
            return names[sheet], names
    elif str(sheet) in names:
        return str(sheet), names
    listed = ", ".join(f"{i}: {n!r}" for i, n in enumerate(names))
    raise InputError(
        f"{path}: data.sheet {sheet!r} is not a sheet of the workbook; its sheets are "
        f"{listed} (give a name or a 0-based index)"
    )


def excel_header(path: Path, sheet: str) -> list[str]:
    """The first row of a sheet, as text (a numeric header cell ``2020`` becomes ``"2020"``)."""
    book = _calamine().CalamineWorkbook.from_path(str(path))
    try:
        rows = book.get_sheet_by_name(sheet).to_python(skip_empty_area=False, nrows=1)
    finally:
        book.close()
    first = rows[0] if rows else []
    return [_cell_text(v) for v in first]


def _cell_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def read_excel(
    path: Path, options: ReadOptions, header: list[str], positions: list[int] | None
) -> pd.DataFrame:
    """The sheet's rows with positional column names (:func:`placeholder_names`)."""
    import pandas as pd

    _calamine()
    sheet, _ = excel_sheet(path, options.sheet)
    return pd.read_excel(
        path,
        engine="calamine",
        sheet_name=sheet,
        header=0 if options.header else None,
        names=placeholder_names(len(header)),
        usecols=positions,
        na_values=list(options.na_values) or None,
    )


# ---------------------------------------------------------------------- DuckDB
def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise InputError(
            'reading SQL or .duckdb files needs DuckDB: pip install "primafacie[sql]"'
        ) from None
    return duckdb


def check_sql(sql: str) -> None:
    """A single ``SELECT`` (or ``WITH ... SELECT``) statement; anything else is refused.

    The statement type comes from DuckDB's own parser (``extract_statements``), not from a
    pattern over the text.

    Raises
    ------
    InputError
        For a syntax error (DuckDB's message), several statements, or a statement that is not
        a query (``COPY``, ``ATTACH``, ``INSTALL``, ``SET``, ``CREATE``...).
    """
    duckdb = _duckdb()
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise InputError(f"data.sql: {exc}") from None
    if len(statements) != 1:
        raise InputError(
            f"data.sql holds {len(statements)} statements; give exactly one SELECT query"
        )
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        name = getattr(kind, "name", str(kind))
        raise InputError(
            f"data.sql is a {name} statement; only a read-only SELECT (or WITH ... SELECT) "
            "query is allowed"
        )


def _connect(path: Path | None, base_dir: Path | None) -> Any:
    """A DuckDB connection that cannot install or load extensions, nor change its
    configuration after this function (``lock_configuration``); on a database file (the
    auditee's, whose views run when read) it cannot read any other file either."""
    duckdb = _duckdb()
    config = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    try:
        if path is None:
            con = duckdb.connect(":memory:", config=config)
        else:
            con = duckdb.connect(str(path), read_only=True, config=config)
        if base_dir is not None:
            folder = str(base_dir).replace("'", "''")
            con.execute(f"SET file_search_path = '{folder}'")
        con.execute("SET enable_progress_bar = false")  # its bar on stdout would mix with ours
        con.execute("SET allow_community_extensions = false")
        if path is not None:  # the auditee's file: its views must not read the auditor's files
            con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except duckdb.Error as exc:
        raise InputError(f"cannot open {path or 'DuckDB'}: {exc}") from None
    return con


def _quote_ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _duckdb_query(path: Path | None, options: ReadOptions) -> str:
    if options.sql is not None:
        check_sql(options.sql)
        return options.sql.strip().rstrip(";")
    if options.table is None:
        raise InputError(
            f"{path}: a DuckDB file needs data.table (or data.sql) to say what to read"
        )
    return f"SELECT * FROM {_quote_ident(options.table)}"


def duckdb_frame(
    path: Path | None, options: ReadOptions, columns: Sequence[str] | None, head: bool = False
) -> pd.DataFrame:
    """The query's (or table's) rows; ``head`` reads none (the column names only)."""
    duckdb = _duckdb()
    query = _duckdb_query(path, options)
    con = _connect(path, options.base_dir)
    try:
        if path is not None and options.table is not None and options.sql is None:
            tables = [
                r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
            ]
            tables += [
                r[0]
                for r in con.execute(
                    "SELECT view_name FROM duckdb_views() WHERE NOT internal"
                ).fetchall()
            ]
            if options.table not in tables:
                raise InputError(
                    f"{path}: data.table {options.table!r} is not in the database; its tables "
                    f"are {sorted(tables)}"
                )
        select = "*" if columns is None else ", ".join(map(_quote_ident, columns))
        # on their own lines: a trailing "-- comment" in the query cannot swallow the bracket
        wrapped = f"SELECT {select} FROM (\n{query}\n) AS primafacie_source"
        if head:
            wrapped += " LIMIT 0"
        table = con.sql(wrapped).to_arrow_table()
    except duckdb.Error as exc:
        raise InputError(f"data.sql: {exc}" if options.sql else f"{path}: {exc}") from None
    finally:
        con.close()
    return _arrow_to_pandas(table)


# ---------------------------------------------------------------------- choice of reader
#: Encodings DuckDB's CSV reader decodes without an extension (codecs' canonical names).
DUCKDB_ENCODINGS = ("utf-8", "utf-16", "iso8859-1")


def _duckdb_cannot(kind: str, path: Path, options: ReadOptions) -> str | None:
    """Why DuckDB cannot read this CSV, Parquet or Excel source as pandas would (None: it
    can), in words for the report."""
    if kind == "excel":
        return (
            "DuckDB reads spreadsheets only through an extension, which primafacie never "
            "installs; the calamine reader read it"
        )
    if kind == "parquet":
        if path.is_dir():
            return (
                "a folder of Parquet files is read by pyarrow (hive partition columns and the "
                "check that every file has the same columns)"
            )
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
        index = (schema.pandas_metadata or {}).get("index_columns", [])
        if any(isinstance(i, str) for i in index):
            return "the Parquet file stores a pandas index, which only pyarrow restores"
        if any(pa.types.is_dictionary(t) for t in schema.types):
            return "the Parquet file holds categorical columns, which only pyarrow restores"
        return None
    if codecs.lookup(options.encoding).name not in DUCKDB_ENCODINGS:
        return (
            f"DuckDB's CSV reader decodes UTF-8, UTF-16 and Latin-1 only, not "
            f"{options.encoding}; pandas read the file"
        )
    return None


def choose_reader(kind: str, path: Path | None, options: ReadOptions) -> tuple[str, str | None]:
    """The reader of a source, and why a requested DuckDB read fell back to pandas.

    ``auto`` reads CSV with pandas and Parquet with pyarrow: measured on this project's
    benchmark (``benchmarks/read_csv.py``, 10^6 rows x 10 mixed columns), DuckDB parses as
    fast but spends more CPU time converting its result to pandas than pandas spends parsing,
    so it is slower end to end. SQL and ``.duckdb`` files are DuckDB's own: always DuckDB.

    Returns
    -------
    tuple
        ``("duckdb" | "pandas" | "pyarrow" | "calamine", reason or None)``; the reason is set
        when ``reader: duckdb`` was asked for and another reader had to be used.

    Raises
    ------
    InputError
        ``reader: pandas`` for SQL or a ``.duckdb`` file (only DuckDB reads them).

    Examples
    --------
    >>> choose_reader("csv", Path("x.csv"), ReadOptions())
    ('pandas', None)
    >>> choose_reader("sql", None, ReadOptions(sql="select 1"))
    ('duckdb', None)
    >>> choose_reader("csv", Path("x.csv"), ReadOptions(reader="duckdb", encoding="cp1252"))[1]
    "DuckDB's CSV reader decodes UTF-8, UTF-16 and Latin-1 only, not cp1252; pandas read the file"
    """
    if kind in ("sql", "duckdb"):
        if options.reader == "pandas":
            raise InputError(
                "data.reader: pandas cannot run a query or read a .duckdb file; give reader: "
                "auto or duckdb"
            )
        return "duckdb", None
    native = {"csv": "pandas", "parquet": "pyarrow", "excel": "calamine"}[kind]
    if options.reader != "duckdb":
        return native, None
    assert path is not None
    why = _duckdb_cannot(kind, path, options)
    if why is not None:
        return native, why
    _duckdb()  # reader: duckdb without DuckDB installed: say which extra to install
    return "duckdb", None


def _sql_text(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def _sql_list(values: Sequence[str]) -> str:
    return "[" + ", ".join(map(_sql_text, values)) + "]"


#: Texts pandas' CSV reader also reads as bool (a column holding only these, no gap).
_PANDAS_TRUE = ("True", "TRUE", "true")
_PANDAS_FALSE = ("False", "FALSE", "false")


def _as_pandas_text(frame: pd.DataFrame, nulls: set[str]) -> pd.DataFrame:
    """Text columns as pandas' CSV reader (``skipinitialspace=True``) makes them.

    DuckDB keeps the spaces before a text value, so a column holding any is stripped here and
    its missing-value texts (``" ?"``) are matched again, then converted to numbers when every
    value now is one; a column with no value is float64 (NaN); a column holding only pandas'
    true/false words is bool (DuckDB is not given BOOLEAN as a candidate type: it would also
    read ``t``/``f``). Only text columns are visited, each with vectorised string methods.
    """
    import pandas as pd

    words = set(_PANDAS_TRUE) | set(_PANDAS_FALSE)
    for name in frame.columns:
        col = frame[name]
        if col.dtype.kind in "biufcmM":
            continue
        if col.isna().all():
            frame[name] = np.full(len(col), np.nan)
            continue
        if col.str.startswith(" ").any():
            col = col.str.lstrip(" ")
            col = col.mask(col.isin(nulls))
            frame[name] = col
        try:  # numbers in text: spaces stripped above, or a sample that held only gaps
            col = pd.to_numeric(col)  # stops at the first text that is not a number
        except (ValueError, TypeError):
            pass
        else:
            frame[name] = col
            continue
        if col.isna().any():
            continue
        uniques = pd.unique(col)
        if len(uniques) <= len(words) and {str(v) for v in uniques} <= words:
            frame[name] = col.isin(_PANDAS_TRUE).to_numpy()
    return frame


def duckdb_csv(
    path: Path, sep: str, options: ReadOptions, count: int, positions: list[int] | None
) -> pd.DataFrame:
    """A CSV file read by DuckDB with the pandas dtypes of ``pandas.read_csv``.

    Columns get positional names (:func:`placeholder_names`, ``count`` of them) and only
    ``positions`` are converted. Types are inferred from every row (``sample_size=-1``, as
    pandas does) among BIGINT, DOUBLE and VARCHAR (no dates: pandas keeps them as text); a
    BIGINT column with a gap becomes float64 and the texts pandas reads as missing (its
    defaults and ``na_values``) are NULL, as with pandas.

    DuckDB infers the types from a sample of rows (its default, 20,480), which costs a
    quarter of the CPU time of inferring them from every row (measured on
    ``benchmarks/read_csv.py``: 1.1 s against 4.4 s for 10^6 rows); a value later in the file
    that does not fit the sampled type is a conversion error, and only then is the file read
    again with every row sampled. A text column that the sample saw only empty is converted
    to numbers afterwards when every value is one (:func:`_as_pandas_text`).
    """
    from pandas._libs.parsers import STR_NA_VALUES

    duckdb = _duckdb()
    names = placeholder_names(count)
    nulls = sorted(set(STR_NA_VALUES) | set(options.na_values))
    encoding = {"utf-8": "utf-8", "utf-16": "utf-16", "iso8859-1": "latin-1"}[
        codecs.lookup(options.encoding).name
    ]
    select = "*" if positions is None else ", ".join(_quote_ident(names[i]) for i in positions)
    query = (
        f"SELECT {select} FROM read_csv({_sql_text(str(path))}, delim={_sql_text(sep)}, "
        f"header={str(options.header).lower()}, names={_sql_list(names)}, "
        f"nullstr={_sql_list(nulls)}, decimal_separator={_sql_text(options.decimal)}, "
        f"encoding={_sql_text(encoding)}, "
        "auto_type_candidates=['BIGINT', 'DOUBLE', 'VARCHAR']{sample})"
    )
    con = _connect(None, None)
    try:
        try:
            table = con.sql(query.format(sample="")).to_arrow_table()
        except duckdb.ConversionException:  # the sample's types do not fit a later row
            table = con.sql(query.format(sample=", sample_size=-1")).to_arrow_table()
    except duckdb.Error as exc:
        raise InputError(f"cannot read {path} with DuckDB: {exc}") from None
    finally:
        con.close()
    return _as_pandas_text(_arrow_to_pandas(table), set(nulls))


def _arrow_to_pandas(table: Any) -> pd.DataFrame:
    """DuckDB's Arrow result as pandas, holding none of DuckDB's buffers.

    pandas' text columns keep the Arrow buffers they come from; DuckDB's are allocated by
    DuckDB's own allocator, in one chunk per row group, and were kept alive by the frame
    (at 10^6 rows of the credit world, 71 MB resident beyond the frame's 112 MB). Combined
    into one chunk first, the frame holds buffers of Arrow's pool, sized to the data, and
    DuckDB's are freed with the table. The values, dtypes and column order are unchanged.

    One column at a time (issue 22): a column is combined, converted and its combined copy
    dropped before the next, so a combined copy of the whole table never sits beside
    DuckDB's table and the frame (see :func:`side_by_side`).
    """
    if table.num_columns < 2:
        return table.combine_chunks().to_pandas()
    template = table.schema.empty_table().to_pandas()
    parts = []
    for i in range(table.num_columns):
        one = table.select([i]).combine_chunks()
        parts.append(one.to_pandas())
        del one  # the combined copy of this column, before the next is made
    return side_by_side(parts, template)


def side_by_side(parts: list[pd.DataFrame], template: pd.DataFrame) -> pd.DataFrame:
    """One-column frames converted from Arrow, side by side as the whole conversion makes them.

    Parameters
    ----------
    parts
        The columns' frames in order, each from pyarrow's ``to_pandas`` of one column (the
        dtype, nulls, dictionary and text handling of the whole conversion: the same code
        converts each column); all of the same length and index. Emptied here, so that the
        caller's list holds none of the frame's columns.
    template
        ``to_pandas`` of the whole table's schema without rows: the column labels (their
        type and name, from the pandas metadata) and ``attrs`` of the whole conversion.

    Returns
    -------
    pandas.DataFrame
        Equal to the whole table's ``to_pandas()`` in values, dtypes, column labels and
        order, index and ``attrs``; it holds one pandas block per column (as
        ``to_pandas(split_blocks=True)``) instead of one per dtype, so no column is copied
        to consolidate them.
    """
    import pandas as pd

    # every part has the same index: side by side without alignment, and no column copied:
    # pandas 3 copies lazily (and deprecates ``copy``); pandas 2 copies unless told not to
    lazy = int(pd.__version__.split(".")[0]) >= 3
    frame = pd.concat(parts, axis=1) if lazy else pd.concat(parts, axis=1, copy=False)
    parts.clear()
    frame.columns = template.columns
    frame.attrs = template.attrs
    return frame


def duckdb_parquet(path: Path, columns: Sequence[str] | None) -> pd.DataFrame:
    """One Parquet file read by DuckDB (``columns``: in file order; None: all)."""
    duckdb = _duckdb()
    select = "*" if columns is None else ", ".join(map(_quote_ident, columns))
    con = _connect(None, None)
    try:
        table = con.sql(f"SELECT {select} FROM read_parquet({_sql_text(str(path))})")
        table = table.to_arrow_table()
    except duckdb.Error as exc:
        raise InputError(f"cannot read {path} with DuckDB: {exc}") from None
    finally:
        con.close()
    return _arrow_to_pandas(table)


def reader_note(info: dict[str, Any]) -> str | None:
    """The report's sentence about the reader: only when ``reader: duckdb`` fell back."""
    if info.get("fallback") is None:
        return None
    return (
        f"data.reader: duckdb was asked for, but {info['used']} read the data: {info['fallback']}"
    )


def source_label(path: Path | None, options: ReadOptions) -> str:
    """How messages name the source: the file, or the query."""
    if path is not None:
        return str(path)
    text = " ".join(str(options.sql).split())
    return f"data.sql ({text[:60]}{'...' if len(text) > 60 else ''})"


def csv_read_kwargs(options: ReadOptions) -> dict[str, Any]:
    """The pandas.read_csv arguments of ``options`` (never the delimiter or the columns)."""
    return {
        "encoding": options.encoding,
        "na_values": list(options.na_values) or None,
        "header": 0 if options.header else None,
    }
