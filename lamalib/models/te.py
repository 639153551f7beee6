"""TE: the Transformer-encoder classifier baseline (chapter "The Transformer").

The LAMA paper compares its models against a one-layer Transformer encoder with 8
heads and width 512; this is that baseline, its size chosen by ``TEConfig``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from lamalib.nn.recurrent.embedding import load_pretrained_
from lamalib.nn.pooling import masked_mean
from lamalib.nn.transformer.token_encoder import TokenEncoder
from lamalib.models.registry import register_model


@dataclass
class TEConfig:
    d_model: int = 512  # width D: the LAMA paper's TE baseline (full profile)
    n_heads: int = 8  # H: the paper's baseline; D must be divisible by H
    n_layers: int = 1  # one encoder layer, as in the paper's baseline
    d_ff: int = 2048  # feed-forward width: 4 D as in Vaswani et al.
    dropout: float = 0.1  # on attention weights, sublayer outputs and embeddings
    residual: str = "post"  # "post" (original Transformer) or "pre"
    positional: str = "sinusoidal"  # "sinusoidal" or "learned"
    # positions prepared (the hard limit for "learned"). Not "max_len": that name is
    # the experiments command's truncation, which --set max_len sets.
    max_positions: int = 512
    pad_id: int = 0  # padding id: zero embedding, masked everywhere


@register_model("te")
class TEClassifier(nn.Module):
    """Embed + positions, Transformer encoder, mean over real tokens, linear layer.

    Mean pooling over the mask (not a ``[CLS]`` token) keeps it padding invariant
    and needs no special token in the vocabulary.

    Args:
        vocab_size: V. num_classes: C.
        pretrained: optional ``(V, D)`` word vectors to start the embeddings from
            (scaled by ``sqrt(D)`` like any token embedding of the Transformer).
        freeze_embeddings: keep the (pretrained) embeddings fixed while training.
        **config: any field of :class:`TEConfig` (e.g. ``d_model=64``).
    """

    options_from = TEConfig  # build_model lists and checks these options
    head = "out"  # r -> logits; a pair classifier keeps only represent()

    def __init__(self, vocab_size: int, num_classes: int,
                 pretrained: torch.Tensor | None = None,
                 freeze_embeddings: bool = False, **config) -> None:
        super().__init__()
        cfg = self.config = TEConfig(**config)
        fields = asdict(cfg)
        fields["max_len"] = fields.pop("max_positions")  # TokenEncoder's name for it
        self.body = TokenEncoder(vocab_size, **fields)
        load_pretrained_(self.body.embed.tokens, pretrained, freeze_embeddings)
        self.dropout = nn.Dropout(cfg.dropout)
        self.out = nn.Linear(cfg.d_model, num_classes)

    def represent(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The sentence vector r: the mean of the encoder's states, ``(B, D)``."""
        h = self.body(tokens, mask)  # (B, T, D)
        return masked_mean(h, mask)  # (B, D): pads do not count

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        sentence = self.represent(tokens, mask)  # (B, D)
        return self.out(self.dropout(sentence))  # (B, C)

    def keep_weights(self, flag: bool = True) -> None:
        """Keep each layer's attention weights; read them with ``attention_weights``."""
        self.body.encoder.keep_weights(flag)

    def attention_weights(self) -> torch.Tensor:
        """Weights of the last forward call, ``(L, B, H, T, T)``."""
        return self.body.encoder.attention_weights()

    def describe(self) -> dict:
        """The configuration and the parameter count, for tables in the book."""
        n_params = sum(p.numel() for p in self.parameters())
        return {**asdict(self.config), "params": n_params}
