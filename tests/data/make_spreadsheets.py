"""Write the spreadsheet fixtures of tests/test_data_files.py: ``people.csv`` and the same
table as the second sheet (``loans``, after a ``readme`` sheet) of ``people.xls`` (BIFF8,
written by xlwt) and ``people.ods`` (OpenDocument, written by odfpy).

The fixtures are committed, so neither writer is a dependency of primafacie or of its tests;
run this script only to change them::

    python tests/data/make_spreadsheets.py

The table is ``_people()`` of the tests: 40 rows, ``income`` 10.5, 11.5, ..., ``region``
nord on every third row else süd (a non-ASCII value), ``gender`` f on even rows, ``approved``
1 on odd rows and on rows 0 and 2.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
README_SHEET = [["about"], ["the loans are on the second sheet"]]


def people() -> list[list]:
    """The header and the 40 rows."""
    rows: list[list] = [["income", "region", "gender", "approved"]]
    for i in range(40):
        rows.append(
            [10.5 + i, "nord" if i % 3 == 0 else "süd", "f" if i % 2 == 0 else "m",
             int(i % 2 == 1 or i < 3)]
        )  # fmt: skip
    return rows


def write_csv(path: Path, rows: list[list]) -> None:
    lines = [",".join(str(v) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_xls(path: Path, sheets: dict[str, list[list]]) -> None:
    import xlwt

    book = xlwt.Workbook(encoding="utf-8")
    for name, rows in sheets.items():
        sheet = book.add_sheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                sheet.write(r, c, value)
    book.save(str(path))


def write_ods(path: Path, sheets: dict[str, list[list]]) -> None:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    doc = OpenDocumentSpreadsheet()
    for name, rows in sheets.items():
        table = Table(name=name)
        for row in rows:
            tr = TableRow()
            for value in row:
                if isinstance(value, (int, float)):
                    cell = TableCell(valuetype="float", value=value)
                else:
                    cell = TableCell(valuetype="string")
                cell.addElement(P(text=str(value)))
                tr.addElement(cell)
            table.addElement(tr)
        doc.spreadsheet.addElement(table)
    doc.save(str(path))


def main() -> None:
    rows = people()
    sheets = {"readme": README_SHEET, "loans": rows}
    write_csv(HERE / "people.csv", rows)
    write_xls(HERE / "people.xls", sheets)
    write_ods(HERE / "people.ods", sheets)


if __name__ == "__main__":
    main()
