"""Band attention on the neighbour-block layout (chapter "Multi-scale self-attention",
eqs. (1)-(2)).

Query i may see key j when ``|i - j| <= ω``. The queries are cut into blocks of ``b``
consecutive positions; block n can only see keys in blocks ``n - m .. n + m`` with
``m = ceil(ω / b)``, a slab of ``S = (2m + 1) b`` keys. Every block meets its slab in
one call of the fused kernel (``F.scaled_dot_product_attention``; the blocks are batch
entries) under a small additive mask ``(B nb, 1, b, S)`` that keeps the band and drops
the slots off either edge. That mask depends only on the shape ``(B, T, ω, b)``: it is
built once and cached, already in the dtype the kernel adds, so no bool mask is
converted on the way.

All sequences of the batch are laid end to end in one buffer of keys, ``B T_pad +
2 m b`` rows (zeros before, after, and in each sequence's last partial block), so the
slab of block n is rows ``n b .. n b + S`` of that buffer. On the CPU the slabs are
then a strided *view* of the buffer (they overlap by ``2 m b`` rows; nothing is
copied) and the fused kernel's forward and backward ops are called in a custom
autograd function whose backward folds each slab's key and value gradients back onto
the buffer with ``2m + 1`` shifted additions. Elsewhere (CUDA, dropout) the slabs are
a concatenation of ``2m + 1`` shifted views and autograd differentiates as usual; that
path also runs under ``torch.compile`` (:func:`compiled_neighbour_band_attention`),
with a warning and the eager path where compiling is impossible.

Work and memory are ``T S``: linear in T for a fixed ω. Radii may differ per sequence
``(B,)`` or per sequence and head ``(B, H)``; the slabs are cut for the largest, and the
mask keeps each one's band. With a key mask, pads get no weight and a query with no
real key in its band gets 0 (as in ``fast_attention``); without one, nothing guards
empty rows, because there are none (every query sees itself).
"""

from __future__ import annotations

import math
import warnings

import torch
import torch.nn.functional as F

from lamalib.nn.compile_cache import compile_with_own_cache

# Candidate block sizes (benchmarks/band_kernels.py measures them); the default is the
# smallest power of two >= ω within these bounds: small blocks waste fewer slab slots
# (b + 2ω needed of (2m + 1) b computed), the fused kernel pays a little per block.
MIN_BLOCK, MAX_BLOCK = 8, 128
_MASKS: dict[tuple, torch.Tensor] = {}  # (B, T, ω, b, dtype, device) -> additive mask
_MAX_MASKS = 64  # a few shapes per model; cleared whole when exceeded


def default_neighbour_block(radius: int) -> int:
    """The block size ``b`` for radius ω: the smallest power of two ``>= ω``, kept
    within ``[8, 128]``."""
    b = MIN_BLOCK
    while b < radius and b < MAX_BLOCK:
        b *= 2
    return b


def _geometry(T: int, radius: int, block: int) -> tuple[int, int, int, int]:
    """``(nb, T_pad, m, S)``: blocks, padded length, neighbour blocks a side, slab."""
    n_blocks = -(-T // block)
    m = -(-radius // block)
    return n_blocks, n_blocks * block, m, (2 * m + 1) * block


def _allowed(T: int, block: int, m: int, radii: torch.Tensor) -> torch.Tensor:
    """Bool ``(B or 1, nb, Hr, b, S)``: slot c of block n's slab is key
    ``j = n b + c - m b`` of query ``i = n b + a``; allowed if ``|i - j| <= ω``
    (``radii (B or 1, Hr)``) and ``0 <= j < T``."""
    n_blocks, _, _, S = _geometry(T, m * block, block)
    device = radii.device
    a = torch.arange(block, device=device)[:, None]  # (b, 1): query in block
    c = torch.arange(S, device=device)[None, :]  # (1, S): slot in slab
    distance = (a - c + m * block).abs()  # (b, S): |i - j|, the same in every block
    j = (torch.arange(n_blocks, device=device)[:, None] - m) * block + c  # (nb, S)
    inside = ((j >= 0) & (j < T))[None, :, None, None, :]  # (1, nb, 1, 1, S)
    near = distance <= radii[:, None, :, None, None]  # (B, 1, Hr, b, S)
    return near & inside  # (B, nb, Hr, b, S)


def _additive(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    # The most negative finite value, not -inf: a row with no allowed slot (a pad
    # query) then averages its slab (finite) instead of giving NaN to the backward.
    zero = torch.zeros((), dtype=dtype, device=allowed.device)
    return torch.where(allowed, zero, torch.finfo(dtype).min)


def band_block_mask(B: int, T: int, radius: int, block: int, dtype: torch.dtype,
                    device: torch.device) -> torch.Tensor:
    """The cached additive mask ``(B nb, 1, b, S)`` of one radius for every sequence:
    0 on the band, the dtype's most negative value elsewhere."""
    key = (B, T, radius, block, dtype, str(device))
    mask = _MASKS.get(key)
    if mask is None:
        _, _, m, S = _geometry(T, radius, block)
        radii = torch.full((1, 1), radius, device=device)
        allowed = _allowed(T, block, m, radii)  # (1, nb, 1, b, S)
        mask = _additive(allowed, dtype).expand(B, *allowed.shape[1:])
        mask = mask.reshape(-1, 1, block, S)  # (B nb, 1, b, S)
        if len(_MASKS) >= _MAX_MASKS:
            _MASKS.clear()
        _MASKS[key] = mask
    return mask


def _flat_keys(x: torch.Tensor, T_pad: int, margin: int) -> torch.Tensor:
    """``(B, H, T, D) -> (B T_pad + 2 margin, H, D)``: the sequences end to end, zeros
    in the margins and each sequence's tail (differentiable: pads and a reshape)."""
    B, H, T, D = x.shape
    x = F.pad(x.transpose(1, 2), (0, 0, 0, 0, 0, T_pad - T))  # (B, T_pad, H, D)
    return F.pad(x.reshape(B * T_pad, H, D), (0, 0, 0, 0, margin, margin))


def _flat_keys_nograd(x: torch.Tensor, T_pad: int, margin: int) -> torch.Tensor:
    """:func:`_flat_keys` with one copy: zeros written only where nothing else is."""
    B, H, T, D = x.shape
    buf = x.new_empty(B * T_pad + 2 * margin, H, D)
    buf[:margin].zero_()
    buf[margin + B * T_pad:].zero_()
    body = buf[margin:margin + B * T_pad].view(B, T_pad, H, D)
    body[:, :T].copy_(x.transpose(1, 2))
    if T_pad > T:
        body[:, T:].zero_()
    return buf


def _blocks(x: torch.Tensor, block: int) -> torch.Tensor:
    """``(B, H, T, D) -> (B nb, H, b, D)``: a view when x is laid out ``(B, T, H, D)``
    in memory (as the projections make it) and T is whole blocks, else a copy."""
    B, H, T, D = x.shape
    T_pad = -(-T // block) * block
    x = x.transpose(1, 2)  # (B, T, H, D)
    if T_pad > T:
        x = F.pad(x, (0, 0, 0, 0, 0, T_pad - T))
    return x.reshape(-1, block, H, D).transpose(1, 2)  # (B nb, H, b, D)


def _unblock(x: torch.Tensor, B: int, T: int) -> torch.Tensor:
    """``(B nb, H, b, D) -> (B, H, T, D)``, the inverse of :func:`_blocks`."""
    N, H, b, D = x.shape
    return x.transpose(1, 2).reshape(B, N // B * b, H, D)[:, :T].transpose(1, 2)


def _slab_view(buf: torch.Tensor, n: int, block: int, S: int) -> torch.Tensor:
    """``(rows, H, D) -> (n, H, S, D)``: slab i is rows ``i b .. i b + S`` (a view)."""
    _, H, D = buf.shape
    s_row, s_head, s_dim = buf.stride()
    return buf.as_strided((n, H, S, D), (block * s_row, s_head, s_row, s_dim))


def _slab_gather(buf: torch.Tensor, n: int, block: int, m: int) -> torch.Tensor:
    """:func:`_slab_view` as a concatenation of ``2m + 1`` shifted views (a copy that
    autograd and ``torch.compile`` differentiate as usual): ``(n, H, S, D)``."""
    _, H, D = buf.shape
    rows = buf.view(-1, block, H, D)  # (n + 2m, b, H, D)
    slab = torch.cat([rows[i:i + n] for i in range(2 * m + 1)], dim=1)  # (n, S, H, D)
    return slab.transpose(1, 2)  # (n, H, S, D)


_FLASH = "_scaled_dot_product_flash_attention_for_cpu"  # the fused CPU kernel's op


def _fold_into(rows: torch.Tensor, grad: torch.Tensor, block: int, m: int) -> None:
    """The adjoint of :func:`_slab_view`: add each slab's gradient ``grad (n, H, S, D)``
    back onto the ``rows (n b + 2 m b, H, D)`` it viewed, in place."""
    n, H, S, D = grad.shape
    # (n, 2m + 1, b, H, D): the slab's blocks of slots, one per neighbour
    parts = grad.transpose(1, 2).reshape(n, 2 * m + 1, block, H, D)
    out = rows.view(n + 2 * m, block, H, D)
    for i in range(2 * m + 1):  # slot block i of slab c is row block c + i
        out[i:i + n] += parts[:, i]


class _CpuNeighbourAttention(torch.autograd.Function):
    """The fused CPU kernel's forward and backward ops over slab views (no copies of
    the slabs; see the module docstring)."""

    @staticmethod
    def forward(ctx, q, k, v, mask, block, m, scale):  # q, k, v: (B, H, T, D*)
        B, H, T, _ = q.shape
        n_blocks, T_pad, _, S = _geometry(T, m * block, block)
        n = B * n_blocks
        qs = _blocks(q, block)  # (B nb, H, b, D)
        kf = _flat_keys_nograd(k, T_pad, m * block)  # (B T_pad + 2 m b, H, D)
        vf = _flat_keys_nograd(v, T_pad, m * block)
        out, lse = getattr(torch.ops.aten, _FLASH)(
            qs, _slab_view(kf, n, block, S), _slab_view(vf, n, block, S),
            0.0, False, attn_mask=mask, scale=scale)  # (B nb, H, b, Dv)
        ctx.save_for_backward(qs, kf, vf, out, lse, mask)
        ctx.shape = (B, T, block, m, S, n, scale)
        return _unblock(out, B, T)  # (B, H, T, Dv)

    @staticmethod
    def backward(ctx, grad):  # (B, H, T, Dv)
        qs, kf, vf, out, lse, mask = ctx.saved_tensors
        B, T, block, m, S, n, scale = ctx.shape
        backward_op = getattr(torch.ops.aten, _FLASH + "_backward")
        go = _blocks(grad, block)  # (B nb, H, b, Dv)
        gq = torch.empty_like(qs)
        gkf, gvf = torch.zeros_like(kf), torch.zeros_like(vf)  # (rows, H, D*)
        # The kernel's key and value gradients are per slab, 2m + 1 times the keys:
        # computed for 2m + 1 chunks of blocks in turn and folded as they come, so
        # that at most one key tensor's worth of them is alive (memory as dense).
        step = -(-n // (2 * m + 1))
        for c in range(0, n, step):
            e = min(c + step, n)
            rows = kf[c * block:(e + 2 * m) * block]  # the keys of these slabs
            dq, dk, dv = backward_op(
                go[c:e], qs[c:e], _slab_view(rows, e - c, block, S),
                _slab_view(vf[c * block:(e + 2 * m) * block], e - c, block, S),
                out[c:e], lse[c:e], 0.0, False,
                attn_mask=mask[c:e] if mask.shape[0] > 1 else mask, scale=scale)
            gq[c:e] = dq
            _fold_into(gkf[c * block:(e + 2 * m) * block], dk, block, m)
            _fold_into(gvf[c * block:(e + 2 * m) * block], dv, block, m)
        T_pad = n // B * block
        margin = m * block

        def unflat(g):  # (B T_pad + 2 m b, H, D) -> (B, H, T, D)
            g = g[margin:margin + B * T_pad]
            return g.view(B, T_pad, *g.shape[1:])[:, :T].transpose(1, 2)

        return (_unblock(gq, B, T), unflat(gkf), unflat(gvf), None, None, None, None)


def _radii_2d(radii: torch.Tensor, B: int) -> torch.Tensor:
    """``(B,)`` or ``(B, H)`` (or a 0-d radius) as ``(B, Hr)``."""
    radii = torch.as_tensor(radii)
    if radii.dim() == 0:
        return radii.expand(B)[:, None]
    return radii[:, None] if radii.dim() == 1 else radii


def has_key(radii: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
    """Bool ``(B, Hr, T)``: whether query i has a real key within ``radii (B, Hr)``
    (counted with a prefix sum of ``key_mask (B, T)``, no ``T x T`` table)."""
    B, T = key_mask.shape
    count = F.pad(key_mask.long().cumsum(-1), (1, 0))  # (B, T + 1): keys before j
    i = torch.arange(T, device=key_mask.device)
    lo = (i - radii[..., None]).clamp(0, T)  # (B, Hr, T)
    hi = (i + radii[..., None] + 1).clamp(0, T)
    rows = torch.arange(B, device=key_mask.device)[:, None, None]
    return count[rows, hi] > count[rows, lo]


def _prepare(q: torch.Tensor, radii: torch.Tensor, key_mask: torch.Tensor | None,
             block: int | None) -> tuple[torch.Tensor, int, int, torch.Tensor]:
    """``(radii (B, Hr), b, m, additive mask (B nb, 1 or Hr, b, S))`` for one call."""
    B, H, T, Dh = q.shape
    rad = _radii_2d(radii, B).to(q.device)  # (B, Hr)
    radius = int(rad.max()) if rad.numel() else 0
    b = block or default_neighbour_block(radius)
    n_blocks, T_pad, m, S = _geometry(T, radius, b)
    if bool((rad == radius).all()):
        mask = band_block_mask(B, T, radius, b, q.dtype, q.device)  # (B nb, 1, b, S)
    else:  # radii differ between sequences or heads: this call's own mask
        mask = _additive(_allowed(T, b, m, rad), q.dtype)  # (B, nb, Hr, b, S)
        mask = mask.reshape(B * n_blocks, -1, b, S)  # (B nb, Hr, b, S)
    if key_mask is not None:  # pads' slots to the most negative value, per slab
        pads = _additive(key_mask.to(torch.bool), q.dtype)  # (B, T)
        pads = pads[:, None, :, None]  # (B, 1, T, 1): a one-dim "head" of keys
        slots = _slab_view(_flat_keys(pads, T_pad, m * b), B * n_blocks, b, S)
        slots = slots.transpose(-2, -1)  # (B nb, 1, 1, S): one row for every query
        mask = torch.minimum(mask, slots)  # (B nb, Hr, b, S)
    return rad, b, m, mask


def _finish(out: torch.Tensor, rad: torch.Tensor,
            key_mask: torch.Tensor | None) -> torch.Tensor:
    """A query that sees no real key gets 0, not an average of pads (only with a key
    mask: without one every query sees itself)."""
    if key_mask is None:
        return out
    return out * has_key(rad, key_mask.to(torch.bool))[..., None].to(out.dtype)


def neighbour_band_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    radii: torch.Tensor,
    key_mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    block: int | None = None,
    fused: bool | None = None,
) -> torch.Tensor:
    """Band attention on the neighbour-block layout: the same function as full
    attention under the band mask ``|i - j| <= radii`` (and ``key_mask``), at
    ``T (2m + 1) b`` cost.

    Args:
        q, k: ``(B, H, T, Dh)``; v: ``(B, H, T, Dv)``.
        radii: long ``(B,)`` (a radius per sequence) or ``(B, H)`` (per head too).
        key_mask: ``(B, T)`` bool, True on real tokens, or None.
        dropout_p: dropout on the attention weights (the autograd path).
        block: queries per block (default :func:`default_neighbour_block`).
        fused: the CPU ops path (default: on the CPU without dropout), or the
            autograd path (False), which ``torch.compile`` can trace.

    Returns ``out (B, H, T, Dv)``; a query with no real key in its band gets 0.
    """
    rad, b, m, mask = _prepare(q, radii, key_mask, block)
    if fused is None:
        fused = (q.device.type == "cpu" and dropout_p == 0.0  # and the ops exist
                 and hasattr(torch.ops.aten, _FLASH))
    if fused:
        scale = 1.0 / math.sqrt(q.shape[-1])
        out = _CpuNeighbourAttention.apply(q, k, v, mask, b, m, scale)
    else:
        out = neighbour_sdpa(q, k, v, mask, b, m, dropout_p)
    return _finish(out, rad, key_mask)  # (B, H, T, Dv)


def neighbour_sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                   mask: torch.Tensor, block: int, m: int,
                   dropout_p: float = 0.0) -> torch.Tensor:
    """The autograd path's attention step: slabs gathered by concatenation, then
    ``F.scaled_dot_product_attention`` under ``mask (B nb, 1 or H, b, S)``;
    ``(B, H, T, D*) -> (B, H, T, Dv)``."""
    B, H, T, _ = q.shape
    T_pad = -(-T // block) * block
    n = B * T_pad // block
    slabs = [_slab_gather(_flat_keys(x, T_pad, m * block), n, block, m)
             for x in (k, v)]  # (B nb, H, S, D*) each
    out = F.scaled_dot_product_attention(_blocks(q, block), *slabs, attn_mask=mask,
                                         dropout_p=dropout_p)  # (B nb, H, b, Dv)
    return _unblock(out, B, T)


_COMPILED: dict[str, object] = {}  # "step": neighbour_sdpa compiled, or None: failed


def compiled_step():
    """:func:`neighbour_sdpa` under ``torch.compile``, or None where compiling is
    unavailable or has failed once (then a warning said so)."""
    if "step" not in _COMPILED:
        try:
            _COMPILED["step"] = compile_with_own_cache(neighbour_sdpa)
        except Exception as error:  # noqa: BLE001 - no compiler, old torch, ...
            _compile_failed(error)
    return _COMPILED["step"]


def _compile_failed(error: Exception) -> None:
    _COMPILED["step"] = None
    warnings.warn(f"torch.compile failed for the neighbour band kernel "
                  f"({type(error).__name__}: {str(error)[:200]}); running it eagerly "
                  f"from now on", RuntimeWarning, stacklevel=3)


def compiled_neighbour_band_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    radii: torch.Tensor,
    key_mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    block: int | None = None,
) -> torch.Tensor:
    """:func:`neighbour_band_attention` with its attention step (gather + fused
    kernel) under ``torch.compile``. Where compiling is unavailable or fails, it warns
    once and runs the eager kernel from then on. Arguments and result as there."""
    step = compiled_step()
    if step is not None:
        rad, b, m, mask = _prepare(q, radii, key_mask, block)
        try:
            out = step(q, k, v, mask, b, m, dropout_p)  # the first call compiles
        except Exception as error:  # noqa: BLE001 - compilers fail in many ways
            _compile_failed(error)
        else:
            return _finish(out, rad, key_mask)
    return neighbour_band_attention(q, k, v, radii, key_mask, dropout_p, block)
