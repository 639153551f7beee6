"""The Transformer's input layer: scaled token embedding plus positions (chapter "The
Transformer")."""

from __future__ import annotations

import math

import torch
from torch import nn

from lamalib.nn.transformer.positional import build_positional


class Embeddings(nn.Module):
    """Token embedding times ``sqrt(D)`` plus a positional encoding, eq. (9).

    The embedding is initialised with variance ``1/D`` so that after the ``sqrt(D)``
    scale token vectors and positional vectors have comparable size.

    Args:
        vocab_size: V; d_model: D; pad_id: its vector stays zero.
        positional: ``"sinusoidal"`` or ``"learned"``; max_len: positions to prepare.
    """

    def __init__(
        self, vocab_size: int, d_model: int, pad_id: int = 0,
        positional: str = "sinusoidal", max_len: int = 512, dropout: float = 0.0,
    ):
        super().__init__()
        self.scale = math.sqrt(d_model)
        self.tokens = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        nn.init.normal_(self.tokens.weight, std=d_model ** -0.5)
        with torch.no_grad():
            self.tokens.weight[pad_id].zero_()
        self.positions = build_positional(positional, d_model, dropout, max_len)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.tokens(tokens) * self.scale  # (B, T, D)
        return self.positions(x)  # (B, T, D)
