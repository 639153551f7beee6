"""A tokenized corpus as fixed-length segments, served as numbered optimiser steps
(chapter "Pretraining").

Pretraining counts updates, not epochs: a run is ``steps`` updates of ``batch_size``
segments, and the segments of update ``s`` depend only on ``s`` and the seed, so a run
interrupted anywhere and resumed from a checkpoint sees the very batches it would have
seen. ``fit`` trains in epochs; :class:`StepBatches` makes each of its "epochs" a
chunk of ``chunk`` consecutive updates, after which ``fit`` scores the validation
segments and writes its checkpoint.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import torch

from lamalib import runtime
from lamalib.data.batching import Batch


def pack_segments(documents: Sequence[Sequence[int]], length: int, cls_id: int,
                  sep_id: int, pad_id: int = 0) -> torch.Tensor:
    """Documents' ids packed into BERT inputs ``[CLS] w1 .. wk [SEP]`` of ``length``.

    The documents are read as one stream, each followed by ``[SEP]``, and cut into
    windows of ``length - 2`` ids (RoBERTa's "full sentences": no padding is spent
    except in the last segment). Empty documents are skipped.

    Returns:
        ``(N, length)`` long ids; ``pad_id`` fills the end of the last segment.
    """
    if length < 3:
        raise ValueError(f"a segment needs room for [CLS], a token and [SEP]: "
                         f"length >= 3, got {length}")
    stream = [i for doc in documents if len(doc) for i in (*doc, sep_id)]
    if not stream:
        raise ValueError("no text to pack: every document is empty")
    width = length - 2
    rows = []
    for start in range(0, len(stream), width):
        window = stream[start:start + width]
        row = [cls_id, *window, sep_id]
        rows.append(row + [pad_id] * (length - len(row)))
    return torch.tensor(rows, dtype=torch.long)  # (N, length)


def segment_batch(segments: torch.Tensor, rows: torch.Tensor,
                  pad_id: int = 0) -> Batch:
    """The :class:`Batch` of ``segments[rows]``, its columns cut to the longest row
    (labels are unused zeros; ``index`` is the rows)."""
    tokens = segments[rows]  # (B, T)
    mask = tokens != pad_id  # (B, T)
    width = int(mask.sum(1).max())
    return Batch(tokens[:, :width], mask[:, :width],
                 torch.zeros(len(rows), dtype=torch.long), rows.clone())


class StepBatches:
    """Batches of ``segments`` for updates ``1 .. steps``, ``chunk`` of them per epoch.

    Update ``s`` (from 1) takes its rows from pass ``p = (s - 1) // per_pass`` over the
    segments, shuffled by a generator seeded with ``(seed, p)``; the rows left over
    at the end of a pass (fewer than a batch) wait for no one, so every batch is full.
    ``set_epoch(e)`` (``fit`` calls it) selects updates ``(e - 1) chunk + 1 ..
    e chunk``.

    Args:
        segments: ``(N, T)`` ids (``pack_segments``), ``N >= batch_size``.
        batch_size: B.
        steps: the run's updates.
        chunk: updates per epoch of ``fit`` (a checkpoint and a validation score
            after each).
        seed: the data order's seed (shifted by ``LAMALIB_SEED``).
    """

    def __init__(self, segments: torch.Tensor, batch_size: int, steps: int,
                 chunk: int, seed: int = 0, pad_id: int = 0) -> None:
        if len(segments) < batch_size:
            raise ValueError(f"{len(segments)} segments cannot fill one batch of "
                             f"{batch_size}: lower the batch size or use more text")
        if steps < 1 or chunk < 1:
            raise ValueError(f"steps and chunk must be >= 1, got {steps}, {chunk}")
        self.segments, self.batch_size, self.pad_id = segments, batch_size, pad_id
        self.steps, self.chunk = steps, chunk
        self.seed = runtime.seed(seed)
        self.per_pass = len(segments) // batch_size
        self.epoch = 1
        self._order: tuple[int, torch.Tensor] | None = None  # (pass, permutation)

    @property
    def epochs(self) -> int:
        """Epochs of ``fit`` that make the run: ``ceil(steps / chunk)``."""
        return -(-self.steps // self.chunk)

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def step_range(self, epoch: int) -> range:
        """The updates (from 1) of ``epoch``."""
        return range((epoch - 1) * self.chunk + 1,
                     min(epoch * self.chunk, self.steps) + 1)

    def rows(self, step: int) -> torch.Tensor:
        """The segment rows of update ``step`` (from 1): ``(B,)``."""
        p, i = divmod(step - 1, self.per_pass)
        if self._order is None or self._order[0] != p:
            g = torch.Generator().manual_seed(self.seed * 1_000_003 + p)
            self._order = (p, torch.randperm(len(self.segments), generator=g))
        return self._order[1][i * self.batch_size:(i + 1) * self.batch_size]

    def tokens_seen(self, last_step: int) -> int:
        """Real (not padding) tokens in updates ``1 .. last_step``."""
        lengths = (self.segments != self.pad_id).sum(1)  # (N,)
        return int(sum(int(lengths[self.rows(s)].sum())
                       for s in range(1, last_step + 1)))

    def __iter__(self) -> Iterator[Batch]:
        for s in self.step_range(self.epoch):
            yield segment_batch(self.segments, self.rows(s), self.pad_id)

    def __len__(self) -> int:
        return len(self.step_range(self.epoch))
