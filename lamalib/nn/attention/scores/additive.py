"""Additive scores: Bahdanau's and Luong's concat (chapter "Attention mechanisms").

Both pass a linear map of the key and of the query through a nonlinearity and
reduce it with a vector ``v``: one small feed-forward net per (query, key) pair.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.attention.scores.registry import ACTIVATIONS, Score, register_score


def _additive(wk: torch.Tensor, wq: torch.Tensor, v: nn.Linear, act) -> torch.Tensor:
    """``v^T act(wk_j + wq_i)`` for every pair (i, j), by broadcasting."""
    hidden = act(wq[:, :, None, :] + wk[:, None, :, :])  # (B, Tq, Tk, A)
    return v(hidden).squeeze(-1)  # (B, Tq, Tk)


@register_score("additive")
class AdditiveScore(Score):
    """Bahdanau's additive score ``v^T act(W1 k + W2 q + b)`` (eq. (4)).

    Args: ``d_attn`` the hidden width A (default ``d_k``), ``activation`` by name.
    """

    def __init__(self, d_q: int, d_k: int, d_attn: int | None = None,
                 activation: str = "tanh") -> None:
        super().__init__(d_q, d_k)
        d_attn = d_attn or d_k
        self.w_k = nn.Linear(d_k, d_attn)  # W1 and the bias b
        self.w_q = nn.Linear(d_q, d_attn, bias=False)  # W2
        self.v = nn.Linear(d_attn, 1, bias=False)
        self.act = ACTIVATIONS[activation]

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        # Projecting keys and queries separately costs O(Tk + Tq) matmuls, not O(Tq Tk).
        return _additive(self.w_k(k), self.w_q(q), self.v, self.act)  # (B, Tq, Tk)


@register_score("concat")
class ConcatScore(Score):
    """Luong's concat score ``v^T act(W [k; q] + b)`` (eq. (8)).

    One matrix W acts on the concatenation; since ``W [k; q] = W_k k + W_q q`` we apply
    the two column blocks of W separately instead of building all Tq * Tk pairs.
    """

    def __init__(self, d_q: int, d_k: int, d_attn: int | None = None,
                 activation: str = "tanh") -> None:
        super().__init__(d_q, d_k)
        d_attn = d_attn or d_k
        self.w = nn.Linear(d_k + d_q, d_attn)
        self.v = nn.Linear(d_attn, 1, bias=False)
        self.act = ACTIVATIONS[activation]

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        w_k, w_q = self.w.weight.split([self.d_k, self.d_q], dim=1)  # (A, Dk), (A, Dq)
        wk = F.linear(k, w_k, self.w.bias)  # (B, Tk, A)
        wq = F.linear(q, w_q)  # (B, Tq, A)
        return _additive(wk, wq, self.v, self.act)  # (B, Tq, Tk)
