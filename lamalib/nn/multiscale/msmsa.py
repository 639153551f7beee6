"""Multi-scale self-attention (chapter "Multi-scale self-attention", eqs. (1)-(5);
the paper's eqs. (6)-(10)).

Guo et al. (2020) give every head of multi-head self-attention its own *scale* ω: head
i at position j attends only to a window of positions around j (scale-aware
self-attention, SASA, eqs. (1)-(3)); the heads are concatenated and projected
(MSMSA, eq. (4)); a layer is ``LayerNorm(H + ReLU(MSMSA(H)))`` with no feed-forward
sublayer and no positional embedding (eq. (5)).

A scale is a constant (``3``) or a fraction of the length (``"N/16"``), and the paper
can be read two ways (:data:`WINDOWS`). Its eq. 7 writes the context of position j
as ``x_{j-ω} .. x_{j+ω}`` (a *radius*: 2ω + 1 keys), but its text makes ω a *width*:
scales are "forced to be odd", a feed-forward layer "is attention with ω = 1" (a head
that sees only its own word) and its Figure 1 draws ω = 1, 3, 5 as boxes of 1, 3 and
5 words. ``window="width"`` (the default) follows the text: a constant ω must be odd
and gives the radius ``(ω - 1) / 2``; ``"N/k"`` is the odd width nearest N / k
(``2 floor(N / 2k) + 1``, ties upward), so radius ``floor(N / 2k)``: N = 100 gives
N/16 -> width 7, N/8 -> 13, N/4 -> 25, N/2 -> 51. ``window="radius"`` follows eq. 7:
a constant ω is the radius, and ``"N/k"`` is ``floor(N / k)`` raised to the next odd
number (never below 1). N is each sequence's own number of real tokens (not the padded
width), so padding never changes a window. A radius ``>= T`` is the same function as
``T - 1`` (every key is within reach): it is clamped to that.

Heads that share a scale are computed together by one of these kernels, chosen by name
(:data:`KERNELS`): ``"window"`` (:func:`lamalib.nn.self_attention.window.window_attention`:
the ``T x (2ω + 1)`` band one diagonal at a time), ``"blocked"``
(:func:`lamalib.nn.multiscale.blocked_band.blocked_band_attention`: blocks of queries
against unfolded slabs of keys, ``T x (b + 2ω)``), ``"neighbour"``
(:func:`lamalib.nn.multiscale.neighbour_band.neighbour_band_attention`: each block of
queries against its neighbouring key blocks, slabs viewed, not copied), ``"compiled"``
(the same under ``torch.compile``), ``"flex"`` (PyTorch's FlexAttention, compiled;
inference only on the CPU) or ``"dense"`` (full attention through
``F.scaled_dot_product_attention`` under the band mask, ``T x T``). ``"auto"`` picks
the fastest eager kernel measured for the length and radius on this device type
(:func:`lamalib.nn.multiscale.kernel_table.pick_kernel`). A radius of 0 (width 1, the
word itself) needs no kernel: its output is the value itself. Tests prove every kernel
equal to full attention under a band mask per head, in outputs and gradients. Under
attention dropout, though, each kernel draws its random mask over a band of its own
shape, so another choice (by name, or by ``"auto"`` after a change of its rule or
table) trains on other random draws: the same model in distribution, not the same
run loss for loss. ``tests/test_ms_numerics.py`` pins the numbers.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence, Union

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.multiscale.blocked_band import blocked_band_attention
from lamalib.nn.multiscale.flex_band import flex_band_attention
from lamalib.nn.multiscale.kernel_table import pick_kernel
from lamalib.nn.multiscale.neighbour_band import (compiled_neighbour_band_attention,
                                                  neighbour_band_attention)
from lamalib.nn.self_attention.window import band_to_full, window_attention
from lamalib.nn.self_attention.multihead import (MultiHeadAttention, fast_attention,
                                                 scaled_dot_product_attention)
from lamalib.nn.transformer.norm import LayerNorm

Scale = Union[int, str]  # 3 (a constant ω) or "N/16" (a fraction of the length)
KERNELS = ("auto", "window", "blocked", "neighbour", "compiled", "flex", "dense")
WINDOWS = ("width", "radius")  # how ω is read: the paper's text, or the paper's eq. 7


def parse_scale(scale: Scale) -> tuple[str, int]:
    """``3 -> ("const", 3)``, ``"N/16" -> ("frac", 16)``; anything else is an error."""
    if isinstance(scale, bool):
        raise ValueError(f"a scale is an int or 'N/k', got {scale!r}")
    if isinstance(scale, int):
        if scale < 0:
            raise ValueError(f"a constant scale must be >= 0, got {scale}")
        return "const", scale
    text = str(scale).replace(" ", "")
    if text.isdigit():
        return "const", int(text)
    if text.startswith("N/") and text[2:].isdigit() and int(text[2:]) > 0:
        return "frac", int(text[2:])
    raise ValueError(
        f"a scale is a constant like 3 or a fraction of the length like 'N/16', "
        f"got {scale!r}")


def check_window(window: str) -> str:
    """``window`` if it is one of :data:`WINDOWS`, else a ValueError naming them."""
    if window not in WINDOWS:
        raise ValueError(f"window must be one of {WINDOWS} (how ω is read), "
                         f"got {window!r}")
    return window


def check_scale(scale: Scale, window: str = "width") -> tuple[str, int]:
    """:func:`parse_scale` of ``scale``, or a ValueError unless it is valid under
    ``window`` (widths are odd)."""
    kind, value = parse_scale(scale)
    if check_window(window) == "width" and kind == "const" and value % 2 == 0:
        raise ValueError(
            f"a constant scale read as a width must be odd (1 = the word itself, 3, "
            f"5, ...), got {scale!r}; window='radius' reads it as a radius")
    return kind, value


def resolve_radius(scale: Scale, length: torch.Tensor | int,
                   window: str = "width") -> torch.Tensor:
    """The radius (keys ``j - r .. j + r``) of ``scale`` for sequences of ``length``
    real tokens (int or ``(B,)``), as a long tensor of the same shape.

    ``window="width"``: ω is the window's odd width, radius ``(ω - 1) / 2``; ``"N/k"``
    is the odd width nearest N / k, radius ``floor(N / 2k)``.
    ``window="radius"``: ω is the radius; ``"N/k"`` is ``floor(N / k)``, plus one
    when even.
    """
    kind, value = check_scale(scale, window)
    length = torch.as_tensor(length, dtype=torch.long)
    if window == "width":
        if kind == "const":
            return torch.full_like(length, (value - 1) // 2)
        return torch.div(length, 2 * value, rounding_mode="floor")  # floor(N / 2k)
    if kind == "const":
        return torch.full_like(length, value)
    omega = torch.div(length, value, rounding_mode="floor")
    return omega + (omega % 2 == 0).long()  # odd, hence >= 1


def band_masks(radii: torch.Tensor, T: int,
               key_mask: torch.Tensor | None = None) -> torch.Tensor:
    """Bool ``(B, 1 or H, T, T)``: query i of sequence b (head h) may see key j if
    ``|i - j| <= radii[b]`` (``radii[b, h]`` for radii ``(B, H)``), eq. (2), and j is
    a real token."""
    i = torch.arange(T, device=radii.device)
    rad = radii[:, None] if radii.dim() == 1 else radii  # (B, Hr)
    # Two comparisons against each query's bounds, straight to bool: a (T, T) int64
    # table of |i - j| would need 8 bytes a cell (256 MiB at T = 4096).
    low = (i - rad[..., None])[..., None]  # (B, Hr, T, 1): i - ω
    high = (i + rad[..., None])[..., None]  # (B, Hr, T, 1): i + ω
    mask = i >= low  # (B, Hr, T, T): j >= i - ω
    mask &= i <= high  # and j <= i + ω
    if key_mask is not None:
        mask = mask & key_mask.to(torch.bool)[:, None, None, :]
    return mask  # (B, Hr, T, T)


DENSE_CACHE_MAX_T = 512  # cached dense masks stay small (1 MiB each at most)


@lru_cache(maxsize=8)
def dense_band_mask(T: int, radius: int, dtype: torch.dtype,
                    device: torch.device) -> torch.Tensor:
    """The additive ``(1, 1, T, T)`` band mask of the dense kernel (0 on the band,
    -inf off it), built once per shape: the fused kernel adds it as it is, where a
    bool mask would be converted to this on every call."""
    band = band_masks(torch.tensor([radius], device=device), T)  # (1, 1, T, T)
    mask = torch.zeros(band.shape, dtype=dtype, device=device)
    return mask.masked_fill_(~band, float("-inf"))  # (1, 1, T, T)


def _identity(v: torch.Tensor, key_mask: torch.Tensor | None,
              dropout_p: float) -> torch.Tensor:
    """Radius 0: each query's only key is itself, weight 1, so the output is its value
    (0 at a pad, which sees no real key); dropout drops that one weight."""
    out = v
    if dropout_p > 0:
        out = out * F.dropout(v.new_ones(*v.shape[:-1], 1), dropout_p)
    if key_mask is not None:
        out = out * key_mask.to(v.dtype)[:, None, :, None]  # (B, 1, T, 1)
    return out  # (B, H, T, Dv)


def scale_aware_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    radii: torch.Tensor,
    key_mask: torch.Tensor | None = None,
    kernel: str = "auto",
    dropout_p: float = 0.0,
    need_weights: bool = False,
    block: int | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """SASA, eqs. (1)-(2), for heads that share one scale (or per-head radii).

    Args:
        q, k, v: ``(B, H, T, Dh)``.
        radii: long ``(B,)``, ω of each sequence (already resolved for its length),
            or ``(B, H)``, ω of each sequence and head ("window" needs one ω for all,
            "blocked" one per sequence).
        key_mask: ``(B, T)`` bool, True on real tokens, or None.
        kernel: one of :data:`KERNELS` (see the module docstring); with
            ``need_weights`` every kernel but the window runs the dense path, which
            keeps the ``(T, T)`` weights.
        block: the block size of "blocked", "neighbour", "compiled" or "flex"
            (default: the kernel's own, or the measured one under "auto").

    Returns ``out (B, H, T, Dh)`` and, if asked, ``weights (B, H, T, T)``.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    T = q.shape[-2]
    radii = radii.clamp(max=max(T - 1, 0))  # ω >= T reaches every key: same function
    r = int(radii.max()) if radii.numel() else 0
    same = bool((radii == r).all())
    if kernel == "window" and not same:
        raise ValueError(
            "the window kernel needs one radius for the whole batch; these "
            f"sequences have radii {radii.tolist()}: use kernel='neighbour', "
            "'dense' or 'auto'")
    if kernel == "auto" and not need_weights:  # resolved first: it may pick "window"
        if same and r == 0:  # width 1: the word itself, no kernel needed
            return _identity(v, key_mask, dropout_p), None
        if same and r >= T - 1:  # the band is the whole matrix: only pads are masked
            kernel = "dense"
        else:
            kernel, block = pick_kernel(radii, T, q.dtype, q.device)
    if kernel == "window" or (kernel == "auto" and same):  # auto here: need_weights
        out, band = window_attention(q, k, v, r, key_mask, dropout_p)  # eq. (1)
        return out, (band_to_full(band) if need_weights else None)
    if need_weights:  # the from-scratch path keeps the (T, T) weights to draw them
        return scaled_dot_product_attention(q, k, v, band_masks(radii, T, key_mask),
                                            dropout_p)
    if kernel == "blocked":
        if radii.dim() == 2:
            if not bool((radii == radii[:, :1]).all()):
                raise ValueError("the blocked kernel takes one radius per sequence; "
                                 "for per-head radii use kernel='neighbour'")
            radii = radii[:, 0]
        return blocked_band_attention(q, k, v, radii, key_mask, dropout_p, block), None
    if kernel == "neighbour":
        return neighbour_band_attention(q, k, v, radii, key_mask, dropout_p,
                                        block), None
    if kernel == "compiled":
        return compiled_neighbour_band_attention(q, k, v, radii, key_mask, dropout_p,
                                                 block), None
    if kernel == "flex":
        if dropout_p > 0:
            raise ValueError("the flex kernel has no dropout here; use 'neighbour'")
        return flex_band_attention(q, k, v, radii, key_mask, block or 16), None
    # dense: full attention under the band mask (the T x T baseline)
    if same and r >= T - 1:
        if key_mask is None:
            return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p), None
        return fast_attention(q, k, v, key_mask.to(torch.bool)[:, None, None, :],
                              dropout_p), None
    if key_mask is None:  # every query sees itself: no empty row to guard
        mask = (dense_band_mask(T, r, q.dtype, q.device)
                if same and T <= DENSE_CACHE_MAX_T  # short: cached, additive
                else band_masks(radii, T))  # (1 or B, 1 or H, T, T), eq. (2)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                              dropout_p=dropout_p), None
    mask = band_masks(radii, T, key_mask)  # (B, 1 or H, T, T), eq. (2)
    return fast_attention(q, k, v, mask, dropout_p), None


def _lengths(key_mask: torch.Tensor | None, B: int, T: int,
             device: torch.device) -> torch.Tensor:
    if key_mask is None:
        return torch.full((B,), T, dtype=torch.long, device=device)
    return key_mask.to(torch.bool).sum(-1)  # (B,): N of each sequence


class MultiScaleSelfAttention(MultiHeadAttention):
    """MSMSA, eq. (4): head i attends within its scale ``scales[i]``; the heads are
    concatenated and projected by ``W_O``.

    The projections are those of :class:`MultiHeadAttention` (one head per scale, so
    ``n_heads = len(scales)``); only the attention step differs.

    Args:
        d_model: D (divisible by the number of heads).
        scales: one scale per head, e.g. ``[1, 1, 3, 3, "N/16", "N/8"]``.
        dropout: on the attention weights. bias: of the four projections.
        kernel: ``"auto"``, ``"window"``, ``"blocked"`` or ``"dense"`` (same
            function, other cost).
        window: ``"width"`` (the paper's text, default) or ``"radius"`` (the
            paper's own eq. 7).

    ``forward(x (B, T, D), key_padding_mask (B, T) or None, need_weights=False)
    -> (out (B, T, D), weights (B, H, T, T) or None)``.
    """

    def __init__(self, d_model: int, scales: Sequence[Scale], dropout: float = 0.0,
                 bias: bool = True, kernel: str = "auto",
                 window: str = "width") -> None:
        if not scales:
            raise ValueError("MSMSA needs at least one scale (one per head)")
        for s in scales:
            check_scale(s, window)  # fail here, not at the first forward
        if kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
        super().__init__(d_model, len(scales), dropout, bias)
        self.scales = list(scales)
        self.kernel = kernel
        self.window = window
        # Heads sharing a scale run together: one kernel call per distinct scale, on
        # a contiguous run of heads (reordered once here, if the scales interleave).
        groups: dict[Scale, list[int]] = {}
        for h, s in enumerate(self.scales):
            groups.setdefault(s, []).append(h)
        self.groups = groups
        order = [h for idx in groups.values() for h in idx]
        self._order = None if order == sorted(order) else torch.tensor(order)
        self._inverse = None if self._order is None else torch.argsort(self._order)

    def radii(self, key_padding_mask: torch.Tensor | None, B: int, T: int,
              device: torch.device | None = None) -> torch.Tensor:
        """``(B, H)`` long: each head's radius for each sequence, clamped to ``T - 1``."""
        n = _lengths(key_padding_mask, B, T, device or torch.device("cpu"))
        cols = [resolve_radius(s, n, self.window) for s in self.scales]
        return torch.stack(cols, -1).clamp(max=max(T - 1, 0))  # (B, H)

    def forward(  # type: ignore[override]
        self,
        x: torch.Tensor,
        key_padding_mask: torch.Tensor | None = None,
        need_weights: bool = False,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        B, T, D = x.shape  # (B, T, D)
        H, Dh = self.n_heads, self.d_head
        p = self.dropout if self.training else 0.0
        if need_weights:  # the path that keeps every head's (T, T) weights to draw
            return self._forward_with_weights(x, key_padding_mask, p)
        # (B, T, H, Dh) views of the projections: each group's heads are a slice and
        # the kernels read them in this layout without a copy.
        q, k, v = (proj(x).view(B, T, H, Dh)
                   for proj in (self.q_proj, self.k_proj, self.v_proj))
        if self._order is not None:
            order = self._order.to(x.device)
            q, k, v = q[:, :, order], k[:, :, order], v[:, :, order]
        n = _lengths(key_padding_mask, B, T, x.device)  # (B,)
        outs, start = [], 0
        for scale, idx in self.groups.items():
            heads = slice(start, start + len(idx))
            start += len(idx)
            out, _ = scale_aware_attention(
                q[:, :, heads].transpose(1, 2), k[:, :, heads].transpose(1, 2),
                v[:, :, heads].transpose(1, 2), resolve_radius(scale, n, self.window),
                key_padding_mask, self.kernel, p)  # (B, Hg, T, Dh), eqs. (1)-(2)
            outs.append(out.transpose(1, 2))  # (B, T, Hg, Dh)
        concat = torch.cat(outs, dim=2)  # (B, T, H, Dh), eq. (4): [head_1; ...]
        if self._inverse is not None:
            concat = concat[:, :, self._inverse.to(x.device)]
        self.last_weights = None
        return self.out_proj(concat.reshape(B, T, D)), None  # (B, T, D): ... W_O

    def _forward_with_weights(self, x: torch.Tensor, key_padding_mask, p: float):
        B, T, D = x.shape  # (B, T, D)
        q = self._split(self.q_proj(x))  # (B, H, T, Dh), eq. (3): Q = H W^Q
        k = self._split(self.k_proj(x))  # (B, H, T, Dh)
        v = self._split(self.v_proj(x))  # (B, H, T, Dh)
        n = _lengths(key_padding_mask, B, T, x.device)  # (B,)
        heads = torch.empty_like(q)  # (B, H, T, Dh)
        weights = q.new_zeros(B, self.n_heads, T, T)
        for scale, idx in self.groups.items():
            sel = torch.tensor(idx, device=x.device)
            out, w = scale_aware_attention(
                q[:, sel], k[:, sel], v[:, sel], resolve_radius(scale, n, self.window),
                key_padding_mask, self.kernel, p, need_weights=True)  # eqs. (1)-(2)
            heads = heads.index_copy(1, sel, out)  # out-of-place: autograd-safe
            weights = weights.index_copy(1, sel, w)
        self.last_weights = weights.detach()
        concat = heads.transpose(1, 2).reshape(B, T, D)  # eq. (4): [head_1; ...]
        return self.out_proj(concat), weights  # (B, T, D): ... W_O


class MultiScaleLayer(nn.Module):
    """One layer of the Multi-Scale Transformer, eq. (5):
    ``H' = LayerNorm(H + ReLU(MSMSA(H)))``, no feed-forward sublayer.

    Args:
        d_model: D. scales: one per head. dropout: on the attention weights and on
            the sublayer output (placement ours: the paper does not say).
        kernel, window: as in :class:`MultiScaleSelfAttention`.

    ``forward(h (B, T, D), mask (B, T) or None) -> (B, T, D)``.
    """

    def __init__(self, d_model: int, scales: Sequence[Scale], dropout: float = 0.0,
                 kernel: str = "auto", window: str = "width") -> None:
        super().__init__()
        self.attention = MultiScaleSelfAttention(d_model, scales, dropout,
                                                 kernel=kernel, window=window)
        self.dropout = nn.Dropout(dropout)
        self.norm = LayerNorm(d_model)

    def forward(self, h: torch.Tensor, mask: torch.Tensor | None = None,
                need_weights: bool = False) -> torch.Tensor:
        a, _ = self.attention(h, mask, need_weights)  # (B, T, D)
        return self.norm(h + self.dropout(F.relu(a)))  # (B, T, D), eq. (5)
