"""BERT's pretraining data: masked tokens (80/10/10) and next-sentence pairs.

Chapter "The Transformer" explains both objectives; Devlin et al. (2019), section 3.1.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

import torch

from lamalib import runtime
from lamalib.data.vocab import Vocab

IGNORE_INDEX = -100  # cross_entropy skips these targets: unselected positions
MASK = "[MASK]"


def with_mask_token(vocab: Vocab) -> Vocab:
    """A copy of ``vocab`` with ``[MASK]`` at id 2 (after ``<pad>`` and ``<unk>``)."""
    if MASK in vocab:
        return vocab
    return Vocab([*vocab.itos[:2], MASK, *vocab.itos[2:]], dict(vocab.counts))


def mask_tokens(
    tokens: torch.Tensor,
    mask: torch.Tensor,
    mask_id: int,
    vocab_size: int,
    special_ids: Sequence[int] = (),
    select_prob: float = 0.15,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Choose positions to predict; corrupt them by BERT's 80/10/10 rule, eq. (10).

    Each real, non-special token is selected with probability ``select_prob``. A
    selected token is replaced by ``mask_id`` 80% of the time, by a random non-special
    token 10% of the time, and left unchanged 10% of the time; the model must predict
    the original at every selected position. The random and unchanged cases keep the
    model from learning that only ``[MASK]`` positions matter, since ``[MASK]`` never
    appears when the pretrained model is fine-tuned.

    Args:
        tokens: ``(B, T)`` long ids.
        mask: ``(B, T)`` bool, True at real tokens (padding is never selected).
        mask_id: id of the ``[MASK]`` token.
        vocab_size: V; random replacements are drawn from ids not in ``special_ids``.
        special_ids: ids never selected nor drawn (pad, unk, cls, sep, mask ...).
        select_prob: share of tokens to predict (0.15 in BERT).
        generator: a seeded ``torch.Generator`` for reproducible masks.

    Returns:
        ``inputs (B, T)`` (the corrupted tokens) and ``labels (B, T)``: the original id
        at selected positions and ``IGNORE_INDEX`` elsewhere.
    """
    special = torch.tensor(sorted(set(special_ids) | {mask_id}), dtype=torch.long)
    candidates = torch.ones(vocab_size, dtype=torch.bool)
    candidates[special] = False
    candidate_ids = candidates.nonzero().squeeze(1)  # (V',) ids a random draw may give

    def uniform() -> torch.Tensor:
        return torch.rand(tokens.shape, generator=generator)  # (B, T)

    eligible = mask & ~torch.isin(tokens, special)  # (B, T)
    selected = eligible & (uniform() < select_prob)  # (B, T)
    branch = uniform()  # (B, T) one draw decides mask / random / keep
    to_mask = selected & (branch < 0.8)
    to_random = selected & (branch >= 0.8) & (branch < 0.9)
    # the remaining selected positions (branch >= 0.9) keep their token

    picks = torch.randint(len(candidate_ids), tokens.shape, generator=generator)
    inputs = tokens.clone()
    inputs[to_mask] = mask_id
    inputs[to_random] = candidate_ids[picks][to_random]
    labels = torch.where(selected, tokens, torch.full_like(tokens, IGNORE_INDEX))
    return inputs, labels  # (B, T), (B, T)


@dataclass(frozen=True)
class SentencePair:
    """Two segments for next-sentence prediction; ``is_next`` is the label."""

    first: list[str]
    second: list[str]
    is_next: bool


def chunk(tokens: Sequence[str], size: int) -> list[list[str]]:
    """Cut a document into consecutive segments of ``size`` tokens (the last may be
    shorter)."""
    if size < 1:
        raise ValueError(f"segment size must be >= 1, got {size}")
    return [list(tokens[i : i + size]) for i in range(0, len(tokens), size)]


def make_nsp_pairs(
    documents: Sequence[Sequence[Sequence[str]]], seed: int = 0
) -> list[SentencePair]:
    """Next-sentence pairs: for each segment and its successor in a document, keep the
    true successor with probability 1/2, else take a segment of another document.

    Args:
        documents: each document is a list of segments (sentences or ``chunk``s);
            at least two documents are needed to draw negatives.
        seed: seed of the private random generator.
    """
    if len(documents) < 2:
        raise ValueError("next-sentence pairs need two or more documents (negatives)")
    rng = random.Random(runtime.seed(seed))  # shifted by LAMALIB_SEED
    pairs = []
    for d, doc in enumerate(documents):
        for first, successor in zip(doc[:-1], doc[1:]):
            if rng.random() < 0.5:
                pairs.append(SentencePair(list(first), list(successor), True))
                continue
            other = rng.randrange(len(documents) - 1)
            other += other >= d  # skip the document itself
            second = rng.choice(documents[other])
            pairs.append(SentencePair(list(first), list(second), False))
    return pairs


def pack_pair(
    first: Sequence[int], second: Sequence[int], cls_id: int, sep_id: int
) -> tuple[list[int], list[int]]:
    """BERT's input ``[CLS] first [SEP] second [SEP]`` and its segment ids (0 / 1)."""
    ids = [cls_id, *first, sep_id, *second, sep_id]
    segments = [0] * (len(first) + 2) + [1] * (len(second) + 1)
    return ids, segments
