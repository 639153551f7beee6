"""Masked pooling over time: mean and max that ignore padding (chapter "Setup")."""

from __future__ import annotations

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of ``x (B, T, D)`` over the real tokens of ``mask (B, T)`` -> ``(B, D)``."""
    m = mask.unsqueeze(-1).to(x.dtype)  # (B, T, 1)
    return (x * m).sum(1) / m.sum(1).clamp_min(1.0)  # (B, D)


def masked_max(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Max of ``x (B, T, D)`` over the real tokens of ``mask (B, T)`` -> ``(B, D)``.

    Pads are filled with the lowest value first, so they never win; an all-pad row gives
    0.
    """
    filled = x.masked_fill(~mask.unsqueeze(-1), torch.finfo(x.dtype).min)  # (B, T, D)
    out = filled.max(1).values  # (B, D)
    return out.masked_fill(~mask.any(1, keepdim=True), 0.0)
