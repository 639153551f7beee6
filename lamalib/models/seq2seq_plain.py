"""The encoder-decoder without attention (chapter "Attention mechanisms").

The baseline that motivated attention (Cho et al., 2014; Sutskever et al., 2014): the
decoder sees the source only through one fixed-width vector ``c``, the encoder's final
states, at every step (the chapter's eq. (17) with ``c_t = c``):

    c = [forward state after the last token; backward state after the first token]
    s_t = GRU([y_{t-1}; c], s_{t-1}),    p(y_t) = softmax(W_o [s_t; c; y_{t-1}])

It is :class:`lamalib.models.seq2seq.BahdanauDecoder` with the attention context
``c_t`` replaced by the constant ``c``, so the two differ only in attention. Choose it
by name: ``Seq2Seq(vocab_size, decoder="plain")``.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.data.datasets.translation import PAD_ID


def final_states(memory: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The two final states of a BiGRU encoder, concatenated.

    ``memory (B, S, D)`` holds the forward states in its first D/2 features and the
    backward states in the last D/2; ``mask (B, S)`` marks real tokens (at the start).
    Returns ``c (B, D)``: the forward state at the last real token (it has read the
    whole source left to right) and the backward state at position 0 (right to left).
    """
    half = memory.shape[-1] // 2
    last = mask.sum(1).clamp_min(1) - 1  # (B,) index of the last real token
    forward_last = memory[torch.arange(memory.shape[0]), last, :half]  # (B, D/2)
    backward_first = memory[:, 0, half:]  # (B, D/2)
    return torch.cat([forward_last, backward_first], -1)  # (B, D)


class PlainDecoder(nn.Module):
    """Decode from the fixed summary ``c`` alone: no attention (eq. (17), ``c_t = c``).

    ``forward(tgt_in (B, T), memory (B, S, D), mask (B, S), s0 (B, D))`` returns
    ``logits (B, T, V)`` and ``None`` in place of attention weights. Of ``memory`` it
    reads only the two final states (:func:`final_states`). ``c`` is the same at every
    step, so with teacher forcing the GRU runs over all T steps in one call.
    """

    def __init__(self, vocab_size: int, d_emb: int, d_hidden: int,
                 score: str | None = None, **score_kwargs) -> None:
        super().__init__()
        if score is not None or score_kwargs:
            raise ValueError("the plain decoder has no attention: pass no score "
                             f"(got score={score!r}, {score_kwargs})")
        self.embed = nn.Embedding(vocab_size, d_emb, padding_idx=PAD_ID)
        self.rnn = nn.GRU(d_emb + d_hidden, d_hidden, batch_first=True)
        self.out = nn.Linear(2 * d_hidden + d_emb, vocab_size)

    def forward(self, tgt_in, memory, mask, s0):
        emb = self.embed(tgt_in)  # (B, T, E)
        c = final_states(memory, mask)  # (B, D)
        c = c[:, None].expand(-1, tgt_in.shape[1], -1)  # (B, T, D): the same each step
        states, _ = self.rnn(torch.cat([emb, c], -1), s0[None])  # (B, T, D)
        return self.out(torch.cat([states, c, emb], -1)), None  # (B, T, V), no weights
