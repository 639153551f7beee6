"""Several processes (GPUs, or CPU processes for testing) training one model with
DistributedDataParallel, started by ``torchrun`` or ``accelerate launch`` without any
change to the user's code (chapter "Reproductions").

A launcher sets ``RANK``, ``LOCAL_RANK`` and ``WORLD_SIZE``; :func:`fit` then joins the
process group (NCCL on CUDA, gloo on the CPU), wraps the model, gives each process its
share of every epoch's batches, and lets only rank 0 write checkpoints and results.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def launched() -> bool:
    """True in a process started by a launcher with more than one process."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def rank() -> int:
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def world_size() -> int:
    return dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1


def is_main_process() -> bool:
    """Rank 0 (or a single process): the one that prints and writes files."""
    return rank() == 0


def device_for_rank(default: torch.device) -> torch.device:
    """This process's GPU (``LOCAL_RANK``) on CUDA, else ``default``."""
    if default.type == "cuda" and launched():
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    return default


def init(device: torch.device) -> None:
    """Join the launcher's process group once (NCCL for CUDA, gloo for the CPU)."""
    if launched() and not dist.is_initialized():
        if device.type == "cuda":
            torch.cuda.set_device(device)
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")


class _DDP(DistributedDataParallel):
    """DDP that still answers the wrapped model's own methods (``regularization``,
    ``keep_weights``), so steps see the same interface with one process or many."""

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)


def wrap(model: torch.nn.Module, device: torch.device) -> torch.nn.Module:
    ids = [device.index] if device.type == "cuda" else None
    return _DDP(model, device_ids=ids)


class RankShard:
    """Every ``world_size``-th batch of ``loader``, starting at this rank.

    All ranks see the same number of batches (the last incomplete round is dropped:
    DDP needs every process to take each step), and ``set_epoch`` reaches the loader so
    the order still depends only on seed and epoch.
    """

    def __init__(self, loader: Iterable, rank: int, world: int) -> None:
        self.loader, self.rank, self.world = loader, rank, world

    def set_epoch(self, epoch: int) -> None:
        if hasattr(self.loader, "set_epoch"):
            self.loader.set_epoch(epoch)

    def __len__(self) -> int:
        return len(self.loader) // self.world

    def __iter__(self) -> Iterator:
        n = len(self)
        for i, batch in enumerate(self.loader):
            if i // self.world >= n:
                break
            if i % self.world == self.rank:
                yield batch
