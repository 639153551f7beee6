"""Hierarchical attention, words -> sentences -> document (chapter "Attention
mechanisms"; Yang et al.'s HAN, eq. (20) applied at two levels).

Word-level attention pools each sentence's token vectors into a sentence vector;
sentence-level attention pools those into a document vector. HAN puts a BiGRU before
each level; here the levels take given vectors, so any encoder can be put in front.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.attention.pool import AttentionPool


class HierarchicalAttention(nn.Module):
    """Two attention pools, one per level of the hierarchy.

    Shapes: ``forward(x (B, N, T, D), mask (B, N, T))`` with N sentences of T tokens
    returns ``document (B, D)`` and ``(word_weights (B, N, T), sentence_weights
    (B, N))``.
    A sentence that is all padding gets sentence weight 0.
    """

    def __init__(self, d: int, score: str = "additive", **score_kwargs) -> None:
        super().__init__()
        self.words = AttentionPool(d, score, **score_kwargs)
        self.sentences = AttentionPool(d, score, **score_kwargs)

    def forward(self, x: torch.Tensor, mask: torch.Tensor):
        B, N, T, D = x.shape
        # Every sentence of every document is one row of the word-level pool.
        flat, word_w = self.words(x.reshape(B * N, T, D), mask.reshape(B * N, T))
        sentences = flat.view(B, N, D)  # (B, N, D)
        document, sent_w = self.sentences(sentences, mask.any(-1))  # (B, D), (B, N)
        return document, (word_w.view(B, N, T), sent_w)
