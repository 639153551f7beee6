"""What word2vec samples: noise words, kept words, (center, context) pairs.

Chapter "Word vectors" derives each function; the equation numbers below are that
chapter's. The formulas follow the original C tool and gensim, so that our training and
gensim's see the same data.
"""

from __future__ import annotations

import torch


def noise_distribution(counts: torch.Tensor, power: float = 0.75) -> torch.Tensor:
    """The negative-sampling noise distribution ``P_n(w) ∝ count(w) ** power``.

    Args:
        counts: ``(V,)`` how often each word occurs in the corpus.
        power: 0.75 as in word2vec; 1 is the unigram distribution, 0 the uniform one.

    Returns:
        ``(V,)`` probabilities that sum to 1.
    """
    weights = counts.double().pow(power)  # (V,)  eq. (4)
    return (weights / weights.sum()).float()  # (V,)


def draw_negatives(cum: torch.Tensor, targets: torch.Tensor, k: int,
                   generator: torch.Generator | None = None) -> torch.Tensor:
    """``(B, K)`` noise words for the ``targets (B,)``, none equal to its row's target.

    Words are drawn from the cumulative noise table ``cum (V,)`` (``cumsum`` of
    :func:`noise_distribution`, last entry 1), as gensim's ``cum_table``. A draw that
    hits its row's target is drawn again, so every row keeps K noise words; the C tool
    and gensim (``word2vec_inner.pyx``) skip such a draw instead. Either way a word is
    never its own noise word, which would push its output vector away from the hidden
    vector that the true pair pulls it towards. A row's noise words follow
    ``P_n(w) / (1 - P_n(target))`` for ``w != target``.
    """
    V = cum.numel()
    if V < 2:
        raise ValueError("negative sampling needs at least two words in the vocabulary")

    def draw(n: int) -> torch.Tensor:
        u = torch.rand(n, generator=generator, device=cum.device)  # (n,)
        return torch.searchsorted(cum, u).clamp(max=V - 1)  # (n,)

    negatives = draw(targets.numel() * k).view(-1, k)  # (B, K)
    clash = negatives == targets[:, None]  # (B, K)
    while clash.any():  # ends: every other word has a positive probability
        negatives[clash] = draw(int(clash.sum()))
        clash = negatives == targets[:, None]  # (B, K)
    return negatives  # (B, K)


def keep_probabilities(counts: torch.Tensor, sample: float = 1e-3) -> torch.Tensor:
    """Probability of keeping each occurrence of a word when subsampling frequent words.

    With relative frequency ``f = count / total``:
    ``P_keep = (sqrt(f / sample) + 1) * sample / f``, capped at 1 (eq. (5), the rule
    of the C tool and gensim). Rare words are always kept; a word that makes up 5 %
    of the corpus is kept about 16 % of the time with ``sample=1e-3``.

    Args:
        counts: ``(V,)`` word counts (zero counts are allowed and get probability 1).
        sample: the threshold ``s``; 0 turns subsampling off.

    Returns:
        ``(V,)`` probabilities in (0, 1].
    """
    if sample <= 0:
        return torch.ones_like(counts, dtype=torch.float)
    f = counts.double() / counts.sum()  # (V,)
    # clamp: a word with count 0 must not divide by 0.
    ratio = f.clamp_min(1e-300) / sample  # (V,)
    keep = (ratio.sqrt() + 1) / ratio  # (V,)  eq. (5)
    return keep.clamp(max=1.0).float()  # (V,)


def subsample(ids: torch.Tensor, keep: torch.Tensor,
              generator: torch.Generator | None = None) -> torch.Tensor:
    """Bool mask ``(N,)``: which of the token ids ``(N,)`` survive subsampling.

    Args:
        ids: ``(N,)`` token ids of the (concatenated) corpus.
        keep: ``(V,)`` from :func:`keep_probabilities`.
    """
    draw = torch.rand(ids.shape, generator=generator)  # (N,)
    return draw < keep[ids]  # (N,)


def context_pairs(sentence_of: torch.Tensor, window: int,
                  reduced: torch.Tensor | None = None,
                  generator: torch.Generator | None = None) -> torch.Tensor:
    """Index pairs ``(center, context)`` of tokens at most ``window`` apart.

    As in word2vec, each center position ``i`` uses its own window ``reduced[i]`` drawn
    uniformly from ``1..window``: near words are paired more often than far ones
    (weights ``(window - d + 1) / window`` at distance ``d``). Pairs never cross a
    sentence boundary.

    Args:
        sentence_of: ``(N,)`` sentence index of each position, non-decreasing.
        window: the largest distance ``W``.
        reduced: ``(N,)`` effective windows in ``1..W``; drawn when None.

    Returns:
        ``(P, 2)`` long: positions of the center and of the context token.
    """
    N = sentence_of.numel()
    if reduced is None:
        reduced = torch.randint(1, window + 1, (N,), generator=generator)  # (N,)
    positions = torch.arange(N)  # (N,)
    chunks = []
    # A loop over the 2W offsets, each vectorized over all N positions: fast and simple.
    for d in range(1, window + 1):
        for sign in (-1, 1):
            ctx = positions + sign * d  # (N,)
            inside = (ctx >= 0) & (ctx < N)  # (N,)
            same = sentence_of[ctx.clamp(0, N - 1)] == sentence_of  # (N,)
            ok = inside & same & (reduced >= d)  # (N,)
            chunks.append(torch.stack([positions[ok], ctx[ok]], dim=1))  # (P_d, 2)
    pairs = torch.cat(chunks)  # (P, 2)
    # Sorted by center then context, so the order never depends on the loop above.
    order = torch.argsort(pairs[:, 0] * N + pairs[:, 1])
    return pairs[order]  # (P, 2)


def context_windows(sentence_of: torch.Tensor, window: int,
                    reduced: torch.Tensor | None = None,
                    generator: torch.Generator | None = None,
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """For CBOW: each position's context positions, padded, with a mask.

    Args: as :func:`context_pairs`.

    Returns:
        ``context (N, 2W)`` long positions (0 where padded) and ``mask (N, 2W)`` bool,
        True for a real context token. A position with no context has an all-False row.
    """
    N = sentence_of.numel()
    pairs = context_pairs(sentence_of, window, reduced, generator)  # (P, 2)
    centers, ctx = pairs[:, 0].contiguous(), pairs[:, 1]  # (P,), (P,)
    # Slot of each pair within its center's row: running count of equal centers.
    starts = torch.searchsorted(centers, torch.arange(N))  # (N,)
    slot = torch.arange(len(centers)) - starts[centers]  # (P,)
    context = torch.zeros(N, 2 * window, dtype=torch.long)  # (N, 2W)
    mask = torch.zeros(N, 2 * window, dtype=torch.bool)  # (N, 2W)
    context[centers, slot] = ctx
    mask[centers, slot] = True
    return context, mask
