"""XLNet's two-stream self-attention over a factorisation order (chapter
"Pretraining"; Yang et al., 2019).

A permutation language model predicts the tokens of a sentence one by one in a random
*factorisation order* ``z`` (a permutation of the positions): token ``x_{z_t}`` is
predicted from the tokens ``x_{z_<t}``. The positions keep their place in the input;
only the attention masks change with ``z``. Two streams share every weight:

* the **content stream** ``h``: position ``z_t`` attends to ``z_<=t``, itself
  included, so ``h`` at a position encodes its own token (as in any Transformer);
* the **query stream** ``g``: position ``z_t`` attends to the *content* of
  ``z_<t`` only, never itself. It starts from a learned vector plus the position, so
  it knows *where* the token to predict sits but never *what* it is.

``order`` tensors list positions by their rank: ``order[t]`` is the position predicted
t-th, counting from 0 (the paper's order 3 -> 2 -> 4 -> 1 of x1..x4 is
``[2, 1, 3, 0]``). ``order_ranks`` inverts it: ``rank[i]`` is when position i comes.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.transformer.stack import Encoder


def check_order(order: torch.Tensor) -> None:
    """Raise ``ValueError`` unless every row of ``order (..., T)`` is a permutation
    of ``0..T-1``."""
    T = order.shape[-1]
    expected = torch.arange(T, device=order.device).expand_as(order)
    if not torch.equal(order.sort(-1).values, expected):
        raise ValueError("a factorisation order must list every position 0..T-1 "
                         f"exactly once; got {order.tolist()}")


def order_ranks(order: torch.Tensor) -> torch.Tensor:
    """``rank (..., T)`` with ``rank[order[t]] = t``: when each position is predicted.

    Args:
        order: ``(T,)`` or ``(B, T)`` long, each row a permutation of ``0..T-1``.
    """
    check_order(order)
    steps = torch.arange(order.shape[-1], device=order.device).expand_as(order)
    return torch.empty_like(order).scatter_(-1, order, steps)  # (..., T)


def permutation_masks(
    order: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The content-stream and query-stream attention masks of an order.

    ``content[i, j]`` is True when ``rank[j] <= rank[i]`` (position i may attend to
    position j, itself included); ``query[i, j]`` when ``rank[j] < rank[i]`` (never
    itself). Padding (``mask`` False) is never attended to.

    Args:
        order: ``(T,)`` or ``(B, T)`` long, each row a permutation of ``0..T-1``.
        mask: ``(B, T)`` bool, True at real tokens, or None.

    Returns:
        ``content`` and ``query``, bool ``(T, T)`` or ``(B, T, T)`` (query row i,
        key column j).
    """
    rank = order_ranks(order)  # (..., T)
    before = rank[..., None, :]  # (..., 1, T) rank of the key j
    at = rank[..., :, None]  # (..., T, 1) rank of the query i
    content, query = before <= at, before < at  # (..., T, T)
    if mask is not None:
        keys = mask.to(torch.bool)[:, None, :]  # (B, 1, T)
        content, query = content & keys, query & keys  # (B, T, T)
    return content, query


def two_stream_layer(
    layer: nn.Module, h: torch.Tensor, g: torch.Tensor, content: torch.Tensor,
    query: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One ``EncoderLayer`` run on both streams with the layer's own weights.

    Both streams go through the layer as one sequence of 2T queries; keys and values
    are the content stream's only, exactly what the layer's attention sublayer
    receives for ``h`` (after pre-LN's norm, when the layer has one). So the content
    stream computes ``layer(h, content)``, and the query stream reads the same keys.
    With ``layer.keep_weights`` the weights ``(B, H, 2T, T)`` are kept: rows ``:T``
    content stream, rows ``T:`` query stream.

    Args:
        layer: an :class:`~lamalib.nn.transformer.EncoderLayer`.
        h, g: ``(B, T, D)`` content and query streams.
        content, query: bool ``(T, T)`` or ``(B, T, T)`` from ``permutation_masks``.
    """
    T = h.shape[1]
    both_masks = torch.cat([content, query], dim=-2)  # (B?, 2T, T)

    def attend(x: torch.Tensor) -> torch.Tensor:  # x (B, 2T, D): both streams
        kv = x[:, :T]  # (B, T, D): keys and values come from the content stream only
        out, w = layer.self_attn(x, kv, kv, mask=both_masks,
                                 need_weights=layer.keep_weights)
        layer.last_weights = w  # (B, H, 2T, T) or None
        return out  # (B, 2T, D)

    x = layer.attn_block(torch.cat([h, g], dim=1), attend)  # (B, 2T, D)
    x = layer.ff_block(x, layer.ff)  # (B, 2T, D)
    return x[:, :T], x[:, T:]  # (B, T, D), (B, T, D)


def two_stream_encode(
    encoder: Encoder, h: torch.Tensor, g: torch.Tensor, content: torch.Tensor,
    query: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Every layer of ``encoder`` on both streams, then its final norm (pre-LN).

    Arguments as :func:`two_stream_layer`; returns ``h, g (B, T, D)``.
    """
    for layer in encoder.layers:
        h, g = two_stream_layer(layer, h, g, content, query)  # (B, T, D) each
    return encoder.final_norm(h), encoder.final_norm(g)  # (B, T, D), (B, T, D)
