"""Layer normalization from scratch (chapter "The Transformer").

``torch.nn.LayerNorm`` computes the same function (a test checks outputs and
gradients); this version spells out the statistics so the chapter can show them.
"""

from __future__ import annotations

import torch
from torch import nn


class LayerNorm(nn.Module):
    """Normalizes each example over its D hidden units, eq. (3).

    Unlike batch normalization, the mean and variance come from one example at one
    position, so the output never depends on the other examples in the batch and is
    the same in training and evaluation.

    Args:
        d_model: width D of the last dimension.
        eps: added to the variance so a constant vector does not divide by zero.
        affine: learn a gain ``gamma`` and bias ``beta`` (initialised to 1 and 0).
    """

    def __init__(self, d_model: int, eps: float = 1e-5, affine: bool = True):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model)) if affine else None
        self.bias = nn.Parameter(torch.zeros(d_model)) if affine else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., D), e.g. (B, T, D)
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
        # Biased variance (divide by D), as in the paper and in nn.LayerNorm.
        var = (x - mean).pow(2).mean(dim=-1, keepdim=True)  # (..., 1)
        y = (x - mean) / torch.sqrt(var + self.eps)  # (..., D)
        if self.weight is not None:
            y = y * self.weight + self.bias  # (..., D)
        return y
