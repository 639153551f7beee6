"""Norm-weighted attention (Kobayashi et al., 2020, "Attention is not only a weight"):
what a head actually moves from key ``j`` to query ``i`` is ``alpha_ij f(x_j)``, where
``f(x) = (x W_V + b_V) W_O`` is the key's value vector taken through the head's slice of
the output projection. A head can put most of its weight on a key whose ``f(x)`` is
tiny (``[CLS]`` and ``[SEP]`` in BERT-like encoders), moving almost nothing: the weight
says "look there", the norm ``||alpha_ij f(x_j)||`` says how much arrives (chapter
"Multi-scale self-attention", the distance section).

:func:`hf_value_vectors` reads ``f_h(x_j)`` for every layer, head and token of a
Hugging Face BERT-like encoder; :func:`norm_weighted` turns weights into
``alpha_ij ||f_h(x_j)||``, rows renormalised to sum to 1 (a distribution over keys that
the distance statistics read like attention weights).
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.models.hf_encoder import hf_attentions


def _self_attentions(model: nn.Module) -> list[nn.Module]:
    """Each layer's attention block (``.self`` with ``value``, ``.output.dense``)."""
    blocks = [m for m in model.modules() if hasattr(m, "self") and hasattr(m, "output")
              and hasattr(getattr(m, "self"), "value")
              and hasattr(getattr(m, "output"), "dense")]
    if not blocks:
        raise ValueError("norm-weighted attention needs a BERT-like encoder (attention "
                         "blocks with self.value and output.dense)")
    return blocks


@torch.no_grad()
def hf_value_vectors(model: nn.Module, ids: torch.Tensor,
                     mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Run the encoder on ``ids (B, T)`` with key ``mask (B, T)``; return its weights
    ``(L, B, H, T, T)`` and ``f_h(x_j) = (x_j W_V + b_V)_h W_O^h``, ``(L, B, H, T, D)``:
    each head's value of each token through its slice of the output projection, so
    that ``sum_h sum_j alpha_ij f_h(x_j) + b_O`` is the attention block's output before
    its residual and layer norm."""
    blocks = _self_attentions(model)
    inputs: list[torch.Tensor] = []

    def keep(_module, args, kwargs):
        inputs.append(kwargs.get("hidden_states", args[0] if args else None))

    hooks = [b.self.register_forward_pre_hook(keep, with_kwargs=True) for b in blocks]
    try:
        weights = hf_attentions(model, ids, mask)  # (L, B, H, T, T)
    finally:
        for h in hooks:
            h.remove()
    out = []
    for block, x in zip(blocks, inputs):
        H = block.self.num_attention_heads
        v = block.self.value(x)  # (B, T, D)
        B, T, D = v.shape
        v = v.view(B, T, H, D // H)  # (B, T, H, dh)
        w_o = block.output.dense.weight.view(-1, H, D // H)  # (D_out, H, dh)
        out.append(torch.einsum("bthd,ohd->bhto", v, w_o))  # (B, H, T, D_out)
    return weights, torch.stack(out)  # (L, B, H, T, T), (L, B, H, T, D_out)


def norm_weighted(weights: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """``alpha_ij ||f(x_j)||`` with each row renormalised to sum to 1: weights
    ``(..., H, T, T)``, values ``(..., H, T, D)`` -> ``(..., H, T, T)``. A row whose
    every term is 0 (a pad query) stays 0."""
    norms = values.norm(dim=-1)  # (..., H, T)
    moved = weights * norms[..., None, :]  # (..., H, T, T): key j's norm on column j
    total = moved.sum(-1, keepdim=True)
    return torch.where(total > 0, moved / total.clamp_min(1e-30), moved)


__all__ = ["hf_value_vectors", "norm_weighted"]
