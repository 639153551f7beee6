"""Residual blocks with layer normalization, chosen by name (chapter "The
Transformer").

Each sublayer of a Transformer layer is wrapped in a residual connection with layer
normalization. Where the normalization sits is chosen by name: ``"post"`` (the
original paper: normalize after adding the residual) or ``"pre"`` (normalize the
sublayer's input, which trains more stably when deep).
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

from lamalib.nn.transformer.norm import LayerNorm

Sublayer = Callable[[torch.Tensor], torch.Tensor]


class PostNormResidual(nn.Module):
    """``LayerNorm(x + sublayer(x))``, eq. (4): the original Transformer."""

    needs_final_norm = False  # the last layer's output is already normalized

    def __init__(self, d_model: int, dropout: float = 0.0):
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, sublayer: Sublayer) -> torch.Tensor:
        return self.norm(x + self.dropout(sublayer(x)))  # (B, T, D)


class PreNormResidual(nn.Module):
    """``x + sublayer(LayerNorm(x))``, eq. (5): an identity path from input to
    output, so gradients reach early layers unscaled (Xiong et al., 2020)."""

    needs_final_norm = True  # the residual stream itself is never normalized

    def __init__(self, d_model: int, dropout: float = 0.0):
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, sublayer: Sublayer) -> torch.Tensor:
        return x + self.dropout(sublayer(self.norm(x)))  # (B, T, D)


RESIDUALS: dict[str, type[nn.Module]] = {
    "post": PostNormResidual,
    "pre": PreNormResidual,
}


def residual_class(name: str) -> type[nn.Module]:
    """The residual wrapper registered under ``name`` (``"post"`` or ``"pre"``)."""
    if name not in RESIDUALS:
        known = list(RESIDUALS)
        raise ValueError(f"unknown residual placement {name!r}; use one of {known}")
    return RESIDUALS[name]
