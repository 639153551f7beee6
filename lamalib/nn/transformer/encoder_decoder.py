"""The whole Transformer of Vaswani et al. (2017) (chapter "The Transformer")."""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.transformer.stack import Decoder, Encoder
from lamalib.nn.transformer.token_embedding import Embeddings


class EncoderDecoder(nn.Module):
    """The whole Transformer: embed, encode the source, decode the target, project.

    Args:
        src_vocab, tgt_vocab: vocabulary sizes; the rest as ``Encoder``;
        positional / max_len / pad_id: as ``Embeddings``.
    """

    def __init__(
        self, src_vocab: int, tgt_vocab: int, d_model: int = 512, n_heads: int = 8,
        d_ff: int = 2048, n_layers: int = 6, dropout: float = 0.1,
        residual: str = "post", positional: str = "sinusoidal", max_len: int = 512,
        pad_id: int = 0,
    ):
        super().__init__()
        self.src_embed = Embeddings(src_vocab, d_model, pad_id, positional, max_len,
                                    dropout)
        self.tgt_embed = Embeddings(tgt_vocab, d_model, pad_id, positional, max_len,
                                    dropout)
        self.encoder = Encoder(n_layers, d_model, n_heads, d_ff, dropout, residual)
        self.decoder = Decoder(n_layers, d_model, n_heads, d_ff, dropout, residual)
        self.generator = nn.Linear(d_model, tgt_vocab)

    def encode(self, src: torch.Tensor, src_mask: torch.Tensor) -> torch.Tensor:
        return self.encoder(self.src_embed(src), src_mask)  # (B, S, D)

    def decode(
        self,
        tgt_in: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        y = self.tgt_embed(tgt_in)  # (B, T, D)
        y = self.decoder(y, memory, tgt_mask, src_mask)  # (B, T, D)
        return self.generator(y)  # (B, T, V)

    def forward(
        self,
        src: torch.Tensor,
        src_mask: torch.Tensor,
        tgt_in: torch.Tensor,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        memory = self.encode(src, src_mask)  # (B, S, D)
        return self.decode(tgt_in, memory, src_mask, tgt_mask)  # (B, T, V)
