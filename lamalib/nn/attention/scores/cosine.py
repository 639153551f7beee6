"""The cosine-similarity score of content-based addressing (chapter "Attention
mechanisms")."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lamalib.nn.attention.scores.registry import Score, register_score


@register_score("cosine")
class CosineScore(Score):
    """Similarity score ``scale * cos(q, k)`` (eq. (10)), as in Graves' NTM.

    ``scale`` (the NTM's key strength) sharpens the softmax: cosines lie in [-1, 1].
    """

    def __init__(self, d_q: int, d_k: int, scale: float = 1.0) -> None:
        super().__init__(d_q, d_k)
        self._same_width()
        self.scale = scale

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        # eps avoids 0/0 for an all-zero (e.g. padding) vector.
        q = F.normalize(q, dim=-1, eps=1e-8)  # (B, Tq, D)
        k = F.normalize(k, dim=-1, eps=1e-8)  # (B, Tk, D)
        return self.scale * (q @ k.transpose(1, 2))  # (B, Tq, Tk)
