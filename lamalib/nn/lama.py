"""LAMA: low-rank multi-head attention with a global context (chapter "LAMA").

Mehta, Rangwala and Ramakrishnan (arXiv 1912.00835), section 3. From the word
annotations ``H (T, D)`` of one document (``D = 2h`` for a BiGRU of width h) and one
global context vector ``c (D,)``:

    u_t = tanh(W_w h_t + b_w)                              eq. (1) (paper eq. 7)
    f_t = c^T W_i u_t              (one head, W_i (D, D))  eq. (2) (paper eq. 8)
    f_t = c^T P Q^T u_t = 1^T (P^T c * Q^T u_t)  (rank k)  eq. (4) (paper eq. 10)
    f_t = P~^T c * Q~^T u_t        (rank 1, m heads)       eq. (5) (paper eq. 11)
    A = softmax(l2(tanh(P~^T C~ * Q~^T U^T)))   (m, T)     eq. (6) (paper eq. 13)
    S = A H                                     (m, D)     eq. (7) (paper eqs. 14-15)

Equation numbers: "eq. (N)" is the numbering of the chapter "LAMA"
(``book/08_lama.ipynb``), which shows this code; "paper eq. M" is the paper's. An
equation the chapter does not display is cited by the paper's number alone.

Head i scores a word with the bilinear form ``c^T W_i u_t`` whose matrix is factorised
as ``W_i = P_i Q_i^T`` (``P_i, Q_i (D, k)``): m heads cost ``2 D k m`` parameters
instead of ``m D^2``. The paper writes ``H^T`` inside its eq. 13 but defines the score
on ``u_t`` (its eqs. 7, 11 and its Figure 1); we score ``U``, the output of eq. (1), and
pool ``H``. ``l2`` normalises each word's m scores across the heads; the softmax then
runs along the words of each head, with padding masked.

Disagreement regularisers, section 3.4, added to the loss as ``lambda * D``, eq. (8)
(paper eqs. 18-19): ``||A A^T - I||_F^2`` on the positions (paper eq. 19a, SAN's
:func:`lamalib.nn.self_attention.san.attention_penalty`) and the mean pairwise cosine of
the rows of S on the embeddings (paper eq. 19b).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.masking import masked_softmax
from lamalib.nn.pooling import masked_mean
from lamalib.nn.self_attention.san import attention_penalty

INIT_STD = 0.1  # section 3.2: "Gaussian priors with mean 0 and standard deviation 0.1"


def embedding_disagreement(sentence: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ``(1/m^2) sum_i sum_j cos(s_i, s_j)``: ``D_de`` of
    eq. (8) (paper eq. 19b).

    Args:
        sentence: ``S (B, m, D)``, one row per head. The sum runs over all pairs,
            ``i = j`` included (those m terms are 1), exactly as paper eq. 19b has it.
    """
    m = sentence.shape[1]
    unit = F.normalize(sentence, dim=-1)  # (B, m, D): s_i / ||s_i||
    cosines = unit @ unit.transpose(1, 2)  # (B, m, m)
    return (cosines.sum(dim=(1, 2)) / m**2).mean()


def position_disagreement(weights: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of ``||A A^T - I||_F^2``: ``D_dp`` of eq. (8) (paper eq.
    19a), SAN's penalty."""
    return attention_penalty(weights)


DISAGREEMENTS = {"dp": position_disagreement, "de": embedding_disagreement}


class LearnedContext(nn.Module):
    """``c`` learned from a random start, shared by every document (model ``lama``).

    ``forward(states (B, T, D), mask) -> c (B, D)``.
    """

    def __init__(self, d: int) -> None:
        super().__init__()
        self.c = nn.Parameter(torch.randn(d) * INIT_STD)  # (D,); the start is ours

    def forward(self, states: torch.Tensor, mask: torch.Tensor | None,
                embedded: torch.Tensor | None = None) -> torch.Tensor:
        return self.c.expand(states.shape[0], -1)  # (B, D)


class MeanContext(nn.Module):
    """``c`` = the mean of the document's word annotations, real tokens only
    (model ``lama_ctx``, section 3.2: "the mean of the word embeddings is a good first
    approximation of the document's global context").

    A necessary reading: the paper initialises c from the mean word *embedding*
    (width E), but compares c with ``u_t`` of width D = 2h (paper eq. 8), and E need
    not be D; we average the BiGRU states H, which have width D. The literal reading
    is :class:`EmbeddingMeanContext`.

    ``forward(states (B, T, D), mask (B, T)) -> c (B, D)``.
    """

    def __init__(self, d: int) -> None:
        super().__init__()

    def forward(self, states: torch.Tensor, mask: torch.Tensor | None,
                embedded: torch.Tensor | None = None) -> torch.Tensor:
        if mask is None:
            return states.mean(dim=1)  # (B, D)
        return masked_mean(states, mask)  # (B, D): pads do not count


class EmbeddingMeanContext(MeanContext):
    """``c = 1/T sum_t w_t``, the mean of the document's word *embeddings* (the
    unnumbered formula of section 3.2, between paper eqs. 8 and 9, and section 4.2,
    read literally; needs E = D, true at the paper's E = 100 = 2h). ``lama_ctx``
    averages the annotations instead: H already mixes each word with its neighbours,
    and c then lives in the space it is compared with.

    ``forward(states (B, T, D), mask (B, T), embedded (B, T, E=D)) -> c (B, D)``.
    """

    def forward(self, states: torch.Tensor, mask: torch.Tensor | None,
                embedded: torch.Tensor | None = None) -> torch.Tensor:
        if embedded is None or embedded.shape[-1] != states.shape[-1]:
            raise ValueError("context='embedding_mean' needs the word embeddings, of "
                             "the annotations' width D (embed_dim = 2 * hidden_size)")
        return super().forward(embedded, mask)  # (B, D)


CONTEXTS = {"learned": LearnedContext, "mean": MeanContext,
            "embedding_mean": EmbeddingMeanContext}


def l2_across_heads(scores: torch.Tensor) -> torch.Tensor:
    """``x / ||x||`` over the m heads of each word: ``(B, T, m) -> (B, T, m)``."""
    return F.normalize(scores, dim=-1)


NORMALIZATIONS = {"l2": l2_across_heads, "none": lambda scores: scores}


class LowRankMultiHeadAttention(nn.Module):
    """m attention heads from one context vector and a rank-k bilinear form, eq. (6)
    (paper eq. 13).

    Args:
        d: D, the width of the word annotations (2h after a BiGRU).
        heads: m, the number of heads.
        rank: k, the rank of each head's bilinear matrix ``W_i = P_i Q_i^T``
            (1 in the paper's experiments, eq. (5), paper eq. 11).
        context: ``"learned"`` (one trained c), ``"mean"`` (each document's mean
            annotation) or ``"embedding_mean"`` (its mean word embedding, passed as
            ``embedded``), see :data:`CONTEXTS`.
        normalize: ``"l2"`` across the heads (eq. (6), paper eq. 13) or ``"none"``.

    ``forward(states (B, T, D), mask (B, T) bool, embedded (B, T, D) or None)
    -> (S (B, m, D), A (B, m, T))``;
    pads get weight exactly 0, and a document with no real token gets A = 0, S = 0.
    ``last_weights`` keeps A of the last call, detached.
    """

    def __init__(self, d: int, heads: int = 10, rank: int = 1,
                 context: str = "mean", normalize: str = "l2") -> None:
        super().__init__()
        for name, value, known in (("context", context, CONTEXTS),
                                   ("normalize", normalize, NORMALIZATIONS)):
            if value not in known:
                raise ValueError(
                    f"unknown {name} {value!r}; use one of {sorted(known)}")
        self.d, self.heads, self.rank = d, heads, rank
        self.proj = nn.Linear(d, d)  # W_w, b_w of eq. (1) (paper eq. 7)
        nn.init.normal_(self.proj.weight, std=INIT_STD)  # N(0, 0.1^2): std 0.1
        nn.init.normal_(self.proj.bias, std=INIT_STD)
        # P, Q (D, k, m) of eq. (4) (paper eq. 10); the paper only says "random": ours
        # is the Linear default's scale, uniform in +-1/sqrt(D).
        bound = d ** -0.5
        self.p = nn.Parameter(torch.empty(d, rank, heads).uniform_(-bound, bound))
        self.q = nn.Parameter(torch.empty(d, rank, heads).uniform_(-bound, bound))
        self.context = CONTEXTS[context](d)
        self.normalize = NORMALIZATIONS[normalize]
        self.last_weights: torch.Tensor | None = None

    def scores(self, states: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """``f_t`` of every word, before tanh: ``(B, T, D), (B, D) -> (B, T, m)``."""
        u = torch.tanh(self.proj(states))  # (B, T, D), eq. (1) (paper eq. 7)
        pc = torch.einsum("bd,dkm->bkm", context, self.p)  # (B, k, m): P^T c
        qu = torch.einsum("btd,dkm->btkm", u, self.q)  # (B, T, k, m): Q^T u_t
        return (pc[:, None] * qu).sum(dim=2)  # (B, T, m), eq. (4) (paper eq. 10)

    def forward(self, states: torch.Tensor, mask: torch.Tensor | None = None,
                embedded: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor]:
        c = self.context(states, mask, embedded)  # (B, D), the same c for every word
        f = self.normalize(torch.tanh(self.scores(states, c)))  # (B, T, m), eq. (6)
        key_mask = None if mask is None else mask[:, None, :]  # (B, 1, T)
        weights = masked_softmax(f.transpose(1, 2), key_mask, dim=-1)  # (B, m, T)
        self.last_weights = weights.detach()
        # S = A H (B, m, D), eq. (7) (paper eq. 15); A (B, m, T), eq. (6) (paper eq. 13)
        return weights @ states, weights
