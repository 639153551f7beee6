"""Checking an importance ranking by removing heads (chapter "Finding and injecting
attention patterns", step 1): the Taylor estimate (eq. (7)) is a first-order guess of
what removing a head does to the loss; here the head is removed and the loss measured.

A head is removed by zeroing its columns of the output projection (what
:func:`lamalib.analysis.heads.disable_head` does), restored afterwards.
:func:`removal_effects` removes one head at a time; :func:`removal_curve` removes heads
cumulatively in a given order (by importance, or at random), the curve of Michel et
al. (2019); :func:`spearman` compares a ranking with the measured effects.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterable, Sequence

import torch
from torch import nn

from lamalib.analysis.heads import _loss, attention_modules

LossFn = Callable[[nn.Module, object], object]


@contextmanager
def removed(model: nn.Module, heads: Iterable[tuple[int, int]]):
    """Within the block, ``heads`` ((layer, head) pairs) contribute nothing: their
    output-projection columns are zero; the weights are restored on exit."""
    layers = attention_modules(model)
    saved = []
    with torch.no_grad():
        for l, h in heads:
            attn = layers[l]
            cols = slice(h * attn.d_head, (h + 1) * attn.d_head)
            saved.append((attn.out_proj.weight, cols,
                          attn.out_proj.weight[:, cols].clone()))
            attn.out_proj.weight[:, cols] = 0.0
    try:
        yield model
    finally:
        with torch.no_grad():
            for weight, cols, old in reversed(saved):
                weight[:, cols] = old


@torch.no_grad()
def mean_loss(model: nn.Module, batches: Sequence, loss_fn: LossFn) -> float:
    """The mean of ``loss_fn`` over ``batches`` (eval mode; the mode is restored)."""
    was = model.training
    model.eval()
    try:
        values = [float(_loss(loss_fn, model, b)) for b in batches]
    finally:
        model.train(was)
    return sum(values) / len(values)


def removal_effects(model: nn.Module, batches: Sequence, loss_fn: LossFn
                    ) -> torch.Tensor:
    """The loss with each head removed alone, minus the loss with every head:
    ``(L, H)`` (positive: the head helped)."""
    base = mean_loss(model, batches, loss_fn)
    layers = attention_modules(model)
    out = torch.zeros(len(layers), layers[0].n_heads)  # (L, H)
    for l in range(out.shape[0]):
        for h in range(out.shape[1]):
            with removed(model, [(l, h)]):
                out[l, h] = mean_loss(model, batches, loss_fn) - base
    return out


def removal_curve(model: nn.Module, batches: Sequence, loss_fn: LossFn,
                  order: Sequence[tuple[int, int]],
                  at: Sequence[int] | None = None) -> list[float]:
    """The loss after removing the first k heads of ``order``, for k = 0 .. len(order)
    (k = 0: the intact model), or only for the k in ``at`` (a large model's curve at a
    few points costs a few evaluations, not one per head)."""
    ks = range(len(order) + 1) if at is None else at
    if any(not 0 <= k <= len(order) for k in ks):
        raise ValueError(f"removal_curve: points must lie in 0..{len(order)}")
    curve = []
    for k in ks:
        with removed(model, order[:k]):
            curve.append(mean_loss(model, batches, loss_fn))
    return curve


def spearman(a: torch.Tensor, b: torch.Tensor) -> float:
    """Spearman's rank correlation of two score tables of the same shape (average
    ranks for ties)."""
    from scipy import stats

    return float(stats.spearmanr(a.flatten().tolist(), b.flatten().tolist())[0])


__all__ = ["mean_loss", "removal_curve", "removal_effects", "removed", "spearman"]
