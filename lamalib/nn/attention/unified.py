"""The unified attention model ``Attention`` (chapter "Attention mechanisms").

A query ``q`` is compared with each key ``k_i`` by a score function ``f(q, k_i)``
(eq. (1)); a masked softmax turns the scores into a distribution ``a`` over the keys
(eq. (2)), and the context vector is the ``a``-weighted sum of the values (eq. (3)).
The score functions live in :mod:`lamalib.nn.attention.scores`, one family per file.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.attention.scores import Score, build_score
from lamalib.nn.masking import expand_key_mask, masked_softmax


class Attention(nn.Module):
    """Unified attention: score, masked softmax, weighted sum of values.

    Args:
        score: a registered score name or a :class:`Score` module.
        d_q, d_k: query and key widths (used when ``score`` is a name).
        **score_kwargs: passed on to the score (e.g. ``d_attn``, ``max_len``).

    Shapes: ``forward(query (B, Tq, Dq), keys (B, Tk, Dk), values (B, Tk, Dv),
    mask (B, Tk) or (B, Tq, Tk) bool) -> context (B, Tq, Dv), weights (B, Tq, Tk)``.
    A 2-D ``query (B, Dq)`` gives ``context (B, Dv)`` and ``weights (B, Tk)``.
    """

    def __init__(self, score: str | Score = "scaled_dot", d_q: int | None = None,
                 d_k: int | None = None, **score_kwargs) -> None:
        super().__init__()
        if isinstance(score, str):
            if d_q is None:
                raise ValueError("give d_q (and d_k) when choosing a score by name")
            score = build_score(score, d_q, d_k or d_q, **score_kwargs)
        self.score = score

    def forward(self, query: torch.Tensor, keys: torch.Tensor,
                values: torch.Tensor | None = None,
                mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        single = query.dim() == 2
        if single:
            query = query[:, None, :]  # (B, 1, Dq)
        values = keys if values is None else values  # (B, Tk, Dv)
        scores = self.score(query, keys)  # (B, Tq, Tk)  eq. (1)
        weights = masked_softmax(scores, expand_key_mask(mask))  # eq. (2)
        context = weights @ values  # (B, Tq, Dv)  eq. (3)
        if single:
            return context[:, 0], weights[:, 0]  # (B, Dv), (B, Tk)
        return context, weights
