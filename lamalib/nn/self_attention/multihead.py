"""Scaled dot-product and multi-head attention (chapter "Self-attention and multi-head
attention").

Two paths compute the same function (tests prove it, outputs and gradients):

* the from-scratch path, eqs. (1) and (2), which also returns the attention
  matrix ``(B, H, Tq, Tk)`` so that the book can draw it;
* the fast path, ``torch.nn.functional.scaled_dot_product_attention``, which fuses the
  softmax into one kernel (flash / memory-efficient attention on a GPU) and never
  materializes the weights.

Masks follow the package convention: bool, ``True`` where a query may look at a key.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.masking import masked_softmax


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``softmax(q k^T / sqrt(Dh)) v`` from scratch, eq. (1).

    Args:
        q: ``(B, H, Tq, Dh)``; k: ``(B, H, Tk, Dh)``; v: ``(B, H, Tk, Dv)``.
        mask: bool, broadcastable to ``(B, H, Tq, Tk)``, True = the query may attend.
            A query row with no allowed key gets zero weights and a zero output.
        dropout_p: dropout on the weights (applied whenever > 0, as in
            ``F.scaled_dot_product_attention``; pass 0.0 at evaluation).

    Returns:
        ``out (B, H, Tq, Dv)`` and ``weights (B, H, Tq, Tk)`` (before dropout: the
        attention distribution that the book draws).
    """
    scale = 1.0 / math.sqrt(q.shape[-1])  # eq. (1): keeps the logits' variance ~1
    scores = (q @ k.transpose(-2, -1)) * scale  # (B, H, Tq, Tk)
    weights = masked_softmax(scores, mask, dim=-1)  # (B, H, Tq, Tk), never NaN
    dropped = F.dropout(weights, dropout_p) if dropout_p > 0 else weights
    return dropped @ v, weights  # (B, H, Tq, Dv), (B, H, Tq, Tk)


def normalize_mask(mask: torch.Tensor | None) -> torch.Tensor | None:
    """Bring an attention mask to 4 dims ``(B or 1, H or 1, Tq or 1, Tk)``.

    Accepted: ``(Tq, Tk)`` (the same for every sequence, e.g. causal),
    ``(B, Tq, Tk)`` (one per sequence, the same for every head) and 4-D masks as they
    are. A key-padding mask ``(B, Tk)`` is ambiguous with ``(Tq, Tk)``: pass it as
    ``mask[:, None, None, :]`` or through ``key_padding_mask=`` of
    :class:`MultiHeadAttention`.
    """
    if mask is None:
        return None
    mask = mask.to(torch.bool)
    if mask.dim() == 2:
        return mask[None, None]  # (1, 1, Tq, Tk)
    if mask.dim() == 3:
        return mask[:, None]  # (B, 1, Tq, Tk)
    if mask.dim() == 4:
        return mask
    raise ValueError(
        f"attention mask must have 2, 3 or 4 dims, got shape {tuple(mask.shape)}; "
        "pass a key-padding mask (B, Tk) as mask[:, None, None, :]"
    )


def fast_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
) -> torch.Tensor:
    """The same function as :func:`scaled_dot_product_attention` on the fused kernel.

    For a query row whose keys are all masked (softmax over nothing), older PyTorch
    releases and some GPU kernels return NaN (pytorch/pytorch#103749), recent CPU
    kernels 0. So as not to depend on the version, such rows are let attend everywhere
    (finite values and gradients) and their output is then zeroed, which is what the
    from-scratch path gives. Shapes as there; returns ``out (B, H, Tq, Dv)`` only.
    """
    if mask is None:
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p)
    mask = mask.to(torch.bool)
    has_key = mask.any(dim=-1, keepdim=True)  # (B?, H?, Tq, 1)
    safe = mask | ~has_key  # an empty row becomes full, so no NaN appears anywhere
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=safe, dropout_p=dropout_p)
    return out * has_key.to(out.dtype)  # (B, H, Tq, Dv); empty rows -> 0, grads too


class MultiHeadAttention(nn.Module):
    """H heads of scaled dot-product attention in parallel, eq. (2).

    Each head projects queries, keys and values to ``Dh = D // H`` dims, attends, and
    the heads' outputs are concatenated and projected back to D.

    Args:
        d_model: D. n_heads: H (must divide D). dropout: on the attention weights.
        bias: whether the four projections have a bias.

    ``forward(query (B, Tq, D), key (B, Tk, D), value (B, Tk, D), mask=None,
    need_weights=False, key_padding_mask=None) -> (out (B, Tq, D), weights)``.
    ``mask`` is bool, True = allowed, shaped ``(Tq, Tk)``, ``(B, Tq, Tk)`` or
    broadcastable 4-D ``(B, H, Tq, Tk)``; a key-padding mask ``(B, Tk)`` (True = real
    token) goes in ``key_padding_mask`` or as ``mask[:, None, None, :]``. With
    ``need_weights=False`` it runs the fused kernel and returns ``weights=None``; with
    True it runs the from-scratch path, returns ``weights (B, H, Tq, Tk)`` and keeps
    them in ``last_weights``.
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0,
                 bias: bool = True) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.d_model, self.n_heads = d_model, n_heads
        self.d_head = d_model // n_heads
        self.dropout = dropout
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.last_weights: torch.Tensor | None = None

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, T, _ = x.shape  # (B, T, D)
        # One reshape gives every head its own Dh-wide slice of the projection.
        return x.view(B, T, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, T, Dh)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
        need_weights: bool = False,
        key_padding_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        B, Tq, D = query.shape  # (B, Tq, D)
        mask = normalize_mask(mask)  # (B?, H?, Tq?, Tk) or None
        if key_padding_mask is not None:
            keys = key_padding_mask.to(torch.bool)[:, None, None, :]  # (B, 1, 1, Tk)
            mask = keys if mask is None else mask & keys
        q = self._split(self.q_proj(query))  # (B, H, Tq, Dh), eq. (2): Q W_i^Q
        k = self._split(self.k_proj(key))  # (B, H, Tk, Dh)
        v = self._split(self.v_proj(value))  # (B, H, Tk, Dh)
        p = self.dropout if self.training else 0.0
        if need_weights:
            heads, weights = scaled_dot_product_attention(q, k, v, mask, p)
            self.last_weights = weights.detach()  # (B, H, Tq, Tk), for visualization
        else:
            heads, weights = fast_attention(q, k, v, mask, p), None
            self.last_weights = None  # never leave stale weights from an earlier call
        concat = heads.transpose(1, 2).reshape(B, Tq, D)  # (B, Tq, H * Dh), Concat(...)
        return self.out_proj(concat), weights  # (B, Tq, D), (B, H, Tq, Tk) or None

    @torch.no_grad()
    def load_torch_weights(self, q_w, k_w, v_w, q_b=None, k_b=None, v_b=None,
                           out_w=None, out_b=None) -> None:
        """Copy projection weights ``(D, D)`` and biases ``(D,)`` (e.g. from torch)."""
        pairs = [(self.q_proj, q_w, q_b), (self.k_proj, k_w, k_b),
                 (self.v_proj, v_w, v_b), (self.out_proj, out_w, out_b)]
        for linear, w, b in pairs:
            if w is not None:
                linear.weight.copy_(w)
            if b is not None and linear.bias is not None:
                linear.bias.copy_(b)

    def load_from_torch(self, ref: nn.MultiheadAttention) -> None:
        """Copy an ``nn.MultiheadAttention`` (fused ``in_proj``) into this module."""
        q_w, k_w, v_w = ref.in_proj_weight.chunk(3)  # torch stacks Q, K, V row-wise
        has_bias = ref.in_proj_bias is not None
        biases = ref.in_proj_bias.chunk(3) if has_bias else (None, None, None)
        self.load_torch_weights(q_w, k_w, v_w, *biases, ref.out_proj.weight,
                                ref.out_proj.bias)
