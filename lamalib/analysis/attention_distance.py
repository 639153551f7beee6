"""Attention distance: how far each head of each layer looks (chapter "Multi-scale
self-attention"; Guo et al. 2020, Figure 3).

For a real (non-pad) query i with attention weights alpha_i. over the keys,

* the *argmax distance* is ``|i - argmax_j alpha_ij|``: the distance of Guo et al.'s
  "attention edge", the key with the highest weight (ties go to the leftmost key, as
  ``torch.argmax`` breaks them);
* the *expected distance* is ``sum_j alpha_ij |i - j|``;
* the *chance distance* is the expected distance under uniform weights over the
  sentence's real keys, ``mean_j |i - j|``: what a head that learned nothing about
  position would give, the reference to read the other two against.

Pad queries are dropped; pad keys get weight 0 in every lamalib model, so they are
never an argmax. The weights come from a model that keeps them
(``keep_weights(True)`` then ``attention_weights() -> (L, B, H, T, T)``, as the TE
classifier and the Transformer encoder do), from a Hugging Face encoder
(:func:`hf_weights`: BERT-base in ``tools/bert_attention_distance.py``), or from any
``weights_of`` function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import torch
from torch import nn

from lamalib.models.hf_encoder import hf_attentions

WeightsOf = Callable[[nn.Module, object], tuple[torch.Tensor, torch.Tensor]]


def _tokens_and_mask(batch) -> tuple[torch.Tensor, torch.Tensor]:
    if hasattr(batch, "tokens"):
        return batch.tokens, batch.mask  # a lamalib Batch
    return batch[0], batch[1]  # a (tokens, mask, ...) tuple


def kept_weights(model: nn.Module, batch) -> tuple[torch.Tensor, torch.Tensor]:
    """Run ``model`` on ``batch`` and return its weights ``(L, B, H, T, T)`` and the
    key mask ``(B, T)``; for models with ``keep_weights`` / ``attention_weights``."""
    tokens, mask = _tokens_and_mask(batch)
    model.keep_weights(True)
    try:
        model(tokens, mask)
        weights = model.attention_weights()  # (L, B, H, T, T)
    finally:
        model.keep_weights(False)
    return weights, mask


def hf_weights(model: nn.Module, batch) -> tuple[torch.Tensor, torch.Tensor]:
    """Run a Hugging Face encoder (``transformers.BertModel`` and kin, loaded with
    ``attn_implementation="eager"`` so that it can return its weights) on ``batch``
    and return its weights ``(L, B, H, T, T)`` and the key mask ``(B, T)``."""
    tokens, mask = _tokens_and_mask(batch)
    return hf_attentions(model, tokens, mask), mask  # (L, B, H, T, T)


def _real_queries(weights: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    # weights (..., B, H, T, T) -> (..., H, Q, T): the rows of the real queries
    w = weights.movedim(-4, -3)  # (..., H, B, T, T)
    return w[..., mask, :]  # (..., H, Q, T)


def _offsets(mask: torch.Tensor) -> torch.Tensor:
    # |i - j| for every real query i (rows) and key j (columns): (Q, T)
    T = mask.shape[-1]
    pos = torch.arange(T, device=mask.device)
    dist = (pos[:, None] - pos[None, :]).abs()  # (T, T)
    return dist.expand(mask.shape[0], T, T)[mask]  # (Q, T)


def argmax_distance(weights: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``|i - argmax_j alpha_ij|`` for every real query: weights ``(..., B, H, T, T)``,
    mask ``(B, T)`` -> ``(..., H, Q)`` long, Q the real tokens of the batch in
    row-major order (sentence by sentence)."""
    w = _real_queries(weights, mask)  # (..., H, Q, T)
    pos = torch.arange(mask.shape[-1], device=mask.device)
    query_pos = pos.expand_as(mask)[mask]  # (Q,)
    return (query_pos - w.argmax(-1)).abs()  # (..., H, Q)


def expected_distance(weights: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``sum_j alpha_ij |i - j|`` for every real query: ``(..., H, Q)`` float."""
    w = _real_queries(weights, mask)  # (..., H, Q, T)
    return (w * _offsets(mask).to(w.dtype)).sum(-1)  # (..., H, Q)


def chance_distance(mask: torch.Tensor) -> torch.Tensor:
    """``mean_j |i - j|`` over the real keys j of each real query i: ``(Q,)``."""
    offsets = _offsets(mask).float()  # (Q, T)
    keys = mask[:, None, :].expand(-1, mask.shape[-1], -1)[mask]  # (Q, T)
    return (offsets * keys).sum(-1) / keys.sum(-1)  # (Q,)


@dataclass
class AttentionDistances:
    """Distances of every real query, per layer and head.

    argmax (L, H, Q) long; expected (L, H, Q) float; lengths (Q,) the number N of real
    tokens in each query's sentence; chance (Q,) the uniform-weights reference.
    """

    argmax: torch.Tensor
    expected: torch.Tensor
    lengths: torch.Tensor
    chance: torch.Tensor

    @property
    def n_layers(self) -> int:
        return self.argmax.shape[0]

    def histogram(self, max_distance: int, per_head: bool = False) -> torch.Tensor:
        """Counts of argmax distances ``0..max_distance``, the last bin holding every
        distance ``>= max_distance``: ``(L, max_distance + 1)``, or ``(L, H, ...)``
        with ``per_head``."""
        d = self.argmax.clamp(max=max_distance)  # (L, H, Q)
        counts = torch.zeros(*d.shape[:2], max_distance + 1, dtype=torch.long)
        counts.scatter_add_(-1, d, torch.ones_like(d))  # (L, H, max_distance + 1)
        return counts if per_head else counts.sum(1)

    def summary(self, local: int = 1) -> list[dict]:
        """Per layer: mean argmax and expected distance, the share of argmax distances
        ``<= local`` and the chance reference, averaged over heads and queries."""
        rows = []
        for l in range(self.n_layers):
            a, e = self.argmax[l].float(), self.expected[l]  # (H, Q)
            rows.append({"layer": l + 1, "mean_argmax": float(a.mean()),
                         "mean_expected": float(e.mean()),
                         "share_local": float((self.argmax[l] <= local).float().mean()),
                         "per_head_mean_argmax": a.mean(1).tolist(),
                         "chance": float(self.chance.mean())})
        return rows

    def record(self, max_distance: int) -> dict:
        """A JSON-ready summary: per-head histograms ``(L, H, max_distance + 1)`` as
        lists, :meth:`summary`, the number of queries and their mean length."""
        return {"max_distance": max_distance,
                "histogram": self.histogram(max_distance, per_head=True).tolist(),
                "summary": self.summary(local=1), "queries": int(self.lengths.numel()),
                "mean_length": float(self.lengths.float().mean())}


@torch.no_grad()
def attention_distances(model: nn.Module, batches: Iterable,
                        weights_of: WeightsOf = kept_weights,
                        max_batches: int | None = None) -> AttentionDistances:
    """Distances of ``model``'s heads over ``batches`` (eval mode, no dropout).

    ``weights_of(model, batch) -> (weights (L, B, H, T, T), mask (B, T))``.
    """
    was_training = model.training
    model.eval()
    parts: dict[str, list[torch.Tensor]] = {"a": [], "e": [], "n": [], "c": []}
    try:
        for b, batch in enumerate(batches):
            if max_batches is not None and b >= max_batches:
                break
            weights, mask = weights_of(model, batch)
            mask = mask.to(torch.bool).cpu()
            weights = weights.float().cpu()  # (L, B, H, T, T)
            parts["a"].append(argmax_distance(weights, mask))  # (L, H, Q)
            parts["e"].append(expected_distance(weights, mask))  # (L, H, Q)
            n = mask.sum(-1, keepdim=True).expand_as(mask)  # (B, T)
            parts["n"].append(n[mask])  # (Q,)
            parts["c"].append(chance_distance(mask))  # (Q,)
    finally:
        model.train(was_training)
    if not parts["a"]:
        raise ValueError("no batches: attention_distances needs at least one batch")
    return AttentionDistances(torch.cat(parts["a"], -1), torch.cat(parts["e"], -1),
                              torch.cat(parts["n"]), torch.cat(parts["c"]))


__all__ = ["AttentionDistances", "argmax_distance", "attention_distances",
           "chance_distance", "expected_distance", "hf_weights", "kept_weights"]
