"""Self-attention (chapter "Self-attention and multi-head attention"): scaled
dot-product and multi-head attention (``multihead``), the structured self-attentive
sentence embedding (``san``), restricted attention that computes only a band
(``window``), and reading the weights a model's layers keep (``collect``)."""

from lamalib.nn.self_attention.collect import collect_attention
from lamalib.nn.self_attention.multihead import (MultiHeadAttention, fast_attention,
                                                 normalize_mask,
                                                 scaled_dot_product_attention)
from lamalib.nn.self_attention.san import StructuredSelfAttention, attention_penalty
from lamalib.nn.self_attention.window import (LocalWindowAttention, band_to_full,
                                              window_attention, window_mask)

__all__ = ["LocalWindowAttention", "MultiHeadAttention", "StructuredSelfAttention",
           "attention_penalty", "band_to_full", "collect_attention", "fast_attention",
           "normalize_mask", "scaled_dot_product_attention", "window_attention",
           "window_mask"]
