"""An RNN language model: predict every next token, sum the losses over time (chapter
"Recurrent networks and the GRU", eq. (3)).

At step t the model has read tokens x_1..x_t; its state h_t (eq. (1)) goes through an
output layer V and a softmax to give the distribution of x_{t+1}. The loss of the
sequence is the sum of the per-step cross-entropies, ``E = sum_t E_t``, which is what
backpropagation through time differentiates (``lamalib.analysis.bptt`` does it by
hand for the plain RNN cell).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.nn.recurrent.cells import Recurrent


class RNNLanguageModel(nn.Module):
    """Embedding, a one-direction :class:`Recurrent` layer, output ``V h_t + c``.

    Args:
        vocab_size: V.
        embed_dim: E, the width of x_t.
        hidden_size: D, the width of h_t.
        cell: ``"rnn"``, ``"lstm"`` or ``"gru"``.

    ``forward(tokens (B, T), mask (B, T) or None) -> logits (B, T, V)``: the logits at
    position t score the token at t + 1. ``step_losses(tokens, mask)`` returns
    ``E_t (T - 1,)``, eq. (3).
    """

    def __init__(self, vocab_size: int, embed_dim: int = 16, hidden_size: int = 16,
                 cell: str = "rnn") -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.rnn = Recurrent(cell, embed_dim, hidden_size)
        self.out = nn.Linear(hidden_size, vocab_size)  # V and c of eq. (3)

    def states(self, tokens: torch.Tensor, mask: torch.Tensor | None = None
               ) -> tuple[torch.Tensor, torch.Tensor]:
        """The inputs ``x (B, T, E)`` and the states ``h (B, T, D)`` (h_1..h_T)."""
        x = self.embed(tokens)  # (B, T, E)
        return x, self.rnn(x, mask)[0]  # (B, T, E), (B, T, D)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None
                ) -> torch.Tensor:
        return self.out(self.states(tokens, mask)[1])  # (B, T, V), eq. (3)

    def step_losses(self, tokens: torch.Tensor, mask: torch.Tensor | None = None
                    ) -> torch.Tensor:
        """``E_t`` for t = 1..T-1: cross-entropy of x_{t+1} given h_t, summed over the
        batch rows whose x_{t+1} is a real token, eq. (3). Returns ``(T - 1,)``."""
        logits = self(tokens, mask)[:, :-1]  # (B, T-1, V): h_t scores x_{t+1}
        targets = tokens[:, 1:]  # (B, T-1)
        losses = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
        if mask is not None:
            losses = losses * mask[:, 1:].to(losses.dtype)  # (B, T-1): no loss on pads
        return losses.sum(0)  # (T-1,)

    def loss(self, tokens: torch.Tensor, mask: torch.Tensor | None = None
             ) -> torch.Tensor:
        """``E = sum_t E_t``, eq. (3)."""
        return self.step_losses(tokens, mask).sum()
