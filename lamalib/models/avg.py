"""AVG: the averaged-embedding baseline classifier (chapter "Setup and a first
model")."""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.recurrent.embedding import word_embedding
from lamalib.nn.pooling import masked_mean
from lamalib.models.registry import register_model


@register_model("avg")
class AvgClassifier(nn.Module):
    """Average the word vectors of a sentence, then a linear layer: the simplest
    baseline.

    Args:
        vocab_size: V. num_classes: C. embed_dim: E.
        pretrained: optional ``(V, E)`` matrix to start the embeddings from.
        freeze_embeddings: keep the (pretrained) embeddings fixed while training.
        dropout: on the averaged vector.

    ``represent`` gives the averaged vector ``(B, E)`` that ``out`` reads.
    """

    head = "out"  # r -> logits; a pair classifier keeps only represent()

    def __init__(
        self,
        vocab_size: int,
        num_classes: int,
        embed_dim: int = 100,
        pretrained: torch.Tensor | None = None,
        dropout: float = 0.0,
        freeze_embeddings: bool = False,
    ) -> None:
        super().__init__()
        self.embed = word_embedding(vocab_size, embed_dim, pretrained, freeze_embeddings)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(embed_dim, num_classes)

    def represent(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The sentence vector r: the mean of the word vectors, ``(B, E)``."""
        return masked_mean(self.embed(tokens), mask)  # (B, E): pads do not count

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        sentence = self.represent(tokens, mask)  # (B, E)
        return self.out(self.dropout(sentence))  # (B, C)

    @torch.no_grad()
    def token_contributions(
        self, tokens: torch.Tensor, mask: torch.Tensor
    ) -> torch.Tensor:
        """What each token adds to each class logit, ``(B, T, C)``; pads add 0.

        AVG is linear after the embedding, so the logits are exactly the bias plus the
        sum of these contributions (``W e_t / n`` for the n real tokens): no
        approximation.
        """
        x = self.embed(tokens) * mask.unsqueeze(-1)  # (B, T, E)
        n = mask.sum(1).clamp_min(1)[:, None, None]  # (B, 1, 1)
        return x @ self.out.weight.T / n  # (B, T, C)
