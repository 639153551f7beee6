"""The mirror-sum task of Guo et al. (2020) (chapter "Multi-scale self-attention").

A sequence ``A = a_1 .. a_N`` of vectors ``a_i ~ U(0, 1)^d``; the target is
``sum_{i=1..K} a_i * a_{N-i+1}`` (elementwise products of mirrored pairs). The
shortest path between the two tokens of a pair is ``N - K`` positions or more, so the
task measures how well a model links distant tokens. Ground truth is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lamalib import runtime


def mirror_sum_target(a: torch.Tensor, K: int) -> torch.Tensor:
    """``sum_{i=1..K} a_i * a_{N-i+1}`` for ``a (n, N, d)`` -> ``(n, d)``."""
    N = a.shape[1]
    if not 1 <= K <= N:
        raise ValueError(f"K must be between 1 and N = {N}, got {K}")
    first = a[:, :K]  # (n, K, d): a_1 .. a_K
    mirror = a[:, N - K:].flip(1)  # (n, K, d): a_N .. a_{N-K+1}
    return (first * mirror).sum(1)  # (n, d)


def mirror_sum_data(n: int, N: int = 100, d: int = 50, K: int = 10,
                    seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` samples: inputs ``(n, N, d)`` drawn from U(0, 1), targets ``(n, d)``."""
    g = torch.Generator().manual_seed(runtime.seed(seed))  # LAMALIB_SEED
    a = torch.rand(n, N, d, generator=g)  # (n, N, d)
    return a, mirror_sum_target(a, K)


@dataclass
class MirrorBatch:
    """One batch: ``inputs (B, N, d)``, ``targets (B, d)``."""

    inputs: torch.Tensor
    targets: torch.Tensor

    def to(self, device) -> "MirrorBatch":
        return MirrorBatch(self.inputs.to(device), self.targets.to(device))


def mirror_sum_batches(a: torch.Tensor, y: torch.Tensor, batch_size: int = 64,
                       seed: int | None = None) -> list[MirrorBatch]:
    """Batches of the samples, shuffled with ``seed`` (None keeps the order)."""
    order = (torch.arange(len(a)) if seed is None else
             torch.randperm(len(a), generator=torch.Generator().manual_seed(runtime.seed(seed))))
    return [MirrorBatch(a[idx], y[idx]) for idx in order.split(batch_size)]
