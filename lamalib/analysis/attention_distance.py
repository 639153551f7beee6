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

Every statistic has its chance value, what the same statistic gives when the edge
goes to a key drawn uniformly among the sentence's real keys: the chance distance above,
the chance local share (:func:`chance_local`: the share of keys within one token, 3 of N
away from the ends), and for a sink (:func:`sink_shares`) the sink's share of keys.

A BERT-like encoder's heads park much of their attention on ``[CLS]`` (MiniLM) or
``[SEP]`` (BERT), so the argmax distance of a deep layer is mostly the distance to the
sentence's start. Two readings remove the sink: :func:`content_only` drops the special
keys and queries (each row renormalised over the words), and norm-weighting
(:mod:`lamalib.analysis.attention_norm`, Kobayashi et al. 2020) weighs each key by how
much its value vector actually carries; :func:`hf_reading` gives the ``weights_of`` of
each reading.

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

from lamalib.analysis.attention_norm import hf_value_vectors, norm_weighted
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


def chance_local(mask: torch.Tensor, local: int = 1) -> torch.Tensor:
    """The share of each real query's real keys within ``local`` tokens of it
    (``|i - j| <= local``): the local share an edge drawn uniformly would give ->
    ``(Q,)``. A sentence of N tokens, ``local = 1``: (3N - 2) / N^2 on average."""
    offsets = _offsets(mask)  # (Q, T)
    keys = mask[:, None, :].expand(-1, mask.shape[-1], -1)[mask]  # (Q, T)
    return ((offsets <= local) & keys).sum(-1).float() / keys.sum(-1)  # (Q,)


def content_only(weights: torch.Tensor, mask: torch.Tensor,
                 content: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The weights over content keys only: special keys (``content`` False) set to 0
    and each row renormalised over the rest; weights ``(..., B, H, T, T)``, mask and
    content ``(B, T)`` -> (weights, the mask of real content tokens, the queries and
    keys the statistics then count)."""
    keep = (mask.bool() & content.bool())  # (B, T)
    w = weights * keep[:, None, None, :].to(weights.dtype)  # (..., B, H, T, T)
    total = w.sum(-1, keepdim=True)
    return torch.where(total > 0, w / total.clamp_min(1e-30), w), keep


def hf_reading(special_ids=(), norm: bool = False) -> WeightsOf:
    """``weights_of`` for a Hugging Face encoder under one reading: the weights
    (``norm=False``) or norm-weighted (``alpha_ij ||f(x_j)||``, rows renormalised:
    :func:`lamalib.analysis.attention_norm.norm_weighted`); with ``special_ids``, on
    the content tokens only (:func:`content_only`: those ids dropped as keys and as
    queries)."""
    special = torch.tensor(sorted(set(int(i) for i in special_ids)), dtype=torch.long)

    def weights_of(model: nn.Module, batch) -> tuple[torch.Tensor, torch.Tensor]:
        tokens, mask = _tokens_and_mask(batch)
        if norm:
            weights, values = hf_value_vectors(model, tokens, mask)
            weights = norm_weighted(weights, values)  # (L, B, H, T, T)
        else:
            weights = hf_attentions(model, tokens, mask)  # (L, B, H, T, T)
        if special.numel():
            content = ~torch.isin(tokens, special.to(tokens.device))  # (B, T)
            return content_only(weights, mask, content)
        return weights, mask

    return weights_of


@torch.no_grad()
def sink_shares(model: nn.Module, batches: Iterable, ids: dict[str, int],
                weights_of: WeightsOf = None) -> dict:
    """Per layer, the share of argmax edges (every head and real query) whose key is
    the token ``ids[name]`` (``{"[CLS]": 101, "[SEP]": 102}``), and its chance value:
    the mean over real queries of the share of the sentence's keys that are that
    token. ``weights_of`` defaults to :func:`hf_weights`.

    Returns ``{name: {"share": [per layer], "chance": float}}``.
    """
    weights_of = weights_of or hf_weights
    was_training = model.training
    model.eval()
    hits = {name: None for name in ids}
    chance = {name: 0.0 for name in ids}
    edges = queries = 0
    try:
        for batch in batches:
            tokens, _ = _tokens_and_mask(batch)
            weights, mask = weights_of(model, batch)
            mask = mask.bool().cpu()
            w = _real_queries(weights.float().cpu(), mask)  # (L, H, Q, T)
            row = torch.arange(mask.shape[0])[:, None].expand_as(mask)[mask]  # (Q,)
            key_tokens = tokens.cpu()[row]  # (Q, T): each query's sentence
            top = w.argmax(-1)  # (L, H, Q)
            for name, i in ids.items():
                on = (key_tokens.gather(-1, top.reshape(-1, top.shape[-1]).T).T
                      .reshape(top.shape) == i)  # (L, H, Q)
                count = on.sum((1, 2)).double()  # (L,)
                hits[name] = count if hits[name] is None else hits[name] + count
                is_i = (key_tokens == i) & mask[row]  # (Q, T)
                chance[name] += float((is_i.sum(-1) / mask[row].sum(-1)).sum())
            edges += w.shape[1] * w.shape[2]
            queries += w.shape[2]
    finally:
        model.train(was_training)
    if not queries:
        raise ValueError("no batches: sink_shares needs at least one batch")
    return {name: {"share": (hits[name] / edges).tolist(),
                   "chance": chance[name] / queries} for name in ids}


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
    chance_local: torch.Tensor | None = None  # (Q,): :func:`chance_local`, local = 1

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
            if self.chance_local is not None and local == 1:
                rows[-1]["chance_local"] = float(self.chance_local.mean())
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
    parts: dict[str, list[torch.Tensor]] = {"a": [], "e": [], "n": [], "c": [],
                                            "l": []}
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
            parts["l"].append(chance_local(mask))  # (Q,)
    finally:
        model.train(was_training)
    if not parts["a"]:
        raise ValueError("no batches: attention_distances needs at least one batch")
    return AttentionDistances(torch.cat(parts["a"], -1), torch.cat(parts["e"], -1),
                              torch.cat(parts["n"]), torch.cat(parts["c"]),
                              torch.cat(parts["l"]))


__all__ = ["AttentionDistances", "argmax_distance", "attention_distances",
           "chance_distance", "chance_local", "content_only", "expected_distance",
           "hf_reading", "hf_weights", "kept_weights", "sink_shares"]
