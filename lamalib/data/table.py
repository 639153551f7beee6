"""Any user file: TSV or CSV with a label column and a text column (chapter "Setup").

Two formats, chosen by the file's suffix or by ``format=``:

* ``"tsv"``: one example per line, fields split at every tab, no quoting. A quote is
  an ordinary character, so a text may start with ``"`` or contain ``"a" "b"``. TSV
  has no way to escape a tab or a line break: a text cannot contain either.
* ``"csv"``: the CSV rules (RFC 4180, Python's :mod:`csv`): a field that contains the
  delimiter, a quote or a line break is written in double quotes, a quote inside it
  doubled.

Every row must have as many fields as the first line (the header, or the first data
row of a file without one); a row with more or fewer fields is an error that names
the file and its 1-based line. In a TSV file an extra tab is an error rather than part
of the text: TSV cannot tell a tab inside a text from a column too many (an id column,
say), so guessing would silently corrupt one or the other.

Several text columns (``text_col=["title", "description"]``, or column numbers) are
joined into one text with ``text_sep`` between them (default :data:`TEXT_SEP`,
``" . "``: a sentence boundary a tokenizer keeps); a blank one is left out.

Blank lines are skipped, texts are kept as written (an empty label or text is an
error). Labels follow one rule (:func:`canonical_label`): stripped of surrounding
spaces, and a number in its shortest form, so ``1``, ``1.0`` and ``01`` are one class;
a label that stands for a missing value (``NaN``, ``None``, ``null``, any case) is an
error naming its line. A column that is neither the label nor a text column is named
in one :class:`UnusedColumnsWarning`. A TSV file whose lines end in a lone ``\r``
(classic Mac OS) is read line by line as well. Label ids follow :func:`label_order`
unless ``label_names=`` gives them; :func:`load_splits` gives a training file and its
test file the same ids.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import NamedTuple

from lamalib.data.dataset import TextDataset
from lamalib.data.excel import EXCEL, excel_records
from lamalib.data.textio import DECOMPRESS, read_text

FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", **EXCEL}
TEXT_SEP = " . "  # between the texts of several text columns
# Column names that a first row read with header=False gives away as a header row.
LABEL_NAMES = {"label", "labels", "class", "category", "sentiment", "polarity",
               "target", "y", "tag", "topic", "rating", "stars"}
TEXT_NAMES = {"text", "review", "sentence", "content", "description", "title", "body",
              "document", "tweet", "comment", "x"}


class HeaderWarning(UserWarning):
    """A file read with ``header=False`` whose first row looks like column names."""


class UnusedColumnsWarning(UserWarning):
    """A file with columns that are neither the label nor a text column."""


# A label cell that stands for a missing value (pandas writes NaN or None for an
# empty cell, a database NULL): refused, never made a class of its own.
MISSING_LABELS = {"nan", "none", "null"}
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def canonical_label(label: str) -> str:
    """A label as a class is named: stripped of surrounding spaces, and a number in its
    shortest form, so that ``1``, ``1.0``, ``01`` and ``+1`` are one class (``1``),
    ``2.50`` is ``2.5``; any other label is kept as written (``Pos`` and ``pos`` are
    two classes)."""
    label = label.strip()
    if not _NUMBER.fullmatch(label):
        return label
    value = float(label)
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def label_order(labels: Sequence[str]) -> list[str]:
    """The distinct ``labels`` in the order that gives their ids: numerically when
    every label is a number (``-1 < 0 < 1 < 2 < 10``), otherwise alphabetically
    (``neg < pos``)."""
    names = set(labels)
    if all(_NUMBER.fullmatch(name) for name in names):
        return sorted(names, key=lambda name: (float(name), name))
    return sorted(names, key=lambda name: (name.casefold(), name))


@dataclass
class _Rows:
    """Raw labels and texts of one file, with the file line each row starts on."""

    path: Path
    labels: list[str]
    texts: list[str]
    lines: list[int]


def _format_of(path: Path, format: str | None, delimiter: str | None) -> str:
    if format is not None:
        if format not in ("csv", "tsv"):
            raise ValueError(f"format must be 'csv' or 'tsv', not {format!r}")
        return format
    if delimiter is not None:  # an explicit tab means TSV; anything else is CSV
        return "tsv" if delimiter == "\t" else "csv"
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in DECOMPRESS:
        suffixes.pop()
    if suffixes and suffixes[-1] in FORMATS:
        return FORMATS[suffixes[-1]]
    raise ValueError(
        f"Cannot tell from the name of {path} whether it is TSV or CSV. Pass "
        "format='tsv' (one example per line, fields split at tabs, no quoting) or "
        "format='csv' (comma-separated, with quotes)."
    )


def _tsv_records(content: str) -> Iterator[tuple[int, list[str]]]:
    # Only "\n" ends a line (a lone "\r" or "\x85" may sit inside a text); a "\r"
    # before it is the Windows line end. A file without any "\n" (but at its end)
    # and with "\r"s has the classic Mac OS line ends: each "\r" ends a line.
    body = content.rstrip("\r\n")
    lines = body.split("\r") if "\n" not in body and "\r" in body else \
        content.split("\n")
    for number, line in enumerate(lines, 1):
        line = line.removesuffix("\r")
        if line.strip():
            yield number, line.split("\t")


def _csv_records(
    content: str, delimiter: str, path: Path
) -> list[tuple[int, list[str]]]:
    text = io.StringIO(content, newline="")  # newlines inside quotes stay as written
    reader = csv.reader(text, delimiter=delimiter, strict=True)
    records = []
    start = 1  # the line a record starts on; a quoted field may span several
    previous_limit = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)  # a long review is not an error (default 131,072)
    try:
        for fields in reader:
            if any(field.strip() for field in fields):
                records.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as err:
        raise ValueError(
            f"{path}, line {start}: not valid CSV ({err}). A field that contains a "
            'quote must be quoted and the quote doubled: "he said ""hi""".'
        ) from err
    finally:
        csv.field_size_limit(previous_limit)
    return records


def _fields(n: int) -> str:
    return f"{n} field" if n == 1 else f"{n} fields"


def _column(
    col: str | int, header: list[str] | None, path: Path, role: str, first: list[str]
) -> int:
    if isinstance(col, int):
        if not 0 <= col < len(first):
            raise ValueError(
                f"{path}: {role}={col} but its rows have {_fields(len(first))} "
                f"(columns 0..{len(first) - 1})."
            )
        return col
    if header is None:
        raise ValueError(
            f"{path}: without a header row, give {role} as a column number "
            f"(0 for the first column), not {col!r}."
        )
    if header.count(col) != 1:
        what = "two columns named" if col in header else "no column"
        hint = (
            ""
            if col in header
            else " If the first line is data, not column names, pass header=False."
        )
        shown = [name if len(name) <= 30 else name[:27] + "..." for name in header]
        raise ValueError(
            f"{path} has {what} {col!r}; its first line reads {shown}. "
            f"Pass text_col= and label_col= to name yours.{hint}"
        )
    return header.index(col)


def _read_rows(
    path: str | Path,
    text_col: str | int | Sequence[str | int] | None,
    label_col: str | int | None,
    format: str | None,
    delimiter: str | None,
    header: bool,
    encoding: str,
    text_sep: str = TEXT_SEP,
) -> _Rows:
    path = Path(path)
    kind = _format_of(path, format, delimiter)
    if kind in EXCEL.values():  # a workbook's first sheet, read as CSV rows are
        records = iter(excel_records(path))
    elif kind == "tsv":
        if delimiter not in (None, "\t"):
            raise ValueError(
                f"format='tsv' splits at tabs; use format='csv' for {delimiter=}."
            )
        records = _tsv_records(read_text(path, encoding))
    else:
        records = iter(_csv_records(read_text(path, encoding), delimiter or ",", path))
    first_line, first = next(records, (0, []))
    if not first:
        raise ValueError(f"{path} has no data rows: it is empty.")
    names = [name.strip() for name in first] if header else None
    if text_col is None:
        text_col = "text" if header else 1
    if label_col is None:
        label_col = "label" if header else 0
    several = isinstance(text_col, (list, tuple))
    if several and not text_col:
        raise ValueError(f"{path}: text_col=[] names no column; give one or more.")
    text_at = [_column(col, names, path, "text_col", first)
               for col in (text_col if several else [text_col])]
    label_at = _column(label_col, names, path, "label_col", first)
    unused = [i for i in range(len(first)) if i not in (*text_at, label_at)]
    if unused:
        shown = [repr(_short(names[i])) if names else str(i) for i in unused]
        text_cols = [repr(names[i]) if names else str(i) for i in text_at]
        warnings.warn(
            f"{path}: {len(unused)} column{'s' * (len(unused) != 1)} not read: "
            f"{', '.join(shown[:SHOWN_LABELS])}"
            f"{' ...' if len(unused) > SHOWN_LABELS else ''} (the label is column "
            f"{repr(names[label_at]) if names else label_at}, the text "
            f"{' + '.join(text_cols)}); to join several text columns into one "
            "text, name them all in text_col", UnusedColumnsWarning, stacklevel=4)
    rows = _Rows(path, [], [], [])
    data = records if header else chain([(first_line, first)], records)
    for line, fields in data:
        if len(fields) != len(first):
            sep = "\t" if kind == "tsv" else delimiter or ","
            if len(fields) < len(first):
                hint = "is a field missing?"
                if not header:
                    hint += f" Or has line {first_line} a {sep!r} too many?"
            elif kind == "tsv":
                hint = "a tab inside a text? TSV cannot quote it: make it a space."
            else:
                hint = f'an unquoted {sep!r} inside a text? Quote the text: "a{sep} b".'
            raise ValueError(
                f"{path}, line {line}: {_fields(len(fields))}, but the "
                f"{'header' if header else 'first row'} (line {first_line}) has "
                f"{_fields(len(first))}; {hint}"
            )
        label = canonical_label(fields[label_at])
        if label.casefold() in MISSING_LABELS:
            raise ValueError(
                f"{path}, line {line}: the label is {label!r}, a missing value (as "
                "pandas writes an empty cell); give the row its label or remove it.")
        if several:  # the columns that have a text, joined
            text = text_sep.join(fields[i] for i in text_at if fields[i].strip())
        else:
            text = fields[text_at[0]]
        if not label:
            raise ValueError(f"{path}, line {line}: the label is empty.")
        if not text.strip():
            raise ValueError(
                f"{path}, line {line}: empty text; remove the row or give it a text."
            )
        rows.labels.append(label)
        rows.texts.append(text)
        rows.lines.append(line)
    if not rows.texts:
        raise ValueError(f"{path} has no data rows: it is empty or has only a header.")
    if not header:
        _warn_if_header(rows, [first[i] for i in text_at])
    return rows


def _warn_if_header(rows: _Rows, first_texts: list[str]) -> None:
    """Warn when the first row, read as data, looks like column names: its label
    appears in no other row and it, or one of the row's texts, is a usual column
    name."""
    label = rows.labels[0]
    if rows.labels.count(label) == 1 and (
            label.casefold() in LABEL_NAMES
            or any(t.strip().casefold() in TEXT_NAMES for t in first_texts)):
        shown = ", ".join(repr(t.strip()[:30]) for t in first_texts)
        warnings.warn(
            f"{rows.path}, line {rows.lines[0]}: read as data with header=False, but "
            f"it looks like column names ({label!r}, {shown}) and "
            f"would become a class; if it is a header, pass header=True "
            f"(--set header=true)", HeaderWarning, stacklevel=4)


def _stem(path: Path) -> str:
    """The dataset's name: ``train`` for ``train.tsv.xz``."""
    name = path.name
    for suffixes in (DECOMPRESS, FORMATS):
        suffix = Path(name).suffix
        if suffix.lower() in suffixes:
            name = name[: -len(suffix)]
    return name


SHOWN_LABELS = 5  # labels an error lists; a text column read as labels has thousands


def _short(name: str) -> str:
    return name if len(name) <= 30 else name[:27] + "..."


def _few(names: Sequence[str]) -> str:
    """At most ``SHOWN_LABELS`` of ``names``, each at most 30 characters."""
    shown = [_short(n) for n in names[:SHOWN_LABELS]]
    more = f" ... ({len(names)} in all)" if len(names) > SHOWN_LABELS else ""
    return f"{shown}{more}"


def _swapped(names: Sequence[str]) -> str:
    """A hint where most labels look like texts (several words each)."""
    texts = sum(len(n.split()) > 2 for n in names)
    return (" These labels look like texts: are the label and text columns swapped? "
            "(see label_col= and text_col=)" if texts > len(names) / 2 else "")


def _dataset(rows: _Rows, names: list[str], split: str, where: str) -> TextDataset:
    index = {name: i for i, name in enumerate(names)}
    for label, line in zip(rows.labels, rows.lines):
        if label not in index:
            raise ValueError(
                f"{rows.path}, line {line}: label {_short(label)!r} is not among "
                f"the labels {where} {_few(names)}.{_swapped([label, *names])}"
            )
    ids = [index[y] for y in rows.labels]
    return TextDataset(rows.texts, ids, list(names), _stem(rows.path), split)


def _names(label_names: Sequence[str] | None) -> list[str]:
    names = [canonical_label(str(name)) for name in label_names or ()]
    if len(set(names)) != len(names):
        raise ValueError(f"label_names={names} repeats a name.")
    return names


def load_table(
    path: str | Path,
    text_col: str | int | Sequence[str | int] | None = None,
    label_col: str | int | None = None,
    *,
    header: bool = True,
    format: str | None = None,
    delimiter: str | None = None,
    encoding: str = "utf-8",
    label_names: Sequence[str] | None = None,
    text_sep: str = TEXT_SEP,
    labels_of: str | None = None,
) -> TextDataset:
    """Read one labelled TSV/CSV file (see the module docstring for the rules).

    To read a training and a test file, use :func:`load_splits`: it gives both the
    same label ids.

    Args:
        path: the file; ``.gz``, ``.xz`` and ``.bz2`` files are decompressed.
        text_col, label_col: column names (with a header row; default ``"text"`` and
            ``"label"``) or 0-based column numbers (default label 0, text 1 without a
            header: the common ``label<TAB>text`` layout). A list of columns joins
            their texts with ``text_sep``.
        header: whether the first line names the columns.
        format: ``"tsv"`` or ``"csv"``; by default from the suffix (``.tsv``/``.tab``
            or ``.csv``, before any compression suffix).
        delimiter: the CSV field separator (default ``","``, e.g. ``";"``).
        encoding: the file's text encoding; a UTF-8 byte-order mark is dropped.
        label_names: the labels in id order; by default :func:`label_order`
            (numbers numerically, words alphabetically).
        text_sep: what joins the texts of several text columns (default
            :data:`TEXT_SEP`, ``" . "``).
        labels_of: where ``label_names`` come from, as an unknown label's error says
            it (e.g. ``"the model models/san"``; default: ``label_names=``).

    Raises:
        ValueError: naming the file and its 1-based line for any malformed row (too
            many or too few fields, empty label or text, invalid CSV, bytes not in
            ``encoding``, a label not in ``label_names``).
    """
    rows = _read_rows(path, text_col, label_col, format, delimiter, header, encoding,
                      text_sep)
    names = _names(label_names) or label_order(rows.labels)
    where = f"of {labels_of}" if labels_of else "given in label_names="
    return _dataset(rows, names, "all", where)


class Splits(NamedTuple):
    """What :func:`load_splits` returns; a split not given is ``None``."""

    train: TextDataset
    valid: TextDataset | None
    test: TextDataset | None


def load_splits(
    train: str | Path,
    valid: str | Path | None = None,
    test: str | Path | None = None,
    *,
    text_col: str | int | Sequence[str | int] | None = None,
    label_col: str | int | None = None,
    header: bool = True,
    format: str | None = None,
    delimiter: str | None = None,
    encoding: str = "utf-8",
    label_names: Sequence[str] | None = None,
    text_sep: str = TEXT_SEP,
) -> Splits:
    """Read a training file and optional validation and test files (same layout)
    into datasets that share one label map, the training file's.

    Example: ``train, valid, test = load_splits("train.tsv", test="test.tsv",
    header=False)``, then :func:`~lamalib.data.stratified_split` if there is no
    validation file. Arguments as in :func:`load_table`.

    Raises:
        ValueError: as :func:`load_table`, and for a validation or test label that
            the training file does not have (a model cannot predict it), naming the
            label, its file and line.
    """
    options = (text_col, label_col, format, delimiter, header, encoding, text_sep)
    train_rows = _read_rows(train, *options)
    names = _names(label_names) or label_order(train_rows.labels)
    if len(names) < 2:
        raise ValueError(
            f"{train}: one label in all ({names[0]!r}), and a classifier needs at "
            "least two classes: is label_col= the label column, and is the file "
            "whole?"
        )
    where = "given in label_names=" if label_names else f"of the training file {train}"
    out = {"train": _dataset(train_rows, names, "train", where)}
    for split, path in (("valid", valid), ("test", test)):
        if path is not None:
            out[split] = _dataset(_read_rows(path, *options), names, split, where)
    return Splits(out["train"], out.get("valid"), out.get("test"))
