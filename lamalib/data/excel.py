"""A user's Excel workbook (``.xlsx``) read as rows of text, so that a labelled sheet
is read like a CSV file (chapter "Attention for Vietnamese"; Vietnamese data sets are
often distributed as workbooks). Needs ``openpyxl`` (``pip install 'lamalib[vi]'``).

The first sheet is read; each row's cells become text: an empty cell is ``""``, a
whole number ``"3"`` (not ``"3.0"``), text as typed (NFC). Rows are numbered as Excel
numbers them, so an error's "line N" is the sheet's row N.
"""

from __future__ import annotations

import unicodedata
from importlib import util
from pathlib import Path

EXCEL = {".xlsx": "xlsx", ".xlsm": "xlsx", ".xls": "xls"}  # suffix -> format
NEEDS = "reading an Excel file needs openpyxl: pip install 'lamalib[vi]' (or openpyxl)"


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # a label typed as 1 is stored as 1.0
    return unicodedata.normalize("NFC", str(value))


def excel_records(path: str | Path) -> list[tuple[int, list[str]]]:
    """``(row number, cells)`` of each non-blank row of the workbook's first sheet,
    every row as wide as the sheet's last column that holds data.

    Raises:
        ValueError: openpyxl is missing, the file is an old ``.xls`` workbook, or it
            is not a workbook openpyxl can read (each one line saying what to do).
    """
    path = Path(path)
    if path.suffix.lower() == ".xls":
        raise ValueError(f"{path}: an Excel 97-2003 workbook (.xls); save it as .xlsx "
                         "or CSV in Excel (File > Save As) and give that file")
    if util.find_spec("openpyxl") is None:
        raise ValueError(f"{path}: {NEEDS}")
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as error:  # zipfile.BadZipFile, KeyError, InvalidFileException
        raise ValueError(f"{path}: not an Excel workbook openpyxl can read "
                         f"({type(error).__name__}: {error}); save it again as .xlsx "
                         "or CSV") from None
    try:
        rows = [[_cell(v) for v in row] for row in book.worksheets[0].iter_rows(
            values_only=True)]
    finally:
        book.close()
    records = [(number, row) for number, row in enumerate(rows, 1)
               if any(cell.strip() for cell in row)]
    # a sheet's used range often reaches past its last column of data: such columns,
    # empty in every row, are no column
    width = max((i + 1 for _, row in records for i, c in enumerate(row) if c.strip()),
                default=0)
    return [(n, (row + [""] * width)[:width]) for n, row in records]
