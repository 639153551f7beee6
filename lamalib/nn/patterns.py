"""Interpretable attention patterns: predicates between token pairs, their global
relevance, and their injection into heads (chapter "Finding and injecting attention
patterns"; Li et al., 2022).

A pattern is a predicate P(x_i, x_j) between a query token i and a key token j. Each
predicate here is a function ``fn(tokens (B, T), mask (B, T), spans (B, T) | None) ->
(B, T, T) bool``; add your own with :func:`register_pattern`. ``spans`` gives each
token the id of its text span (its sentence, here), for span patterns. A predicate
may take keyword options (``matching`` takes ``never``, the ids that match nothing,
e.g. the vocabulary's ``<unk>``); :func:`bind_pattern` and :func:`with_never` fix them
into a named predicate that goes wherever a name goes.

* :func:`pattern_cells`: where P holds (pads excluded): what global relevance counts.
* :func:`pattern_mask`: the attention mask of eqs. (4)-(6): P's cells, and a query
  row where P holds nowhere is left free (eq. (4): a token that occurs once is not
  constrained).
* :func:`relevance` / :func:`global_relevance`: eq. (1).
* :func:`head_attention_mask`, :func:`fix_heads`: masked (eq. (3)) and fixed (eq. (2))
  heads, the rest of the heads stay free; :func:`sparsity`: rho = 1 - |M| / N^2.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import torch
from torch import nn

from lamalib.nn.multihead import MultiHeadAttention

Predicate = Callable[[torch.Tensor, torch.Tensor, "torch.Tensor | None"], torch.Tensor]
PATTERNS: dict[str, Predicate] = {}


def register_pattern(name: str):
    """Decorator: make a predicate usable by ``name`` everywhere in this module."""
    def add(fn: Predicate) -> Predicate:
        PATTERNS[name] = fn
        return fn
    return add


def get_pattern(pattern: str | Predicate) -> Predicate:
    """A predicate by name (see ``PATTERNS``) or the function itself."""
    if callable(pattern):
        return pattern
    if pattern not in PATTERNS:
        raise KeyError(f"unknown pattern {pattern!r}; known: {sorted(PATTERNS)} "
                       "(add one with register_pattern)")
    return PATTERNS[pattern]


@register_pattern("matching")
def matching_token(tokens, mask, spans=None, *,
                   never: Sequence[int] = ()) -> torch.Tensor:
    """x_i = x_j for a token that occurs more than once: 1[freq(x_i) > 1] 1[x_i = x_j]
    (Li et al., section 4.2.2). The diagonal counts: a token matches itself.

    ``never``: ids that match nothing, not even themselves. Pass the vocabulary's
    unknown id, ``(vocab.unk_id,)``: ``<unk>`` stands for every rare word, so two
    ``<unk>`` are not the same word; its row is then empty and :func:`pattern_mask`
    leaves it free, like a token that occurs once. Pads are excluded by ``mask``.
    The default, none, is the behaviour before ``never`` existed (``<unk>`` matched
    ``<unk>``), which the committed chapter-8 sweep used.
    """
    same = tokens[:, :, None] == tokens[:, None, :]  # (B, T, T)
    if len(never):
        ids = torch.as_tensor(list(never), dtype=tokens.dtype,
                              device=tokens.device)  # (K,): the ids that never match
        same = same & ~torch.isin(tokens, ids)[:, :, None]  # (B, T, T)
    real = mask[:, :, None] & mask[:, None, :]  # (B, T, T)
    freq = (same & real).sum(-1)  # (B, T): occurrences of x_i among the real tokens
    return same & (freq > 1)[:, :, None]  # (B, T, T)


@dataclass(frozen=True)
class BoundPattern:
    """A registered predicate with keyword options fixed, made by
    :func:`bind_pattern`: callable as ``(tokens, mask, spans=None)``, named like the
    pattern (``__name__``, so results stay keyed by it), hashable and equal by value
    (an :class:`Injection` may carry it)."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    def __call__(self, tokens, mask, spans=None) -> torch.Tensor:
        return get_pattern(self.name)(tokens, mask, spans, **dict(self.options))

    @property
    def __name__(self) -> str:
        return self.name


def bind_pattern(name: str, **options) -> BoundPattern:
    """The pattern ``name`` with keyword ``options`` fixed, e.g.
    ``bind_pattern("matching", never=(vocab.unk_id,))``; lists become tuples."""
    fn = get_pattern(name)
    try:
        inspect.signature(fn).bind(None, None, None, **options)
    except TypeError as err:
        raise TypeError(f"pattern {name!r} does not take {sorted(options)} ({err}); "
                        f"its signature is {inspect.signature(fn)}") from None
    frozen = {k: tuple(sorted(v)) if isinstance(v, (list, set, frozenset, tuple))
              else v for k, v in options.items()}
    return BoundPattern(name, tuple(sorted(frozen.items())))


def with_never(patterns: Sequence[str | Predicate],
               never: Sequence[int]) -> list[str | Predicate]:
    """``patterns`` with ``never`` (ids that match nothing, e.g. ``(vocab.unk_id,)``)
    bound into each registered one that takes it (``matching``); the others as given.
    An empty ``never`` gives the patterns unchanged."""
    if not len(never):
        return list(patterns)
    return [bind_pattern(p, never=tuple(int(i) for i in never))
            if isinstance(p, str) and "never" in
            inspect.signature(get_pattern(p)).parameters else p for p in patterns]


@register_pattern("same_span")
def same_span(tokens, mask, spans=None) -> torch.Tensor:
    """x_i and x_j lie in the same span (sentence or segment), eq. (5)."""
    if spans is None:
        raise ValueError("the same_span pattern needs spans (B, T): a span id per "
                         "token")
    return spans[:, :, None] == spans[:, None, :]  # (B, T, T)


def _offset(tokens: torch.Tensor, k: int) -> torch.Tensor:
    B, T = tokens.shape
    i = torch.arange(T, device=tokens.device)
    return (i[None, :] == i[:, None] + k).expand(B, T, T)  # (B, T, T): j = i + k


@register_pattern("previous")
def previous_token(tokens, mask, spans=None) -> torch.Tensor:
    """j = i - 1, eq. (6)."""
    return _offset(tokens, -1)


@register_pattern("next")
def next_token(tokens, mask, spans=None) -> torch.Tensor:
    """j = i + 1 (eq. (6) with +1)."""
    return _offset(tokens, +1)


def pattern_cells(pattern: str | Predicate, tokens: torch.Tensor, mask: torch.Tensor,
                  spans: torch.Tensor | None = None) -> torch.Tensor:
    """Where the pattern holds between two real tokens -> ``(B, T, T)`` bool."""
    cells = get_pattern(pattern)(tokens, mask, spans).to(torch.bool)
    if cells.shape != tokens.shape + tokens.shape[-1:]:
        raise ValueError(f"a predicate must return (B, T, T), got {tuple(cells.shape)}")
    return cells & mask[:, :, None] & mask[:, None, :]  # (B, T, T)


def pattern_mask(pattern: str | Predicate, tokens: torch.Tensor, mask: torch.Tensor,
                 spans: torch.Tensor | None = None) -> torch.Tensor:
    """The attention mask M^P of eqs. (4)-(6) -> ``(B, T, T)`` bool, True = allowed.

    Cells where P holds; a query row where P holds nowhere (a token that occurs once,
    the first token for "previous") may look at every real key, as eq. (4) says for
    matching tokens. Pad keys are never allowed.
    """
    cells = pattern_cells(pattern, tokens, mask, spans)  # (B, T, T)
    empty = ~cells.any(-1, keepdim=True)  # (B, T, 1): rows P leaves free
    return cells | (empty & mask[:, None, :])  # (B, T, T)


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


def _forward(model, batch):
    return model(batch.tokens, batch.mask)


@torch.no_grad()
def global_relevance(model: nn.Module, batches: Iterable,
                     patterns: Sequence[str | Predicate],
                     forward: Callable = _forward) -> dict:
    """GR(P, h) of eq. (1) for every head and pattern, over validation documents.

    Args:
        batches: objects with ``tokens (B, T)``, ``mask (B, T)`` and optionally
            ``spans (B, T)``; each row is one document.
        patterns: names from ``PATTERNS`` or predicates (keyed by ``__name__``).
        forward: ``forward(model, batch)`` runs the model (default:
            ``model(batch.tokens, batch.mask)``).

    Returns ``{pattern name: (L, H)}``: the mean over documents of eq. (1).
    """
    from lamalib.viz.explorer import collect_attention  # the explorer's reader

    model.eval()
    names = [p if isinstance(p, str) else p.__name__ for p in patterns]
    sums: dict[str, torch.Tensor] = {}
    docs = 0
    for batch in batches:
        spans = getattr(batch, "spans", None)
        w = collect_attention(model, lambda: forward(model, batch))  # (L, B, H, T, T)
        for name, p in zip(names, patterns):
            cells = pattern_cells(p, batch.tokens, batch.mask, spans)
            per_doc = relevance(w.float(), cells, batch.mask).sum(1).cpu()  # (L, H)
            sums[name] = per_doc if name not in sums else sums[name] + per_doc
        docs += batch.tokens.shape[0]
    if docs == 0:
        raise ValueError("global_relevance needs at least one document")
    return {name: s / docs for name, s in sums.items()}


def significant_heads(gr: torch.Tensor, n_sigma: float = 3.0) -> torch.Tensor:
    """Heads whose GR is more than ``n_sigma`` standard deviations above the mean
    over all heads -> bool, the shape of ``gr`` (Li et al.'s 3-sigma rule).

    The standard deviation is the population one (all heads, ddof = 0). One head
    among n can sit at most sqrt(n - 1) deviations above the mean (Samuelson's
    inequality), so with 10 heads or fewer the 3-sigma rule can never fire.
    """
    g = gr.flatten().double()
    return (gr.double() > g.mean() + n_sigma * g.std(unbiased=False)).reshape(gr.shape)


def kept_patterns(grs: dict, n_sigma: float = 3.0) -> list[str]:
    """Patterns with at least one significant head (see :func:`significant_heads`)."""
    return [name for name, gr in grs.items() if significant_heads(gr, n_sigma).any()]


INJECTIONS = ("masked", "fixed")  # eq. (3): mask added to QK^T; eq. (2): fixed weights


@dataclass(frozen=True)
class Injection:
    """One head of one layer carries ``pattern`` (a name, or a predicate such as a
    :class:`BoundPattern`), ``how`` = "masked" or "fixed"."""

    head: int
    pattern: str | Predicate
    how: str = "masked"

    def __post_init__(self) -> None:
        if self.how not in INJECTIONS:
            raise ValueError(f"how must be one of {INJECTIONS}, got {self.how!r}")
        get_pattern(self.pattern)  # fail early on an unknown name


def every_layer(n_layers: int,
                injections: Sequence[Injection]) -> list[list[Injection]]:
    """The same injections in every layer (as Li et al. do)."""
    return [list(injections) for _ in range(n_layers)]


def head_attention_mask(injections: Sequence[Injection], n_heads: int,
                        tokens: torch.Tensor, mask: torch.Tensor,
                        spans: torch.Tensor | None = None) -> torch.Tensor:
    """Per-head attention mask of one layer -> ``(B, H, T, T)`` bool.

    A head with an injection gets its pattern's mask (eqs. (4)-(6)); a free head may
    look at every real key (the usual padding mask).
    """
    B, T = tokens.shape
    free = mask[:, None, :].expand(B, T, T)  # (B, T, T): keys are the real tokens
    per_head = [free] * n_heads
    for inj in injections:
        if not 0 <= inj.head < n_heads:
            raise ValueError(f"head {inj.head} outside 0..{n_heads - 1}")
        per_head[inj.head] = pattern_mask(inj.pattern, tokens, mask, spans)
    return torch.stack(per_head, dim=1)  # (B, H, T, T)


def fix_heads(attn: MultiHeadAttention, heads: Sequence[int]):
    """Make ``heads`` of ``attn`` fixed-pattern heads, eq. (2).

    Their queries are set to zero, so every score q.k is 0 and the masked softmax
    spreads the weight uniformly over the cells the mask allows: the pattern's matrix
    with rows normalised, whatever Q and K have learned. (Li et al. write sigma(F);
    a softmax of a 0/1 matrix would not be uniform over its 1s, and they say their
    fixed rows are one-hot, which is what this gives for "previous" and "next".)
    Returns the hook handle (``.remove()`` frees the heads).
    """
    heads = sorted(set(int(h) for h in heads))

    def zero_queries(_module, _inputs, q):
        q = q.clone()  # (B, T, D)
        for h in heads:
            q[..., h * attn.d_head:(h + 1) * attn.d_head] = 0.0
        return q

    return attn.q_proj.register_forward_hook(zero_queries)


def sparsity(masks: Sequence[torch.Tensor], mask: torch.Tensor) -> torch.Tensor:
    """rho = 1 - |M| / N^2 per document, over every head of every layer -> ``(B,)``.

    Args:
        masks: one ``(B, H, T, T)`` attention mask per layer (pads excluded).
        mask: ``(B, T)``; N is each document's real length.
    """
    real = mask[:, None, :, None]  # (B, 1, T, 1): pad queries do not count
    allowed = sum((m & real).sum((1, 2, 3)).double() for m in masks)  # (B,)
    n = mask.sum(-1).double()  # (B,)
    full = len(masks) * masks[0].shape[1] * n * n  # L * H * N^2
    return 1.0 - allowed / full  # (B,)
