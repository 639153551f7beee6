"""Restricted (windowed) self-attention that computes only the band (chapter
"Self-attention and multi-head attention", eq. (6)).

Query i attends to the keys j with ``|i - j| <= radius``: a neighbourhood of
``W = 2 * radius + 1`` positions (Vaswani et al. 2017, table 1, "self-attention
(restricted)"). Full attention under ``band_mask(T, radius)`` computes the same
function but still builds all T x T scores; here each query meets only its W keys, so
work and memory grow like ``T * W`` instead of ``T^2``. Scores are kept in band form
``(B, H, T, W)``: slot w of query i holds key ``j = i - radius + w``. Slots that fall
off either edge of the sentence, or on padding, get weight exactly 0.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from lamalib.nn.masking import masked_softmax
from lamalib.nn.self_attention.multihead import MultiHeadAttention


def window_mask(T: int, radius: int, key_mask: torch.Tensor | None = None,
                device: torch.device | None = None) -> torch.Tensor:
    """Which window slots hold a real key: ``(B or 1, 1, T, W)`` bool.

    Slot w of query i is key ``i - radius + w``: valid if it lies inside the sentence
    and, with ``key_mask (B, T)`` (True = real token), is not padding.
    """
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    offsets = torch.arange(2 * radius + 1, device=device) - radius  # (W,)
    j = torch.arange(T, device=device)[:, None] + offsets[None, :]  # (T, W): key index
    inside = (j >= 0) & (j < T)  # (T, W): off the edges is never a key
    if key_mask is None:
        return inside[None, None]  # (1, 1, T, W)
    real = key_mask.to(torch.bool)[:, j.clamp(0, T - 1)]  # (B, T, W)
    return (inside & real)[:, None]  # (B, 1, T, W)


def window_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    radius: int,
    key_mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Scaled dot-product attention of each query over its window only, eq. (6).

    Args:
        q, k: ``(B, H, T, Dh)``; v: ``(B, H, T, Dv)`` (self-attention: one length T).
        radius: r; the window is ``W = 2 r + 1`` keys centred on the query.
        key_mask: ``(B, T)`` bool, True on real tokens, or None.
        dropout_p: dropout on the weights (as in ``scaled_dot_product_attention``).

    Returns ``out (B, H, T, Dv)`` and ``weights (B, H, T, W)`` in band form
    (:func:`band_to_full` gives the ``(B, H, T, T)`` matrix).
    """
    T = q.shape[-2]
    if k.shape[-2] != T or v.shape[-2] != T:
        raise ValueError(
            "window attention is self-attention: queries, keys and values need one "
            f"length, got {T}, {k.shape[-2]}, {v.shape[-2]}")
    W = 2 * radius + 1
    pad = (0, 0, radius, radius)  # zero rows before and after the sentence (masked)
    k_pad, v_pad = F.pad(k, pad), F.pad(v, pad)  # (B, H, T + 2r, D*)
    scale = 1.0 / math.sqrt(q.shape[-1])
    # One diagonal of the band per slot: k_pad[:, :, w : w + T] is key i - r + w for
    # every query i at once (a view, no copy), so only T x W scores are ever built.
    scores = torch.stack([(q * k_pad[:, :, w:w + T]).sum(-1) for w in range(W)],
                         dim=-1) * scale  # (B, H, T, W)
    mask = window_mask(T, radius, key_mask, q.device)  # (B or 1, 1, T, W)
    weights = masked_softmax(scores, mask)  # (B, H, T, W), 0 off the edges and on pads
    dropped = F.dropout(weights, dropout_p) if dropout_p > 0 else weights
    out = dropped[..., 0, None] * v_pad[:, :, :T]  # (B, H, T, Dv)
    for w in range(1, W):
        out = out + dropped[..., w, None] * v_pad[:, :, w:w + T]
    return out, weights


def band_to_full(weights: torch.Tensor) -> torch.Tensor:
    """Band-form weights ``(..., T, W)`` as the full ``(..., T, T)`` matrix (zeros
    outside the band), to compare with full attention or to draw it."""
    *lead, T, W = weights.shape
    radius = (W - 1) // 2
    cols = torch.arange(T, device=weights.device)[:, None] + torch.arange(
        W, device=weights.device)[None, :]  # (T, W): column in the padded matrix
    full = weights.new_zeros(*lead, T, T + 2 * radius)
    full.scatter_(-1, cols.expand(*lead, T, W), weights)
    return full[..., radius:radius + T]  # (..., T, T)


class LocalWindowAttention(MultiHeadAttention):
    """Multi-head self-attention restricted to a window of ``2 * radius + 1`` keys.

    The projections are those of :class:`MultiHeadAttention` (same parameters, so one
    can be loaded into the other); only the attention step differs: it computes the
    band, eq. (6). It equals ``MultiHeadAttention(..., mask=band_mask(T, radius))`` in
    outputs and gradients (tests prove it), at ``O(T * radius)`` cost.

    Args:
        d_model: D. n_heads: H. radius: r. dropout, bias: as in the parent.

    ``forward(query, key, value (B, T, D), key_padding_mask (B, T) or None,
    need_weights=False) -> (out (B, T, D), weights (B, H, T, T) or None)``. The
    weights, when asked for, are expanded to the full matrix (for drawing).
    """

    def __init__(self, d_model: int, n_heads: int, radius: int, dropout: float = 0.0,
                 bias: bool = True) -> None:
        super().__init__(d_model, n_heads, dropout, bias)
        self.radius = radius

    def forward(  # type: ignore[override]
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        key_padding_mask: torch.Tensor | None = None,
        need_weights: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        B, T, D = query.shape  # (B, T, D)
        q = self._split(self.q_proj(query))  # (B, H, T, Dh)
        k = self._split(self.k_proj(key))  # (B, H, T, Dh)
        v = self._split(self.v_proj(value))  # (B, H, T, Dh)
        p = self.dropout if self.training else 0.0
        heads, band = window_attention(q, k, v, self.radius, key_padding_mask, p)
        weights = band_to_full(band) if need_weights else None  # (B, H, T, T)
        self.last_weights = None if weights is None else weights.detach()
        concat = heads.transpose(1, 2).reshape(B, T, D)  # (B, T, H * Dh)
        return self.out_proj(concat), weights  # (B, T, D)
