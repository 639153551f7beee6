"""One Transformer encoder layer (chapter "The Transformer")."""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.transformer.feedforward import FeedForward
from lamalib.nn.transformer.from_torch import load_ff_and_norms
from lamalib.nn.masking import head_key_mask
from lamalib.nn.self_attention.multihead import MultiHeadAttention
from lamalib.nn.transformer.residual import residual_class


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward, each in a residual block, eq. (7).

    Set ``keep_weights = True`` to keep the last attention weights ``(B, H, T, T)`` in
    ``last_weights``.

    Args:
        d_model: width D; n_heads: H (D divisible by H); d_ff: feed-forward width.
        dropout: on attention weights, sublayer outputs and the feed-forward hidden.
        residual: ``"post"`` or ``"pre"`` (see
        ``lamalib.nn.transformer.residual.RESIDUALS``).
    """

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1,
        residual: str = "post",
    ):
        super().__init__()
        block = residual_class(residual)
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.attn_block = block(d_model, dropout)
        self.ff_block = block(d_model, dropout)
        self.keep_weights = False
        self.last_weights: torch.Tensor | None = None

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        # x: (B, T, D); mask: (B, T) True at real tokens, or a full attention mask
        # (B, T, T) / (B, H, T, T), e.g. per-head pattern masks (chapter "Finding and
        # injecting attention patterns")
        full = mask is not None and mask.dim() > 2
        attn_mask = mask if full else head_key_mask(mask)

        def attend(h: torch.Tensor) -> torch.Tensor:
            out, w = self.self_attn(h, h, h, mask=attn_mask,
                                    need_weights=self.keep_weights)
            self.last_weights = w  # (B, H, T, T) or None
            return out  # (B, T, D)

        x = self.attn_block(x, attend)  # (B, T, D)
        return self.ff_block(x, self.ff)  # (B, T, D)

    def load_from_torch(self, ref: nn.TransformerEncoderLayer) -> None:
        """Copy an ``nn.TransformerEncoderLayer`` (ReLU; ``norm_first`` must match)."""
        self.self_attn.load_from_torch(ref.self_attn)
        load_ff_and_norms(self, ref, [self.attn_block, self.ff_block])
