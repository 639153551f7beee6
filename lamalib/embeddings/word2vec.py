"""word2vec in PyTorch: skip-gram and CBOW, negative sampling (chapter "Word vectors").

Each word ``w`` has two vectors: an input vector ``v_w`` (the word vector we keep) and
an output vector ``u_w`` (used only to score it as a context). Skip-gram predicts a
context word from the center word, CBOW predicts the center word from the mean of its
context.
Both are trained with negative sampling, eq. (3) of the chapter.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def negative_sampling_loss(positive: torch.Tensor,
                           negative: torch.Tensor) -> torch.Tensor:
    """``-log σ(s+) - Σ_k log σ(-s_k)`` for one true pair and K noise pairs.

    Args:
        positive: ``(B,)`` score ``u_o · h`` of the observed word.
        negative: ``(B, K)`` scores ``u_k · h`` of K words drawn from the noise
            distribution.

    Returns:
        ``(B,)`` loss per example (eq. (3)).
    """
    # logsigmoid is the numerically safe log(sigmoid(x)) (no log(0) for large |x|).
    return -F.logsigmoid(positive) - F.logsigmoid(-negative).sum(dim=-1)  # (B,)


class _NegativeSampling(nn.Module):
    """Input and output embeddings shared by :class:`SkipGram` and :class:`CBOW`."""

    def __init__(self, vocab_size: int, dim: int, sparse: bool = True) -> None:
        super().__init__()
        # Sparse gradients: a batch touches a few hundred of V rows; dense Adam would
        # update (and decay the moments of) all V rows at every step.
        self.inp = nn.Embedding(vocab_size, dim, sparse=sparse)  # v_w
        self.out = nn.Embedding(vocab_size, dim, sparse=sparse)  # u_w
        # word2vec's initialization: small random inputs, zero outputs, so every score
        # starts at 0 and every word starts with the same loss K+1 times log 2.
        nn.init.uniform_(self.inp.weight, -0.5 / dim, 0.5 / dim)
        nn.init.zeros_(self.out.weight)

    def score(self, h: torch.Tensor, target: torch.Tensor,
              negatives: torch.Tensor) -> torch.Tensor:
        """Loss ``(B,)`` of predicting ``target (B,)`` against ``negatives (B, K)``
        from the hidden vectors ``h (B, E)``."""
        u_pos = self.out(target)  # (B, E)
        u_neg = self.out(negatives)  # (B, K, E)
        positive = (h * u_pos).sum(dim=-1)  # (B,)
        negative = torch.bmm(u_neg, h.unsqueeze(-1)).squeeze(-1)  # (B, K)
        return negative_sampling_loss(positive, negative)  # (B,)

    @property
    def vectors(self) -> torch.Tensor:
        """``(V, E)`` the input vectors ``v_w``: the word vectors word2vec publishes."""
        return self.inp.weight.detach()


class SkipGram(_NegativeSampling):
    """Skip-gram: the center word's vector predicts each context word (eq. (1)).

    Args:
        vocab_size: V.
        dim: E, the width of a word vector.
        sparse: sparse embedding gradients (use ``torch.optim.SparseAdam``).
    """

    def forward(self, center: torch.Tensor, context: torch.Tensor,
                negatives: torch.Tensor) -> torch.Tensor:
        """Loss ``(B,)``: pairs ``center (B,)``, ``context (B,)``, noise ``(B, K)``."""
        h = self.inp(center)  # (B, E)
        return self.score(h, context, negatives)  # (B,)


class CBOW(_NegativeSampling):
    """Continuous bag of words: the mean of the context vectors predicts the center word
    (eq. (2)); gensim's ``cbow_mean=1``.

    Args: as :class:`SkipGram`.
    """

    def forward(self, context: torch.Tensor, mask: torch.Tensor, center: torch.Tensor,
                negatives: torch.Tensor) -> torch.Tensor:
        """Loss ``(B,)`` of predicting ``center (B,)`` from ``context (B, 2W)`` whose
        real tokens are True in ``mask (B, 2W)``; noise words ``negatives (B, K)``."""
        m = mask.unsqueeze(-1).to(self.inp.weight.dtype)  # (B, 2W, 1)
        summed = (self.inp(context) * m).sum(dim=1)  # (B, E)
        # clamp: a row without context would divide by 0; callers drop such rows anyway.
        h = summed / m.sum(dim=1).clamp_min(1.0)  # (B, E)
        return self.score(h, center, negatives)  # (B,)
