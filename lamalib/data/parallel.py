"""Parallel sentence pairs: ``source<TAB>target`` files, their vocabularies and batches
(chapter "Attention mechanisms", section "Attention on real sentences").

A pairs file has one pair a line: the source sentence, a tab, the target sentence.
Tatoeba's files (as manythings.org distributes them) add a third column, the
attribution (``CC-BY 2.0 (France) Attribution: tatoeba.org #...``): columns after the
second are ignored, so that format and a user's own two-column file read the same.
Text is NFC-normalised where it enters (a decomposed "ệ" and a composed one are one
letter). ``split_pairs`` makes a seeded train / validation / test split; ``PairVocab``
numbers tokens with the ids of the course's seq2seq models (``<pad>`` 0, ``<bos>`` 1,
``<eos>`` 2, ``<unk>`` 3); ``ParallelTask`` batches ids as the synthetic translation
task does (``Seq2SeqBatch``), so ``lamalib.train.fit`` and the models take both.
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from lamalib import runtime
from lamalib.data.datasets.translation import (BOS_ID, EOS_ID, NO_SOURCE, PAD_ID,
                                               SPECIALS,
                                               Seq2SeqBatch, Seq2SeqBatches,
                                               collate_seq2seq)
from lamalib.data.textio import decode, read_bytes
from lamalib.data.tokenize import tokenize
from lamalib.data.vocab import TokenLookup

UNK = "<unk>"
UNK_ID = 3  # after <pad>, <bos>, <eos>


def nfc(text: str) -> str:
    """``text`` in Unicode NFC: one code point per accented letter."""
    return unicodedata.normalize("NFC", text)


@dataclass
class ParallelPairs:
    """Sentence pairs: ``source[i]`` translates to ``target[i]`` (NFC strings);
    ``lines[i]`` is the pair's line in its file (1-based; 0 if it came from no file)."""

    source: list[str]
    target: list[str]
    lines: list[int]

    def __len__(self) -> int:
        return len(self.source)

    def subset(self, rows: Iterable[int]) -> "ParallelPairs":
        rows = list(rows)
        return ParallelPairs([self.source[i] for i in rows],
                             [self.target[i] for i in rows],
                             [self.lines[i] for i in rows])


def pairs_from_lines(lines: Iterable[str], where: str = "pairs") -> ParallelPairs:
    """Pairs from ``source<TAB>target`` lines (more columns: ignored; blank lines:
    skipped). A line without a tab, or with an empty side, is a ``ValueError`` naming
    ``where``, the line and what to do."""
    source, target, numbers = [], [], []
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\r\n")
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) < 2:
            raise ValueError(f"{where}, line {n}: no tab; a pairs file has one pair a "
                             "line, source<TAB>target")
        src, tgt = nfc(cells[0].strip()), nfc(cells[1].strip())
        for side, text in (("source", src), ("target", tgt)):
            if not text:
                raise ValueError(f"{where}, line {n}: the {side} is empty; give both "
                                 "sentences, source<TAB>target, or delete the line")
        source.append(src)
        target.append(tgt)
        numbers.append(n)
    if not source:
        raise ValueError(f"{where}: no pairs in it; give one source<TAB>target a line")
    return ParallelPairs(source, target, numbers)


def read_pairs(path: str | Path, encoding: str = "utf-8") -> ParallelPairs:
    """The pairs of a ``source<TAB>target`` file (.gz, .xz, .bz2 read as-is) in
    ``encoding``; bytes that are not ``encoding`` are an error naming the line."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file; give a source<TAB>target pairs file")
    text = decode(read_bytes(path), encoding, str(path))
    return pairs_from_lines(text.split("\n"), str(path))


def split_pairs(pairs: ParallelPairs, valid_fraction: float = 0.1,
                test_fraction: float = 0.1, seed: int = 0
                ) -> tuple[ParallelPairs, ParallelPairs, ParallelPairs]:
    """A seeded random split into train, validation and test (the last two of
    ``round(fraction * n)`` pairs each, at least one). The shuffle is
    ``random.Random(runtime.seed(seed))``: the same file and seed give the same split
    on every machine (``LAMALIB_SEED`` shifts it, as every seed of the course)."""
    n = len(pairs)
    n_valid = max(1, round(valid_fraction * n))
    n_test = max(1, round(test_fraction * n))
    if n_valid + n_test >= n:
        raise ValueError(f"{n} pairs are too few to split off {n_valid} validation and "
                         f"{n_test} test pairs and still train on some")
    rows = list(range(n))
    random.Random(runtime.seed(seed)).shuffle(rows)
    test, valid, train = (rows[:n_test], rows[n_test : n_test + n_valid],
                          rows[n_test + n_valid :])
    return pairs.subset(train), pairs.subset(valid), pairs.subset(test)


class PairVocab(TokenLookup):
    """One side's tokens <-> ids: ``<pad>`` 0, ``<bos>`` 1, ``<eos>`` 2 (the ids of
    ``lamalib.data.datasets.translation``), ``<unk>`` 3, then the tokens, most
    frequent first (ties alphabetically)."""

    specials = (*SPECIALS, UNK)

    def __init__(self, itos: Sequence[str]) -> None:
        self.itos = list(itos)
        if tuple(self.itos[:4]) != self.specials:
            raise ValueError(f"a PairVocab starts with {', '.join(self.specials)}")
        self.stoi = {tok: i for i, tok in enumerate(self.itos)}

    unk_id, pad_id, bos_id, eos_id = UNK_ID, PAD_ID, BOS_ID, EOS_ID

    @classmethod
    def build(cls, token_lists: Iterable[Sequence[str]], min_freq: int = 1,
              max_size: int | None = None) -> "PairVocab":
        """Tokens seen at least ``min_freq`` times (at most ``max_size`` of them)."""
        counts = Counter(tok for tokens in token_lists for tok in tokens)
        kept = [tok for tok, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
                if c >= min_freq and tok not in cls.specials]
        return cls([*cls.specials, *kept[:max_size]])

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self[tok] for tok in tokens]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Tokens of ``ids`` up to the first EOS, padding skipped."""
        out = []
        for i in ids:
            i = int(i)
            if i == EOS_ID:
                break
            if i != PAD_ID:
                out.append(self.itos[i])
        return out


@dataclass
class ParallelTask:
    """Encoded pairs: ``src[i]``, ``tgt[i]`` id lists (no BOS/EOS) and the token
    lists they came from (``src_tokens``, ``tgt_tokens``: a reference keeps its
    unknown words). ``collate`` and ``batches`` as the synthetic
    ``TranslationTask``'s (no known alignment: every ``alignment`` is -1)."""

    src: list[list[int]]
    tgt: list[list[int]]
    src_tokens: list[list[str]]
    tgt_tokens: list[list[str]]

    def __len__(self) -> int:
        return len(self.src)

    def collate(self, rows: Sequence[int]) -> Seq2SeqBatch:
        return collate_seq2seq([self.src[i] for i in rows], [self.tgt[i] for i in rows],
                               [[NO_SOURCE] * len(self.tgt[i]) for i in rows])

    def batches(self, batch_size: int = 32, shuffle: bool = True, seed: int = 0
                ) -> Seq2SeqBatches:
        """A loader for ``lamalib.train.fit`` (reshuffled per epoch, seeded)."""
        return Seq2SeqBatches(self, batch_size, shuffle, seed)


def encode_pairs(pairs: ParallelPairs, src_vocab: PairVocab, tgt_vocab: PairVocab,
                 max_len: int | None = None) -> ParallelTask:
    """Tokenize both sides (``lamalib.data.tokenize``: lowercase, punctuation apart)
    and number them; ``max_len`` cuts each side to that many tokens."""
    src_tokens = [tokenize(s)[:max_len] for s in pairs.source]
    tgt_tokens = [tokenize(t)[:max_len] for t in pairs.target]
    return ParallelTask([src_vocab.encode(t) for t in src_tokens],
                        [tgt_vocab.encode(t) for t in tgt_tokens],
                        src_tokens, tgt_tokens)


def build_vocabs(pairs: ParallelPairs, min_freq: int = 1
                 ) -> tuple[PairVocab, PairVocab]:
    """Source and target vocabularies of (training) pairs."""
    return (PairVocab.build((tokenize(s) for s in pairs.source), min_freq),
            PairVocab.build((tokenize(t) for t in pairs.target), min_freq))


__all__ = ["ParallelPairs", "ParallelTask", "PairVocab", "UNK", "UNK_ID", "build_vocabs",
           "encode_pairs", "nfc", "pairs_from_lines", "read_pairs", "split_pairs"]
