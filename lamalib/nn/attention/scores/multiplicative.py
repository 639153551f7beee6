"""Multiplicative scores: dot, scaled dot and Luong's general (chapter "Attention
mechanisms").

Each is a (possibly scaled or projected) inner product of the query with the key.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from lamalib.nn.attention.scores.registry import Score, register_score


@register_score("dot")
class DotScore(Score):
    """Multiplicative (dot-product) score ``q^T k`` (eq. (5)); no parameters."""

    def __init__(self, d_q: int, d_k: int) -> None:
        super().__init__(d_q, d_k)
        self._same_width()

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return q @ k.transpose(1, 2)  # (B, Tq, Tk)


@register_score("scaled_dot")
class ScaledDotScore(DotScore):
    """Scaled multiplicative score ``q^T k / sqrt(d_k)`` (eq. (6))."""

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        # Dot products of random d_k-dim vectors have variance ~ d_k; dividing by
        # sqrt(d_k) keeps the softmax out of its saturated, zero-gradient regime.
        return super().forward(q, k) / math.sqrt(self.d_k)  # (B, Tq, Tk)


@register_score("general")
class GeneralScore(Score):
    """Luong's general (bilinear) score ``q^T W k`` (eq. (7))."""

    def __init__(self, d_q: int, d_k: int) -> None:
        super().__init__(d_q, d_k)
        self.w = nn.Linear(d_k, d_q, bias=False)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return q @ self.w(k).transpose(1, 2)  # (B, Tq, Tk)
