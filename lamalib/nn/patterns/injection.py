"""Putting a pattern into a head: masked (eq. (3)) and fixed (eq. (2)) heads, the
rest stay free, and the sparsity rho = 1 - |M| / N^2 that the masks leave (chapter
"Finding and injecting attention patterns"; Li et al., 2022, section 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch

from lamalib.nn.patterns.predicates import Predicate, get_pattern, pattern_mask
from lamalib.nn.self_attention.multihead import MultiHeadAttention


INJECTIONS = ("masked", "fixed")  # eq. (3): mask added to QK^T; eq. (2): fixed weights


@dataclass(frozen=True)
class Injection:
    """One head of one layer carries ``pattern`` (a name, or a predicate such as a
    :class:`BoundPattern`), ``how`` = "masked" or "fixed"."""

    head: int
    pattern: str | Predicate
    how: str = "masked"

    def __post_init__(self) -> None:
        if self.how not in INJECTIONS:
            raise ValueError(f"how must be one of {INJECTIONS}, got {self.how!r}")
        get_pattern(self.pattern)  # fail early on an unknown name


def every_layer(n_layers: int,
                injections: Sequence[Injection]) -> list[list[Injection]]:
    """The same injections in every layer (as Li et al. do)."""
    return [list(injections) for _ in range(n_layers)]


def head_attention_mask(injections: Sequence[Injection], n_heads: int,
                        tokens: torch.Tensor, mask: torch.Tensor,
                        spans: torch.Tensor | None = None) -> torch.Tensor:
    """Per-head attention mask of one layer -> ``(B, H, T, T)`` bool.

    A head with an injection gets its pattern's mask (eqs. (4)-(6)); a free head may
    look at every real key (the usual padding mask).
    """
    B, T = tokens.shape
    free = mask[:, None, :].expand(B, T, T)  # (B, T, T): keys are the real tokens
    per_head = [free] * n_heads
    for inj in injections:
        if not 0 <= inj.head < n_heads:
            raise ValueError(f"head {inj.head} outside 0..{n_heads - 1}")
        per_head[inj.head] = pattern_mask(inj.pattern, tokens, mask, spans)
    return torch.stack(per_head, dim=1)  # (B, H, T, T)


def fix_heads(attn: MultiHeadAttention, heads: Sequence[int]):
    """Make ``heads`` of ``attn`` fixed-pattern heads, eq. (2).

    Their queries are set to zero, so every score q.k is 0 and the masked softmax
    spreads the weight uniformly over the cells the mask allows: the pattern's matrix
    with rows normalised, whatever Q and K have learned. (Li et al. write sigma(F);
    a softmax of a 0/1 matrix would not be uniform over its 1s, and they say their
    fixed rows are one-hot, which is what this gives for "previous" and "next".)
    Returns the hook handle (``.remove()`` frees the heads).
    """
    heads = sorted(set(int(h) for h in heads))

    def zero_queries(_module, _inputs, q):
        q = q.clone()  # (B, T, D)
        for h in heads:
            q[..., h * attn.d_head:(h + 1) * attn.d_head] = 0.0
        return q

    return attn.q_proj.register_forward_hook(zero_queries)


def sparsity(masks: Sequence[torch.Tensor], mask: torch.Tensor) -> torch.Tensor:
    """rho = 1 - |M| / N^2 per document, over every head of every layer -> ``(B,)``.

    Args:
        masks: one ``(B, H, T, T)`` attention mask per layer (pads excluded).
        mask: ``(B, T)``; N is each document's real length.
    """
    real = mask[:, None, :, None]  # (B, 1, T, 1): pad queries do not count
    allowed = sum((m & real).sum((1, 2, 3)).double() for m in masks)  # (B,)
    n = mask.sum(-1).double()  # (B,)
    full = len(masks) * masks[0].shape[1] * n * n  # L * H * N^2
    return 1.0 - allowed / full  # (B,)
