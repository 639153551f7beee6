"""Synthetic translation with a known alignment (chapter "Attention mechanisms").

A source sentence is a random string of content ids; its "translation" is the same ids
in a rule-given order, so for every target position we know which source position it
copies. That ground truth lets a chapter score an attention map (alignment accuracy)
instead of only eyeballing it. Kinds:

* ``copy``: ``tgt[t] = src[t]`` (a monotonic, diagonal alignment);
* ``reverse``: ``tgt[t] = src[L - 1 - t]`` (the anti-diagonal);
* ``reorder``: neighbours swap places, ``tgt[t] = src[t ^ 1]`` (a local reordering
  like adjective-noun order between languages; an odd last token stays put).

Ids: ``pad = 0``, ``bos = 1``, ``eos = 2``, content ids ``3 .. vocab_size - 1``. The
source has no BOS/EOS; the decoder reads ``tgt_in = [BOS] + tgt`` and predicts
``tgt_out = tgt + [EOS]``. Batches work for an RNN seq2seq and a Transformer alike.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator, Sequence

import torch

from lamalib import runtime
from lamalib.data.batching import TensorFields

PAD_ID, BOS_ID, EOS_ID = 0, 1, 2
SPECIALS = ("<pad>", "<bos>", "<eos>")
KINDS = ("copy", "reverse", "reorder")
NO_SOURCE = -1  # alignment of EOS and of padding: no source token is copied


def _align(kind: str, length: int) -> list[int]:
    """Source position of each target position for a sentence of ``length`` tokens."""
    if kind == "copy":
        return list(range(length))
    if kind == "reverse":
        return list(range(length - 1, -1, -1))
    # reorder: swap (0, 1), (2, 3), ...; XOR with 1 pairs each even index with the next.
    return [t ^ 1 if t ^ 1 < length else t for t in range(length)]


@dataclass
class Seq2SeqBatch(TensorFields):
    """One padded batch of a sequence-to-sequence task.

    Fields (all tensors): ``src (B, S)`` long, ``src_mask (B, S)`` bool,
    ``tgt_in (B, T)`` long starting with BOS, ``tgt_out (B, T)`` long ending with EOS,
    ``tgt_mask (B, T)`` bool (True on real target positions, EOS included),
    ``alignment (B, T)`` long: the source position that ``tgt_out[b, t]`` copies,
    ``-1`` for EOS and padding.
    """

    src: torch.Tensor
    src_mask: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor
    tgt_mask: torch.Tensor
    alignment: torch.Tensor


def collate_seq2seq(
    src: Sequence[Sequence[int]],
    tgt: Sequence[Sequence[int]],
    alignment: Sequence[Sequence[int]],
) -> Seq2SeqBatch:
    """Pad examples into a :class:`Seq2SeqBatch` (targets get BOS/EOS here)."""
    B = len(src)
    S = max(len(s) for s in src)
    T = max(len(t) for t in tgt) + 1  # +1: BOS in tgt_in, EOS in tgt_out
    batch = Seq2SeqBatch(
        src=torch.full((B, S), PAD_ID, dtype=torch.long),
        src_mask=torch.zeros(B, S, dtype=torch.bool),
        tgt_in=torch.full((B, T), PAD_ID, dtype=torch.long),
        tgt_out=torch.full((B, T), PAD_ID, dtype=torch.long),
        tgt_mask=torch.zeros(B, T, dtype=torch.bool),
        alignment=torch.full((B, T), NO_SOURCE, dtype=torch.long),
    )
    for b, (s, t, a) in enumerate(zip(src, tgt, alignment)):
        n = len(t)
        batch.src[b, : len(s)] = torch.as_tensor(list(s))
        batch.src_mask[b, : len(s)] = True
        batch.tgt_in[b, : n + 1] = torch.as_tensor([BOS_ID, *t])
        batch.tgt_out[b, : n + 1] = torch.as_tensor([*t, EOS_ID])
        batch.tgt_mask[b, : n + 1] = True
        batch.alignment[b, :n] = torch.as_tensor(list(a))
    return batch


class Seq2SeqBatches:
    """Iterates over :class:`Seq2SeqBatch` es, reshuffled per epoch, repeatable."""

    def __init__(
        self, task: "TranslationTask", batch_size: int = 32, shuffle: bool = True,
        seed: int = 0,
    ) -> None:
        self.task, self.batch_size = task, batch_size
        self.shuffle, self.seed = shuffle, runtime.seed(seed)  # LAMALIB_SEED
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Choose this epoch's shuffling (``lamalib.train.fit`` calls it)."""
        self.epoch = epoch

    def __iter__(self) -> Iterator[Seq2SeqBatch]:
        idx = list(range(len(self.task)))
        if self.shuffle:
            random.Random(self.seed * 100_003 + self.epoch).shuffle(idx)
        for start in range(0, len(idx), self.batch_size):
            yield self.task.collate(idx[start : start + self.batch_size])

    def __len__(self) -> int:
        return -(-len(self.task) // self.batch_size)


@dataclass
class TranslationTask:
    """Examples of a synthetic translation task: ``src[i]``, ``tgt[i]`` (id lists
    without specials) and ``alignment[i]`` (``tgt`` position -> ``src`` position)."""

    kind: str
    src: list[list[int]]
    tgt: list[list[int]]
    alignment: list[list[int]]
    vocab_size: int
    pad_id: int = PAD_ID
    bos_id: int = BOS_ID
    eos_id: int = EOS_ID

    def __len__(self) -> int:
        return len(self.src)

    @property
    def itos(self) -> list[str]:
        """Readable names: the specials, then ``a, b, ...`` (``w26`` past ``z``)."""
        n = self.vocab_size - len(SPECIALS)
        names = [chr(ord("a") + i) if i < 26 else f"w{i}" for i in range(n)]
        return [*SPECIALS, *names]

    def decode(self, ids: Sequence[int]) -> list[str]:
        """Names of ``ids`` (stops at EOS, skips padding)."""
        out = []
        for i in ids:
            i = int(i)
            if i == self.eos_id:
                break
            if i != self.pad_id:
                out.append(self.itos[i])
        return out

    def subset(self, rows: Sequence[int]) -> "TranslationTask":
        pick = lambda xs: [xs[i] for i in rows]  # noqa: E731
        return TranslationTask(self.kind, pick(self.src), pick(self.tgt),
                               pick(self.alignment), self.vocab_size)

    def split(self, n_valid: int) -> tuple["TranslationTask", "TranslationTask"]:
        """The first ``len - n_valid`` examples and the last ``n_valid``."""
        if not 0 < n_valid < len(self):
            raise ValueError(f"n_valid must be in 1..{len(self) - 1}, got {n_valid}")
        cut = len(self) - n_valid
        return self.subset(range(cut)), self.subset(range(cut, len(self)))

    def collate(self, rows: Sequence[int]) -> Seq2SeqBatch:
        """The examples ``rows`` as one padded batch."""
        return collate_seq2seq([self.src[i] for i in rows], [self.tgt[i] for i in rows],
                               [self.alignment[i] for i in rows])

    def batches(self, batch_size: int = 32, shuffle: bool = True, seed: int = 0
                ) -> Seq2SeqBatches:
        """A loader for ``lamalib.train.fit``."""
        return Seq2SeqBatches(self, batch_size, shuffle, seed)


def make_translation_task(
    kind: str = "reverse",
    n: int = 1000,
    min_len: int = 3,
    max_len: int = 8,
    vocab_size: int = 13,
    seed: int = 0,
) -> TranslationTask:
    """Generate ``n`` examples; the same arguments always give the same examples.

    Args:
        kind: one of ``"copy"``, ``"reverse"``, ``"reorder"``.
        n: number of examples.
        min_len, max_len: source length range (inclusive).
        vocab_size: ids in total, the 3 specials included (so ``vocab_size - 3``
            content ids).
        seed: random seed.
    """
    if kind not in KINDS:
        raise ValueError(f"Unknown translation kind {kind!r}; use one of {KINDS}")
    if not 1 <= min_len <= max_len:
        raise ValueError(f"need 1 <= min_len <= max_len, got {min_len}, {max_len}")
    if vocab_size <= len(SPECIALS):
        raise ValueError(f"vocab_size must exceed the {len(SPECIALS)} special ids")
    rng = random.Random(runtime.seed(seed))  # shifted by LAMALIB_SEED
    src, tgt, alignment = [], [], []
    for _ in range(n):
        length = rng.randint(min_len, max_len)
        s = [rng.randrange(len(SPECIALS), vocab_size) for _ in range(length)]
        a = _align(kind, length)
        src.append(s)
        tgt.append([s[j] for j in a])
        alignment.append(a)
    return TranslationTask(kind, src, tgt, alignment, vocab_size)
