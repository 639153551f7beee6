"""Masks and the masked softmax (chapter "Attention mechanisms"): the ground floor of
``lamalib.nn``, used by every folder of it.

Convention: a bool mask is ``True`` where a position takes part (a real token, or a key
that a query may attend to) and ``False`` where it must be ignored (padding, the
future).
"""

from __future__ import annotations

import torch


def lengths_to_mask(lengths: torch.Tensor, max_len: int | None = None) -> torch.Tensor:
    """Bool mask ``(B, T)``, True on the first ``lengths[b]`` positions of row b."""
    lengths = torch.as_tensor(lengths)
    T = int(lengths.max()) if max_len is None else max_len
    positions = torch.arange(T, device=lengths.device)  # (T,)
    return positions[None, :] < lengths[:, None]  # (B, T)


def causal_mask(T: int, device: torch.device | None = None) -> torch.Tensor:
    """Bool mask ``(T, T)``: query i may look at keys j <= i, never at a later one."""
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def expand_key_mask(mask: torch.Tensor | None) -> torch.Tensor | None:
    """A key mask ``(B, Tk)`` becomes ``(B, 1, Tk)``; ``(B, Tq, Tk)`` is kept."""
    if mask is None or mask.dim() == 3:
        return mask
    return mask[:, None, :]  # (B, 1, Tk)


def head_key_mask(mask: torch.Tensor | None) -> torch.Tensor | None:
    """A key mask ``(B, Tk)`` becomes ``(B, 1, 1, Tk)`` (broadcast: heads, queries)."""
    return None if mask is None else mask[:, None, None, :]


def masked_softmax(
    scores: torch.Tensor, mask: torch.Tensor | None, dim: int = -1
) -> torch.Tensor:
    """Softmax of ``scores`` over ``dim`` where ``mask`` is False gets weight exactly 0.

    Never returns NaN: a row whose keys are all masked gets all-zero weights (not the
    uniform distribution, and not the NaN that ``softmax`` of all ``-inf`` gives). Works
    in float16: masked scores are filled with the dtype's lowest finite value, not
    ``-inf``, and half precision is computed in float32; float64 stays float64.

    Args:
        scores: any shape, e.g. ``(B, Tq, Tk)`` or ``(B, H, Tq, Tk)``.
        mask: bool, broadcastable to ``scores``; None means nothing is masked.
    """
    if mask is None:
        return torch.softmax(scores, dim=dim)
    mask = mask.to(torch.bool)
    filled = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    # float16 / bfloat16 are computed in float32 (softmax subtracts the row max, so
    # exp() stays in range); float64 stays float64, so gradcheck can check it.
    work = torch.promote_types(scores.dtype, torch.float32)
    weights = torch.softmax(filled.to(work), dim=dim).to(scores.dtype)
    # Rows with no valid key: softmax of equal fills is uniform; zero them instead.
    return weights.masked_fill(~mask, 0.0)


def band_mask(T: int, radius: int, device: torch.device | None = None) -> torch.Tensor:
    """Bool mask ``(T, T)``: query i may look at keys j with ``|i - j| <= radius``.

    Restricted self-attention (chapter "Self-attention and multi-head attention"):
    every query sees a neighbourhood of ``2 * radius + 1`` positions centred on itself
    (fewer at the edges). Full attention under this mask still computes all T x T
    scores; ``lamalib.nn.self_attention.window`` computes only the band.
    """
    if radius < 0:
        raise ValueError(f"radius must be >= 0, got {radius}")
    i = torch.arange(T, device=device)
    return (i[:, None] - i[None, :]).abs() <= radius  # (T, T)
