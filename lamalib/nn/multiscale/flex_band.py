"""Band attention through PyTorch's FlexAttention (chapter "Multi-scale
self-attention"): the alternative a PyTorch user would reach for, run side by side
with the library's kernels by ``benchmarks/band_kernels.py``.

``torch.nn.attention.flex_attention`` takes the band as a ``mask_mod``
(``|i - j| <= ω`` and j a real token) compiled into a block-sparse mask, and skips the
blocks that the band never touches. It needs ``torch.compile`` to be fast (eager, it
builds the ``T x T`` scores), and in torch 2.13 it has no backward on the CPU: there it
serves inference only, and :func:`flex_band_attention` refuses a call that needs
gradients with a message naming the kernel that has them.
"""

from __future__ import annotations

import torch

from lamalib.nn.compile_cache import compile_with_own_cache

_BLOCK_MASKS: dict[tuple, object] = {}  # (T, ω, block, device) -> BlockMask
_COMPILED: dict[str, object] = {}


def flex_available(device: torch.device | str, needs_grad: bool) -> str | None:
    """None if FlexAttention can run here, else why not (one line)."""
    try:
        from torch.nn.attention import flex_attention  # noqa: F401
    except ImportError:
        return f"torch {torch.__version__} has no torch.nn.attention.flex_attention"
    if torch.device(device).type == "cpu" and needs_grad:
        return (f"FlexAttention has no backward on the CPU (torch "
                f"{torch.__version__}); use kernel='neighbour' to train, or call under "
                "torch.no_grad()")
    return None


def _compiled_flex():
    if "fn" not in _COMPILED:
        from torch.nn.attention.flex_attention import flex_attention
        _COMPILED["fn"] = compile_with_own_cache(flex_attention)
    return _COMPILED["fn"]


def flex_band_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    radii: torch.Tensor,
    key_mask: torch.Tensor | None = None,
    block: int = 16,
) -> torch.Tensor:
    """Band attention ``|i - j| <= radii`` (and ``key_mask``) by compiled
    FlexAttention.

    Args:
        q, k: ``(B, H, T, Dh)``; v: ``(B, H, T, Dv)``.
        radii: long ``(B,)`` or ``(B, H)``. key_mask: ``(B, T)`` bool or None.
        block: the block mask's block size (16 was fastest on one CPU thread).

    Returns ``out (B, H, T, Dv)``; a query with no real key gets 0. The block mask
    is cached per shape when one radius serves the batch and nothing is padded.
    Raises ValueError where FlexAttention cannot run (see :func:`flex_available`).
    """
    from torch.nn.attention.flex_attention import create_block_mask

    needs_grad = torch.is_grad_enabled() and any(
        t.requires_grad for t in (q, k, v))
    why = flex_available(q.device, needs_grad)
    if why:
        raise ValueError(why)
    if not needs_grad:  # flex refuses inputs that require grad on the CPU, even here
        q, k, v = q.detach(), k.detach(), v.detach()
    B, H, T, _ = q.shape
    rad = radii.to(q.device)
    rad = rad[:, None].expand(B, H) if rad.dim() == 1 else rad  # (B, H)
    r = int(rad.max())
    uniform = key_mask is None and bool((rad == r).all())
    key = (T, r, block, str(q.device))
    block_mask = _BLOCK_MASKS.get(key) if uniform else None
    if block_mask is None:
        if uniform:
            def band(b, h, i, j):
                return (i - j).abs() <= r
            block_mask = create_block_mask(band, None, None, T, T, device=q.device,
                                           BLOCK_SIZE=block)
            _BLOCK_MASKS[key] = block_mask
        else:
            real = (torch.ones(B, T, dtype=torch.bool, device=q.device)
                    if key_mask is None else key_mask.to(torch.bool))

            def band(b, h, i, j):
                # the compiled kernel may ask past the last key (a block's padded
                # tail, in scalar code): clamp the lookup, and keep j < T in the mask
                inside = j < T
                return (((i - j).abs() <= rad[b, h]) & inside
                        & real[b, j.clamp(0, T - 1)])
            block_mask = create_block_mask(band, B, H, T, T, device=q.device,
                                           BLOCK_SIZE=block)
    return _compiled_flex()(q, k, v, block_mask=block_mask)  # (B, H, T, Dv)
