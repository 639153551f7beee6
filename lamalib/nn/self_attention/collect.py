"""Reading the attention weights a model's self-attention layers keep (chapter
"Self-attention and multi-head attention"): what the explorer, global relevance and
attention distance read."""

from __future__ import annotations

from typing import Callable

import torch

from lamalib.nn.self_attention.multihead import MultiHeadAttention


class NoAttentionWeights(RuntimeError):
    """The model kept no self-attention weights (it has no MultiHeadAttention called
    with ``need_weights=True``)."""


@torch.no_grad()
def collect_attention(model: torch.nn.Module,
                      run: Callable[[], object]) -> torch.Tensor:
    """Run ``run()`` with weight keeping on; stack the self-attention weights.

    Every module with a bool ``keep_weights`` flag is switched on for the call (and
    restored after). The weights are read from each :class:`MultiHeadAttention`'s
    ``last_weights`` in module order, keeping the square (self-attention) ones.

    Returns ``(L, B, H, T, T)``.
    """
    flagged = [m for m in model.modules()
               if isinstance(getattr(m, "keep_weights", None), bool)]
    before = [m.keep_weights for m in flagged]
    attn = [m for m in model.modules() if isinstance(m, MultiHeadAttention)]
    for m in attn:
        m.last_weights = None  # only this call's weights count
    try:
        for m in flagged:
            m.keep_weights = True
        run()
    finally:
        for m, flag in zip(flagged, before):
            m.keep_weights = flag
    weights = [m.last_weights for m in attn
               if m.last_weights is not None and m.last_weights.shape[-1]
               == m.last_weights.shape[-2]]
    if not weights:
        raise NoAttentionWeights("the model kept no attention weights: it needs "
                           "MultiHeadAttention layers called with need_weights=True")
    return torch.stack(weights)  # (L, B, H, T, T)
