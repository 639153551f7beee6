"""Padding, masks and length-bucketed batches (chapter "Setup and a first model")."""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from typing import Iterator, Sequence

import torch

from lamalib import runtime
from lamalib.data.dataset import TextDataset
from lamalib.data.vocab import Vocab

# Tokens: where a text is cut when no max_len is given, a bound no sentence or review
# reaches (one 2-million-token line would otherwise ask tens of GB). The experiments'
# runs and a saved model read texts no longer than this.
LONG_TEXT_LIMIT = 10_000


class LongTextWarning(UserWarning):
    """Texts longer than the limit in force (a run's or a model's ``max_len``, else
    ``LONG_TEXT_LIMIT``) were cut to it."""


def pad_sequences(
    seqs: Sequence[Sequence[int]], pad_id: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad id sequences into one tensor.

    Returns:
        tokens: ``(B, T)`` long, T the longest length; mask: ``(B, T)`` bool, True on
        tokens.
    """
    if len(seqs) == 0:
        raise ValueError("pad_sequences needs at least one sequence")
    lengths = [len(s) for s in seqs]
    if min(lengths) == 0:
        raise ValueError("Cannot pad an empty sequence: every text needs a token.")
    T = max(lengths)
    tokens = torch.full((len(seqs), T), pad_id, dtype=torch.long)  # (B, T)
    mask = torch.zeros(len(seqs), T, dtype=torch.bool)  # (B, T)
    for b, s in enumerate(seqs):
        tokens[b, : len(s)] = torch.as_tensor(list(s), dtype=torch.long)
        mask[b, : len(s)] = True
    return tokens, mask


class TensorFields:
    """For a dataclass whose fields are all tensors, the first one ``(B, ...)``:
    ``to(device)`` moves each one, ``len`` is B (the batches of pairs and of
    translations)."""

    def to(self, device: torch.device | str):
        return type(self)(*(getattr(self, f.name).to(device) for f in fields(self)))

    def __len__(self) -> int:
        return getattr(self, fields(self)[0].name).shape[0]


@dataclass
class Batch:
    """One padded batch: ``tokens (B, T)``, ``mask (B, T)``, ``labels (B,)`` and the
    dataset ``index (B,)`` of each row (to look up texts and extras)."""

    tokens: torch.Tensor
    mask: torch.Tensor
    labels: torch.Tensor
    index: torch.Tensor

    def to(self, device: torch.device | str) -> "Batch":
        return Batch(
            *(t.to(device) for t in (self.tokens, self.mask, self.labels, self.index))
        )

    def __len__(self) -> int:
        return self.tokens.shape[0]


class BucketBatches:
    """Iterates over padded :class:`Batch` es of similar length.

    Bucketing sorts examples by length inside chunks of ``batch_size * 50`` so that a
    batch wastes little compute on padding, then shuffles the batches. The order depends
    only on ``seed`` and the epoch set by :meth:`set_epoch`, so a resumed run sees the
    same batches.
    """

    def __init__(
        self,
        ids: Sequence[Sequence[int]],
        labels: Sequence[int],
        batch_size: int = 32,
        shuffle: bool = True,
        seed: int = 0,
        bucket: bool = True,
        pad_id: int = 0,
    ) -> None:
        if len(ids) == 0:
            raise ValueError("BucketBatches needs at least one example")
        if len(ids) != len(labels):
            raise ValueError(f"{len(ids)} sequences but {len(labels)} labels")
        self.ids, self.labels = list(ids), list(labels)
        self.batch_size, self.shuffle = batch_size, shuffle
        self.seed = runtime.seed(seed)  # shifted by LAMALIB_SEED
        self.bucket, self.pad_id = bucket, pad_id
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Choose the shuffling of this epoch (``fit`` calls it)."""
        self.epoch = epoch

    def _order(self) -> list[list[int]]:
        rng = random.Random(self.seed * 100_003 + self.epoch)
        idx = list(range(len(self.ids)))
        if self.shuffle:
            rng.shuffle(idx)
        if self.bucket:
            chunk = self.batch_size * 50
            idx = [
                i
                for start in range(0, len(idx), chunk)
                for i in sorted(idx[start : start + chunk], key=self._length)
            ]
        batches = [
            idx[i : i + self.batch_size] for i in range(0, len(idx), self.batch_size)
        ]
        if self.shuffle:
            rng.shuffle(batches)
        return batches

    def _length(self, i: int) -> int:
        """What bucketing sorts example ``i`` by."""
        return len(self.ids[i])

    def _batch(self, rows: list[int]) -> Batch:
        """The padded batch of the examples ``rows``."""
        tokens, mask = pad_sequences([self.ids[i] for i in rows], self.pad_id)
        labels = torch.tensor([self.labels[i] for i in rows], dtype=torch.long)
        return Batch(tokens, mask, labels, torch.tensor(rows, dtype=torch.long))

    def __iter__(self) -> Iterator[Batch]:
        for rows in self._order():
            yield self._batch(rows)

    def __len__(self) -> int:
        return -(-len(self.ids) // self.batch_size)


def encode_texts(texts: Sequence[str], vocab: Vocab, add_cls: bool = False,
                 max_len: int | None = None) -> list[list[int]]:
    """``vocab.encode(text)`` of every text, cut to ``max_len`` ids."""
    return [vocab.encode(t, add_cls=add_cls)[:max_len] for t in texts]


def make_loader(
    dataset: TextDataset,
    vocab: Vocab,
    batch_size: int = 32,
    shuffle: bool = False,
    seed: int = 0,
    add_cls: bool = False,
    max_len: int | None = None,
) -> BucketBatches:
    """Encode a dataset with ``vocab`` and batch it (``max_len`` truncates long
    texts)."""
    ids = encode_texts(dataset.texts, vocab, add_cls, max_len)
    return BucketBatches(
        ids, dataset.labels, batch_size, shuffle, seed, pad_id=vocab.pad_id
    )
