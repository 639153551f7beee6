"""The global context's nearest words in a LAMA model (chapter "LAMA", interactive
view).

LAMA compares each word with one context vector c in the m-dimensional space of its
heads: head i multiplies ``(P~^T c)_i`` by ``(Q~^T u_t)_i`` (eq. (5), paper eq. 11). We
call a word *near* the context when its projection points the same way as the
context's across all heads, eq. (9) of the chapter (not in the paper):

    near(t) = cos(P^T c, Q^T u_t)   (the k x m projections flattened; k = 1: m numbers)

The numerator is ``sum_i f_t,i``, the sum of the heads' bilinear scores of eq. (4)
(paper eq. 10), i.e. ``c^T (sum_i W_i) u_t``; dividing by both norms makes the number
scale-free, so words of long and short documents compare. It is computed before the
tanh, the l2 step and the softmax of eq. (6) (paper eq. 13), which reshape each head's
scores separately. Equation numbers as in :mod:`lamalib.nn.lama`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


@torch.no_grad()
def context_similarity(model: torch.nn.Module, tokens: torch.Tensor,
                       mask: torch.Tensor) -> torch.Tensor:
    """``cos(P^T c, Q^T u_t)`` of every token, eq. (9): ``(B, T)``, NaN on pads.

    Args:
        model: a LAMA-family classifier (``annotations`` and a
            :class:`lamalib.nn.lama.LowRankMultiHeadAttention` as ``attention``).
        tokens, mask: ``(B, T)`` ids and real-token mask.
    """
    model.eval()
    att = model.attention
    states = model.annotations(tokens, mask)  # (B, T, D)
    c = att.context(states, mask)  # (B, D)
    u = torch.tanh(att.proj(states))  # (B, T, D), eq. (1) (paper eq. 7)
    pc = torch.einsum("bd,dkm->bkm", c, att.p).flatten(1)  # (B, k m): P^T c
    qu = torch.einsum("btd,dkm->btkm", u, att.q).flatten(2)  # (B, T, k m): Q^T u_t
    cos = F.cosine_similarity(pc[:, None, :], qu, dim=-1)  # (B, T)
    return cos.masked_fill(~mask, float("nan"))
