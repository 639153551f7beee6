"""Structured self-attentive sentence embedding (chapter "Self-attention and multi-head
attention").

Lin et al. (2017): from the encoder states ``H (T, D)`` of one sentence, ``r`` attention
"hops" each pick a weighting of the tokens,

    A = softmax(W2 tanh(W1 H^T))      (r, T)     eq. (3)
    M = A H                           (r, D)     eq. (4)
    P = ||A A^T - I||_F^2                        eq. (5)

and the penalty ``P`` pushes the hops to look at different tokens (rows of ``A`` that
overlap make ``A A^T`` off-diagonal; rows that are spread out shrink its diagonal).
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.masking import masked_softmax


def attention_penalty(weights: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ``||A A^T - I||_F^2``, eq. (5).

    Args:
        weights: ``A (B, r, T)``, each row a distribution over the tokens.
    """
    r = weights.shape[1]
    gram = weights @ weights.transpose(1, 2)  # (B, r, r)
    eye = torch.eye(r, device=weights.device, dtype=weights.dtype)  # (r, r)
    return (gram - eye).pow(2).sum(dim=(1, 2)).mean()  # squared Frobenius, batch mean


class StructuredSelfAttention(nn.Module):
    """``r`` hops of self-attentive pooling, eqs. (3) and (4).

    Args:
        d_in: D, the width of the encoder states. d_a: hidden width of the scorer.
        hops: r, the number of attention rows (1 gives ordinary attention pooling).

    ``forward(states (B, T, D), mask (B, T) bool) -> (M (B, r, D), A (B, r, T))``. Pads
    get weight exactly 0. The last weights are kept, detached, in ``last_weights``.
    """

    def __init__(self, d_in: int, d_a: int = 64, hops: int = 4) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_in, d_a, bias=False)  # W_s1 (d_a, D) in the paper
        self.w2 = nn.Linear(d_a, hops, bias=False)  # W_s2 (r, d_a)
        self.hops = hops
        self.last_weights: torch.Tensor | None = None

    def forward(self, states: torch.Tensor, mask: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        scores = self.w2(torch.tanh(self.w1(states)))  # (B, T, r), eq. (3)
        scores = scores.transpose(1, 2)  # (B, r, T): one row per hop
        key_mask = None if mask is None else mask[:, None, :]  # (B, 1, T)
        weights = masked_softmax(scores, key_mask, dim=-1)  # (B, r, T), over tokens
        self.last_weights = weights.detach()
        return weights @ states, weights  # M (B, r, D), eq. (4); A (B, r, T)
