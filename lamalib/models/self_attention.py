"""A classifier made of multi-head self-attention layers only (chapter "Self-attention
and multi-head attention").

The smallest model whose every layer is self-attention: embeddings plus sinusoidal
positions, ``L`` residual multi-head self-attention layers, a masked mean, a linear
layer. The Transformer (next chapter) adds the feed-forward sublayer and layer norm.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.recurrent.embedding import word_embedding
from lamalib.nn.self_attention.multihead import MultiHeadAttention
from lamalib.nn.pooling import masked_mean
from lamalib.nn.transformer.positional import SinusoidalPositionalEncoding
from lamalib.models.registry import register_model


@register_model("self_attention")
class SelfAttentionClassifier(nn.Module):
    """Embed + positions, ``n_layers`` x (x + MultiHead(x, x, x)), mean-pool, classify.

    Args:
        vocab_size: V. num_classes: C. d_model: D. n_heads: H. n_layers: L.
        dropout: on the embeddings and inside attention. max_positions: positions
            cached (not ``max_len``, the experiments command's truncation).
        pretrained: optional ``(V, D)`` word vectors to start the embeddings from.
        freeze_embeddings: keep the (pretrained) embeddings fixed while training.

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``. Set ``keep_weights =
    True`` to keep every layer's weights; ``attention_weights()`` stacks them
    ``(L, B, H, T, T)``.
    """

    def __init__(self, vocab_size: int, num_classes: int, d_model: int = 32,
                 n_heads: int = 2, n_layers: int = 2, dropout: float = 0.0,
                 max_positions: int = 512, pretrained: torch.Tensor | None = None,
                 freeze_embeddings: bool = False) -> None:
        super().__init__()
        self.embed = word_embedding(vocab_size, d_model, pretrained, freeze_embeddings)
        self.positions = SinusoidalPositionalEncoding(d_model, dropout,
                                                      max_positions)
        self.layers = nn.ModuleList(
            MultiHeadAttention(d_model, n_heads, dropout) for _ in range(n_layers)
        )
        self.out = nn.Linear(d_model, num_classes)
        self.keep_weights = False

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.positions(self.embed(tokens))  # (B, T, D): order is not free in attn
        for layer in self.layers:
            # Key-padding mask: no token looks at a pad; pad rows are pooled out.
            out, _ = layer(x, x, x, key_padding_mask=mask,
                           need_weights=self.keep_weights)  # (B, T, D)
            x = x + out  # residual: a layer only adds what attention found
        return self.out(masked_mean(x, mask))  # (B, C)

    def attention_weights(self) -> torch.Tensor:
        """Weights of the last forward with ``keep_weights``, ``(L, B, H, T, T)``."""
        weights = [layer.last_weights for layer in self.layers]
        if any(w is None for w in weights):
            raise RuntimeError("no weights kept: set keep_weights = True, then forward")
        return torch.stack(weights)  # (L, B, H, T, T)
