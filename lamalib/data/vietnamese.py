"""Vietnamese text: NFC normalisation and word segmentation (chapter "Attention for
Vietnamese").

Vietnamese writes a space between syllables, not between words: "giảng viên"
(lecturer) is one word of two syllables. The plain tokenizer (:func:`tokenize`) splits
at spaces, so it reads syllables. A word segmenter joins the syllables of each word
with ``_`` ("giảng_viên"), the convention of the VLSP corpora, and :func:`tokenize`
keeps such a word as one token. Two segmenters from PyPI, in the extra
``lamalib[vi]``: ``underthesea`` (a CRF) and ``pyvi`` (its fallback).

Tokenizer names (``--set tokenizer=...`` of ``python -m lamalib.experiments run``):

* ``"plain"``: lamalib's tokenizer alone; on Vietnamese text, one token per syllable;
* ``"vi-words"``: underthesea's segmenter, else pyvi's where underthesea is missing;
* ``"vi-words-underthesea"``, ``"vi-words-pyvi"``: that segmenter only.
"""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from importlib import metadata, util
from pathlib import Path

TOKENIZERS = ("plain", "vi-words", "vi-words-underthesea", "vi-words-pyvi")
JOIN = "_"  # between the syllables of one word: "giảng_viên"
EXTRA = "pip install 'lamalib[vi]'"  # underthesea, pyvi


class MissingSegmenter(ImportError):
    """A tokenizer that needs a segmenter package this Python does not have."""


def nfc(text: str) -> str:
    """``text`` in Unicode NFC: "đá" typed as a letter plus combining accents (NFD, as
    macOS writes files) becomes the precomposed letters every other file uses."""
    return unicodedata.normalize("NFC", text)


def _underthesea() -> Callable[[str], str]:
    from underthesea import word_tokenize

    return lambda text: word_tokenize(text, format="text")


def _pyvi() -> Callable[[str], str]:
    from pyvi import ViTokenizer

    return ViTokenizer.tokenize


SEGMENTERS = {"underthesea": _underthesea, "pyvi": _pyvi}


def segmenter_package(tokenizer: str) -> str | None:
    """The package that segments for ``tokenizer`` here (None for ``"plain"``).

    Raises:
        ValueError: an unknown tokenizer name.
        MissingSegmenter: no package it can use is installed; the message is one line
            naming the extra to install.
    """
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"tokenizer={tokenizer!r}: give one of {', '.join(TOKENIZERS)}")
    if tokenizer == "plain":
        return None
    asked = tokenizer.removeprefix("vi-words").removeprefix("-")
    for package in ([asked] if asked else list(SEGMENTERS)):
        if util.find_spec(package) is not None:
            return package
    wanted = asked or "underthesea or pyvi"
    raise MissingSegmenter(
        f"tokenizer={tokenizer} needs the Vietnamese word segmenter {wanted}: "
        f"{EXTRA} (or pip install {asked or 'underthesea'})")


@lru_cache(maxsize=None)
def _segment_function(package: str) -> Callable[[str], str]:
    return SEGMENTERS[package]()


def segment(text: str, tokenizer: str = "vi-words") -> str:
    """``text`` in NFC with the syllables of each word joined by ``_``
    ("giảng viên nhiệt tình" -> "giảng_viên nhiệt_tình"); ``"plain"`` only
    normalises."""
    text = nfc(text)
    package = segmenter_package(tokenizer)
    if package is None:
        return text
    # a "_" the writer typed would join syllables the segmenter did not: a space
    return _segment_function(package)(text.replace(JOIN, " "))


def _cache_file(texts: Sequence[str], package: str) -> Path:
    from lamalib.data.cache import cache_dir

    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode() + b"\n")
    version = metadata.version(package)
    name = f"segmented_{package}-{version}_{digest.hexdigest()[:24]}.json"
    return cache_dir() / name


def segment_texts(texts: Sequence[str], tokenizer: str = "vi-words") -> list[str]:
    """:func:`segment` of every text; segmented corpora are cached on disk (by the
    texts, the package and its version), as a second run need not segment again."""
    package = segmenter_package(tokenizer)
    if package is None:
        return [nfc(t) for t in texts]
    path = _cache_file(texts, package)
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    out = [segment(t, tokenizer) for t in texts]
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(out, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)
    return out


def segment_dataset(dataset, tokenizer: str):
    """A :class:`TextDataset` or :class:`PairDataset` whose texts are segmented for
    ``tokenizer`` (the same object for ``"plain"``: texts are normalised when
    tokenized)."""
    if segmenter_package(tokenizer) is None:
        return dataset
    if hasattr(dataset, "texts"):
        return replace(dataset, texts=segment_texts(dataset.texts, tokenizer))
    return replace(dataset, first=segment_texts(dataset.first, tokenizer),
                   second=segment_texts(dataset.second, tokenizer))


# --- measuring a segmenter -------------------------------------------------------

def word_spans(words: Iterable[str]) -> set[tuple[int, int]]:
    """Each word's ``(first, last + 1)`` syllable positions: "giảng_viên giỏi" ->
    ``{(0, 2), (2, 3)}``. A word's syllables are split at spaces and ``_``."""
    spans, at = set(), 0
    for word in words:
        n = len(word.replace(JOIN, " ").split())
        if n:
            spans.add((at, at + n))
            at += n
    return spans


def segmentation_f1(gold: Sequence[Sequence[str]],
                    predicted: Sequence[Sequence[str]]) -> dict:
    """Word precision, recall and F1 of a segmentation against gold: a predicted word
    is right when gold has a word over exactly the same syllables (its boundaries on
    both sides right), the usual score of word segmentation (VLSP).

    Args:
        gold, predicted: per sentence, its words (syllables joined by ``_`` or a
            space); each pair of sentences must have the same syllables.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} predicted")
    right = n_gold = n_pred = 0
    for i, (g, p) in enumerate(zip(gold, predicted)):
        gs, ps = word_spans(g), word_spans(p)
        if max((b for _, b in gs), default=0) != max((b for _, b in ps), default=0):
            raise ValueError(f"sentence {i}: gold and predicted have different "
                             "numbers of syllables")
        right += len(gs & ps)
        n_gold += len(gs)
        n_pred += len(ps)
    precision, recall = right / n_pred, right / n_gold
    f1 = 2 * precision * recall / (precision + recall) if right else 0.0
    return {"precision": precision, "recall": recall, "f1": f1,
            "gold_words": n_gold, "predicted_words": n_pred}


def gold_segmentation_file() -> Path | None:
    """The gold-segmented test file that underthesea's wheel ships with its POS tagger
    (VLSP 2013, one word a line, its syllables separated by spaces; sentences end at a
    blank line), or None where underthesea is not installed. The corpus is closed:
    read it from the installed package, never copy it."""
    spec = util.find_spec("underthesea")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(root.glob("pipeline/pos_tag/models/*/test_output.txt"))
    return found[-1] if found else None


def read_gold(path: str | Path) -> list[list[str]]:
    """The sentences of a gold file in the VLSP column layout: per sentence, its words
    (the first tab-separated field of each line), in NFC."""
    sentences, words = [], []
    for line in Path(path).read_text(encoding="utf-8").split("\n"):
        word = line.split("\t")[0].strip()
        if word:
            words.append(nfc(word))
        elif words:
            sentences.append(words)
            words = []
    if words:
        sentences.append(words)
    return sentences


def segment_syllables(sentences: Sequence[Sequence[str]], tokenizer: str
                      ) -> list[list[str]]:
    """Each sentence (given as words) re-segmented from its bare syllables by
    ``tokenizer``; ``"plain"`` makes every syllable a word. The segmenter's words are
    re-cut on the input's syllables where it changed them (see :func:`_realign`)."""
    texts = [" ".join(w.replace(JOIN, " ") for w in s) for s in sentences]
    if tokenizer == "plain":
        return [t.split() for t in texts]
    out = []
    for text, segmented in zip(texts, segment_texts(texts, tokenizer)):
        syllables, words = text.split(), segmented.split()
        # a segmenter may also split what it reads as punctuation ("1." -> "1 ."):
        # then its words are re-cut on the input's syllables
        same = [s for w in words for s in w.split(JOIN)] == syllables
        out.append(words if same else _realign(syllables, words))
    return out


def _realign(syllables: list[str], words: list[str]) -> list[str]:
    """``words`` re-cut on the input's ``syllables``: each syllable joins the word in
    which its last character falls (characters compared with spaces removed)."""
    ends, at = [], 0
    for word in words:
        at += len(word.replace(JOIN, "").replace(" ", ""))
        ends.append(at)
    out, current, at, w = [], [], 0, 0
    for syllable in syllables:
        current.append(syllable)
        at += len(syllable)
        while w < len(ends) and ends[w] < at:
            w += 1
        if w < len(ends) and ends[w] == at:
            out.append(JOIN.join(current))
            current = []
            w += 1
    if current:
        out.append(JOIN.join(current))
    return out
