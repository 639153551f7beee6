"""The unified attention model: score functions, a registry, and ``Attention``.

Chapter "Attention mechanisms" derives every score. A query ``q`` is compared with each
key ``k_i`` by a score function ``f(q, k_i)`` (eq. (1)); a masked softmax turns
the scores into a distribution ``a`` over the keys (eq. (2)), and the context
vector is the ``a``-weighted sum of the values (eq. (3)). Every score module
has the same interface::

    score(q (B, Tq, Dq), k (B, Tk, Dk)) -> scores (B, Tq, Tk)

and is chosen by name: ``build_score("additive", d_q=8, d_k=8)``.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.masking import masked_softmax

SCORES: dict[str, type["Score"]] = {}
ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "tanh": torch.tanh, "relu": torch.relu, "identity": lambda x: x,
}


def register_score(name: str) -> Callable[[type["Score"]], type["Score"]]:
    """Class decorator: make a score function available to :func:`build_score`."""

    def add(cls: type["Score"]) -> type["Score"]:
        if name in SCORES:
            raise ValueError(f"score {name!r} is already registered")
        SCORES[name] = cls
        cls.name = name
        return cls

    return add


def build_score(name: str, d_q: int, d_k: int, **kwargs) -> "Score":
    """The score function ``name`` for queries of width ``d_q`` and keys of ``d_k``."""
    if name not in SCORES:
        raise ValueError(f"Unknown score {name!r}; choose one of {sorted(SCORES)}")
    return SCORES[name](d_q, d_k, **kwargs)


class Score(nn.Module):
    """Base class: ``forward(q (B, Tq, Dq), k (B, Tk, Dk)) -> (B, Tq, Tk)``."""

    name = "score"

    def __init__(self, d_q: int, d_k: int) -> None:
        super().__init__()
        self.d_q, self.d_k = d_q, d_k

    def _same_width(self) -> None:
        if self.d_q != self.d_k:
            raise ValueError(
                f"score {self.name!r} compares q and k directly, so it needs "
                f"d_q == d_k (got {self.d_q} and {self.d_k}); use 'general' or "
                "'additive', which project them"
            )


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


@register_score("dot")
class DotScore(Score):
    """Multiplicative (dot-product) score ``q^T k`` (eq. (5)); no parameters."""

    def __init__(self, d_q: int, d_k: int) -> None:
        super().__init__(d_q, d_k)
        self._same_width()

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return q @ k.transpose(1, 2)  # (B, Tq, Tk)


@register_score("scaled_dot")
class ScaledDotScore(DotScore):
    """Scaled multiplicative score ``q^T k / sqrt(d_k)`` (eq. (6))."""

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        # Dot products of random d_k-dim vectors have variance ~ d_k; dividing by
        # sqrt(d_k) keeps the softmax out of its saturated, zero-gradient regime.
        return super().forward(q, k) / math.sqrt(self.d_k)  # (B, Tq, Tk)


@register_score("general")
class GeneralScore(Score):
    """Luong's general (bilinear) score ``q^T W k`` (eq. (7))."""

    def __init__(self, d_q: int, d_k: int) -> None:
        super().__init__(d_q, d_k)
        self.w = nn.Linear(d_k, d_q, bias=False)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return q @ self.w(k).transpose(1, 2)  # (B, Tq, Tk)


@register_score("location")
class LocationScore(Score):
    """Luong's location-based score ``f(q) = W q`` (eq. (9)).

    The keys' content is ignored: the query alone predicts a score per source position
    (up to ``max_len`` positions; only the first Tk are used).
    """

    def __init__(self, d_q: int, d_k: int, max_len: int = 64) -> None:
        super().__init__(d_q, d_k)
        self.max_len = max_len
        self.w = nn.Linear(d_q, max_len)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        Tk = k.shape[1]
        if Tk > self.max_len:
            raise ValueError(f"{Tk} keys but LocationScore(max_len={self.max_len})")
        return self.w(q)[..., :Tk]  # (B, Tq, Tk)


@register_score("cosine")
class CosineScore(Score):
    """Similarity score ``scale * cos(q, k)`` (eq. (10)), as in Graves' NTM.

    ``scale`` (the NTM's key strength) sharpens the softmax: cosines lie in [-1, 1].
    """

    def __init__(self, d_q: int, d_k: int, scale: float = 1.0) -> None:
        super().__init__(d_q, d_k)
        self._same_width()
        self.scale = scale

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        # eps avoids 0/0 for an all-zero (e.g. padding) vector.
        q = F.normalize(q, dim=-1, eps=1e-8)  # (B, Tq, D)
        k = F.normalize(k, dim=-1, eps=1e-8)  # (B, Tk, D)
        return self.scale * (q @ k.transpose(1, 2))  # (B, Tq, Tk)


def expand_key_mask(mask: torch.Tensor | None) -> torch.Tensor | None:
    """A key mask ``(B, Tk)`` becomes ``(B, 1, Tk)``; ``(B, Tq, Tk)`` is kept."""
    if mask is None or mask.dim() == 3:
        return mask
    return mask[:, None, :]  # (B, 1, Tk)


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


class AttentionPool(nn.Module):
    """Pool a sequence into one vector with a learned query (chapter "Attention
    mechanisms"; the word and sentence attention of HAN, eq. (20)).

    Shapes: ``forward(x (B, T, D), mask (B, T)) -> pooled (B, D), weights (B, T)``;
    the last weights are kept in ``.last_weights``.
    """

    def __init__(self, d: int, score: str = "additive", **score_kwargs) -> None:
        super().__init__()
        # The learned query u plays the role of "which token is informative?".
        self.query = nn.Parameter(torch.randn(d) / math.sqrt(d))
        self.attention = Attention(score, d, d, **score_kwargs)
        self.last_weights: torch.Tensor | None = None

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        query = self.query.expand(x.shape[0], -1)  # (B, D)
        pooled, weights = self.attention(query, x, x, mask)  # (B, D), (B, T)
        self.last_weights = weights.detach()
        return pooled, weights
