"""A language model's output layer tied to the input embedding (chapter
"Pretraining"), as in BERT: ``logits = LayerNorm(gelu(W h)) E^T + b``."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.transformer.norm import LayerNorm


class TiedLMHead(nn.Module):
    """Scores every word of the vocabulary at every position with the embedding's own
    vectors: the score of word v is the dot product with v's embedding row, so input
    and output share one table (fewer parameters, and rare words get gradient from both
    sides).

    Args:
        d_model: D. vocab_size: V (the length of the output bias).

    ``forward(h (..., D), embedding (V, D)) -> logits (..., V)``.
    """

    def __init__(self, d_model: int, vocab_size: int) -> None:
        super().__init__()
        self.transform = nn.Linear(d_model, d_model)
        self.norm = LayerNorm(d_model)
        self.out_bias = nn.Parameter(torch.zeros(vocab_size))

    def forward(self, h: torch.Tensor, embedding: torch.Tensor) -> torch.Tensor:
        h = self.norm(F.gelu(self.transform(h)))  # (..., D)
        return h @ embedding.T + self.out_bias  # (..., V)
