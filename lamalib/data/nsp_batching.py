"""Batches of BERT's sentence pairs for next-sentence prediction: ``[CLS] A [SEP] B
[SEP]`` with segment ids 0 / 1 and the is-next label (chapter "Pretraining").

The pairs come from ``lamalib.data.datasets.mlm.make_nsp_pairs`` (half true
successors, half segments of another document) and are packed by its ``pack_pair``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import torch

from lamalib.data.batching import BucketBatches, TensorFields, pad_sequences
from lamalib.data.datasets.mlm import MASK, SentencePair, pack_pair
from lamalib.data.vocab import CLS, PAD, UNK, Vocab

SEP = "[SEP]"


def with_pair_tokens(vocab: Vocab) -> Vocab:
    """A copy of ``vocab`` with ``[MASK]``, ``[CLS]``, ``[SEP]`` at ids 2, 3, 4 (after
    ``<pad>`` and ``<unk>``; regular tokens keep their order after them)."""
    specials = [PAD, UNK, MASK, CLS, SEP]
    if vocab.itos[:5] == specials:
        return vocab
    rest = [t for t in vocab.itos if t not in specials]
    return Vocab(specials + rest, dict(vocab.counts))


@dataclass
class SegmentBatch(TensorFields):
    """One padded batch of packed pairs: ``tokens (B, T)``, ``mask (B, T)``,
    ``segments (B, T)`` (0 for ``[CLS] A [SEP]``, 1 for ``B [SEP]``, 0 at pads),
    ``labels (B,)`` (1 = B follows A) and the dataset ``index (B,)``."""

    tokens: torch.Tensor
    mask: torch.Tensor
    segments: torch.Tensor
    labels: torch.Tensor
    index: torch.Tensor


def truncate_pair(first: list[int], second: list[int], max_tokens: int
                  ) -> tuple[list[int], list[int]]:
    """Cut the longer segment at its end, one token at a time, until both fit in
    ``max_tokens`` (BERT's ``truncate_seq_pair``); each keeps at least one token."""
    first, second = list(first), list(second)
    while len(first) + len(second) > max_tokens:
        longer = first if len(first) >= len(second) else second
        if len(longer) <= 1:
            raise ValueError(f"max_len leaves {max_tokens} tokens for two segments")
        longer.pop()
    return first, second


class SegmentBatches(BucketBatches):
    """Iterates over :class:`SegmentBatch` es; order as :class:`BucketBatches`.

    Args:
        ids: packed id sequences; segments: their segment ids (same lengths);
        labels: 1 = is next, 0 = not; batch_size, shuffle, seed, bucket, pad_id: as
        in BucketBatches.
    """

    def __init__(self, ids: Sequence[Sequence[int]], segments: Sequence[Sequence[int]],
                 labels: Sequence[int], batch_size: int = 32, shuffle: bool = True,
                 seed: int = 0, bucket: bool = True, pad_id: int = 0) -> None:
        mismatched = len(ids) != len(segments) or any(
            len(a) != len(s) for a, s in zip(ids, segments))
        if mismatched:
            raise ValueError("every id sequence needs one segment id per token")
        super().__init__(ids, labels, batch_size, shuffle, seed, bucket, pad_id)
        self.segments = [list(s) for s in segments]

    def _batch(self, rows: list[int]) -> SegmentBatch:
        tokens, mask = pad_sequences([self.ids[i] for i in rows], self.pad_id)
        segments, _ = pad_sequences([self.segments[i] for i in rows], 0)  # (B, T)
        labels = torch.tensor([self.labels[i] for i in rows], dtype=torch.long)
        return SegmentBatch(tokens, mask, segments, labels,
                            torch.tensor(rows, dtype=torch.long))


def make_nsp_loader(
    pairs: Sequence[SentencePair], encode: Callable[[list[str]], list[int]],
    cls_id: int, sep_id: int, batch_size: int = 32, shuffle: bool = True,
    seed: int = 0, max_len: int = 128, pad_id: int = 0,
) -> SegmentBatches:
    """Pack next-sentence pairs and batch them.

    Args:
        pairs: from ``make_nsp_pairs``.
        encode: token list -> ids (e.g. ``vocab.encode`` of :func:`with_pair_tokens`).
        cls_id, sep_id: ids of ``[CLS]`` and ``[SEP]``.
        max_len: packed length at most (the pair is cut by :func:`truncate_pair`).
    """
    ids, segments, labels = [], [], []
    for pair in pairs:
        first, second = truncate_pair(encode(pair.first), encode(pair.second),
                                      max_len - 3)  # room for [CLS] and two [SEP]
        packed, segs = pack_pair(first, second, cls_id, sep_id)
        ids.append(packed)
        segments.append(segs)
        labels.append(int(pair.is_next))
    return SegmentBatches(ids, segments, labels, batch_size, shuffle, seed,
                          pad_id=pad_id)
