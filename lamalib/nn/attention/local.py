"""Luong's local attention: a Gaussian window around a position (chapter "Attention
mechanisms").

Global attention looks at every source position; local attention first chooses a
centre ``p_t`` and only looks at ``[p_t - D, p_t + D]`` (eq. (15)):

* local-m (monotonic): ``p_t = t``, for roughly aligned sequences;
* local-p (predictive): ``p_t = (S - 1) * sigmoid(v_p^T tanh(W_p q_t))``, learned.

Inside the window, the usual softmax weights are multiplied by a Gaussian centred at
``p_t`` with ``sigma = D / 2`` (eq. (16)), which favours positions near the
centre and lets gradients reach ``p_t``. (Luong et al. use ``S``; 0-based positions
end at ``S - 1``.)
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.masking import masked_softmax
from lamalib.nn.attention.scores import Score, build_score


class LocalAttention(nn.Module):
    """Local-p or local-m attention with window half-width ``window`` (D).

    Args:
        d_q, d_k: query and key widths.
        window: D, the window reaches D positions to each side of ``p_t``.
        score: a registered score name or a :class:`Score` module.
        predictive: True for local-p, False for local-m.
        d_attn: hidden width of the position predictor (default ``d_q``).

    Shapes: ``forward(query (B, Tq, Dq), keys (B, Tk, Dk), values (B, Tk, Dv),
    mask (B, Tk)) -> context (B, Tq, Dv), weights (B, Tq, Tk)``; the centres are kept
    in ``last_positions (B, Tq)``.
    """

    def __init__(self, d_q: int, d_k: int, window: int = 2,
                 score: str | Score = "general", predictive: bool = True,
                 d_attn: int | None = None) -> None:
        super().__init__()
        self.window, self.sigma, self.predictive = window, window / 2, predictive
        self.score = build_score(score, d_q, d_k) if isinstance(score, str) else score
        if predictive:
            self.w_p = nn.Linear(d_q, d_attn or d_q, bias=False)
            self.v_p = nn.Linear(d_attn or d_q, 1, bias=False)
        self.last_positions: torch.Tensor | None = None

    def centres(self, query: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """``p_t`` for every query: ``(B, Tq)`` floats in ``[0, S_b - 1]``."""
        last = (lengths - 1).to(query.dtype)[:, None]  # (B, 1)
        if self.predictive:
            hidden = torch.tanh(self.w_p(query))  # (B, Tq, A)
            gate = torch.sigmoid(self.v_p(hidden))[..., 0]  # (B, Tq)
            return last * gate  # eq. (15)
        t = torch.arange(query.shape[1], device=query.device, dtype=query.dtype)
        return torch.minimum(t[None, :], last)  # local-m: p_t = t, inside the source

    def forward(self, query, keys, values, mask=None):
        B, Tk = keys.shape[:2]
        if mask is None:
            mask = torch.ones(B, Tk, dtype=torch.bool, device=keys.device)
        p = self.centres(query, mask.sum(-1))  # (B, Tq)
        s = torch.arange(Tk, device=keys.device, dtype=query.dtype)  # (Tk,)
        offset = s[None, None, :] - p[..., None]  # (B, Tq, Tk)
        allowed = (offset.abs() <= self.window) & mask[:, None, :]  # (B, Tq, Tk)
        align = masked_softmax(self.score(query, keys), allowed)  # (B, Tq, Tk)
        gauss = torch.exp(-offset**2 / (2 * self.sigma**2))  # eq. (16)
        weights = align * gauss  # (B, Tq, Tk)
        self.last_positions = p.detach()
        return weights @ values, weights  # (B, Tq, Dv), (B, Tq, Tk)
