"""WikiSection (Arnold et al. 2019): English and German Wikipedia articles on diseases
and cities whose sections are the segments, as
:class:`~lamalib.data.datasets.segmentation.SegmentedDoc` (chapter "Finding and
injecting attention patterns", full profile).

The format: JSON files ``wikisection_<lang>_<domain>_<split>.json`` (split train,
validation or test), each a list of articles with ``"text"`` (the body, without
headings) and ``"annotations"``: ``{"begin", "length", "sectionHeading",
"sectionLabel"}`` character spans, one per section. Each span is cut into sentences with
the course's :func:`~lamalib.data.datasets.segmentation.split_sentences`; a boundary is
the first sentence of every span after the first (spans without a sentence start none).

Read from the JSON file (plain, ``.gz`` or ``.xz``), from the distributed archive
``wikisection_dataset_json.tar.gz`` or a folder holding the file, in the data
directory or at a path you give; else the archive is downloaded.
"""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path, PurePosixPath

from lamalib.data.archive import is_archive, iter_files
from lamalib.data.fetch import local_copy, local_or_download
from lamalib.data.datasets.segmentation import SegmentedDoc, split_sentences
from lamalib.data.textio import read_bytes

URL = ("https://github.com/sebastianarnold/WikiSection/raw/master/"
       "wikisection_dataset_json.tar.gz")
ARCHIVE = "wikisection_dataset_json.tar.gz"
DATASETS = ("en_disease", "de_disease", "en_city", "de_city")
SPLITS = {"train": "train", "valid": "validation", "validation": "validation",
          "test": "test"}


def parse_wikisection(article: dict, min_tokens: int = 1,
                      max_tokens: int | None = None) -> SegmentedDoc | None:
    """One WikiSection article -> a document (None if no sentence).

    ``topics`` numbers the sections 0, 1, ...; ``headings`` are their normalised
    labels (``sectionLabel``, e.g. ``disease.symptom``); ``name`` the article's id.
    ``min_tokens``, ``max_tokens``: as in ``split_sentences``.
    """
    try:
        text, spans = article["text"], article["annotations"]
    except (KeyError, TypeError) as err:
        raise ValueError("a WikiSection article is an object with 'text' and "
                         f"'annotations', got {str(article)[:80]!r}") from err
    sentences, topics, headings = [], [], []
    for span in sorted(spans, key=lambda a: a["begin"]):
        part = text[span["begin"]:span["begin"] + span["length"]]
        found = split_sentences(part, min_tokens, max_tokens) if part.strip() else []
        if found:
            headings.append(span.get("sectionLabel") or span.get("sectionHeading", ""))
            topics += [len(headings) - 1] * len(found)
            sentences += found
    name = article.get("id") or article.get("title") or ""
    return SegmentedDoc(sentences, topics, headings, name) if sentences else None


def _articles(source: Path, filename: str) -> list:
    if source.is_file() and not is_archive(source):
        raw = read_bytes(source)
    else:
        found = iter_files(source, lambda name: PurePosixPath(name).name == filename)
        name, raw = next(found, (None, None))
        if name is None:
            raise ValueError(f"{source} holds no {filename}")
    articles = json.loads(raw.decode("utf-8"))
    if not isinstance(articles, list):
        raise ValueError(f"{filename}: expected a JSON list of articles")
    return articles


def wikisection(dataset: str = "en_disease", split: str = "train", path=None,
                limit: int | None = None, **parse) -> list[SegmentedDoc]:
    """One WikiSection subset (``dataset`` in :data:`DATASETS`) and ``split``
    ("train", "valid" = validation, "test").

    Args:
        path: the JSON file, or a folder or archive that holds it; default: the file
            (or ``wikisection/<file>``, or the archive) in the data directory, else
            the archive downloaded from :data:`URL`.
        limit: at most this many articles.
        parse: :func:`parse_wikisection`'s options.
    """
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {DATASETS}, got {dataset!r}")
    if split not in SPLITS:
        raise ValueError(f"split must be one of {tuple(SPLITS)}, got {split!r}")
    filename = f"wikisection_{dataset}_{SPLITS[split]}.json"
    source = Path(path) if path is not None else local_copy(
        [filename, f"wikisection/{filename}"])
    if source is None:
        source = local_or_download(
            [ARCHIVE], URL, ARCHIVE, None,
            f"the archive; or {filename}[.gz|.xz] in the data directory or its "
            "wikisection/ folder",
            suffixes=("",), option="path=FILE to the loader")
    parsed = (parse_wikisection(a, **parse) for a in _articles(source, filename))
    docs = list(islice(filter(None, parsed), limit))
    if not docs:
        raise ValueError(f"{source}: {filename} has no article with a sentence")
    return docs
