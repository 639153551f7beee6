"""CNN/DailyMail (Hermann et al. 2015; See et al. 2017's non-anonymised version 3.0.0)
as extractive summarisation: each article's sentences labelled by the greedy ROUGE
oracle against its highlights (chapter "Finding and injecting attention patterns",
full profile).

Loaded with Hugging Face ``datasets`` (``abisee/cnn_dailymail``, config ``3.0.0``:
fields ``article``, ``highlights``, ``id``; splits train, validation, test), or from a
local copy with those columns: a ``.jsonl`` file (one object per line) or a ``.csv``
file with a header, plain, ``.gz`` or ``.xz``. Article sentences come from the course's
:func:`~lamalib.data.datasets.segmentation.split_sentences`; the highlights are one
sentence per line.
"""

from __future__ import annotations

import csv
import io
import json
from itertools import islice
from pathlib import Path
from typing import Iterable, Iterator

from lamalib.data.datasets.extractive import ExtractiveDoc, oracle_doc
from lamalib.data.fetch import EMBEDDED_HINT, DownloadError, data_dir, local_copy
from lamalib.data.datasets.segmentation import split_sentences
from lamalib.data.textio import read_text
from lamalib.data.tokenize import tokenize

HF_NAME, HF_CONFIG = "abisee/cnn_dailymail", "3.0.0"
SPLITS = {"train": "train", "valid": "validation", "validation": "validation",
          "test": "test"}
FIELDS = ("article", "highlights")  # and "id", which a copy may lack


def read_records(path) -> list[dict]:
    """The rows of a local copy: ``.jsonl`` or ``.csv`` (optionally ``.gz``/``.xz``)
    with the fields ``article``, ``highlights`` (and ``id``)."""
    path = Path(path)
    plain = path.name.lower().removesuffix(".gz").removesuffix(".xz")
    text = read_text(path)
    if plain.endswith(".jsonl"):
        rows = []
        for n, line in enumerate(text.split("\n"), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise ValueError(f"{path}, line {n}: not JSON ({err})") from err
    elif plain.endswith(".csv"):
        limit = csv.field_size_limit()
        csv.field_size_limit(1 << 30)  # an article is one field, often > 128 KiB
        try:
            rows = list(csv.DictReader(io.StringIO(text, newline="")))
        finally:
            csv.field_size_limit(limit)
    else:
        raise ValueError(f"{path}: expected a .jsonl or .csv file (plain, .gz, .xz)")
    missing = [f for f in FIELDS if rows and f not in rows[0]]
    if missing:
        raise ValueError(f"{path}: no field {missing}; CNN/DailyMail rows have "
                         "'article', 'highlights' and 'id'")
    return rows


def article_doc(row: dict, max_sentences: int = 3, min_tokens: int = 1,
                max_tokens: int | None = None) -> ExtractiveDoc | None:
    """One row -> an :class:`ExtractiveDoc` labelled by the oracle (None if the
    article or the highlights have no sentence)."""
    sentences = split_sentences(row["article"], min_tokens, None)
    summary = [tokenize(line) for line in row["highlights"].split("\n")
               if line.strip()]
    if not sentences or not summary:
        return None
    return oracle_doc(sentences, summary, str(row.get("id", "")), max_sentences,
                      max_tokens)


def _hub_rows(split: str) -> Iterator[dict]:
    where = (f"put a local copy (cnn_dailymail/{split}.jsonl or .csv with the fields "
             f"id, article, highlights) in {data_dir()}, or pass path=FILE")
    try:
        import datasets
    except ImportError as err:
        raise DownloadError("CNN/DailyMail is loaded with Hugging Face datasets: "
                            f"`pip install datasets`, or {where}. "
                            + EMBEDDED_HINT) from err
    try:
        rows = datasets.load_dataset(HF_NAME, HF_CONFIG, split=split)
    except Exception as err:  # offline: ConnectionError, hub errors
        raise DownloadError(f"Could not load {HF_NAME} ({err}). Offline, {where}. "
                            + EMBEDDED_HINT) from err
    return iter(rows)


def cnn_dailymail(split: str = "train", path=None, limit: int | None = None,
                  **label) -> list[ExtractiveDoc]:
    """CNN/DailyMail's ``split`` ("train", "valid" = validation, "test") as
    oracle-labelled documents.

    Args:
        path: a local copy (see :func:`read_records`); default: the data
            directory's ``cnn_dailymail/<split>.jsonl`` or ``.csv`` (split named
            as on the hub: train, validation, test), else Hugging Face ``datasets``.
        limit: at most this many articles (the oracle costs time on 287k).
        label: :func:`article_doc`'s options (``max_sentences``, ``max_tokens``).
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {tuple(SPLITS)}, got {split!r}")
    hub = SPLITS[split]
    source = Path(path) if path is not None else local_copy(
        [f"cnn_dailymail/{hub}.jsonl", f"cnn_dailymail/{hub}.csv"])
    rows: Iterable[dict] = read_records(source) if source else _hub_rows(hub)
    docs = list(islice(filter(None, (article_doc(r, **label) for r in rows)), limit))
    if not docs:
        raise ValueError(f"CNN/DailyMail {hub}: no article with a sentence and a "
                         "highlight (is the copy in the hub's field layout?)")
    return docs
