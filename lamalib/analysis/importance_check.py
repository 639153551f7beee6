"""Checking a head-importance ranking you can rerun (chapter "Finding and injecting
attention patterns", section "Patterns in a fine-tuned encoder"): a fine-tuned model
named by the SHA-256 of its weights, its Taylor ranking set against the loss measured
when each head is removed, removal curves in importance order and in random orders,
and how far the most important heads agree from one fine-tuning seed to the next.

* :func:`state_sha256` / :func:`state_bytes`: the model's ``state_dict`` serialised
  with safetensors, and its SHA-256 (the same bytes a ``--keep`` file holds).
* :func:`topk_overlap`: how many of the ``k`` most important heads of every layer two
  score tables share (:func:`lamalib.analysis.heads.top_heads`).
* :func:`check_importance`: on held-out batches, Taylor importance (raw and
  normalised per layer), the measured effect of removing each head alone
  (:func:`lamalib.analysis.head_removal.removal_effects`), their Spearman and top-k
  overlap, and removal curves in importance order and in random orders.
* :func:`summarize_check`: one summary of the per-seed results files a tool wrote.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import statistics
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from torch import nn

from lamalib.analysis.head_removal import removal_curve, removal_effects, spearman
from lamalib.analysis.heads import (head_importance, normalize_per_layer, rank_heads,
                                    top_heads)


def state_bytes(model: nn.Module) -> bytes:
    """``model.state_dict()`` serialised with safetensors (tensors copied to the CPU,
    contiguous; no metadata), so the same weights give the same bytes."""
    from safetensors.torch import save

    state = {k: v.detach().cpu().clone().contiguous()
             for k, v in model.state_dict().items()}
    return save(state)


def state_sha256(model: nn.Module) -> str:
    """The SHA-256 (hex) of :func:`state_bytes`: it names a model's weights."""
    return hashlib.sha256(state_bytes(model)).hexdigest()


def topk_overlap(a, b, k: int = 3) -> int:
    """How many (layer, head) pairs are among the ``k`` most important of their layer
    under both score tables ``a`` and ``b`` (``(L, H)`` each; out of ``L * k``)."""
    a, b = torch.as_tensor(a, dtype=torch.float64), torch.as_tensor(b, dtype=torch.float64)
    if a.shape != b.shape:
        raise ValueError(f"score tables differ in shape: {tuple(a.shape)} vs "
                         f"{tuple(b.shape)}")
    return len(set(top_heads(a, k)) & set(top_heads(b, k)))


def curve_points(n_heads: int, step: int) -> list[int]:
    """Where a removal curve is measured: every ``step`` heads from 0 to ``n_heads``,
    with half the heads and all of them always included."""
    return sorted(set(range(0, n_heads + 1, max(step, 1))) | {n_heads // 2, n_heads})


def check_importance(model: nn.Module, batches: Sequence, loss_fn: Callable,
                     k: int = 3, n_random: int = 3, seed: int = 0,
                     step: int = 1) -> dict:
    """Taylor importance of ``model``'s heads on ``batches`` set against removing them.

    Args:
        model, batches, loss_fn: as :func:`lamalib.analysis.heads.head_importance`
            takes them (a tagger, held-out batches, its training step).
        k: heads per layer in the top-k overlaps.
        n_random: random removal orders (a ``numpy`` generator seeded ``seed``).
        step: measure the curves every ``step`` heads (:func:`curve_points`).

    Returns a dict of plain lists and numbers: ``importance_taylor`` (normalised per
    layer) and ``importance_taylor_raw`` ``(L, H)``; ``removal_effects`` ``(L, H)``
    (loss with the head removed minus the intact loss); ``spearman`` and
    ``spearman_raw`` (each ranking against the effects); ``top_heads`` and
    ``overlap_with_removal`` (top-k of Taylor vs top-k of the effects, of ``L * k``);
    ``order`` (heads, most important first); ``points`` (heads removed);
    ``curve_importance`` and ``curves_random`` (losses at ``points``),
    ``random_orders``; ``half`` and the losses there (``at_half_importance``,
    ``at_half_random`` the mean over random orders).
    """
    raw = head_importance(model, batches, loss_fn, normalize=False)  # (L, H)
    taylor = normalize_per_layer(raw)
    effects = removal_effects(model, batches, loss_fn)  # (L, H)
    order = rank_heads(taylor)
    n = len(order)
    points = curve_points(n, step)
    rng = np.random.default_rng(seed)
    randoms = [[order[i] for i in rng.permutation(n)] for _ in range(n_random)]
    by_rank = removal_curve(model, batches, loss_fn, order, at=points)
    curves = [removal_curve(model, batches, loss_fn, o, at=points) for o in randoms]
    half = points.index(n // 2)
    return {
        "importance_taylor": taylor.tolist(), "importance_taylor_raw": raw.tolist(),
        "removal_effects": effects.tolist(),
        "spearman": spearman(taylor, effects), "spearman_raw": spearman(raw, effects),
        "top_k": k, "top_heads": top_heads(taylor, k),
        "overlap_with_removal": topk_overlap(taylor, effects, k),
        "order": order, "points": points, "curve_importance": by_rank,
        "curves_random": curves, "random_orders": randoms, "random_seed": seed,
        "half": n // 2, "at_half_importance": by_rank[half],
        "at_half_random": statistics.fmean(c[half] for c in curves),
    }


def summarize_check(folder: str | Path, pattern: str = "seed*.json") -> dict:
    """What the per-seed files of an importance check (``check_importance`` fields
    plus ``seed`` and ``sha256``) say together.

    Returns ``seeds``; ``sha256`` per seed; ``spearman`` and ``spearman_raw`` per
    seed; ``overlap_with_removal`` per seed (of ``slots`` = layers x k); per seed
    against the size of each removal's effect, ``|effect|`` (Taylor's absolute
    values estimate a size, not a sign): ``spearman_size`` (raw Taylor) and
    ``overlap_with_removal_size``; ``removal_lowers_loss``, how many heads' removal
    lowers the loss;
    ``overlap_between_seeds`` ``{"a-b": shared top-k heads}`` for every pair and its
    ``overlap_mean``; ``half`` and per seed ``at_half_importance``,
    ``at_half_random`` and ``intact`` (the loss with every head); ``points`` and
    per seed ``curve_importance`` and ``curve_random`` (the mean of the random
    orders' curves); ``finetune_f1`` per seed where recorded.
    """
    files = sorted(Path(folder).glob(pattern))
    runs = sorted((json.loads(f.read_text()) for f in files), key=lambda r: r["seed"])
    if not runs:
        raise ValueError(f"{folder}: no results files matching {pattern!r}")
    seeds = [r["seed"] for r in runs]
    k = runs[0]["top_k"]
    tables = {r["seed"]: r["importance_taylor"] for r in runs}
    pairs = {f"{a}-{b}": topk_overlap(tables[a], tables[b], k)
             for a, b in itertools.combinations(seeds, 2)}
    per = lambda key: {r["seed"]: r[key] for r in runs}  # noqa: E731
    raw = {r["seed"]: torch.tensor(r["importance_taylor_raw"]) for r in runs}
    size = {r["seed"]: torch.tensor(r["removal_effects"]).abs() for r in runs}
    return {
        "seeds": seeds, "top_k": k,
        "slots": len(runs[0]["importance_taylor"]) * k,
        "sha256": per("sha256"),
        "spearman": per("spearman"), "spearman_raw": per("spearman_raw"),
        "overlap_with_removal": per("overlap_with_removal"),
        # Taylor scores |g . theta|, a size: set against the size of the change too
        "spearman_size": {s: spearman(raw[s], size[s]) for s in seeds},
        "overlap_with_removal_size": {s: topk_overlap(tables[s], size[s], k)
                                      for s in seeds},
        "removal_lowers_loss": {r["seed"]: sum(e < 0 for row in r["removal_effects"]
                                               for e in row) for r in runs},
        "overlap_between_seeds": pairs,
        "overlap_mean": statistics.fmean(pairs.values()) if pairs else None,
        "half": runs[0]["half"],
        "at_half_importance": per("at_half_importance"),
        "at_half_random": per("at_half_random"),
        "intact": {r["seed"]: r["curve_importance"][0] for r in runs},
        "points": runs[0]["points"],
        "curve_importance": per("curve_importance"),
        "curve_random": {r["seed"]: np.mean(r["curves_random"], axis=0).tolist()
                         for r in runs},
        "finetune_f1": {r["seed"]: r["finetune"]["scores"]["F1"] for r in runs
                        if "finetune" in r},
    }


__all__ = ["check_importance", "curve_points", "state_bytes", "state_sha256",
           "summarize_check", "topk_overlap"]
