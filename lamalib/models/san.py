"""SAN: the structured self-attentive classifier of Lin et al. (2017), a LAMA baseline.

Chapter "Self-attention and multi-head attention" builds and trains it.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.recurrent.bigru import BiGRU
from lamalib.nn.recurrent.embedding import word_embedding
from lamalib.nn.self_attention.san import StructuredSelfAttention, attention_penalty
from lamalib.models.registry import register_model


@register_model("san")
class SANClassifier(nn.Module):
    """Embed, encode with a BiGRU, pool with r attention hops, classify the flat ``M``.

    The paper encodes with a BiLSTM; we reuse the course's BiGRU encoder (the attention
    and the penalty are what this model is about).

    Args:
        vocab_size: V. num_classes: C. embed_dim: E. hidden_size: D per direction.
        d_a: width of the attention scorer. hops: r. mlp_size: the classifier's hidden.
        penalty: coefficient of ``||A A^T - I||_F^2`` in the loss (0 turns it off).
        dropout: on the embeddings and on the flattened sentence matrix.

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``; ``regularization()``
    returns ``penalty * P`` of the last forward, which ``lamalib.train.fit`` adds to
    the loss; ``last_weights`` holds ``A (B, r, T)``. ``represent`` gives the flat
    sentence matrix ``(B, r 2D)`` that ``mlp`` reads.
    """

    head = "mlp"  # r -> logits; a pair classifier keeps only represent()

    def __init__(self, vocab_size: int, num_classes: int, embed_dim: int = 100,
                 hidden_size: int = 64, d_a: int = 64, hops: int = 4,
                 mlp_size: int = 128, penalty: float = 1.0,
                 pretrained: torch.Tensor | None = None,
                 freeze_embeddings: bool = False, dropout: float = 0.0) -> None:
        super().__init__()
        self.embed = word_embedding(vocab_size, embed_dim, pretrained,
                                    freeze=freeze_embeddings)
        self.dropout = nn.Dropout(dropout)
        self.encoder = BiGRU(embed_dim, hidden_size)
        self.attention = StructuredSelfAttention(self.encoder.output_size, d_a, hops)
        self.mlp = nn.Sequential(
            nn.Linear(hops * self.encoder.output_size, mlp_size), nn.ReLU(),
            nn.Linear(mlp_size, num_classes),
        )
        self.penalty = penalty
        self._weights: torch.Tensor | None = None  # A of the last forward, with grad

    @property
    def last_weights(self) -> torch.Tensor | None:
        """``A (B, r, T)`` of the last forward, detached (for plots)."""
        return self.attention.last_weights

    def represent(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The sentence vector r: the flat sentence matrix ``M``, ``(B, r 2D)``; keeps
        ``A`` for :meth:`regularization`."""
        x = self.dropout(self.embed(tokens))  # (B, T, E)
        states = self.encoder(x, mask)  # (B, T, 2D)
        sentence, self._weights = self.attention(states, mask)  # (B, r, 2D), (B, r, T)
        return sentence.flatten(1)  # (B, r * 2D): every hop keeps its own slot

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        flat = self.represent(tokens, mask)  # (B, r * 2D)
        return self.mlp(self.dropout(flat))  # (B, C)

    def regularization(self) -> torch.Tensor:
        """``penalty * ||A A^T - I||_F^2`` of the last forward, eq. (5)."""
        if self._weights is None or self.penalty == 0:
            return torch.zeros((), device=self.embed.weight.device)
        return self.penalty * attention_penalty(self._weights)
