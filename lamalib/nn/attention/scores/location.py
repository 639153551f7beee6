"""Luong's location-based score (chapter "Attention mechanisms")."""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.attention.scores.registry import Score, register_score


@register_score("location")
class LocationScore(Score):
    """Luong's location-based score ``f(q) = W q`` (eq. (9)).

    The keys' content is ignored: the query alone predicts a score per source position
    (up to ``max_len`` positions; only the first Tk are used).
    """

    def __init__(self, d_q: int, d_k: int, max_len: int = 64) -> None:
        super().__init__(d_q, d_k)
        self.max_len = max_len
        self.w = nn.Linear(d_q, max_len)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        Tk = k.shape[1]
        if Tk > self.max_len:
            raise ValueError(f"{Tk} keys but LocationScore(max_len={self.max_len})")
        return self.w(q)[..., :Tk]  # (B, Tq, Tk)
