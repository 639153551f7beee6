"""Topic segmentation by concatenation: documents whose topic boundaries are known
(chapter "Finding and injecting attention patterns").

Each document strings together runs of consecutive sentences taken from texts of a
labelled corpus, alternating the class from one run to the next, so every boundary
between runs is a change of topic. The model labels each gap between two sentences:
1 if a new segment starts after it. The real corpora of Li et al. load into the same
:class:`SegmentedDoc` (``lamalib.data.datasets.wiki727k``,
``lamalib.data.datasets.wikisection``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Sequence

if TYPE_CHECKING:  # imported where batches are made: the dataset registry needs none
    import torch

from lamalib import runtime
from lamalib.data.dataset import TextDataset
from lamalib.data.tokenize import tokenize
from lamalib.data.vocab import Vocab

IGNORE = -100  # label of a gap beyond a shorter document (cross_entropy ignores it)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")


def split_sentences(text: str, min_tokens: int = 4,
                    max_tokens: int | None = 12) -> list[list[str]]:
    """Token lists of ``text``'s sentences (split after . ! ? and at blank lines).

    Sentences shorter than ``min_tokens`` (signatures, quote marks) are dropped; longer
    ones are cut to their first ``max_tokens`` tokens (None: kept whole).
    """
    out = []
    for piece in _SENTENCE_END.split(text):
        if piece.strip():
            words = tokenize(piece)
            if len(words) >= min_tokens:
                out.append(words[:max_tokens])
    return out


@dataclass
class SegmentedDoc:
    """``sentences`` (token lists), the topic of each, and ``gaps`` (S - 1 labels:
    1 where a new segment starts after sentence s).

    ``topics``: the class a sentence came from here, the number of its section in the
    real corpora; a gap is a boundary where it changes. ``headings``: one per segment
    where the corpus names them; ``name``: the document's file or id.
    """

    sentences: list[list[str]]
    topics: list[int]
    headings: list[str] = field(default_factory=list)
    name: str = ""

    @property
    def gaps(self) -> list[int]:
        return [int(a != b) for a, b in zip(self.topics, self.topics[1:])]

    @property
    def targets(self) -> list[int]:
        """What :func:`collate_docs` pads into ``labels``: the gaps."""
        return self.gaps

    @property
    def segment_ids(self) -> list[int]:
        """The segment of each sentence: 0, 0, 1, 1, 1, 2, ..."""
        ids = [0]
        for g in self.gaps:
            ids.append(ids[-1] + g)
        return ids


def make_segmented_docs(data: TextDataset, n_docs: int, seed: int = 0,
                        segments: tuple[int, int] = (2, 4),
                        run: tuple[int, int] = (2, 4),
                        max_tokens: int = 12) -> list[SegmentedDoc]:
    """``n_docs`` documents of ``segments`` runs of ``run`` sentences (inclusive
    ranges), classes alternating from run to run, each run from one random text."""
    rng = random.Random(runtime.seed(seed))  # shifted by LAMALIB_SEED
    by_class: dict[int, list[list[list[str]]]] = {}
    for text, label in zip(data.texts, data.labels):
        sents = split_sentences(text, max_tokens=max_tokens)
        if len(sents) >= run[0]:
            by_class.setdefault(label, []).append(sents)
    if len(by_class) < 2:
        raise ValueError("make_segmented_docs needs texts of at least two classes "
                         f"with {run[0]}+ sentences")
    classes = sorted(by_class)
    docs = []
    for _ in range(n_docs):
        label = rng.choice(classes)
        sentences, topics = [], []
        for _ in range(rng.randint(*segments)):
            text = rng.choice(by_class[label])
            n = min(rng.randint(*run), len(text))
            start = rng.randrange(len(text) - n + 1)
            sentences += text[start:start + n]
            topics += [label] * n
            label = rng.choice([c for c in classes if c != label])  # a new topic
        docs.append(SegmentedDoc(sentences, topics))
    return docs


@dataclass
class SegmentBatch:
    """Padded documents: ``tokens (B, T)``, ``mask (B, T)``, ``spans (B, T)`` (the
    sentence of each token, -1 at pads), ``labels (B, S - 1)`` (gap labels, ``IGNORE``
    beyond a document; ``(B, S)`` sentence labels for an
    :class:`~lamalib.data.datasets.extractive.ExtractiveDoc`) and ``index (B,)``."""

    tokens: torch.Tensor
    mask: torch.Tensor
    spans: torch.Tensor
    labels: torch.Tensor
    index: torch.Tensor

    def to(self, device) -> "SegmentBatch":
        return SegmentBatch(*(t.to(device) for t in (self.tokens, self.mask,
                                                     self.spans, self.labels,
                                                     self.index)))

    def __len__(self) -> int:
        return self.tokens.shape[0]


def collate_docs(docs: Sequence[SegmentedDoc], vocab: Vocab,
                 index: Sequence[int] | None = None) -> SegmentBatch:
    """Pad ``docs`` into one :class:`SegmentBatch`; ``labels`` are each document's
    ``targets`` (gaps of a :class:`SegmentedDoc`, one per sentence of an
    ``ExtractiveDoc``)."""
    import torch

    ids = [[vocab.encode(s) for s in d.sentences] for d in docs]
    targets = [d.targets for d in docs]
    T = max(sum(len(s) for s in doc) for doc in ids)
    B = len(docs)
    tokens = torch.full((B, T), vocab.pad_id, dtype=torch.long)  # (B, T)
    spans = torch.full((B, T), -1, dtype=torch.long)  # (B, T)
    width = max(max(map(len, targets)), 1)  # S - 1 for gaps, S for sentences
    labels = torch.full((B, width), IGNORE, dtype=torch.long)  # (B, S - 1)
    for b, (doc, y) in enumerate(zip(ids, targets)):
        flat = [t for s in doc for t in s]
        tokens[b, :len(flat)] = torch.tensor(flat)
        spans[b, :len(flat)] = torch.tensor([i for i, s in enumerate(doc) for _ in s])
        labels[b, :len(y)] = torch.tensor(y, dtype=torch.long)
    index = torch.as_tensor(list(index) if index is not None else range(B))
    return SegmentBatch(tokens, spans >= 0, spans, labels, index)


class DocBatches:
    """Batches of documents, shuffled per epoch from ``seed`` (``set_epoch``)."""

    def __init__(self, docs: Sequence[SegmentedDoc], vocab: Vocab, batch_size: int,
                 shuffle: bool = False, seed: int = 0) -> None:
        self.docs, self.vocab, self.batch_size = list(docs), vocab, batch_size
        self.shuffle, self.seed, self.epoch = shuffle, runtime.seed(seed), 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __len__(self) -> int:
        return -(-len(self.docs) // self.batch_size)

    def __iter__(self) -> Iterator[SegmentBatch]:
        order = list(range(len(self.docs)))
        if self.shuffle:
            random.Random(self.seed * 1000 + self.epoch).shuffle(order)
        for i in range(0, len(order), self.batch_size):
            rows = order[i:i + self.batch_size]
            yield collate_docs([self.docs[r] for r in rows], self.vocab, rows)
