"""Padded, length-bucketed batches of sentence pairs: two token tensors, two masks
(chapter "Multi-scale self-attention", section "Sentence pairs: SNLI")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch

from lamalib.data.batching import (BucketBatches, TensorFields, encode_texts,
                                   pad_sequences)
from lamalib.data.pair_dataset import PairDataset
from lamalib.data.vocab import Vocab


@dataclass
class PairBatch(TensorFields):
    """One padded batch of pairs: ``tokens1 (B, T1)``, ``mask1 (B, T1)`` of the first
    sentences, ``tokens2 (B, T2)``, ``mask2 (B, T2)`` of the second, ``labels (B,)``
    and the dataset ``index (B,)`` of each pair."""

    tokens1: torch.Tensor
    mask1: torch.Tensor
    tokens2: torch.Tensor
    mask2: torch.Tensor
    labels: torch.Tensor
    index: torch.Tensor


class PairBatches(BucketBatches):
    """Iterates over :class:`PairBatch` es; the order is :class:`BucketBatches`' (it
    depends only on ``seed`` and the epoch), sorting by both sentences' lengths.

    Args:
        first, second: id sequences of the first and the second sentences.
        labels, batch_size, shuffle, seed, bucket, pad_id: as in BucketBatches.
    """

    def __init__(self, first: Sequence[Sequence[int]], second: Sequence[Sequence[int]],
                 labels: Sequence[int], batch_size: int = 32, shuffle: bool = True,
                 seed: int = 0, bucket: bool = True, pad_id: int = 0) -> None:
        if len(first) != len(second):
            raise ValueError(f"{len(first)} first sentences but {len(second)} second "
                             "sentences")
        super().__init__(first, labels, batch_size, shuffle, seed, bucket, pad_id)
        self.second = list(second)

    def _length(self, i: int) -> tuple[int, int]:
        return len(self.ids[i]), len(self.second[i])

    def _batch(self, rows: list[int]) -> PairBatch:
        tokens1, mask1 = pad_sequences([self.ids[i] for i in rows], self.pad_id)
        tokens2, mask2 = pad_sequences([self.second[i] for i in rows], self.pad_id)
        labels = torch.tensor([self.labels[i] for i in rows], dtype=torch.long)
        return PairBatch(tokens1, mask1, tokens2, mask2, labels,
                         torch.tensor(rows, dtype=torch.long))


def make_pair_loader(dataset: PairDataset, vocab: Vocab, batch_size: int = 32,
                     shuffle: bool = False, seed: int = 0, add_cls: bool = False,
                     max_len: int | None = None) -> PairBatches:
    """Encode both sides of a pair dataset with ``vocab`` and batch them
    (``max_len`` truncates each sentence)."""
    first, second = (encode_texts(side.texts, vocab, add_cls, max_len)
                     for side in dataset.sides())
    return PairBatches(first, second, dataset.labels, batch_size, shuffle, seed,
                       pad_id=vocab.pad_id)
