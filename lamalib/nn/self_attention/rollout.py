"""Attention rollout (Abnar and Zuidema, 2020): how much each input token reaches each
position after several layers, counting the residual stream (the attention view's
"rollout" choice; chapter "Pretraining").

Each layer's attention, averaged over its heads, is mixed half-and-half with the
identity (the residual connection passes every token on to itself), and the layers'
matrices are multiplied from the input up:

    A~_l = 0.5 * mean_h W_l + 0.5 * I,     R_1 = A~_1,     R_l = A~_l R_{l-1}

so row ``i`` of ``R_l`` says how much of position ``i`` after layer ``l`` comes from
each input token. Each ``A~_l`` row sums to 1, hence so does each row of ``R_l``.
"""

from __future__ import annotations

import torch


def head_mean(weights: torch.Tensor) -> torch.Tensor:
    """The mean over heads of ``weights (L, H, T, T)`` -> ``(L, T, T)``."""
    return weights.float().mean(1)  # (L, T, T)


def attention_rollout(weights: torch.Tensor, residual: float = 0.5) -> torch.Tensor:
    """Rollout after every layer of ``weights (L, H, T, T)`` (layer, head, query, key)
    -> ``(L, T, T)``: entry ``[l, i, j]`` is how much input token ``j`` reaches
    position ``i`` after layer ``l + 1``. ``residual``: the identity's share (0.5 as
    Abnar and Zuidema; 0 gives the plain product of the head means)."""
    if weights.ndim != 4 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(f"rollout needs weights (L, H, T, T), got {tuple(weights.shape)}")
    if not 0.0 <= residual <= 1.0:
        raise ValueError(f"residual must be in [0, 1], not {residual}")
    mean = head_mean(weights).double()  # (L, T, T)
    eye = torch.eye(mean.shape[-1], dtype=mean.dtype)  # (T, T)
    mixed = (1 - residual) * mean + residual * eye  # (L, T, T)
    mixed = mixed / mixed.sum(-1, keepdim=True)  # rows sum to 1 (a cut row too)
    out, rolled = [], eye
    for layer in mixed:  # from the input up
        rolled = layer @ rolled  # (T, T)
        out.append(rolled)
    return torch.stack(out).float()  # (L, T, T)


__all__ = ["attention_rollout", "head_mean"]
