"""XLNet's permutation language model with two-stream attention and partial
prediction (chapter "Pretraining"; Yang et al., 2019, sections 2.2-2.3).

For a factorisation order ``z`` the objective is ``sum_{t > c} log p(x_{z_t} |
x_{z_<t})``: an autoregressive model, but over a random order, so in expectation
every token is predicted from context on both sides, and without BERT's [MASK]
(nothing in the input is corrupted). Only the last ``1/K`` of the order is predicted
(*partial prediction*, ``c`` the cutting point): the first tokens have too little
context to be worth predicting, and their query stream need not be computed.

The body is ``MaskedLM``'s (:class:`~lamalib.models.mlm.MLMConfig`), so the three
objectives of the chapter train one architecture; XLNet's relative positions and
segment recurrence (from Transformer-XL) are left out.
"""

from __future__ import annotations

from dataclasses import asdict

import torch
import torch.nn.functional as F
from torch import nn

from lamalib import runtime
from lamalib.models.mlm import MLMConfig
from lamalib.nn.transformer.lm_head import TiedLMHead
from lamalib.nn.transformer.token_encoder import TokenEncoder
from lamalib.nn.transformer.two_stream import permutation_masks, two_stream_encode
from lamalib.train import StepOutput


def random_orders(mask: torch.Tensor, generator: torch.Generator | None = None
                  ) -> torch.Tensor:
    """A uniformly random factorisation order of each row's real tokens; the pads
    follow them, in place order (they are never attended to nor predicted).

    Args:
        mask: ``(B, T)`` bool, True at real tokens.
        generator: a seeded CPU ``torch.Generator``.

    Returns:
        ``order (B, T)`` long on ``mask``'s device.
    """
    B, T = mask.shape
    keys = torch.rand(B, T, generator=generator).to(mask.device)  # (B, T)
    # A pad's key is >= 1, after every real token's; pads keep their place order.
    pads = torch.arange(T, device=mask.device).expand(B, T)
    keys = torch.where(mask.to(torch.bool), keys, 1.0 + pads)
    return keys.argsort(dim=-1)  # (B, T)


def partial_prediction(order: torch.Tensor, mask: torch.Tensor,
                       k: float = 6.0) -> torch.Tensor:
    """Which positions are predicted: the last ``ceil(n / K)`` real tokens of the
    order, n the row's real tokens (XLNet's cutting point ``c = n - ceil(n / K)``).

    Args:
        order: ``(B, T)`` long, each row a permutation of ``0..T-1``.
        mask: ``(B, T)`` bool, True at real tokens; pads are never predicted.
        k: K >= 1 (XLNet: 6 or 7; K = 1 predicts every token).

    Returns:
        ``predict (B, T)`` bool, indexed by position.
    """
    if k < 1:
        raise ValueError(f"K must be >= 1 (predict the last 1/K of the order), got {k}")
    mask = mask.to(torch.bool)
    real_in_order = mask.gather(1, order)  # (B, T): is the t-th of the order real?
    seen = real_in_order.long().cumsum(1)  # (B, T): real tokens among order[:t + 1]
    n = mask.sum(1, keepdim=True)  # (B, 1)
    n_pred = torch.ceil(n / k).long()  # (B, 1)
    last = real_in_order & (seen > n - n_pred)  # (B, T), indexed by rank
    return torch.zeros_like(mask).scatter(1, order, last)  # (B, T), by position


class PermutationLM(nn.Module):
    """Two-stream encoder + a tied output layer on the query stream.

    The query stream starts from one learned vector ``w`` plus the position's
    encoding; the content stream from the token embedding plus the position, as in
    ``MaskedLM``. Both run through the same layers (``two_stream_encode``).

    Args:
        vocab_size: V.
        **config: any field of :class:`~lamalib.models.mlm.MLMConfig`.

    ``forward(tokens (B, T), mask (B, T), order (B, T), predict (B, T) or None)``
    returns the query stream's ``logits (B, T, V)``, or ``(N, V)`` at the N positions
    where ``predict`` is True (in row-major order).
    """

    def __init__(self, vocab_size: int, **config) -> None:
        super().__init__()
        cfg = self.config = MLMConfig(**config)
        self.body = TokenEncoder(vocab_size, **asdict(cfg))
        self.query_start = nn.Parameter(torch.randn(cfg.d_model) * 0.02)  # w
        self.head = TiedLMHead(cfg.d_model, vocab_size)

    @staticmethod
    def attention_masks(mask: torch.Tensor, order: torch.Tensor
                        ) -> tuple[torch.Tensor, torch.Tensor]:
        """Content and query masks ``(B, T, T)`` (``permutation_masks``)."""
        return permutation_masks(order, mask)

    def streams(self, tokens: torch.Tensor, mask: torch.Tensor, order: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Content stream ``h`` and query stream ``g``, ``(B, T, D)`` each."""
        content, query = self.attention_masks(mask, order)  # (B, T, T) each
        h = self.body.embed(tokens)  # (B, T, D): token + position
        w = self.query_start.to(h.dtype).expand_as(h)  # (B, T, D)
        g = self.body.embed.positions(w)  # (B, T, D): w + position, never the token
        return two_stream_encode(self.body.encoder, h, g, content, query)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor, order: torch.Tensor,
                predict: torch.Tensor | None = None) -> torch.Tensor:
        _, g = self.streams(tokens, mask, order)  # (B, T, D)
        if predict is not None:
            g = g[predict]  # (N, D)
        return self.head(g, self.body.embed.tokens.weight)  # (B, T, V) or (N, V)


class PermutationLMStep:
    """A ``step`` for ``lamalib.train.fit``: draw an order per row, predict the last
    ``1/K`` of it from the query stream.

    In training every call draws fresh orders; in evaluation the orders depend only
    on the batch's rows (as ``MaskedLMStep``'s masks), so validation losses compare.

    Args:
        k: K of partial prediction (XLNet: 6 or 7; 1 predicts every token).
        seed: seeds the training and the evaluation orders.
    """

    def __init__(self, k: float = 6.0, seed: int = 0) -> None:
        self.k = k
        self.seed = runtime.seed(seed)  # shifted by LAMALIB_SEED
        self.generator = torch.Generator().manual_seed(self.seed)

    def state_dict(self) -> dict:
        """The orders' generator, so ``fit`` resumes with the same orders."""
        return {"generator": self.generator.get_state()}

    def load_state_dict(self, state: dict) -> None:
        self.generator.set_state(state["generator"])

    def __call__(self, model: nn.Module, batch) -> StepOutput:
        generator = self.generator
        if not model.training:  # the same rows always get the same orders
            generator = torch.Generator().manual_seed(
                self.seed + 7919 * int(batch.index.min()))
        order = random_orders(batch.mask.cpu(), generator).to(batch.tokens.device)
        predict = partial_prediction(order, batch.mask, self.k)  # (B, T)
        logits = model(batch.tokens, batch.mask, order, predict)  # (N, V)
        targets = batch.tokens[predict]  # (N,)
        loss = F.cross_entropy(logits.float(), targets)
        correct = int((logits.argmax(-1) == targets).sum())
        return StepOutput(loss, correct, len(targets))

