"""Context-dependent word weights: the attention each occurrence of a word receives,
by gold label, and the most attended words of each class (chapter "LAMA", the paper's
Figure 4 and Table 6, Mehta et al. arXiv 1912.00835 section 5.4).

The model is any classifier that keeps ``last_weights (B, m, T)`` after a forward
(the LAMA family, SAN). One number per token: the weight averaged over the m heads,
``mean_i A[i, t]``, the share of the pooled ``S`` rows that the word makes up on
average. A document of T words has a uniform weight of ``1 / T``, so each occurrence
also records its document's length: ``weight * length`` is 1 for a uniform head.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, Sequence

import torch


@torch.no_grad()
def token_weights(model: torch.nn.Module, batches: Iterable
                  ) -> Iterable[tuple[list[int], list[float], int]]:
    """Yield ``(token ids, head-averaged weights, gold label)`` of every document.

    Args:
        model: a classifier whose forward ``(tokens (B, T), mask (B, T))`` leaves
            ``last_weights (B, m, T)``; it is put in eval mode (no dropout).
        batches: :class:`lamalib.data.Batch` es (``tokens``, ``mask``, ``labels``).
    """
    model.eval()
    device = next(model.parameters()).device
    for batch in batches:
        tokens, mask = batch.tokens.to(device), batch.mask.to(device)  # (B, T)
        model(tokens, mask)
        mean = model.last_weights.float().mean(dim=1).cpu()  # (B, T): heads averaged
        for ids, w, m, y in zip(tokens.cpu(), mean, mask.cpu(), batch.labels.tolist()):
            keep = m.nonzero().squeeze(1)  # positions of real tokens, in order
            yield ids[keep].tolist(), w[keep].tolist(), int(y)


def word_occurrence_weights(model: torch.nn.Module, batches: Iterable,
                            word_ids: dict[str, int]) -> list[dict]:
    """One row per occurrence of a chosen word in ``batches``.

    Args:
        word_ids: ``{word: vocabulary id}`` of the words to follow.

    Returns:
        ``[{"word", "label", "weight", "length"}, ...]``: ``weight`` is the attention
        the occurrence receives, averaged over the heads; ``label`` the document's gold
        label id; ``length`` its number of real tokens (``weight * length`` is 1 for a
        uniform head).
    """
    by_id = {i: w for w, i in word_ids.items()}
    rows = []
    for ids, weights, label in token_weights(model, batches):
        for token, weight in zip(ids, weights):
            if token in by_id:
                rows.append({"word": by_id[token], "label": label, "weight": weight,
                             "length": len(ids)})
    return rows


def top_attended_words(model: torch.nn.Module, batches: Iterable,
                       itos: Sequence[str], k: int = 10, per_document: int = 1,
                       skip: Iterable[int] = ()) -> dict[int, list[tuple[str, int]]]:
    """The words most often among a document's most attended tokens, per gold class.

    Each document votes for the distinct words at its ``per_document`` largest
    head-averaged weights (ties: the earlier position); a class's list is its ``k``
    most voted words with their votes (ties: the word first seen).

    Args:
        itos: vocabulary id -> word.
        skip: ids that never count (``<unk>``, say).

    Returns:
        ``{label id: [(word, votes), ...]}`` for every label seen.
    """
    skip = set(skip)
    votes: dict[int, Counter] = defaultdict(Counter)
    for ids, weights, label in token_weights(model, batches):
        order = sorted(range(len(ids)), key=lambda t: (-weights[t], t))
        chosen = []
        for t in order:
            if ids[t] not in skip and ids[t] not in chosen:
                chosen.append(ids[t])
            if len(chosen) == per_document:
                break
        votes[label].update(itos[i] for i in chosen)
    return {label: c.most_common(k) for label, c in sorted(votes.items())}


def top_relative_weight_words(model: torch.nn.Module, batches: Iterable,
                              itos: Sequence[str], k: int = 10, min_count: int = 5,
                              skip: Iterable[int] = ()
                              ) -> dict[int, list[tuple[str, float, int]]]:
    """The words with the largest mean ``weight * length`` per gold class.

    ``weight * length`` is 1 for a uniform head, so a word's mean says how many times
    the uniform share it gets, whatever the documents' lengths. Only words seen at
    least ``min_count`` times in a class's documents are ranked (ties: the word first
    seen).

    Returns:
        ``{label id: [(word, mean weight * length, occurrences), ...]}``.
    """
    skip = set(skip)
    sums: dict[int, dict[int, list[float]]] = defaultdict(dict)
    for ids, weights, label in token_weights(model, batches):
        for token, weight in zip(ids, weights):
            if token not in skip:
                entry = sums[label].setdefault(token, [0.0, 0])
                entry[0] += weight * len(ids)
                entry[1] += 1
    top = {}
    for label in sorted(sums):
        kept = [(itos[i], s / n, n) for i, (s, n) in sums[label].items()
                if n >= min_count]
        top[label] = sorted(kept, key=lambda r: -r[1])[:k]  # stable: first seen
    return top
