"""Issue 24 item 7, real files (``primafacie.data_files`` through ``read_table`` and the CLI):
CSV reading options, Excel sheets, DuckDB queries and tables, repeated headers, rows with the
wrong number of fields, many-level categorical features and ``dropna``. Every file is small
and generated here; the counts asserted are computed by hand from the generators."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from primafacie.cli import app
from primafacie.commands import _common
from primafacie.data import read_table, table_columns
from primafacie.data_files import check_field_counts, check_sql
from primafacie.errors import InputError
from primafacie.paths import resolve_data_dir

runner = CliRunner()


@pytest.fixture(autouse=True)
def wide_consoles(monkeypatch):
    monkeypatch.setattr(_common.err_console, "width", 400)
    monkeypatch.setattr(_common.console, "width", 200)


# ---------------------------------------------------------------------- fixtures
def _people(n: int = 40) -> pd.DataFrame:
    """n rows: gender f for even rows, income 10..; approved = 1 for the odd rows and for
    rows 0 and 2 (so 2 of 20 women and all 20 men are approved at n = 40)."""
    i = np.arange(n)
    return pd.DataFrame(
        {
            "income": 10.5 + i,
            "region": np.where(i % 3 == 0, "nord", "süd"),
            "gender": np.where(i % 2 == 0, "f", "m"),
            "approved": ((i % 2 == 1) | (i < 3)).astype(int),
        }
    )


def _config(folder: Path, data: str, extra: str = "", features: str = "{income: numeric}") -> Path:
    path = folder / "audit.yaml"
    path.write_text(
        f"data: {data}\ndecision: {{column: approved}}\nfeatures: {features}\n"
        f"protected: {{gender: f}}\n{extra}",
        encoding="utf-8",
    )
    return path


def _audit(config: Path, out: Path) -> tuple[int, str, dict]:
    res = runner.invoke(app, ["audit", str(config), "--out", str(out)])
    text = " ".join(res.output.split())
    results = out / "results.json"
    info = json.loads(results.read_text())["data"] if res.exit_code == 0 else {}
    return res.exit_code, text, info


def write_xlsx(path: Path, sheets: dict[str, list[list]]) -> None:
    """A minimal .xlsx (inline strings and numbers; None is an empty cell), so the tests need
    no spreadsheet writer."""
    ns = "http://schemas.openxmlformats.org"
    rel = f"{ns}/officeDocument/2006/relationships"
    names = list(sheets)
    sheet_type = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    overrides = "".join(
        f'<Override PartName="/xl/worksheets/sheet{i + 1}.xml" '
        f'ContentType="{sheet_type}.worksheet+xml"/>'
        for i in range(len(names))
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(
            "[Content_Types].xml",
            f'<?xml version="1.0"?><Types xmlns="{ns}/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{sheet_type}.sheet.main+xml"/>'
            f"{overrides}</Types>",
        )
        z.writestr(
            "_rels/.rels",
            f'<?xml version="1.0"?><Relationships xmlns="{ns}/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/>'
            "</Relationships>",
        )
        z.writestr(
            "xl/workbook.xml",
            f'<?xml version="1.0"?><workbook xmlns="{ns}/spreadsheetml/2006/main" '
            f'xmlns:r="{rel}"><sheets>'
            + "".join(
                f'<sheet name="{escape(n)}" sheetId="{i + 1}" r:id="rId{i + 1}"/>'
                for i, n in enumerate(names)
            )
            + "</sheets></workbook>",
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            f'<?xml version="1.0"?><Relationships xmlns="{ns}/package/2006/relationships">'
            + "".join(
                f'<Relationship Id="rId{i + 1}" Type="{rel}/worksheet" '
                f'Target="worksheets/sheet{i + 1}.xml"/>'
                for i in range(len(names))
            )
            + "</Relationships>",
        )
        for i, name in enumerate(names):
            rows = []
            for r, row in enumerate(sheets[name]):
                cells = []
                for c, v in enumerate(row):
                    ref = f"{chr(65 + c)}{r + 1}"
                    if v is None:
                        continue
                    if isinstance(v, (int, float, np.integer, np.floating)):
                        cells.append(f'<c r="{ref}"><v>{v}</v></c>')
                    else:
                        cells.append(
                            f'<c r="{ref}" t="inlineStr"><is><t>{escape(str(v))}</t></is></c>'
                        )
                rows.append(f'<row r="{r + 1}">{"".join(cells)}</row>')
            z.writestr(
                f"xl/worksheets/sheet{i + 1}.xml",
                f'<?xml version="1.0"?><worksheet xmlns="{ns}/spreadsheetml/2006/main">'
                f"<sheetData>{''.join(rows)}</sheetData></worksheet>",
            )


def _rows(frame: pd.DataFrame) -> list[list]:
    return [list(frame.columns)] + frame.to_numpy().tolist()


# ---------------------------------------------------------------------- CSV options
def test_latin1_semicolon_decimal_comma_csv_through_the_audit(tmp_path):
    df = _people()
    text = df.to_csv(sep=";", decimal=",", index=False)
    (tmp_path / "t.csv").write_bytes(text.encode("latin-1"))
    code, out, _ = _audit(_config(tmp_path, "t.csv"), tmp_path / "o1")
    assert code == 2
    assert "it is not UTF-8 text (byte 0xfc" in out and "encoding: latin-1" in out
    opts = '{path: t.csv, sep: ";", decimal: ",", encoding: latin-1}'
    cfg = _config(tmp_path, opts, features="{income: numeric, region: categorical}")
    code, out, info = _audit(cfg, tmp_path / "o2")
    assert code == 0, out
    assert info["n"] == 40 and info["groups"][0]["favourable_protected"] == 2
    frame = read_table(tmp_path / "t.csv", sep=";", decimal=",", encoding="latin-1")
    assert frame.income.iloc[1] == 11.5 and set(frame.region) == {"nord", "süd"}


def test_header_false_names_and_renaming_a_header(tmp_path):
    df = _people()
    (tmp_path / "t.csv").write_text(df.to_csv(index=False, header=False))
    # without header: false the first row is the header, as before: its "names" are data
    code, out, _ = _audit(_config(tmp_path, "t.csv"), tmp_path / "o1")
    assert code == 2 and "the header holds numbers (10.5, 1)" in out and "header: false" in out
    with pytest.raises(InputError, match=r"the header holds numbers \(10.5, 1\).*header: false"):
        read_table(tmp_path / "t.csv", columns=["income"], sep=",")
    opts = "{path: t.csv, header: false, names: [income, region, gender, approved]}"
    code, out, info = _audit(_config(tmp_path, opts), tmp_path / "o2")
    assert code == 0, out
    assert info["n"] == 40  # the first row is data, not a header
    (tmp_path / "h.csv").write_text(df.to_csv(index=False))
    renamed = read_table(tmp_path / "h.csv", names=["inc", "reg", "sex", "ok"])
    assert list(renamed.columns) == ["inc", "reg", "sex", "ok"] and len(renamed) == 40
    assert table_columns(tmp_path / "h.csv", names=["inc", "reg", "sex", "ok"])[0] == "inc"
    opts = "{path: h.csv, names: [income, region, gender]}"
    code, out, _ = _audit(_config(tmp_path, opts), tmp_path / "o3")
    assert code == 2 and "names lists 3 columns but the header has 4 fields" in out


def test_na_values_and_dropna_count_per_column_and_group(tmp_path):
    df = _people().astype({"income": object})
    df.loc[[0, 1, 4], "income"] = "?"  # rows 0 and 4 are f, row 1 is m
    df.loc[[4, 7], "region"] = "?"  # row 4 again (f), row 7 (m)
    (tmp_path / "t.csv").write_text(df.to_csv(index=False))
    feats = "{income: numeric, region: categorical}"
    opts = '{path: t.csv, na_values: ["?"]}'
    code, out, _ = _audit(_config(tmp_path, opts, features=feats), tmp_path / "o1")
    assert code == 2
    assert "feature 'income' has 3 missing value(s)" in out and "dropna" in out
    cfg = _config(tmp_path, opts, "dropna: true\n", features=feats)
    code, out, info = _audit(cfg, tmp_path / "o2")
    assert code == 0, out
    assert info["n"] == 36
    assert info["dropped"] == {
        "columns": ["income", "region", "gender", "approved"],
        "rows_read": 40,
        "rows_dropped": 4,
        "per_column": {"income": 3, "region": 2, "gender": 0, "approved": 0},
        "per_group": {"gender": {"f": 2, "m": 2}},
    }
    assert any("4 of 40 rows were dropped" in n for n in info["notes"])
    assert "note: dropna: 4 of 40 rows were dropped" in out  # on the terminal too
    report = (tmp_path / "o2" / "report.html").read_text()
    assert "4 of 40 rows were dropped for a missing value" in report
    # only the listed columns: region's missing values stay (it is not a feature here)
    cfg = _config(tmp_path, opts, "dropna: [income]\n")
    code, out, info = _audit(cfg, tmp_path / "o3")
    assert code == 0, out
    assert info["dropped"]["rows_dropped"] == 3 and info["n"] == 37
    cfg = _config(tmp_path, opts, "dropna: [incme]\n")
    code, out, _ = _audit(cfg, tmp_path / "o4")
    assert code == 2 and "dropna: column 'incme' is not in the data" in out


# ---------------------------------------------------------------------- rows with wrong counts
@pytest.mark.parametrize(
    "body, line, fields",
    [
        ("1,2,3\n4,5\n6,7,8\n", 3, 2),  # too few
        ("1,2,3\n4,5,6,7\n6,7,8\n", 3, 4),  # too many (pandas drops it when projecting)
        ('1,"x\ny",3\n\n4,5,6,7\n', 5, 4),  # after a quoted value over two lines and a blank
        ("1,2,3\n4,5,6\n7,8", 4, 2),  # the last line, without a final newline
    ],
)
def test_a_row_with_the_wrong_number_of_fields_is_named_by_its_line(tmp_path, body, line, fields):
    p = tmp_path / "t.csv"
    p.write_text("a,b,c\n" + body)
    with pytest.raises(InputError, match=f"line {line} has {fields} fields, but the header has 3"):
        read_table(p, columns=["a"])
    with pytest.raises(InputError, match=f"line {line} has {fields} fields"):
        check_field_counts(p, ",", "utf-8", True)


def test_a_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes("\ufeffincome,gender\n1,f\n".encode())
    assert list(read_table(p, columns=["income"]).columns) == ["income"]
    assert table_columns(p) == ["income", "gender"]


def test_blank_lines_quotes_and_empty_trailing_fields_are_not_errors(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text('a,b,c\n1,"x, y",\n\n4,"say ""hi""",6\n7,5" x,9\n')
    frame = read_table(p)
    assert frame.shape == (3, 3) and frame.b.tolist() == ["x, y", 'say "hi"', '5" x']
    check_field_counts(p, ",", "utf-8", True)


def test_a_ragged_row_fails_the_audit_with_exit_2(tmp_path):
    text = _people().to_csv(index=False).splitlines()
    text[11] = text[11] + ",extra"
    (tmp_path / "t.csv").write_text("\n".join(text) + "\n")
    code, out, _ = _audit(_config(tmp_path, "t.csv"), tmp_path / "o")
    assert code == 2 and "line 12 has 5 fields, but the header has 4" in out


# ---------------------------------------------------------------------- repeated headers
def test_repeated_headers_identical_merged_different_noted_or_refused(tmp_path):
    df = _people()
    text = df.assign(income2=df.income, notes=1, notes2=2).to_csv(index=False)
    text = text.replace("income2", "income").replace("notes2", "notes")
    (tmp_path / "t.csv").write_text(text)
    code, out, info = _audit(_config(tmp_path, "t.csv"), tmp_path / "o1")
    assert code == 0, out
    assert info["merged_columns"] == [
        {"column": "income", "copies": 2},
        {"column": "notes", "copies": 2, "differing_rows": 40},
    ]
    report = (tmp_path / "o1" / "report.html").read_text()
    assert "appears 2 times in the header with identical values" in report
    frame = read_table(tmp_path / "t.csv")
    assert list(frame.columns) == ["income", "region", "gender", "approved"]
    asked = read_table(tmp_path / "t.csv", columns=["region", "approved"])
    assert list(asked.columns) == ["region", "approved"]
    assert asked.attrs["merged_columns"] == [{"column": "income", "copies": 2}]
    cfg = _config(tmp_path, "t.csv", features="{income: numeric, notes: numeric}")
    code, out, _ = _audit(cfg, tmp_path / "o2")
    assert code == 2 and "column 'notes' appears 2 times in the header" in out
    assert "different values in 40 rows" in out
    from primafacie.data import AuditData

    with pytest.raises(InputError, match="feature column 'notes' appears 2 times"):
        AuditData(frame, features={"notes": "numeric"}, protected={"gender": "f"},
                  decision="approved")  # fmt: skip


# the data folder as the project resolves it ($PRIMAFACIE_DATA, else ../shared/data)
COMPAS = resolve_data_dir() / "compas"


@pytest.mark.skipif(
    not (COMPAS / "compas-scores-two-years.csv").is_file(), reason="COMPAS data not present"
)
def test_compas_published_file_reads_with_its_repeated_headers_merged():
    path = COMPAS / "compas-scores-two-years.csv"
    frame = read_table(path, columns=["race", "decile_score", "priors_count", "two_year_recid"])
    assert {m["column"] for m in frame.attrs["merged_columns"]} == {"decile_score", "priors_count"}
    assert list(frame.columns) == ["race", "decile_score", "priors_count", "two_year_recid"]
    assert len(frame) == 7214
    # the repeated columns are read to be checked (and noted), returned only when asked for
    frame = read_table(path, columns=["race", "two_year_recid"])
    assert list(frame.columns) == ["race", "two_year_recid"]
    assert {m["column"] for m in frame.attrs["merged_columns"]} == {"decile_score", "priors_count"}


# ---------------------------------------------------------------------- Excel
def test_excel_sheet_by_name_and_index_through_the_audit(tmp_path):
    df = _people()
    write_xlsx(tmp_path / "t.xlsx", {"readme": [["about"], ["x"]], "loans": _rows(df)})
    code, out, info = _audit(_config(tmp_path, "{path: t.xlsx, sheet: loans}"), tmp_path / "o1")
    assert code == 0, out
    assert info["n"] == 40 and info["groups"][0]["favourable_protected"] == 2
    frame = read_table(tmp_path / "t.xlsx", sheet=1)
    assert frame.income.tolist() == df.income.tolist() and frame.region.iloc[1] == "süd"
    code, out, _ = _audit(_config(tmp_path, "{path: t.xlsx, sheet: 5}"), tmp_path / "o2")
    assert code == 2 and "data.sheet 5 is not a sheet" in out and "1: 'loans'" in out
    code, out, _ = _audit(_config(tmp_path, "{path: t.xlsx, sheet: Loans}"), tmp_path / "o3")
    assert code == 2 and "0: 'readme', 1: 'loans'" in out
    # the first sheet by default, and a csv-only option is refused naming its key
    code, out, _ = _audit(_config(tmp_path, '{path: t.xlsx, sep: ";"}'), tmp_path / "o4")
    assert code == 2 and "data.sep" in out and "CSV files only" in out


FIXTURES = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize("name", ["people.xls", "people.ods"])
@pytest.mark.parametrize("sheet", ["loans", 1])
def test_xls_and_ods_fixtures_read_like_their_csv(name, sheet):
    # the fixtures come from tests/data/make_spreadsheets.py (xlwt, odfpy): the loans table
    # is the second sheet, after a one-column readme sheet
    expected = read_table(FIXTURES / "people.csv")
    assert expected.shape == (40, 4) and expected.approved.sum() == 22  # 20 odd rows + 0 and 2
    frame = read_table(FIXTURES / name, sheet=sheet)
    pd.testing.assert_frame_equal(frame, expected)
    assert read_table(FIXTURES / name, sheet="readme").columns.tolist() == ["about"]
    assert table_columns(FIXTURES / name, sheet=sheet) == ["income", "region", "gender", "approved"]
    with pytest.raises(InputError, match=r"data.sheet 2 is not a sheet.*0: 'readme', 1: 'loans'"):
        read_table(FIXTURES / name, sheet=2)


def test_an_ods_fixture_through_the_audit(tmp_path):
    data = (FIXTURES / "people.ods").as_posix()
    code, out, info = _audit(_config(tmp_path, f"{{path: {data}, sheet: loans}}"), tmp_path / "o")
    assert code == 0, out
    assert info["n"] == 40 and info["groups"][0]["favourable_protected"] == 2


def test_excel_without_the_reader_says_which_extra_to_install(tmp_path, monkeypatch):
    import builtins

    write_xlsx(tmp_path / "t.xlsx", {"s": _rows(_people())})
    real = builtins.__import__

    def no_calamine(name, *args, **kwargs):
        if name == "python_calamine":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_calamine)
    code, out, _ = _audit(_config(tmp_path, "t.xlsx"), tmp_path / "o")
    assert code == 2 and 'pip install "primafacie[excel]"' in out


# ---------------------------------------------------------------------- DuckDB
def test_sql_over_a_parquet_file_relative_to_the_configuration(tmp_path, monkeypatch):
    df = _people()
    (tmp_path / "sub").mkdir()
    df.assign(year=np.where(np.arange(40) < 30, 2024, 2023)).to_parquet(tmp_path / "p.parquet")
    sql = "\"select * from 'p.parquet' where year = 2024 -- this year\""
    cfg = _config(tmp_path, f"{{sql: {sql}}}")
    monkeypatch.chdir(tmp_path / "sub")  # the working folder does not matter
    code, out, info = _audit(cfg, tmp_path / "o1")
    assert code == 0, out
    # rows 0..29: 15 women of whom rows 0 and 2 approved
    assert info["n"] == 30 and info["groups"][0]["n_protected"] == 15
    assert info["groups"][0]["favourable_protected"] == 2
    inputs = json.loads((tmp_path / "o1" / "results.json").read_text())["inputs"]
    assert inputs[0]["role"] == "data query" and len(inputs[0]["sha256"]) == 64


@pytest.mark.parametrize(
    "sql, message",
    [
        ("copy (select 1) to 'x.csv'", "is a COPY statement"),
        ("select 1; select 2", "holds 2 statements"),
        ("install httpfs", "only a read-only SELECT"),
        ("attach 'x.duckdb'", "only a read-only SELECT"),
        ("selec 1", 'syntax error at or near "selec"'),
    ],
)
def test_sql_must_be_one_select(sql, message):
    with pytest.raises(InputError, match=message):
        check_sql(sql)


def test_bad_sql_and_duckdb_tables_exit_2_with_duckdb_message(tmp_path):
    import duckdb

    df = _people()  # noqa: F841 - read by DuckDB's replacement scan below
    con = duckdb.connect(str(tmp_path / "db.duckdb"))
    con.execute("create table loans as select * from df")
    con.close()
    code, out, info = _audit(_config(tmp_path, "{path: db.duckdb, table: loans}"), tmp_path / "o1")
    assert code == 0, out
    assert info["n"] == 40 and info["groups"][0]["favourable_protected"] == 2
    code, out, _ = _audit(_config(tmp_path, "{path: db.duckdb, table: loan}"), tmp_path / "o2")
    assert code == 2 and "data.table 'loan' is not in the database" in out and "loans" in out
    code, out, _ = _audit(
        _config(tmp_path, '{sql: "select * from missing_table"}'), tmp_path / "o3"
    )
    assert code == 2 and "data.sql" in out and "missing_table does not exist" in out
    code, out, _ = _audit(_config(tmp_path, '{sql: "drop table loans"}'), tmp_path / "o4")
    assert code == 2 and "only a read-only SELECT" in out
    code, out, _ = _audit(_config(tmp_path, "{path: db.duckdb}"), tmp_path / "o5")
    assert code == 2 and "data.table" in out


def test_the_duckdb_connection_cannot_change_its_configuration(tmp_path):
    import duckdb

    from primafacie.data_files import _connect

    con = _connect(None, tmp_path)
    try:
        for setting in ("autoinstall_known_extensions", "autoload_known_extensions"):
            assert con.execute(f"select current_setting('{setting}')").fetchone()[0] is False
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute("SET autoinstall_known_extensions = true")
    finally:
        con.close()


def test_a_database_files_views_cannot_read_the_auditors_files(tmp_path):
    """The auditee's .duckdb file runs its views when read: one that reads a local file of the
    auditor's machine into an id is refused (it put the file's text into the outputs)."""
    import duckdb

    (tmp_path / "secret.txt").write_text("TOP-SECRET")
    secret = str(tmp_path / "secret.txt").replace("'", "''")
    df = _people()  # noqa: F841 - read by DuckDB's replacement scan below
    con = duckdb.connect(str(tmp_path / "evil.duckdb"))
    con.execute("create table t as select * from df")
    con.execute(f"create view loans as select * from t union all select * from t where "
                f"(select content from read_text('{secret}')) is null")  # fmt: skip
    con.close()
    code, out, _ = _audit(_config(tmp_path, "{path: evil.duckdb, table: loans}"), tmp_path / "o1")
    assert code == 2 and "file system operations are disabled" in out, out
    assert not (tmp_path / "o1").exists()
    code, out, _ = _audit(_config(tmp_path, "{path: evil.duckdb, table: t}"), tmp_path / "o2")
    assert code == 0, out  # its own tables still read
    con = _connect_to(tmp_path / "evil.duckdb", tmp_path)
    try:
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute("SET enable_external_access = true")
    finally:
        con.close()


def _connect_to(path, base):
    from primafacie.data_files import _connect

    return _connect(path, base)


# ---------------------------------------------------------------------- data.reader
ADULT_NAMES = ["age", "workclass", "fnlwgt", "education", "education_num", "marital",
               "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
               "hours", "country", "income"]  # fmt: skip


def _real_files() -> list:
    data = resolve_data_dir()
    out = [pytest.param(FIXTURES / "people.csv", {}, 40, id="people")]
    for name, path, options, n in [
        ("compas", "compas/compas-scores-two-years.csv", {}, 7214),
        ("adult", "adult/adult.data",
         {"header": False, "names": ADULT_NAMES, "na_values": ["?"], "sep": ","}, 32561),
    ]:  # fmt: skip
        present = data is not None and (data / path).exists()
        mark = pytest.mark.skipif(not present, reason=f"{path} is not under $PRIMAFACIE_DATA")
        out.append(pytest.param(data / path if present else None, options, n, id=name, marks=mark))
    return out


@pytest.mark.parametrize("path, options, n", _real_files())
def test_duckdb_reads_csv_files_into_the_same_frame_as_pandas(path, options, n):
    expected = read_table(path, **options)
    frame = read_table(path, reader="duckdb", **options)
    assert len(frame) == n and frame.attrs["reader"] == {
        "requested": "duckdb", "used": "duckdb", "fallback": None
    }  # fmt: skip
    pd.testing.assert_frame_equal(frame, expected)
    assert "reader" not in expected.attrs  # auto: the default output is unchanged
    columns = list(expected.columns[[0, -1]])
    pd.testing.assert_frame_equal(
        read_table(path, columns=columns, reader="duckdb", **options),
        read_table(path, columns=columns, **options),
    )


def test_duckdb_csv_dtypes_follow_pandas_on_the_hard_cases(tmp_path):
    # gaps in an integer column, an empty column, true/false words, t/f (text for pandas),
    # dates (text for pandas), a value with a leading space and " ?" as missing, decimal comma
    body = ("a;b;c;d;e;f;g\n"
            '1;;True;t;2024-01-02; x;1,5\n'
            'NA;;False;f;2024-01-03; ?;2,25\n'
            '3;;true;t;2024-01-04;y;-3\n')  # fmt: skip
    (tmp_path / "t.csv").write_text(body)
    options = {"sep": ";", "decimal": ",", "na_values": ["?"]}
    expected = read_table(tmp_path / "t.csv", **options)
    assert expected.dtypes.astype(str).tolist() == [
        "float64", "float64", "bool", "str", "str", "str", "float64"
    ]  # fmt: skip
    pd.testing.assert_frame_equal(read_table(tmp_path / "t.csv", reader="duckdb", **options),
                                  expected)  # fmt: skip
    # DuckDB samples 20,480 rows: a later row that does not fit the sampled type (a, b), and
    # a column the sample saw only empty (c), still give pandas' types
    rows = [f"{i},{i},\n" for i in range(30_000)] + ["1.5,x,7\n"]
    (tmp_path / "late.csv").write_text("a,b,c\n" + "".join(rows))
    expected = read_table(tmp_path / "late.csv")
    assert expected.dtypes.astype(str).tolist() == ["float64", "str", "float64"]
    pd.testing.assert_frame_equal(read_table(tmp_path / "late.csv", reader="duckdb"), expected)
    # the encodings DuckDB decodes itself
    for encoding in ("latin-1", "utf-16"):
        _people().to_csv(tmp_path / "e.csv", index=False, encoding=encoding)
        got = read_table(tmp_path / "e.csv", encoding=encoding, reader="duckdb")
        assert got.attrs["reader"]["used"] == "duckdb" and got.region.iloc[1] == "süd"
        pd.testing.assert_frame_equal(got, read_table(tmp_path / "e.csv", encoding=encoding))


def test_duckdb_reads_parquet_like_pyarrow_and_falls_back_with_a_reason(tmp_path):
    df = _people().assign(n=np.arange(40), when=pd.Timestamp("2024-01-01"))
    df.to_parquet(tmp_path / "p.parquet", index=False)
    expected = read_table(tmp_path / "p.parquet")
    frame = read_table(tmp_path / "p.parquet", reader="duckdb")
    assert frame.attrs["reader"]["used"] == "duckdb"
    pd.testing.assert_frame_equal(frame, expected)
    # a query over the file and a table of a .duckdb file give the same frame too
    sql = f"select * from '{(tmp_path / 'p.parquet').as_posix()}'"
    pd.testing.assert_frame_equal(read_table(None, sql=sql), expected)
    import duckdb

    con = duckdb.connect(str(tmp_path / "d.duckdb"))
    con.execute(f"create table t as {sql}")
    con.close()
    pd.testing.assert_frame_equal(read_table(tmp_path / "d.duckdb", table="t"), expected)
    # a folder, a categorical column, a Latin-1 file and Excel fall back, saying why
    (tmp_path / "folder").mkdir()
    df.to_parquet(tmp_path / "folder" / "part-0.parquet", index=False)
    df.astype({"region": "category"}).to_parquet(tmp_path / "cat.parquet", index=False)
    df.to_csv(tmp_path / "t.csv", index=False, encoding="cp1252")
    for path, options, used, why in [
        (tmp_path / "folder", {}, "pyarrow", "a folder of Parquet files"),
        (tmp_path / "cat.parquet", {}, "pyarrow", "categorical columns"),
        (tmp_path / "t.csv", {"encoding": "cp1252"}, "pandas", "not cp1252"),
        (FIXTURES / "people.ods", {"sheet": 1}, "calamine", "spreadsheets"),
    ]:
        got = read_table(path, reader="duckdb", **options)
        assert got.attrs["reader"]["used"] == used and why in got.attrs["reader"]["fallback"]
        pd.testing.assert_frame_equal(got, read_table(path, **options), check_like=True)


def test_the_reader_fallback_is_a_note_in_the_report(tmp_path):
    _people().to_csv(tmp_path / "t.csv", index=False, encoding="cp1252")
    cfg = _config(tmp_path, "{path: t.csv, encoding: cp1252, reader: duckdb}")
    code, out, info = _audit(cfg, tmp_path / "o")
    assert code == 0, out
    assert info["reader"] == {"requested": "duckdb", "used": "pandas",
                              "fallback": info["reader"]["fallback"]}  # fmt: skip
    assert any(n.startswith("data.reader: duckdb was asked for, but pandas read the data")
               for n in info["notes"])  # fmt: skip
    assert "data.reader: duckdb was asked for" in (tmp_path / "o" / "report.html").read_text()
    code, out, info = _audit(_config(tmp_path, "{path: t.csv, encoding: cp1252}"), tmp_path / "a")
    assert code == 0 and "reader" not in info  # auto: results.json as before


def test_reader_pandas_cannot_read_sql_and_an_unknown_reader_is_refused():
    with pytest.raises(InputError, match="data.reader: pandas cannot run a query"):
        read_table(None, sql="select 1 as a", reader="pandas")
    with pytest.raises(InputError, match="data.reader 'polars' is not a reader"):
        read_table(FIXTURES / "people.csv", reader="polars")
    assert read_table(None, sql="select 1 as a", reader="duckdb").a.tolist() == [1]


# ---------------------------------------------------------------------- many levels
def test_a_declared_categorical_feature_with_10500_levels_is_accepted_and_noted(tmp_path):
    n = 10_600
    df = _people(n).assign(code=[f"c{i % 10_500}" for i in range(n)])
    df.to_parquet(tmp_path / "t.parquet")
    cfg = _config(tmp_path, "t.parquet", features="{income: numeric, code: categorical}")
    code, out, info = _audit(cfg, tmp_path / "o")
    assert code == 0, out
    assert any(
        "categorical feature 'code' has 10500 distinct values among 10600 rows" in note
        and "identifier" in note
        for note in info["notes"]
    )
    assert "looks like an identifier" in (tmp_path / "o" / "report.html").read_text()
    # an explicit cap still refuses, naming the feature and the count
    code, out, _ = _audit(_config(tmp_path, "t.parquet", "max_levels: 1000\n",
                                  features="{income: numeric, code: categorical}"),
                          tmp_path / "o2")  # fmt: skip
    assert code == 2 and "'code' has 10500 distinct values, more than max_levels=1000" in out


# ---------------------------------------------------------------------- configuration keys
@pytest.mark.parametrize(
    "data, key",
    [
        ("{path: t.csv, encoding: klingon}", "data.encoding"),
        ("{path: t.csv, header: false}", "data.names"),
        ("{path: t.csv, names: [a, a]}", "data.names"),
        ("{path: t.csv, sheet: 1}", "data.sheet"),
        ("{path: t.xlsx, sheet: -1}", "data.sheet"),
        ("{path: t.csv, table: x}", "data.table"),
        ('{path: t.csv, sql: "select 1"}', "data.sql"),
        ("{decimal: ','}", "data.path"),
        ('{sql: "select 1", header: false, names: [a]}', "data.header"),
        ('{sql: "select 1", encoding: latin-1}', "data.encoding"),
        ('{path: t.parquet, na_values: ["?"]}', "data.na_values"),
        ("{path: t.csv, reader: polars}", "data.reader"),
        ('{sql: "select 1", reader: pandas}', "data.reader"),
    ],
)
def test_every_bad_reading_option_exits_2_naming_its_key(tmp_path, data, key):
    _people().to_csv(tmp_path / "t.csv", index=False)
    code, out, _ = _audit(_config(tmp_path, data), tmp_path / "o")
    assert code == 2, out
    assert key in out, out
    assert "Traceback" not in out


def test_schema_and_readme_list_the_new_keys():
    from primafacie.config import config_schema

    schema = config_schema()
    props = schema["$defs"]["DataSpec"]["properties"]
    for key in ("encoding", "header", "names", "na_values", "sheet", "table", "sql", "reader"):
        assert props[key]["description"], key
    assert props["reader"]["enum"] == ["auto", "duckdb", "pandas"]
    assert props["reader"]["default"] == "auto"
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "reader: duckdb" in readme and "### Reading files" in readme
    assert schema["properties"]["dropna"]["description"].startswith("true (the audited")
    assert schema["properties"]["max_levels"]["default"] is None


def test_groups_flags_read_excel_too(tmp_path):
    write_xlsx(tmp_path / "t.xlsx", {"s": _rows(_people())})
    res = runner.invoke(
        app,
        ["groups", "--data", str(tmp_path / "t.xlsx"), "--protected", "gender=f",
         "--decision", "approved", "--out", str(tmp_path / "o")],
    )  # fmt: skip
    assert res.exit_code == 0, res.output


def test_a_many_level_categorical_node_of_the_causal_model_is_refused_with_its_estimate(
    tmp_path, monkeypatch
):
    n = 200
    df = _people(n).assign(code=[f"c{i}" for i in range(n)])
    df.to_csv(tmp_path / "t.csv", index=False)
    extra = (
        "causal: {edges: [[gender, code], [gender, income]]}\n"
        "analyses: {situation: {methods: [cst], k: [5]}}\n"
    )
    cfg = _config(tmp_path, "t.csv", extra, features="{income: numeric, code: categorical}")
    # 200 rows x 200 categories x 24 B = 960 kB; situation's own search needs about 11 kB
    monkeypatch.setenv("PRIMAFACIE_MEMORY", "500000")
    code, out, _ = _audit(cfg, tmp_path / "o")
    assert code == 2, out
    assert "causal model: the categorical node 'code' (200 rows x 200 categories)" in out
    assert "would need about 960.0 kB of memory" in out and "lower the number of values" in out


@pytest.mark.filterwarnings("ignore:The number of unique classes:UserWarning")
def test_the_categorical_mechanism_refuses_through_the_api_too(monkeypatch):
    from primafacie.causal.mechanisms import CategoricalCDF

    monkeypatch.setenv("PRIMAFACIE_MEMORY", "100000")
    y = np.arange(100)  # 100 rows x 100 categories x 24 B = 240 kB
    with pytest.raises(InputError, match=r"100 rows x 100 categories.*240.0 kB"):
        CategoricalCDF(100).fit(np.zeros((100, 1)), y)
    monkeypatch.setenv("PRIMAFACIE_MEMORY", "300000")
    assert CategoricalCDF(100).fit(np.zeros((100, 1)), y).cdf(np.zeros((1, 1))).shape == (1, 100)


def test_a_duckdb_read_holds_none_of_duckdbs_buffers(tmp_path):
    # DuckDB returns one Arrow chunk per row group; pandas' text columns would keep those
    # (DuckDB-allocated) buffers alive. The frame holds one chunk of Arrow's own instead.
    import duckdb

    from primafacie.data_files import _arrow_to_pandas

    n = 300_000  # several DuckDB row groups (122,880 rows each)
    pd.DataFrame({"g": np.where(np.arange(n) % 3 == 0, "female", "male"), "x": np.arange(n)}
                 ).to_parquet(tmp_path / "p.parquet", index=False)  # fmt: skip
    con = duckdb.connect()
    table = con.sql(f"select * from '{(tmp_path / 'p.parquet').as_posix()}'").to_arrow_table()
    con.close()
    assert table.column("g").num_chunks > 1
    frame = _arrow_to_pandas(table)
    pd.testing.assert_frame_equal(frame, table.to_pandas(), check_exact=True)
    assert frame["g"].array._pa_array.num_chunks == 1
    read = read_table(tmp_path / "p.parquet", reader="duckdb")
    pd.testing.assert_frame_equal(read, frame, check_exact=True)


def test_duckdb_results_convert_one_column_at_a_time_into_the_whole_conversion(tmp_path):
    # issue 22: each column is combined and converted before the next, so no combined copy
    # of the whole table sits beside DuckDB's table and the frame; the frame is unchanged
    import duckdb
    import pyarrow as pa

    from primafacie.data_files import _arrow_to_pandas

    n = 300_000  # several DuckDB row groups (122,880 rows each)
    i = np.arange(n)
    pd.DataFrame({
        "x": i * 0.5, "y": np.where(i % 7 == 0, np.nan, i * 1.5), "k": i % 5,
        "g": np.where(i % 3 == 0, "female", None), "d": pd.to_datetime(i, unit="s"),
    }).to_parquet(tmp_path / "p.parquet", index=False)  # fmt: skip
    con = duckdb.connect()
    table = con.sql(f"select * from '{(tmp_path / 'p.parquet').as_posix()}'").to_arrow_table()
    con.close()
    assert table.column("x").num_chunks > 1
    expected = table.combine_chunks().to_pandas()  # the conversion before issue 22

    held, start = [], pa.total_allocated_bytes()

    class Recorded:  # the table, recording the pool when each column is selected
        num_columns, schema = table.num_columns, table.schema

        def select(self, columns):
            held.append(pa.total_allocated_bytes() - start)
            return table.select(columns)

    frame = _arrow_to_pandas(Recorded())
    pd.testing.assert_frame_equal(frame, expected, check_exact=True, check_column_type=True)
    assert frame.columns.tolist() == expected.columns.tolist() and frame.attrs == expected.attrs
    assert frame["g"].array._pa_array.num_chunks == 1
    # before column k: the k converted numeric columns (pyarrow allocates their numpy blocks
    # in its pool), never a combined column still held
    for k, bytes_held in enumerate(held[:3]):
        assert bytes_held < (k + 0.5) * n * 8, (k, bytes_held / (n * 8))
