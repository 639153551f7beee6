"""The Transformer's position-wise feed-forward net (chapter "The Transformer")."""

from __future__ import annotations

import torch
from torch import nn


class FeedForward(nn.Module):
    """The position-wise feed-forward net, eq. (6): ``W2 relu(W1 x + b1) + b2``."""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.linear1(x))  # (B, T, d_ff)
        return self.linear2(self.dropout(hidden))  # (B, T, D)
