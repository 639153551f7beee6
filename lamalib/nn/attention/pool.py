"""Attention pooling with a learned query (chapter "Attention mechanisms")."""

from __future__ import annotations

import math

import torch
from torch import nn

from lamalib.nn.attention.unified import Attention


class AttentionPool(nn.Module):
    """Pool a sequence into one vector with a learned query (chapter "Attention
    mechanisms"; the word and sentence attention of HAN, eq. (20)).

    Shapes: ``forward(x (B, T, D), mask (B, T)) -> pooled (B, D), weights (B, T)``;
    the last weights are kept in ``.last_weights``.
    """

    def __init__(self, d: int, score: str = "additive", **score_kwargs) -> None:
        super().__init__()
        # The learned query u plays the role of "which token is informative?".
        self.query = nn.Parameter(torch.randn(d) / math.sqrt(d))
        self.attention = Attention(score, d, d, **score_kwargs)
        self.last_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        query = self.query.expand(x.shape[0], -1)  # (B, D)
        pooled, weights = self.attention(query, x, x, mask)  # (B, D), (B, T)
        self.last_weights = weights.detach()
        return pooled, weights
