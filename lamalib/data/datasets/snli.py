"""SNLI, the Stanford Natural Language Inference corpus (Bowman et al. 2015): about
570k sentence pairs labelled entailment, neutral or contradiction (chapter
"Multi-scale self-attention", section "Sentence pairs: SNLI").

A local copy is read first: the official ``snli_1.0.zip`` or its unpacked
``snli_1.0/snli_1.0_{train,dev,test}.jsonl`` (plain, ``.gz`` or ``.xz``) in the data
directory (``$LAMALIB_DATA``, see :func:`~lamalib.data.fetch.data_dir`). Without one,
Hugging Face ``datasets`` (``stanfordnlp/snli``) loads it where it is installed, else
the official zip is downloaded into the data directory, checked by SHA-256. Offline
without a copy, loading fails at once with a message that says where to put one.

Pairs whose annotators reached no consensus (gold label ``"-"``; ``-1`` in
``datasets``) are dropped, as everyone does: 549,367 / 9,842 / 9,824 pairs remain.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Iterable

from lamalib.data.fetch import (EMBEDDED_HINT, DownloadError, data_dir, download,
                                local_copy)
from lamalib.data.pair_dataset import PairDataset
from lamalib.data.textio import open_binary

URL = "https://nlp.stanford.edu/projects/snli/snli_1.0.zip"
ZIP = "snli_1.0.zip"
FOLDER = "snli_1.0"  # the zip's folder, and the unpacked copy's
# SHA-256 of the official zip as two public loaders record it (ParlAI's SNLI task and
# NLIDatasets.jl agree); not computed here: no copy and no network where this was
# written. A mismatch is reported and the file discarded (lamalib.data.fetch).
SHA256 = "afb3d70a5af5d8de0d9d81e2637e0fb8c22d1235c2749d83125ca43dab0dbd3e"
LABELS = ["entailment", "neutral", "contradiction"]  # ids 0, 1, 2, as in datasets
NO_CONSENSUS = "-"  # gold_label of a pair without a majority of annotators
FILES = {"train": "snli_1.0_train.jsonl", "valid": "snli_1.0_dev.jsonl",
         "test": "snli_1.0_test.jsonl"}
HUB_NAME = "stanfordnlp/snli"
HUB_SPLITS = {"train": "train", "valid": "validation", "test": "test"}

Rows = tuple[list[str], list[str], list[int]]  # premises, hypotheses, label ids


def local_hint() -> str:
    """Where a copy of SNLI goes, and the embedded pair task that needs none."""
    return (f"With a copy of SNLI, put {ZIP} (or its unpacked {FOLDER}/ folder) in "
            f"{data_dir()}, or set LAMALIB_DATA to the folder that holds it. The "
            "embedded load_dataset('synthetic_nli') pairs need no download.")


def read_snli_jsonl(lines: Iterable[bytes | str], where: str) -> Rows:
    """Premises, hypotheses and label ids of SNLI's jsonl lines (fields
    ``gold_label``, ``sentence1``, ``sentence2``).

    Pairs labelled ``"-"`` (no consensus) and pairs with an empty sentence are
    dropped; any other label is an error naming ``where`` and the line.
    """
    first, second, labels = [], [], []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            gold = row["gold_label"]
            premise, hypothesis = row["sentence1"].strip(), row["sentence2"].strip()
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise ValueError(f"{where}, line {n}: expected a JSON object with "
                             f"gold_label, sentence1 and sentence2 ({err!r})") from err
        if gold == NO_CONSENSUS or not premise or not hypothesis:
            continue
        if gold not in LABELS:
            raise ValueError(f"{where}, line {n}: gold_label {gold!r} is none of "
                             f"{LABELS} or {NO_CONSENSUS!r}")
        first.append(premise)
        second.append(hypothesis)
        labels.append(LABELS.index(gold))
    return first, second, labels


def _from_zip(archive: Path, name: str) -> Rows:
    # One large member (550k pairs with their parse trees for train), streamed line
    # by line: lamalib.data.archive's iter_files would hold it whole in memory.
    member = f"{FOLDER}/{name}"
    try:
        with zipfile.ZipFile(archive) as zf, zf.open(member) as f:
            return read_snli_jsonl(f, f"{archive}:{member}")
    except zipfile.BadZipFile as err:
        raise ValueError(f"{archive} is not a readable zip ({err}): an incomplete "
                         "copy? Delete it and load again.") from err
    except KeyError as err:
        raise ValueError(f"{archive} has no {member}: is it the official "
                         f"{ZIP}?") from err


def _local(split: str) -> Rows | None:
    """The split from a local copy in the data directory, else None."""
    name = FILES[split]
    path = local_copy([f"{FOLDER}/{name}", name])
    if path is not None:
        with open_binary(path) as f:
            return read_snli_jsonl(f, str(path))
    zipped = local_copy([ZIP], ("",))
    if zipped is not None:
        return _from_zip(zipped, name)
    return None


def _from_hub(split: str) -> Rows | None:
    """The split through Hugging Face ``datasets``; None where it is not installed."""
    try:
        import datasets
    except ImportError:
        return None
    try:
        source = datasets.load_dataset(HUB_NAME, split=HUB_SPLITS[split])
    except Exception as err:  # offline: ConnectionError, hub errors
        raise DownloadError(f"Could not load SNLI ({HUB_NAME}) with Hugging Face "
                            f"datasets ({err}). {local_hint()} {EMBEDDED_HINT}"
                            ) from err
    names = source.features["label"].names  # label id -> name; -1: no consensus
    first, second, labels = [], [], []
    for premise, hypothesis, y in zip(source["premise"], source["hypothesis"],
                                      source["label"]):
        if y >= 0 and premise.strip() and hypothesis.strip():
            first.append(premise.strip())
            second.append(hypothesis.strip())
            labels.append(LABELS.index(names[y]))
    return first, second, labels


def _downloaded(split: str) -> Rows:
    try:
        archive = download(URL, ZIP, SHA256)
    except DownloadError as err:
        raise DownloadError(f"{err} {local_hint()}") from err
    return _from_zip(archive, FILES[split])


def snli(split: str = "train") -> PairDataset:
    """SNLI's premise-hypothesis pairs; ``valid`` is the official dev set.

    Labels: entailment, neutral, contradiction (ids 0, 1, 2). Raises
    :class:`~lamalib.data.fetch.DownloadError` offline without a local copy.
    """
    if split not in FILES:
        raise ValueError(f"split must be one of {tuple(FILES)}, got {split!r}")
    rows = _local(split)
    if rows is None:
        rows = _from_hub(split)
    if rows is None:  # datasets is not installed: the official zip
        rows = _downloaded(split)
    return PairDataset(*rows, label_names=list(LABELS), name="snli", split=split)
