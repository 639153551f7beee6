"""Wiki-727K and wiki_50 (Koshorek et al. 2018): Wikipedia articles whose sections
are the segments, as :class:`~lamalib.data.datasets.segmentation.SegmentedDoc` (chapter
"Finding and injecting attention patterns", full profile).

The format: a folder tree of plain-text files, one article each (Wiki-727K under
``train/``, ``dev/`` and ``test/``; wiki_50 is 50 files of the same kind). A line
``========,<level>,<title>.`` starts a section (the first is ``========,1,preface.``);
every other line is one sentence. A boundary is the first sentence of every section
after the first; a section without sentences starts none. Lists are a line
``***LIST***.``, dropped as Koshorek et al. do; the placeholders ``***formula***`` and
``***codice***`` are removed from sentences.

Read from a folder, a ``.tar.bz2`` / ``.tar.gz`` / ``.zip`` archive (the download is
a zip that holds ``wiki_727K.tar.bz2``) in the data directory, or a path you give.
"""

from __future__ import annotations

import re
from itertools import islice
from pathlib import Path, PurePosixPath
from typing import Callable, Iterator

from lamalib.data.archive import iter_files
from lamalib.data.fetch import (EMBEDDED_HINT, DownloadError, local_copy,
                                local_or_download)
from lamalib.data.datasets.segmentation import SegmentedDoc
from lamalib.data.tokenize import tokenize

URL = "https://www.dropbox.com/sh/k3jh0fjbyr0gw0a/AADzAd9SDTrBnvs1qLCJY5cza?dl=1"
DOWNLOAD = "wiki_727K.zip"  # the shared folder, zipped by the host
WIKI727K_NAMES = ("wiki_727K", "wiki_727", "wiki_727K.tar.bz2", "wiki_727K.tar.gz",
                  DOWNLOAD)
WIKI50_NAMES = ("wiki_test_50", "wiki_50", "wiki_test_50.tar.bz2",
                "wiki_test_50.tar.gz", "wiki_test_50.zip")
SPLIT_FOLDERS = {"train": "train", "valid": "dev", "dev": "dev", "test": "test"}
_HEADING = re.compile(r"^========,(\d+),(.*)$")
_PLACEHOLDER = re.compile(r"\*\*\*(?:formula|codice)\*\*\*")
_LIST = "***LIST***"
_NOT_ARTICLES = {"paths_cache"}  # written into the folder by Koshorek et al.'s loader
_WIKI50_COPY = (f"For wiki_50 alone, put its folder wiki_test_50 (from {URL}) or "
                "its archive in the data directory, or pass path=FOLDER.")


def parse_wiki_document(text: str, name: str = "", max_level: int | None = None,
                        min_tokens: int = 1,
                        max_tokens: int | None = None) -> SegmentedDoc | None:
    """One article in Koshorek et al.'s format -> a document (None if no sentence).

    Args:
        max_level: headings deeper than this start no segment (Koshorek et al. train
            with 2: subsections fold into their section); None: every heading does.
        min_tokens, max_tokens: a shorter sentence is dropped; a longer one cut.

    ``topics`` numbers the sections 0, 1, ...; ``headings`` are their titles.
    """
    sentences, topics, headings = [], [], []
    pending = None  # the title of a section that has no sentence yet
    for line in text.split("\n"):
        line = line.strip()
        heading = _HEADING.match(line)
        if heading:
            if max_level is None or int(heading.group(1)) <= max_level or not topics:
                pending = heading.group(2).removesuffix(".")
            continue
        if not line or line.removesuffix(".") == _LIST:
            continue
        line = _PLACEHOLDER.sub(" ", line)
        words = tokenize(line) if line.strip() else []
        if len(words) < max(min_tokens, 1):
            continue
        if pending is not None or not topics:  # the first sentence of a section
            headings.append(pending or "")
            pending = None
            topics.append(len(headings) - 1)
        else:
            topics.append(topics[-1])
        sentences.append(words[:max_tokens])
    return SegmentedDoc(sentences, topics, headings, name) if sentences else None


def read_wiki_documents(path, keep: Callable[[str], bool] = lambda name: True,
                        limit: int | None = None, **parse) -> list[SegmentedDoc]:
    """Every article under ``path`` (a folder or an archive) whose name ``keep``
    accepts, in order, at most ``limit``; ``parse``: :func:`parse_wiki_document`'s
    options."""
    return list(islice(filter(None, _parsed(path, keep, parse)), limit))


def _parsed(path, keep, parse) -> Iterator[SegmentedDoc | None]:
    for name, raw in iter_files(path, keep):
        if PurePosixPath(name).name in _NOT_ARTICLES:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(f"{path}: {name} is not UTF-8 ({err})") from err
        if not _HEADING.match(text.lstrip().split("\n", 1)[0].strip()):
            raise ValueError(f"{path}: {name} does not start with a heading line "
                             "'========,1,preface.': not in Wiki-727K's format")
        yield parse_wiki_document(text, name, **parse)


def _in_split(folder: str) -> Callable[[str], bool]:
    return lambda name: folder in PurePosixPath(name).parts and "test_50" not in name


def _source(path, what: str):
    """A given path, a copy in the data directory, or the download."""
    return local_or_download(
        WIKI727K_NAMES, URL, DOWNLOAD, None, what, path, suffixes=("",),
        folders=True, option="path=FOLDER_OR_ARCHIVE to the loader")


def wiki727k(split: str = "train", path=None, limit: int | None = None,
             **parse) -> list[SegmentedDoc]:
    """Wiki-727K's ``split`` ("train", "valid" = its ``dev/``, "test").

    Args:
        path: the corpus (a folder holding ``train/``, ``dev/``, ``test/``, or an
            archive of it); default: a copy in the data directory named
            ``wiki_727K[.tar.bz2|.tar.gz|.zip]`` or ``wiki_727``, else the download
            from :data:`URL` (large: the whole corpus).
        limit: read at most this many articles (the corpus is large).
        parse: :func:`parse_wiki_document`'s options (``max_level``, ...).
    """
    if split not in SPLIT_FOLDERS:
        raise ValueError(f"split must be one of {tuple(SPLIT_FOLDERS)}, got {split!r}")
    source = _source(path, "the folder wiki_727K with train/, dev/, test/ or its "
                           "archive")
    docs = read_wiki_documents(source, _in_split(SPLIT_FOLDERS[split]), limit, **parse)
    if not docs:
        raise ValueError(f"no article under a {SPLIT_FOLDERS[split]}/ folder in "
                         f"{source}: give the folder (or archive) that holds train/, "
                         "dev/ and test/")
    return docs


def wiki50(split: str = "test", path=None, limit: int | None = None,
           **parse) -> list[SegmentedDoc]:
    """wiki_50, Koshorek et al.'s 50 test articles (``split`` must be "test").

    ``path``: its folder or archive; default: a copy in the data directory named
    ``wiki_test_50[.tar.bz2|.tar.gz|.zip]`` or ``wiki_50``. Without one, it is
    looked for in a Wiki-727K copy or download (files with ``test_50`` in their
    path).
    """
    if split != "test":
        raise ValueError(f"wiki_50 is a test set: split must be 'test', got {split!r}")
    own = (Path(path) if path is not None
           else local_copy(WIKI50_NAMES, ("",), folders=True))
    if own is not None:
        docs = read_wiki_documents(own, limit=limit, **parse)
        where = own
    else:
        try:
            where = _source(None, "Wiki-727K's download, with wiki_test_50 in it")
        except DownloadError as err:
            raise DownloadError(f"{err} {_WIKI50_COPY}") from err
        docs = read_wiki_documents(where, lambda name: "test_50" in name, limit,
                                   **parse)
    if not docs:
        raise ValueError(f"no wiki_50 article in {where}. {_WIKI50_COPY} "
                         + EMBEDDED_HINT)
    return docs
