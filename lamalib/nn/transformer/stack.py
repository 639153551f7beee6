"""Stacks of Transformer layers: ``Encoder`` and ``Decoder`` (chapter "The
Transformer").

A stack runs ``n_layers`` layers in order. With pre-LN residuals the residual stream
itself is never normalized, so the stack ends with one more ``LayerNorm``.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.transformer.decoder_layer import DecoderLayer
from lamalib.nn.transformer.encoder_layer import EncoderLayer
from lamalib.nn.transformer.norm import LayerNorm
from lamalib.nn.transformer.residual import residual_class


class _Stack(nn.Module):
    """``n_layers`` layers of ``layer_class`` in order, plus the final norm that pre-LN
    needs. Arguments as ``EncoderLayer``."""

    layer_class: type[nn.Module]

    def __init__(
        self, n_layers: int, d_model: int, n_heads: int, d_ff: int,
        dropout: float = 0.1, residual: str = "post",
    ):
        super().__init__()
        self.layers = nn.ModuleList(
            self.layer_class(d_model, n_heads, d_ff, dropout, residual)
            for _ in range(n_layers)
        )
        needs_norm = residual_class(residual).needs_final_norm
        self.final_norm = LayerNorm(d_model) if needs_norm else nn.Identity()

    def keep_weights(self, flag: bool = True) -> None:
        """Make every layer keep (or stop keeping) its last attention weights."""
        for layer in self.layers:
            layer.keep_weights = flag

    def attention_weights(self) -> torch.Tensor:
        """Self-attention weights of the last call, stacked ``(L, B, H, T, T)``."""
        weights = [layer.last_weights for layer in self.layers]
        if any(w is None for w in weights):
            raise RuntimeError("no weights kept: call keep_weights(True), then forward")
        return torch.stack(weights)  # (L, B, H, T, T)


class Encoder(_Stack):
    """``n_layers`` encoder layers over already-embedded tokens ``(B, T, D)``."""

    layer_class = EncoderLayer

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, mask)  # (B, T, D)
        return self.final_norm(x)  # (B, T, D)


class Decoder(_Stack):
    """``n_layers`` decoder layers over the embedded target and the encoder memory."""

    layer_class = DecoderLayer

    def forward(
        self,
        y: torch.Tensor,
        memory: torch.Tensor,
        tgt_mask: torch.Tensor | None = None,
        src_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        for layer in self.layers:
            y = layer(y, memory, tgt_mask, src_mask)  # (B, T, D)
        return self.final_norm(y)  # (B, T, D)
