"""BoW-MLP: a bag-of-words control with a non-linear classifier (chapter "Setup and a
first model").

Like AVG it averages the word vectors, so it cannot see word order; unlike AVG a
multi-layer perceptron reads the average, so it can learn any non-linear rule over
which words occur (e.g. "a negator and a positive word" -> negative). Whatever it fails
at, word order decides.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.recurrent.embedding import word_embedding
from lamalib.nn.pooling import masked_mean
from lamalib.models.registry import register_model


@register_model("bow_mlp")
class BoWMLPClassifier(nn.Module):
    """Average the word vectors, then ``depth`` hidden ReLU layers, then classify.

    Args:
        vocab_size: V. num_classes: C. embed_dim: E. hidden_size: width of the MLP.
        depth: number of hidden layers (at least 1: the non-linearity is the point).
        pretrained: optional ``(V, E)`` matrix to start the embeddings from.
        dropout: on the averaged vector and after every hidden layer.

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``; permuting the real tokens
    of a sentence never changes its logits.
    """

    def __init__(self, vocab_size: int, num_classes: int, embed_dim: int = 100,
                 hidden_size: int = 128, depth: int = 2,
                 pretrained: torch.Tensor | None = None,
                 dropout: float = 0.0) -> None:
        super().__init__()
        if depth < 1:
            raise ValueError(f"depth must be >= 1 (a hidden layer), got {depth}")
        self.embed = word_embedding(vocab_size, embed_dim, pretrained)
        layers: list[nn.Module] = [nn.Dropout(dropout)]
        width = embed_dim
        for _ in range(depth):
            layers += [nn.Linear(width, hidden_size), nn.ReLU(), nn.Dropout(dropout)]
            width = hidden_size
        layers.append(nn.Linear(width, num_classes))
        self.mlp = nn.Sequential(*layers)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        bag = masked_mean(self.embed(tokens), mask)  # (B, E): order is gone here
        return self.mlp(bag)  # (B, C)
