"""Pattern-masked attention that computes only the cells a pattern allows (chapter
"Finding and injecting attention patterns", the speed section; Li et al., 2022).

Dense masked attention, eq. (3), builds all T x T scores and then drops a share rho
of them, so it costs the same whatever rho is. Where the allowed cells have structure,
the work can follow it:

* ``"same_span"`` (eq. (5)) is block-diagonal: :func:`span_attention` packs each span
  into one row of a ``(B * S, L)`` batch (L the longest span) and runs fused attention
  there. It builds ``S * L^2`` scores instead of ``T^2``: with spans of equal length
  s, ``T * s = (1 - rho) T^2``.
* ``"previous"`` and ``"next"`` (eq. (6)) allow one key per query:
  :func:`offset_attention` gathers it (a softmax over one cell is 1, so the output is
  ``v_{i -+ 1}``), ``T`` cells in all.

Rows that a pattern leaves free (eq. (4): the first token for "previous", each
document's last for "next"; and pad queries, which the dense mask lets see every real
key) are computed densely, for those rows only (:func:`attend_rows`). So every kernel
is the same function as dense attention under :func:`~lamalib.nn.patterns.
pattern_mask`, in outputs and gradients, at every position (tests prove it). A pattern
with no kernel here (``"matching"``: where its cells lie depends on the words) falls
back to dense masked attention in :func:`pattern_attention`.

The band kernel of :mod:`lamalib.nn.self_attention.window` does not fit these masks as
it is: it allows every key within the radius (``|i - j| <= r``), while "previous" allows
one side only and "same_span" cuts the band at sentence ends.
"""

from __future__ import annotations

from typing import Callable

import torch

from lamalib.nn.self_attention.multihead import fast_attention
from lamalib.nn.patterns.predicates import get_pattern, pattern_mask

Kernel = Callable[..., torch.Tensor]
KERNELS: dict[str, Kernel] = {}  # pattern name -> sparse kernel


def register_kernel(pattern: str):
    """Decorator: ``fn(q, k, v, tokens, mask, spans) -> out`` computes ``pattern``."""
    def add(fn: Kernel) -> Kernel:
        get_pattern(pattern)  # fail early on an unknown pattern name
        KERNELS[pattern] = fn
        return fn
    return add


def attend_rows(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor,
                rows: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
    """``out`` with the rows where ``rows`` is True recomputed over every real key.

    Args:
        q, k, v, out: ``(B, H, T, Dh)``. rows: ``(B, T)`` bool. key_mask: ``(B, T)``.

    Costs ``(number of rows) x T`` scores; one batch element at a time, so the keys are
    never copied per row. Returns a new tensor (autograd sees both parts).
    """
    bs, ts, parts = [], [], []
    for b in range(q.shape[0]):
        (idx,) = rows[b].nonzero(as_tuple=True)  # (F,)
        if idx.numel() == 0:
            continue
        keys = key_mask[b][None, None, None, :]  # (1, 1, 1, T)
        o = fast_attention(q[b:b + 1, :, idx], k[b:b + 1], v[b:b + 1], keys)
        parts.append(o[0].transpose(0, 1))  # (F, H, Dh)
        bs.append(torch.full_like(idx, b))
        ts.append(idx)
    if not parts:
        return out
    flat = out.transpose(1, 2)  # (B, T, H, Dh)
    flat = flat.index_put((torch.cat(bs), torch.cat(ts)), torch.cat(parts))
    return flat.transpose(1, 2)  # (B, H, T, Dh)


def span_layout(spans: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Where each real token goes when spans are packed into rows of length L.

    Returns ``slot (B, T)`` (token -> index into the flat ``B * S * L`` slots; pads get
    0), ``source (B * S * L,)`` (slot -> flat token index ``b * T + t``, or ``B * T``
    for an empty slot) and ``filled (B * S, L)`` bool. Spans must be contiguous runs
    (sentences are).
    """
    B, T = spans.shape
    real = mask & (spans >= 0)  # (B, T)
    sid = torch.where(real, spans, 0)  # (B, T)
    S = int(sid.max()) + 1
    pos = torch.arange(T, device=spans.device).expand(B, T)  # (B, T)
    start = torch.full((B, S), T, device=spans.device).scatter_reduce(
        1, sid, torch.where(real, pos, T), "amin")  # (B, S): first token of each span
    count = torch.zeros(B, S, dtype=torch.long, device=spans.device).scatter_add(
        1, sid, real.long())  # (B, S): its length
    rank = pos - start.gather(1, sid)  # (B, T): place inside its span
    if bool((real & (rank >= count.gather(1, sid))).any()):
        raise ValueError("span_attention needs each span to be one contiguous run of "
                         "tokens; use dense attention with pattern_mask otherwise")
    L = int(count.max())
    row = torch.arange(B, device=spans.device)[:, None] * S + sid  # (B, T)
    slot = torch.where(real, row * L + rank, 0)  # (B, T)
    source = torch.full((B * S * L,), B * T, dtype=torch.long, device=spans.device)
    flat_token = (torch.arange(B, device=spans.device)[:, None] * T + pos)[real]
    source[slot[real]] = flat_token
    return slot, source, (source < B * T).view(B * S, L)


def span_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                   spans: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Attention within each span only, eq. (5), from the spans themselves.

    Args:
        q, k, v: ``(B, H, T, Dh)``. spans: ``(B, T)`` span id per token (-1 at pads).
        mask: ``(B, T)`` bool, True on real tokens.

    Returns ``out (B, H, T, Dh)``, equal to dense attention under
    ``pattern_mask("same_span", ...)``.
    """
    B, H, T, Dh = q.shape
    slot, source, filled = span_layout(spans, mask)
    L = filled.shape[1]

    def pack(x: torch.Tensor) -> torch.Tensor:  # (B, H, T, D) -> (B * S, H, L, D)
        flat = x.transpose(1, 2).reshape(B * T, H, x.shape[-1])  # (B * T, H, D)
        flat = torch.cat([flat, flat.new_zeros(1, H, x.shape[-1])])  # an empty slot
        return flat[source].view(-1, L, H, x.shape[-1]).transpose(1, 2)

    keys = None if bool(filled.all()) else filled[:, None, None, :]  # (B*S, 1, 1, L)
    packed = fast_attention(pack(q), pack(k), pack(v), keys)  # (B * S, H, L, Dh)
    flat = packed.transpose(1, 2).reshape(-1, H, v.shape[-1])  # (B * S * L, H, Dh)
    out = flat[slot.flatten()].view(B, T, H, -1).transpose(1, 2)  # (B, H, T, Dh)
    return attend_rows(q, k, v, out, ~(mask & (spans >= 0)), mask)  # pad queries


def offset_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, offset: int,
                     mask: torch.Tensor) -> torch.Tensor:
    """Query i attends to key ``i + offset`` only, eq. (6), where it is a real token.

    The softmax over one cell is exactly 1, so the output is that key's value and the
    scores (hence q and k) get no gradient from it, as in dense masked attention.
    Other rows (no such key, or a pad query) attend to every real key.

    Args: q, k, v ``(B, H, T, Dh)``; offset: -1 "previous", +1 "next"; mask ``(B, T)``.
    Returns ``out (B, H, T, Dh)``.
    """
    T = q.shape[-2]
    j = torch.arange(T, device=q.device) + offset  # (T,): the key of each query
    inside = (j >= 0) & (j < T)  # (T,)
    jc = j.clamp(0, T - 1)
    held = mask & mask[:, jc] & inside[None, :]  # (B, T): the pattern has its cell
    out = v[:, :, jc]  # (B, H, T, Dh): one gathered value per query
    return attend_rows(q, k, v, out, ~held, mask)


@register_kernel("same_span")
def _same_span(q, k, v, tokens, mask, spans):
    if spans is None:
        raise ValueError("the same_span kernel needs spans (B, T)")
    return span_attention(q, k, v, spans, mask)


@register_kernel("previous")
def _previous(q, k, v, tokens, mask, spans):
    return offset_attention(q, k, v, -1, mask)


@register_kernel("next")
def _next(q, k, v, tokens, mask, spans):
    return offset_attention(q, k, v, +1, mask)


def pattern_attention(pattern: str, q: torch.Tensor, k: torch.Tensor,
                      v: torch.Tensor, tokens: torch.Tensor, mask: torch.Tensor,
                      spans: torch.Tensor | None = None) -> torch.Tensor:
    """Masked attention of eq. (3) under ``pattern``'s mask for all H heads given.

    Uses the pattern's sparse kernel from ``KERNELS`` when it has one, else dense
    attention under :func:`~lamalib.nn.patterns.pattern_mask` (same function).

    Args: q, k, v ``(B, H, T, Dh)``; tokens, mask, spans ``(B, T)``.
    Returns ``out (B, H, T, Dh)``.
    """
    if pattern in KERNELS:
        return KERNELS[pattern](q, k, v, tokens, mask, spans)
    allowed = pattern_mask(pattern, tokens, mask, spans)[:, None]  # (B, 1, T, T)
    return fast_attention(q, k, v, allowed)
