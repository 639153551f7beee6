"""Multi-dimensional attention: one weight per token *and feature* (chapter "Attention
mechanisms"; Shen et al.'s DiSAN source2token attention, eq. (21)).

A vector score ``f(x_i) = W_2 act(W_1 x_i + b_1) + b_2`` in R^D replaces the scalar
score; the softmax runs over tokens separately for every feature, so each feature can
pick its own tokens.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.masking import masked_softmax
from lamalib.nn.attention.scores import ACTIVATIONS


class MultiDimensionalAttention(nn.Module):
    """Feature-wise attention pooling.

    Shapes: ``forward(x (B, T, D), mask (B, T)) -> pooled (B, D), weights (B, T, D)``;
    ``weights[b, :, d]`` sums to 1 over the real tokens for every feature d.
    """

    def __init__(self, d: int, d_attn: int | None = None, activation: str = "tanh"
                 ) -> None:
        super().__init__()
        self.w1 = nn.Linear(d, d_attn or d)
        self.w2 = nn.Linear(d_attn or d, d)
        self.act = ACTIVATIONS[activation]

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None):
        scores = self.w2(self.act(self.w1(x)))  # (B, T, D), a score vector per token
        token_mask = None if mask is None else mask[..., None]  # (B, T, 1)
        weights = masked_softmax(scores, token_mask, dim=1)  # over T, per feature
        return (weights * x).sum(1), weights  # (B, D), (B, T, D)
