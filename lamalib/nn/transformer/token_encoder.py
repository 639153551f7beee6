"""Token ids to contextual vectors: the body of the TE classifier and of the masked LM
(chapter "The Transformer")."""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.transformer.stack import Encoder
from lamalib.nn.transformer.token_embedding import Embeddings


class TokenEncoder(nn.Module):
    """Token ids to contextual vectors: ``Embeddings`` then an ``Encoder`` (the body
    of the TE classifier and of the masked LM). Arguments as those two."""

    def __init__(
        self, vocab_size: int, d_model: int, n_heads: int, d_ff: int, n_layers: int,
        dropout: float = 0.1, residual: str = "post", positional: str = "sinusoidal",
        max_len: int = 512, pad_id: int = 0,
    ):
        super().__init__()
        self.embed = Embeddings(vocab_size, d_model, pad_id, positional, max_len,
                                dropout)
        self.encoder = Encoder(n_layers, d_model, n_heads, d_ff, dropout, residual)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # tokens: (B, T) long; mask: (B, T) True at real tokens
        return self.encoder(self.embed(tokens), mask)  # (B, T, D)
