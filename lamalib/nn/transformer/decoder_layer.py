"""One Transformer decoder layer (chapter "The Transformer")."""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.transformer.feedforward import FeedForward
from lamalib.nn.transformer.from_torch import load_ff_and_norms
from lamalib.nn.masking import causal_mask, head_key_mask
from lamalib.nn.self_attention.multihead import MultiHeadAttention
from lamalib.nn.transformer.residual import residual_class


class DecoderLayer(nn.Module):
    """Causal self-attention, encoder-decoder attention, feed-forward,
    eq. (8).

    Position ``t`` of the target attends to target positions ``<= t`` only (the causal
    mask), so training on a whole shifted target at once predicts each token from its
    past, as generation will. With ``keep_weights = True`` the layer keeps
    ``last_weights (B, H, T, T)`` (self) and ``last_cross_weights (B, H, T, S)``.

    Args: as :class:`~lamalib.nn.transformer.encoder_layer.EncoderLayer`.
    """

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1,
        residual: str = "post",
    ):
        super().__init__()
        block = residual_class(residual)
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.cross_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.self_block = block(d_model, dropout)
        self.cross_block = block(d_model, dropout)
        self.ff_block = block(d_model, dropout)
        self.keep_weights = False
        self.last_weights: torch.Tensor | None = None
        self.last_cross_weights: torch.Tensor | None = None

    def forward(
        self,
        y: torch.Tensor,
        memory: torch.Tensor,
        tgt_mask: torch.Tensor | None = None,
        src_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        # y: (B, T, D) target so far; memory: (B, S, D) encoder output
        T = y.shape[1]
        self_mask = causal_mask(T, device=y.device)[None, None]  # (1, 1, T, T)
        if tgt_mask is not None:
            self_mask = self_mask & head_key_mask(tgt_mask)  # (B, 1, T, T)

        def attend_self(h: torch.Tensor) -> torch.Tensor:
            out, w = self.self_attn(h, h, h, mask=self_mask,
                                    need_weights=self.keep_weights)
            self.last_weights = w  # (B, H, T, T) or None
            return out  # (B, T, D)

        def attend_source(h: torch.Tensor) -> torch.Tensor:
            out, w = self.cross_attn(h, memory, memory, mask=head_key_mask(src_mask),
                                     need_weights=self.keep_weights)
            self.last_cross_weights = w  # (B, H, T, S) or None
            return out  # (B, T, D)

        y = self.self_block(y, attend_self)  # (B, T, D)
        y = self.cross_block(y, attend_source)  # (B, T, D)
        return self.ff_block(y, self.ff)  # (B, T, D)

    def load_from_torch(self, ref: nn.TransformerDecoderLayer) -> None:
        """Copy an ``nn.TransformerDecoderLayer`` (ReLU; ``norm_first`` must match)."""
        self.self_attn.load_from_torch(ref.self_attn)
        self.cross_attn.load_from_torch(ref.multihead_attn)
        blocks = [self.self_block, self.cross_block, self.ff_block]
        load_ff_and_norms(self, ref, blocks)
