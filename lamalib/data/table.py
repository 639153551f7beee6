"""Any user file: TSV or CSV with a label column and a text column (chapter "Setup")."""

from __future__ import annotations

import csv
from pathlib import Path

from .dataset import TextDataset


def load_table(
    path: str | Path,
    text_col: str = "text",
    label_col: str = "label",
    delimiter: str | None = None,
    label_names: list[str] | None = None,
) -> TextDataset:
    """Read a CSV/TSV with a header row. Labels may be words or numbers; they are mapped
    to ids in sorted order unless ``label_names`` gives the order.

    ``delimiter`` defaults to tab for ``.tsv``/``.tab`` files and comma otherwise.
    """
    path = Path(path)
    if delimiter is None:
        delimiter = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter=delimiter))
    if not rows:
        raise ValueError(f"{path} has no data rows: it is empty or has only a header.")
    for col in (text_col, label_col):
        if col not in rows[0]:
            raise ValueError(
                f"{path} has no column {col!r}; its columns are {list(rows[0])}. "
                "Pass text_col= and label_col= to name yours."
            )
    raw_labels = [row[label_col].strip() for row in rows]
    names = label_names or sorted(
        set(raw_labels), key=lambda s: (not s.isdigit(), s.zfill(9))
    )
    unknown = set(raw_labels) - set(names)
    if unknown:
        raise ValueError(f"labels {sorted(unknown)} are not in label_names={names}")
    index = {name: i for i, name in enumerate(names)}
    return TextDataset(
        [row[text_col] for row in rows],
        [index[y] for y in raw_labels],
        list(names),
        path.stem,
        "all",
    )
