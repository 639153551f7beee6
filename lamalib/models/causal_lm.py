"""A causal (left-to-right) Transformer language model (chapter "Pretraining").

The autoregressive objective of GPT: ``log p(x) = sum_t log p(x_t | x_<t)``. A
Transformer encoder whose attention is causal (query t sees keys ``<= t``) reads the
sentence once; its output at position t scores the token at t + 1, so one pass gives
every term of the sum.
"""

from __future__ import annotations

from dataclasses import asdict

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.models.mlm import MLMConfig
from lamalib.nn.masking import causal_mask
from lamalib.nn.transformer.lm_head import TiedLMHead
from lamalib.nn.transformer.token_encoder import TokenEncoder
from lamalib.train import StepOutput


class CausalLM(nn.Module):
    """Causal encoder + a tied output layer; the body is ``MaskedLM``'s (same
    :class:`~lamalib.models.mlm.MLMConfig`), only the attention mask differs.

    Args:
        vocab_size: V.
        **config: any field of :class:`~lamalib.models.mlm.MLMConfig`.

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, T, V)``: ``logits[:, t]`` scores
    the token at ``t + 1``.
    """

    def __init__(self, vocab_size: int, **config) -> None:
        super().__init__()
        cfg = self.config = MLMConfig(**config)
        self.body = TokenEncoder(vocab_size, **asdict(cfg))
        self.head = TiedLMHead(cfg.d_model, vocab_size)

    @staticmethod
    def attention_mask(mask: torch.Tensor) -> torch.Tensor:
        """``(B, T, T)``: query t may attend to key j when ``j <= t`` and j is real."""
        causal = causal_mask(mask.shape[1], mask.device)  # (T, T)
        return causal[None] & mask.to(torch.bool)[:, None, :]  # (B, T, T)

    def hidden(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The causal encoder's output ``(B, T, D)``; row t has read tokens ``<= t``."""
        return self.body(tokens, self.attention_mask(mask))  # (B, T, D)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.hidden(tokens, mask)  # (B, T, D)
        return self.head(h, self.body.embed.tokens.weight)  # (B, T, V)


def causal_lm_step(model: nn.Module, batch) -> StepOutput:
    """A ``step`` for ``lamalib.train.fit``: mean cross-entropy of every next token.

    The targets are ``tokens[:, 1:]`` where they are real; the first token of each
    row has no context and is not predicted. Counts and accuracy are per token.
    """
    logits = model(batch.tokens, batch.mask)[:, :-1]  # (B, T-1, V): t scores t + 1
    targets = batch.tokens[:, 1:]  # (B, T-1)
    scored = batch.mask[:, 1:].to(torch.bool)  # (B, T-1): a real next token
    if not scored.any():  # rows of one token: nothing to predict
        return StepOutput(logits.sum() * 0.0, 0, 0)
    loss = F.cross_entropy(logits[scored].float(), targets[scored])
    correct = int((logits.argmax(-1) == targets)[scored].sum())
    return StepOutput(loss, correct, int(scored.sum()))
