"""The Transformer's encoder and decoder (chapter "The Transformer").

Vaswani et al. (2017): each layer is a few sublayers (self-attention, encoder-decoder
attention, a position-wise feed-forward net), each wrapped in a residual connection
with layer normalization. Where the normalization sits is chosen by name:
``"post"`` (the original paper: normalize after adding the residual) or ``"pre"``
(normalize the sublayer's input, which trains more stably when deep).
"""

from __future__ import annotations

import math
from typing import Callable

import torch
from torch import nn

from lamalib.nn.masking import causal_mask
from lamalib.nn.multihead import MultiHeadAttention
from lamalib.nn.norm import LayerNorm
from lamalib.nn.positional import build_positional

Sublayer = Callable[[torch.Tensor], torch.Tensor]


class FeedForward(nn.Module):
    """The position-wise feed-forward net, eq. (6): ``W2 relu(W1 x + b1) + b2``."""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.linear1(x))  # (B, T, d_ff)
        return self.linear2(self.dropout(hidden))  # (B, T, D)


class PostNormResidual(nn.Module):
    """``LayerNorm(x + sublayer(x))``, eq. (4): the original Transformer."""

    needs_final_norm = False  # the last layer's output is already normalized

    def __init__(self, d_model: int, dropout: float = 0.0):
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, sublayer: Sublayer) -> torch.Tensor:
        return self.norm(x + self.dropout(sublayer(x)))  # (B, T, D)


class PreNormResidual(nn.Module):
    """``x + sublayer(LayerNorm(x))``, eq. (5): an identity path from input to
    output, so gradients reach early layers unscaled (Xiong et al., 2020)."""

    needs_final_norm = True  # the residual stream itself is never normalized

    def __init__(self, d_model: int, dropout: float = 0.0):
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, sublayer: Sublayer) -> torch.Tensor:
        return x + self.dropout(sublayer(self.norm(x)))  # (B, T, D)


RESIDUALS: dict[str, type[nn.Module]] = {
    "post": PostNormResidual,
    "pre": PreNormResidual,
}


def residual_class(name: str) -> type[nn.Module]:
    """The residual wrapper registered under ``name`` (``"post"`` or ``"pre"``)."""
    if name not in RESIDUALS:
        known = list(RESIDUALS)
        raise ValueError(f"unknown residual placement {name!r}; use one of {known}")
    return RESIDUALS[name]


def _key_mask(mask: torch.Tensor | None) -> torch.Tensor | None:
    """Key-padding mask ``(B, Tk)`` -> ``(B, 1, 1, Tk)`` (broadcast: heads, queries)."""
    return None if mask is None else mask[:, None, None, :]


@torch.no_grad()
def _load_torch_ff_and_norms(layer: nn.Module, ref: nn.Module, blocks: list) -> None:
    """Copy the feed-forward net and the norms ``norm1, norm2, ...`` (torch layer)."""
    layer.ff.linear1.load_state_dict(ref.linear1.state_dict())
    layer.ff.linear2.load_state_dict(ref.linear2.state_dict())
    for i, block in enumerate(blocks, start=1):
        block.norm.load_state_dict(getattr(ref, f"norm{i}").state_dict())


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward, each in a residual block, eq. (7).

    Set ``keep_weights = True`` to keep the last attention weights ``(B, H, T, T)`` in
    ``last_weights``.

    Args:
        d_model: width D; n_heads: H (D divisible by H); d_ff: feed-forward width.
        dropout: on attention weights, sublayer outputs and the feed-forward hidden.
        residual: ``"post"`` or ``"pre"`` (see ``RESIDUALS``).
    """

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1,
        residual: str = "post",
    ):
        super().__init__()
        block = residual_class(residual)
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.attn_block = block(d_model, dropout)
        self.ff_block = block(d_model, dropout)
        self.keep_weights = False
        self.last_weights: torch.Tensor | None = None

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        # x: (B, T, D); mask: (B, T) True at real tokens
        def attend(h: torch.Tensor) -> torch.Tensor:
            out, w = self.self_attn(h, h, h, mask=_key_mask(mask),
                                    need_weights=self.keep_weights)
            self.last_weights = w  # (B, H, T, T) or None
            return out  # (B, T, D)

        x = self.attn_block(x, attend)  # (B, T, D)
        return self.ff_block(x, self.ff)  # (B, T, D)

    def load_from_torch(self, ref: nn.TransformerEncoderLayer) -> None:
        """Copy an ``nn.TransformerEncoderLayer`` (ReLU; ``norm_first`` must match)."""
        self.self_attn.load_from_torch(ref.self_attn)
        _load_torch_ff_and_norms(self, ref, [self.attn_block, self.ff_block])


class DecoderLayer(nn.Module):
    """Causal self-attention, encoder-decoder attention, feed-forward,
    eq. (8).

    Position ``t`` of the target attends to target positions ``<= t`` only (the causal
    mask), so training on a whole shifted target at once predicts each token from its
    past, as generation will. With ``keep_weights = True`` the layer keeps
    ``last_weights (B, H, T, T)`` (self) and ``last_cross_weights (B, H, T, S)``.

    Args: as ``EncoderLayer``.
    """

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1,
        residual: str = "post",
    ):
        super().__init__()
        block = residual_class(residual)
        self.self_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.cross_attn = MultiHeadAttention(d_model, n_heads, dropout=dropout)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.self_block = block(d_model, dropout)
        self.cross_block = block(d_model, dropout)
        self.ff_block = block(d_model, dropout)
        self.keep_weights = False
        self.last_weights: torch.Tensor | None = None
        self.last_cross_weights: torch.Tensor | None = None

    def forward(
        self,
        y: torch.Tensor,
        memory: torch.Tensor,
        tgt_mask: torch.Tensor | None = None,
        src_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        # y: (B, T, D) target so far; memory: (B, S, D) encoder output
        T = y.shape[1]
        self_mask = causal_mask(T, device=y.device)[None, None]  # (1, 1, T, T)
        if tgt_mask is not None:
            self_mask = self_mask & _key_mask(tgt_mask)  # (B, 1, T, T)

        def attend_self(h: torch.Tensor) -> torch.Tensor:
            out, w = self.self_attn(h, h, h, mask=self_mask,
                                    need_weights=self.keep_weights)
            self.last_weights = w  # (B, H, T, T) or None
            return out  # (B, T, D)

        def attend_source(h: torch.Tensor) -> torch.Tensor:
            out, w = self.cross_attn(h, memory, memory, mask=_key_mask(src_mask),
                                     need_weights=self.keep_weights)
            self.last_cross_weights = w  # (B, H, T, S) or None
            return out  # (B, T, D)

        y = self.self_block(y, attend_self)  # (B, T, D)
        y = self.cross_block(y, attend_source)  # (B, T, D)
        return self.ff_block(y, self.ff)  # (B, T, D)

    def load_from_torch(self, ref: nn.TransformerDecoderLayer) -> None:
        """Copy an ``nn.TransformerDecoderLayer`` (ReLU; ``norm_first`` must match)."""
        self.self_attn.load_from_torch(ref.self_attn)
        self.cross_attn.load_from_torch(ref.multihead_attn)
        blocks = [self.self_block, self.cross_block, self.ff_block]
        _load_torch_ff_and_norms(self, ref, blocks)


class _Stack(nn.Module):
    """``n_layers`` layers of ``layer_class`` in order, plus the final norm that pre-LN
    needs. Arguments as ``EncoderLayer``."""

    layer_class: type[nn.Module]

    def __init__(
        self, n_layers: int, d_model: int, n_heads: int, d_ff: int,
        dropout: float = 0.1, residual: str = "post",
    ):
        super().__init__()
        self.layers = nn.ModuleList(
            self.layer_class(d_model, n_heads, d_ff, dropout, residual)
            for _ in range(n_layers)
        )
        needs_norm = residual_class(residual).needs_final_norm
        self.final_norm = LayerNorm(d_model) if needs_norm else nn.Identity()

    def keep_weights(self, flag: bool = True) -> None:
        """Make every layer keep (or stop keeping) its last attention weights."""
        for layer in self.layers:
            layer.keep_weights = flag

    def attention_weights(self) -> torch.Tensor:
        """Self-attention weights of the last call, stacked ``(L, B, H, T, T)``."""
        weights = [layer.last_weights for layer in self.layers]
        if any(w is None for w in weights):
            raise RuntimeError("no weights kept: call keep_weights(True), then forward")
        return torch.stack(weights)  # (L, B, H, T, T)


class Encoder(_Stack):
    """``n_layers`` encoder layers over already-embedded tokens ``(B, T, D)``."""

    layer_class = EncoderLayer

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, mask)  # (B, T, D)
        return self.final_norm(x)  # (B, T, D)


class Decoder(_Stack):
    """``n_layers`` decoder layers over the embedded target and the encoder memory."""

    layer_class = DecoderLayer

    def forward(
        self,
        y: torch.Tensor,
        memory: torch.Tensor,
        tgt_mask: torch.Tensor | None = None,
        src_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        for layer in self.layers:
            y = layer(y, memory, tgt_mask, src_mask)  # (B, T, D)
        return self.final_norm(y)  # (B, T, D)


class Embeddings(nn.Module):
    """Token embedding times ``sqrt(D)`` plus a positional encoding, eq. (9).

    The embedding is initialised with variance ``1/D`` so that after the ``sqrt(D)``
    scale token vectors and positional vectors have comparable size.

    Args:
        vocab_size: V; d_model: D; pad_id: its vector stays zero.
        positional: ``"sinusoidal"`` or ``"learned"``; max_len: positions to prepare.
    """

    def __init__(
        self, vocab_size: int, d_model: int, pad_id: int = 0,
        positional: str = "sinusoidal", max_len: int = 512, dropout: float = 0.0,
    ):
        super().__init__()
        self.scale = math.sqrt(d_model)
        self.tokens = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        nn.init.normal_(self.tokens.weight, std=d_model ** -0.5)
        with torch.no_grad():
            self.tokens.weight[pad_id].zero_()
        self.positions = build_positional(positional, d_model, dropout, max_len)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.tokens(tokens) * self.scale  # (B, T, D)
        return self.positions(x)  # (B, T, D)


class TokenEncoder(nn.Module):
    """Token ids to contextual vectors: ``Embeddings`` then an ``Encoder`` (the body
    of the TE classifier and of the masked LM). Arguments as those two."""

    def __init__(
        self, vocab_size: int, d_model: int, n_heads: int, d_ff: int, n_layers: int,
        dropout: float = 0.1, residual: str = "post", positional: str = "sinusoidal",
        max_len: int = 512, pad_id: int = 0,
    ):
        super().__init__()
        self.embed = Embeddings(vocab_size, d_model, pad_id, positional, max_len,
                                dropout)
        self.encoder = Encoder(n_layers, d_model, n_heads, d_ff, dropout, residual)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # tokens: (B, T) long; mask: (B, T) True at real tokens
        return self.encoder(self.embed(tokens), mask)  # (B, T, D)


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
