"""Interpretable attention patterns as predicates between token pairs (chapter
"Finding and injecting attention patterns"; Li et al., 2022).

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

How much a head attends along a pattern is :mod:`lamalib.nn.patterns.finding`
(eq. (1)); putting a pattern into a head is :mod:`lamalib.nn.patterns.injection`.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

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


# Residual patterns: what a pattern claims beyond a simpler one it overlaps. A
# previous-token head scores high on same_span (the previous token is almost always in
# the same sentence) and a head that attends to itself scores on matching (a token
# matches itself), so a head is credited with the bigger pattern only by its residual.
@register_pattern("same_span_far")
def same_span_far(tokens, mask, spans=None) -> torch.Tensor:
    """Same span and more than one token apart: ``same_span`` without ``i - 1``,
    ``i`` and ``i + 1`` (what a previous-, next- or self-token head cannot score)."""
    i = torch.arange(tokens.shape[1], device=tokens.device)
    far = (i[:, None] - i[None, :]).abs() > 1  # (T, T)
    return same_span(tokens, mask, spans) & far  # (B, T, T)


@register_pattern("matching_other")
def matching_other(tokens, mask, spans=None, *,
                   never: Sequence[int] = ()) -> torch.Tensor:
    """``matching`` without the diagonal: another occurrence of the same token."""
    eye = torch.eye(tokens.shape[1], dtype=torch.bool, device=tokens.device)
    return matching_token(tokens, mask, spans, never=never) & ~eye  # (B, T, T)


@register_pattern("special")
def special_token(tokens, mask, spans=None, *,
                  ids: Sequence[int] = ()) -> torch.Tensor:
    """x_j is a special token (one of ``ids``, e.g. BERT's ``[CLS]`` and ``[SEP]``),
    whatever x_i is: the pattern of heads that park their attention on the separators
    (Clark et al., 2019). ``ids`` must be given: bind them with
    ``bind_pattern("special", ids=(tokenizer.cls_id, tokenizer.sep_id))``."""
    if not len(ids):
        raise ValueError("the special pattern needs the special tokens' ids: "
                         "bind_pattern('special', ids=(cls_id, sep_id))")
    wanted = torch.as_tensor(list(ids), dtype=tokens.dtype, device=tokens.device)
    key = torch.isin(tokens, wanted)  # (B, T): position j holds a special token
    return key[:, None, :].expand(*tokens.shape, tokens.shape[-1])  # (B, T, T)


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
