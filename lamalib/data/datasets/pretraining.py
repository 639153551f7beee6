"""Raw texts to pretrain on, by name, with a held-out validation slice (chapter
"Pretraining").

Pretraining reads text, never labels: ``imdb`` is the 50,000 reviews of IMDB's train and
test splits (about 12M words; the labels are dropped), ``lee`` the 300 news documents
of gensim's Lee corpus (embedded: the quick profile and the tests use it offline).

The split does not depend on the order a loader returns the texts in (a local copy and
Hugging Face list IMDB differently): the documents are sorted, and a document is held
out when a hash of its text says so, so every machine pretrains on the same texts.
"""

from __future__ import annotations

import hashlib
from typing import Callable

from lamalib.data.datasets.embedded import gensim_datapath
from lamalib.data.textio import read_lines


def _imdb() -> list[str]:
    from lamalib.data.datasets.remote import imdb

    return [t for split in ("train", "valid", "test") for t in imdb(split).texts]


def _lee() -> list[str]:
    return read_lines(gensim_datapath("lee_background.cor"))


# name -> (loader of the raw documents, what it is)
PRETRAINING_CORPORA: dict[str, tuple[Callable[[], list[str]], str]] = {
    "imdb": (_imdb, "IMDB's 50k reviews, train + test (labels unused); a local copy "
                    "or Hugging Face datasets"),
    "lee": (_lee, "embedded: gensim's Lee news corpus, 300 documents"),
}


def _held_out(text: str, one_in: int) -> bool:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % one_in == 0


def pretraining_texts(name: str, one_in: int = 100) -> tuple[list[str], list[str]]:
    """The documents of corpus ``name``: ``(train, valid)``, each sorted, ``valid``
    about one document in ``one_in`` (chosen by a hash of its text); duplicates and
    empty documents are dropped.

    Raises ``KeyError`` for an unknown name (the message lists the corpora), and the
    loader's ``DownloadError`` when a remote corpus cannot be fetched.
    """
    if name not in PRETRAINING_CORPORA:
        raise KeyError(f"unknown corpus {name!r}; choose one of "
                       f"{', '.join(sorted(PRETRAINING_CORPORA))}")
    texts = sorted({t.strip() for t in PRETRAINING_CORPORA[name][0]() if t.strip()})
    valid = [t for t in texts if _held_out(t, one_in)]
    train = [t for t in texts if not _held_out(t, one_in)]
    if not train or not valid:
        raise ValueError(f"corpus {name!r} has too few documents ({len(texts)}) to "
                         f"hold one in {one_in} out")
    return train, valid
