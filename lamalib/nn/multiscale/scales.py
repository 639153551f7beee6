"""How many heads of each scale every layer gets (chapter "Multi-scale
self-attention", eqs. (6)-(7); the paper's eqs. (11)-(12)).

Guo et al. (2020) print, for layer l of L and candidate scale k of |Ω|,

    z^l_k = 0                   if l = L or k = |Ω|
    z^l_k = z^l_{k+1} + α       otherwise,          n^l = softmax(z^l) · N'.

Read literally this gives ``z^l_k = α (|Ω| - k)`` for *every* layer below the last,
so all layers but the top one are identical, while the paper's worked example
(α = 0.5, N' = 10, L = 3, |Ω| = 5) lists three different layers. Readings are chosen
by name in :data:`READINGS`: ``"printed"`` (the equation as printed) and
``"distance"`` (α scaled by the distance to the top layer, ``α (L - l)``, so the
preference for small scales grows with depth below the top). The chapter compares
both with the example; neither reproduces its first layer.

Shares become whole heads by rounding the *cumulative* shares down:
``n_k = floor(N' S_k) - floor(N' S_{k-1})`` with ``S_k`` the sum of the first k
shares. The counts sum to N' exactly, each differs from its share by less than one
head, and any leftover head goes to the later (larger) scales.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from lamalib.nn.multiscale.msmsa import Scale


def printed_logits(alpha: float, n_layers: int, n_scales: int) -> torch.Tensor:
    """eq. (6) as printed: ``(L, |Ω|)``; row l < L is ``α (|Ω|-1-k)`` (k from 0)."""
    z = torch.zeros(n_layers, n_scales, dtype=torch.float64)
    for l in range(n_layers - 1):  # the top layer (l = L) stays 0: uniform
        for k in range(n_scales - 2, -1, -1):  # the last scale (k = |Ω|) stays 0
            z[l, k] = z[l, k + 1] + alpha  # z^l_k = z^l_{k+1} + α
    return z


def distance_logits(alpha: float, n_layers: int, n_scales: int) -> torch.Tensor:
    """eq. (6) with α scaled by the distance to the top: ``z^l_k = z^l_{k+1} +
    α (L - l)``, so layer L-1 is the printed one and lower layers prefer small
    scales more strongly."""
    z = torch.zeros(n_layers, n_scales, dtype=torch.float64)
    for l in range(n_layers - 1):
        distance = n_layers - 1 - l  # L - l with layers counted from 1
        for k in range(n_scales - 2, -1, -1):
            z[l, k] = z[l, k + 1] + alpha * distance
    return z


READINGS: dict[str, Callable[[float, int, int], torch.Tensor]] = {
    "printed": printed_logits,
    "distance": distance_logits,
}


def round_heads(shares: torch.Tensor, n_heads: int) -> list[int]:
    """Whole head counts summing to ``n_heads`` from ``shares (|Ω|,)`` that sum to
    ``n_heads``: the cumulative shares rounded down, then differenced."""
    cum = torch.floor(torch.cumsum(shares.double(), 0) + 1e-9).long()  # (|Ω|,)
    cum[-1] = n_heads  # float error must never lose the last head
    counts = torch.diff(cum, prepend=cum.new_zeros(1))
    return [int(c) for c in counts]


def scale_distribution(alpha: float, n_heads: int, n_layers: int, n_scales: int,
                       reading: str = "printed") -> list[list[int]]:
    """``n^l`` for every layer, eq. (7): ``softmax(z^l) · N'`` in whole heads.

    Args:
        alpha: α (> 0: more small-scale heads in shallow layers; 0: every layer the
            same; < 0: more large-scale heads in shallow layers).
        n_heads: N' heads per layer. n_layers: L. n_scales: |Ω| candidates.
        reading: a key of :data:`READINGS`.

    Returns ``L`` lists of ``|Ω|`` head counts, each summing to N'.
    """
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {sorted(READINGS)}, got {reading!r}")
    if n_heads < 1 or n_layers < 1 or n_scales < 1:
        raise ValueError("n_heads, n_layers and n_scales must all be >= 1")
    z = READINGS[reading](alpha, n_layers, n_scales)  # (L, |Ω|), eq. (6)
    shares = torch.softmax(z, dim=-1) * n_heads  # (L, |Ω|), eq. (7)
    return [round_heads(row, n_heads) for row in shares]


def heads_for_layer(counts: Sequence[int], candidates: Sequence[Scale]) -> list[Scale]:
    """One scale per head: ``counts[k]`` heads of ``candidates[k]``, in order."""
    if len(counts) != len(candidates):
        raise ValueError(f"{len(counts)} counts for {len(candidates)} candidate scales")
    return [s for s, c in zip(candidates, counts) for _ in range(c)]
