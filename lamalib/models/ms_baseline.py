"""The Multi-Scale paper's Transformer baseline, matched to the MS-Transformer
(chapter "Multi-scale self-attention", the controlled comparison).

Guo et al. (2020) compare their model with "the Transformer": every head attends to
the whole sequence, each layer has a position-wise feed-forward sublayer, and
positions enter as an embedding added to the input (their eqs. (4)-(5) and the
sentence after them). Those three things are exactly what the MS-Transformer
replaces (windows of several widths; no FFN, "attention with ω = 1"; no positions,
"small scales give the order"). Everything else is the MS-Transformer's: the word
embeddings, the width D, N' heads, L layers, post-norm residuals, dropout, the
``[CLS]`` node and the ``[CLS]`` + max-pool two-layer classifier. So a comparison of
the two on the same inputs and budget tests the paper's claim and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from lamalib.nn.transformer.encoder_layer import EncoderLayer
from lamalib.nn.transformer.positional import build_positional
from lamalib.models.ms_transformer import MSTransformerClassifier
from lamalib.models.registry import register_model


@dataclass
class MatchedTransformerConfig:
    embed_dim: int = 300  # E: as the MS-Transformer
    d_model: int = 300  # D: as the MS-Transformer
    n_layers: int = 3  # L: as the MS-Transformer
    n_heads: int = 10  # N' heads, each over the whole sequence
    d_ff: int = 0  # the feed-forward width; 0: 4 D (Vaswani et al.)
    positional: str = "sinusoidal"  # added to [CLS] + tokens: "sinusoidal", "learned"
    max_positions: int = 512  # rows of the positional table (hard limit if learned)
    dropout: float = 0.1  # as the MS-Transformer
    mlp_hidden: int = 300  # the MS-Transformer's two-layer classifier
    pad_id: int = 0  # padding id: zero embedding, masked everywhere


@register_model("transformer")
class MatchedTransformerClassifier(MSTransformerClassifier):
    """The paper's Transformer at the MS-Transformer's sizes: full multi-head
    attention + FFN, post-norm, positions added to the input; ``[CLS]`` + max-pool.

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``; ``encode(...,
    need_weights=True)`` then ``attention_weights()`` gives each layer's
    ``(B, H, 1 + T, 1 + T)`` weights, as for the MS-Transformer.
    """

    options_from = MatchedTransformerConfig

    def build_positions(self, cfg) -> nn.Module:
        """Positions added to [CLS] + tokens (dropout is applied after, once)."""
        return build_positional(cfg.positional, cfg.d_model, 0.0, cfg.max_positions)

    def build_layers(self, cfg) -> nn.ModuleList:
        """L Transformer encoder layers (attention + FFN, post-norm residuals)."""
        d_ff = cfg.d_ff or 4 * cfg.d_model
        return nn.ModuleList(
            EncoderLayer(cfg.d_model, cfg.n_heads, d_ff, cfg.dropout, "post")
            for _ in range(cfg.n_layers))

    def run_layer(self, layer: nn.Module, h: torch.Tensor, mask: torch.Tensor,
                  need_weights: bool) -> torch.Tensor:
        layer.keep_weights = need_weights
        return layer(h, mask)  # (B, 1 + T, D)

    def attention_weights(self) -> list[torch.Tensor | None]:
        """Each layer's weights from the last ``encode(..., need_weights=True)``."""
        return [layer.last_weights for layer in self.layers]
