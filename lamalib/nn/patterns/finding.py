"""Finding the heads that follow a pattern: how much each head attends along it
(global relevance, eq. (1)) and the heads that stand out (chapter "Finding and
injecting attention patterns"; Li et al., 2022, section 3)."""

from __future__ import annotations

import math

from typing import Callable, Iterable, Sequence

import torch
from torch import nn

from lamalib.nn.patterns.predicates import Predicate, pattern_cells
from lamalib.nn.self_attention.collect import collect_attention


def relevance(weights: torch.Tensor, cells: torch.Tensor,
              mask: torch.Tensor) -> torch.Tensor:
    """Per-document relevance ``sum_ij alpha_ij 1_P(x_i, x_j) / |x|``, eq. (1).

    Args:
        weights: ``(..., B, H, T, T)`` attention (e.g. ``(L, B, H, T, T)``).
        cells: ``(B, T, T)`` from :func:`pattern_cells`. mask: ``(B, T)``.

    Returns ``(..., B, H)``.
    """
    hits = (weights * cells[:, None].to(weights.dtype)).sum((-2, -1))  # (..., B, H)
    return hits / mask.sum(-1)[:, None].to(weights.dtype)  # divide by |x|


def uniform_relevance(cells: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Eq. (1) for uniform attention (every query spreads 1/|x| over the real keys):
    ``sum_ij 1_P(x_i, x_j) / |x|^2`` per document -> ``(B,)``. The reference a head
    that follows no pattern sits near.

    Args:
        cells: ``(B, T, T)`` from :func:`pattern_cells`. mask: ``(B, T)``.
    """
    n = mask.sum(-1).to(torch.float64)  # (B,): |x|
    return (cells.sum((-2, -1)).to(torch.float64) / n ** 2).float()  # (B,)


def _forward(model, batch):
    return model(batch.tokens, batch.mask)


def named_patterns(patterns: Sequence[str | Predicate] | dict) -> list[tuple]:
    """``[(name, pattern)]``: a dict's items as they are (so that two bindings of one
    pattern, e.g. the ``special`` key ``[CLS]`` and the ``special`` key ``[SEP]``, keep
    names of their own), else each pattern under its name or ``__name__``."""
    if isinstance(patterns, dict):
        return list(patterns.items())
    return [(p if isinstance(p, str) else p.__name__, p) for p in patterns]


@torch.no_grad()
def global_relevance(model: nn.Module, batches: Iterable,
                     patterns: Sequence[str | Predicate] | dict,
                     forward: Callable = _forward,
                     attention: Callable | None = None) -> dict:
    """GR(P, h) of eq. (1) for every head and pattern, over validation documents.

    Args:
        batches: objects with ``tokens (B, T)``, ``mask (B, T)`` and optionally
            ``spans (B, T)``; each row is one document.
        patterns: names from ``PATTERNS`` or predicates (keyed by ``__name__``), or
            a dict ``{name: pattern}``.
        forward: ``forward(model, batch)`` runs the model (default:
            ``model(batch.tokens, batch.mask)``).
        attention: ``attention(model, batch) -> (L, B, H, T, T)``, the weights of a
            model whose layers are not lamalib's (a Hugging Face encoder); default:
            the weights lamalib's attention layers keep while ``forward`` runs.

    Returns ``{pattern name: (L, H)}``: the mean over documents of eq. (1).
    """
    model.eval()
    named = named_patterns(patterns)
    sums: dict[str, torch.Tensor] = {}
    docs = 0
    for batch in batches:
        spans = getattr(batch, "spans", None)
        if attention is None:
            w = collect_attention(model, lambda: forward(model, batch))
        else:
            w = attention(model, batch)  # (L, B, H, T, T)
        for name, p in named:
            cells = pattern_cells(p, batch.tokens, batch.mask, spans)
            per_doc = relevance(w.float(), cells, batch.mask).sum(1).cpu()  # (L, H)
            sums[name] = per_doc if name not in sums else sums[name] + per_doc
        docs += batch.tokens.shape[0]
    if docs == 0:
        raise ValueError("global_relevance needs at least one document")
    return {name: s / docs for name, s in sums.items()}


@torch.no_grad()
def document_relevance(model: nn.Module, batches: Iterable,
                       patterns: Sequence[str | Predicate] | dict,
                       forward: Callable = _forward,
                       attention: Callable | None = None) -> tuple[dict, dict]:
    """Eq. (1) per document, and uniform attention's value per document, for the
    bootstrap over documents (:func:`ratio_interval`); arguments as
    :func:`global_relevance`, whose result is the mean of the first over documents.

    Returns ``({name: (D, L, H)}, {name: (D,)})``.
    """
    model.eval()
    named = named_patterns(patterns)
    per: dict[str, list] = {name: [] for name, _ in named}
    even: dict[str, list] = {name: [] for name, _ in named}
    for batch in batches:
        spans = getattr(batch, "spans", None)
        if attention is None:
            w = collect_attention(model, lambda: forward(model, batch))
        else:
            w = attention(model, batch)  # (L, B, H, T, T)
        for name, p in named:
            cells = pattern_cells(p, batch.tokens, batch.mask, spans)
            per[name].append(relevance(w.float(), cells, batch.mask).movedim(-2, 0)
                             .cpu())  # (B, L, H)
            even[name].append(uniform_relevance(cells, batch.mask).cpu())  # (B,)
    return ({n: torch.cat(v) for n, v in per.items()},
            {n: torch.cat(v) for n, v in even.items()})


def ratio_interval(per_doc: torch.Tensor, uniform: torch.Tensor, draws: int = 2000,
                   level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """GR divided by uniform attention's GR, ``mean(per_doc) / mean(uniform)``, and
    its percentile bootstrap interval over documents (documents drawn with
    replacement, both means from the same draw): ``per_doc (D,)`` one head's eq. (1)
    per document, ``uniform (D,)`` -> ``(ratio, low, high)``."""
    per_doc, uniform = per_doc.double(), uniform.double()
    g = torch.Generator().manual_seed(seed)
    idx = torch.randint(len(per_doc), (draws, len(per_doc)), generator=g)  # (R, D)
    boot = per_doc[idx].mean(1) / uniform[idx].mean(1)  # (R,)
    tail = (1 - level) / 2
    lo, hi = torch.quantile(boot, torch.tensor([tail, 1 - tail], dtype=boot.dtype))
    return float(per_doc.mean() / uniform.mean()), float(lo), float(hi)


def significant_heads(gr: torch.Tensor, n_sigma: float = 3.0) -> torch.Tensor:
    """Heads whose GR is more than ``n_sigma`` standard deviations above the mean
    over all heads -> bool, the shape of ``gr`` (Li et al.'s 3-sigma rule).

    The standard deviation is the population one (all heads, ddof = 0). One head
    among n can sit at most sqrt(n - 1) deviations above the mean (Samuelson's
    inequality), so when n - 1 <= n_sigma^2 no head can pass: with 10 heads or fewer
    the 3-sigma rule never fires. That bound is applied as the theorem, by counting
    heads, because float rounding can put a head that sits exactly on it a hair
    above (one head at 0.1 among ten: z comes out 3 plus two units in the last
    place). Above the bound the comparison is the float one; a head exactly at
    n_sigma is then a rounding tie.
    """
    n = gr.numel()
    if n - 1 <= n_sigma ** 2:  # Samuelson: z <= sqrt(n - 1) <= n_sigma, never above
        return torch.zeros_like(gr, dtype=torch.bool)
    g = gr.flatten().double()
    return (gr.double() > g.mean() + n_sigma * g.std(unbiased=False)).reshape(gr.shape)


def z_ceiling(n: int) -> float:
    """The most standard deviations (population, as :func:`significant_heads`) one
    head can stand above the mean of ``n`` heads: sqrt(n - 1) (Samuelson), reached
    when one head has all the pattern and the others none. 16 heads: 3.87; 72: 8.43."""
    return math.sqrt(n - 1) if n > 1 else 0.0


def kept_patterns(grs: dict, n_sigma: float = 3.0) -> list[str]:
    """Patterns with at least one significant head (see :func:`significant_heads`):
    Li et al.'s rule validates a *pattern* (some head, anywhere in the model, lies
    ``n_sigma`` standard deviations above the mean GR over all heads); it does not
    classify heads."""
    return [name for name, gr in grs.items() if significant_heads(gr, n_sigma).any()]
