"""Band attention computed block by block with the fused kernel (chapter "Multi-scale
self-attention", eqs. (1)-(2)).

Query i may see key j when ``|i - j| <= ω``. ``window_attention``
(:mod:`lamalib.nn.self_attention.window`) computes that band one diagonal at a time:
``2ω + 1`` passes over the keys, each an elementwise product, fast for ω = 1 and slow by
ω = 15. Here the queries are cut into blocks of ``b`` consecutive positions; the queries
of block n can only see keys ``n b - ω .. n b + b - 1 + ω``, a slab of ``S = b + 2ω``
keys. Each block meets its slab in one call of ``F.scaled_dot_product_attention`` (every
block of the batch at once, as batch entries), under a ``(b, S)`` mask that keeps the
band. Work and memory are ``T (b + 2ω)`` instead of ``T^2``: linear in T for a fixed ω,
and a fraction ``(b + 2ω) / T`` of full attention when ω grows with T (the scales
``N/k``).

Each sequence of the batch may have its own radius (a scale ``N/16`` of sequences of
different lengths): the slabs are cut for the largest, and each sequence's mask keeps
its own band. ``benchmarks/band_kernels.py`` measures this kernel against the
diagonal-by-diagonal one and against dense masked attention.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lamalib.nn.self_attention.multihead import fast_attention

# Block sizes between these bounds: the measured sweet spot on one CPU thread
# (benchmarks/band_kernels.py). Smaller blocks pay per-block overhead, larger ones
# compute more of the slab that the band then masks away.
MIN_BLOCK, MAX_BLOCK = 16, 64


def default_block(radius: int) -> int:
    """The block size ``b`` used for radius ω: ω, kept within [16, 64]."""
    return min(max(radius, MIN_BLOCK), MAX_BLOCK)


def blocked_band_mask(T: int, block: int, radius: int, radii: torch.Tensor,
                      key_mask: torch.Tensor | None = None) -> torch.Tensor:
    """Which slab slots a query may see: bool ``(B, 1, n_blocks, block, S)``.

    Query a of block n is position ``i = n b + a``; slot c of its slab is key
    ``j = n b + c - radius``. The slot is allowed when ``|i - j| <= radii[seq]``,
    ``0 <= j < T`` and, with ``key_mask (B, T)`` (True = real token), j is real.
    ``radius`` is the slab's reach (at least every ``radii``).
    """
    n_blocks = -(-T // block)
    S = block + 2 * radius
    device = radii.device
    n = torch.arange(n_blocks, device=device)[:, None, None]  # (nb, 1, 1)
    a = torch.arange(block, device=device)[None, :, None]  # (1, b, 1): query in block
    c = torch.arange(S, device=device)[None, None, :]  # (1, 1, S): slot in slab
    j = n * block + c - radius  # (nb, 1, S): key position of each slot
    distance = (a - c + radius).abs()  # (1, b, S): |i - j|, the same in every block
    inside = (j >= 0) & (j < T)  # (nb, 1, S): off the edges is never a key
    mask = (distance <= radii[:, None, None, None]) & inside  # (B, nb, b, S)
    if key_mask is not None:
        real = key_mask.to(torch.bool)[:, j.clamp(0, T - 1)]  # (B, nb, 1, S)
        mask = mask & real
    return mask[:, None]  # (B, 1, nb, b, S): the same for every head


def blocked_band_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    radii: torch.Tensor,
    key_mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    block: int | None = None,
) -> torch.Tensor:
    """Band attention, block by block: the same function as full attention under the
    band mask ``|i - j| <= radii[b]`` (and ``key_mask``), at ``T (b + 2ω)`` cost.

    Args:
        q, k: ``(B, H, T, Dh)``; v: ``(B, H, T, Dv)``.
        radii: ``(B,)`` long, ω of each sequence.
        key_mask: ``(B, T)`` bool, True on real tokens, or None.
        dropout_p: dropout on the attention weights.
        block: queries per block (default :func:`default_block` of the largest ω).

    Returns ``out (B, H, T, Dv)``; a query with no key in its band (a padded
    position past every real token's reach) gets 0, as in ``fast_attention``.
    """
    B, H, T, Dh = q.shape
    Dv = v.shape[-1]
    radius = int(radii.max()) if radii.numel() else 0
    b = block or default_block(radius)
    n_blocks = -(-T // b)
    T_pad = n_blocks * b  # queries padded to whole blocks (sliced off at the end)
    S = b + 2 * radius  # keys in each block's slab
    # Blocks become batch entries, (B * nb, H, ...): four dimensions, which the fused
    # kernel runs without materialising the scores (five fell back to the math path).
    qb = F.pad(q, (0, 0, 0, T_pad - T)).view(B, H, n_blocks, b, Dh)  # (B, H, nb, b, Dh)
    qb = qb.transpose(1, 2).reshape(B * n_blocks, H, b, Dh)  # (B nb, H, b, Dh)
    pad = (0, 0, radius, T_pad - T + radius)  # zero keys before and after (masked)
    # unfold: slab n is k_pad[n b : n b + S], a strided view (slabs overlap by 2ω)
    kb = F.pad(k, pad).unfold(2, S, b)  # (B, H, nb, Dh, S)
    kb = kb.permute(0, 2, 1, 4, 3).reshape(B * n_blocks, H, S, Dh)  # (B nb, H, S, Dh)
    vb = F.pad(v, pad).unfold(2, S, b)  # (B, H, nb, Dv, S)
    vb = vb.permute(0, 2, 1, 4, 3).reshape(B * n_blocks, H, S, Dv)  # (B nb, H, S, Dv)
    mask = blocked_band_mask(T, b, radius, radii, key_mask)  # (B, 1, nb, b, S)
    mask = mask.transpose(1, 2).reshape(B * n_blocks, 1, b, S)  # (B nb, 1, b, S)
    out = fast_attention(qb, kb, vb, mask, dropout_p)  # (B nb, H, b, Dv)
    out = out.view(B, n_blocks, H, b, Dv).transpose(1, 2)  # (B, H, nb, b, Dv)
    return out.reshape(B, H, T_pad, Dv)[:, :, :T]  # (B, H, T, Dv)
