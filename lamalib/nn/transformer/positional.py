"""Positional encodings: sinusoidal and learned (chapter "The Transformer").

Self-attention is blind to order: permuting the tokens permutes its outputs. The
Transformer adds a vector that depends only on the position to every token embedding.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def sinusoidal_table(T: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The sinusoidal encodings of positions ``0..T-1``, eq. (1), shape ``(T, D)``.

    Column ``2i`` holds ``sin(pos * w_i)`` and column ``2i+1`` holds ``cos(pos * w_i)``
    with ``w_i = base ** (-2i / D)``.
    """
    if d_model % 2:
        raise ValueError(f"d_model must be even for sin/cos pairs, got {d_model}")
    pos = torch.arange(T, dtype=torch.float64)[:, None]  # (T, 1)
    freqs = sinusoidal_frequencies(d_model, base)  # (D/2,)
    angles = pos * freqs[None, :]  # (T, D/2)
    table = torch.empty(T, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(angles)
    table[:, 1::2] = torch.cos(angles)
    return table.float()  # (T, D)


def sinusoidal_frequencies(d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The angular frequencies ``w_i = base^(-2i/D)``, ``i < D/2``, shape ``(D/2,)``."""
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)
    return torch.exp(-math.log(base) * two_i / d_model)


def relative_position_map(k: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """Matrix ``M_k`` with ``PE(pos + k) = M_k PE(pos)`` for every pos, eq. (2).

    ``M_k`` is block diagonal: one 2x2 rotation by angle ``k * w_i`` per sin/cos pair,
    so it depends on the offset ``k`` but not on ``pos``. Shape ``(D, D)``.
    """
    angles = k * sinusoidal_frequencies(d_model, base)  # (D/2,)
    cos, sin = torch.cos(angles), torch.sin(angles)
    M = torch.zeros(d_model, d_model, dtype=torch.float64)
    even = torch.arange(0, d_model, 2)
    # sin(a + b) = sin a cos b + cos a sin b;  cos(a + b) = cos a cos b - sin a sin b
    M[even, even], M[even, even + 1] = cos, sin
    M[even + 1, even], M[even + 1, even + 1] = -sin, cos
    return M.float()  # (D, D)


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding to token embeddings, eq. (1).

    Nothing is learned, so it is defined for any length: a table of ``max_len`` rows is
    cached and recomputed when a longer sequence arrives.

    Args:
        d_model: width D (even).
        dropout: dropout on the sum, as in the original Transformer.
        max_len: rows to precompute.
    """

    def __init__(self, d_model: int, dropout: float = 0.0, max_len: int = 512):
        super().__init__()
        self.d_model = d_model
        self.dropout = nn.Dropout(dropout)
        # A buffer moves with .to(device) but is not a parameter; it is recomputable, so
        # it is left out of the state_dict.
        table = sinusoidal_table(max_len, d_model)  # (max_len, D)
        self.register_buffer("table", table, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T = x.shape[1]  # x: (B, T, D)
        if T > self.table.shape[0]:
            self.table = sinusoidal_table(T, self.d_model).to(self.table.device)
        pe = self.table[:T].to(x.dtype)  # (T, D)
        return self.dropout(x + pe[None])  # (B, T, D)


class LearnedPositionalEmbedding(nn.Module):
    """Adds a learned vector per position (as in BERT); only ``max_len`` positions.

    Positions never reached in training keep their random initial vectors, and
    positions ``>= max_len`` have no vector at all: a longer input raises an error.

    Args:
        d_model: width D.
        dropout: dropout on the sum.
        max_len: number of positions that get a vector.
    """

    def __init__(self, d_model: int, dropout: float = 0.0, max_len: int = 512):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)  # BERT's initialisation
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        T = x.shape[1]  # x: (B, T, D)
        if T > self.max_len:
            raise ValueError(
                f"sequence of {T} tokens is longer than max_len={self.max_len} learned "
                "positions; truncate it or build the model with more positions "
                "(max_len here; the option max_positions of the te and lama models)"
            )
        positions = torch.arange(T, device=x.device)  # (T,)
        pe = self.embedding(positions)  # (T, D)
        return self.dropout(x + pe[None])  # (B, T, D)


POSITIONAL = {
    "sinusoidal": SinusoidalPositionalEncoding,
    "learned": LearnedPositionalEmbedding,
}


def build_positional(
    name: str, d_model: int, dropout: float = 0.0, max_len: int = 512
) -> nn.Module:
    """A positional module by name: ``"sinusoidal"`` or ``"learned"``."""
    if name not in POSITIONAL:
        known = sorted(POSITIONAL)
        raise ValueError(f"unknown positional encoding {name!r}; use one of {known}")
    return POSITIONAL[name](d_model, dropout=dropout, max_len=max_len)
