"""BiGRU + max-pool: the recurrent baseline of the LAMA paper.

Chapter "Recurrent networks and the GRU" builds and trains it.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.recurrent.bigru import BiGRU
from lamalib.nn.recurrent.embedding import word_embedding
from lamalib.nn.pooling import masked_max
from lamalib.models.registry import register_model


@register_model("bigru_max")
class BiGRUMaxClassifier(nn.Module):
    """Embed, encode with a bidirectional GRU, max-pool over real tokens, classify.

    Args:
        vocab_size: V. num_classes: C. embed_dim: E. hidden_size: D per direction.
        pretrained: optional ``(V, E)`` matrix to start the embeddings from.
        freeze_embeddings: keep the (pretrained) embeddings fixed while training.
        dropout: on the embeddings and on the pooled vector.

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``; ``represent`` gives the
    pooled sentence vector ``(B, 2D)`` that ``out`` reads.
    """

    head = "out"  # r -> logits; a pair classifier keeps only represent()

    def __init__(self, vocab_size: int, num_classes: int, embed_dim: int = 100,
                 hidden_size: int = 64, pretrained: torch.Tensor | None = None,
                 freeze_embeddings: bool = False, dropout: float = 0.0) -> None:
        super().__init__()
        self.embed = word_embedding(
            vocab_size, embed_dim, pretrained, freeze=freeze_embeddings
        )
        self.dropout = nn.Dropout(dropout)
        self.encoder = BiGRU(embed_dim, hidden_size)
        self.out = nn.Linear(self.encoder.output_size, num_classes)

    def represent(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The sentence vector r: the max-pool of the BiGRU states, ``(B, 2D)``."""
        x = self.dropout(self.embed(tokens))  # (B, T, E)
        states = self.encoder(x, mask)  # (B, T, 2D)
        # eq. (11): each feature keeps its strongest token, wherever it stands.
        return masked_max(states, mask)  # (B, 2D)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        sentence = self.represent(tokens, mask)  # (B, 2D)
        return self.out(self.dropout(sentence))  # (B, C)
