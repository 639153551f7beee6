"""A sentence pair read as one packed sequence, BERT's way, and classified from its
``[CLS]`` vectors (chapter "Attention for Vietnamese": the seed report's pooling
comparison).

The input is ``[CLS] A [SEP] [CLS] B [SEP]`` (``lamalib.data.datasets.mlm.pack_pair``
with a ``[CLS]`` put before B), segment 0 for A's part and 1 for B's; each token's
vector is the sum of its token, position and segment embeddings, read by a Transformer
encoder (``TokenEncoder``). Two poolings, by name:

* ``"cls"``: the first ``[CLS]``'s vector alone, as BERT's sentence-pair classifier;
* ``"two_cls"``: that vector beside the vector of the ``[CLS]`` that opens segment B,
  concatenated (the seed report's second model).

Both go through BERT's pooler ``tanh(W p + b)`` and a linear layer to the classes.
"""

from __future__ import annotations

from dataclasses import asdict

import torch
from torch import nn

from lamalib.models.mlm import MLMConfig
from lamalib.nn.transformer.token_encoder import TokenEncoder
from lamalib.train.steps import StepOutput, scored

POOLINGS = ("cls", "two_cls")


class PackedPairClassifier(nn.Module):
    """Encoder with segment embeddings and a classifier on one or two ``[CLS]``.

    Args:
        vocab_size, num_classes: V, C.
        cls_id: the id of ``[CLS]``, found at the start of segment B by ``"two_cls"``.
        pooling: ``"cls"`` or ``"two_cls"`` (see the module docstring).
        **config: any field of :class:`~lamalib.models.mlm.MLMConfig`.

    ``forward(tokens (B, T), mask (B, T), segments (B, T)) -> logits (B, C)``.
    """

    def __init__(self, vocab_size: int, num_classes: int, cls_id: int,
                 pooling: str = "cls", **config) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling={pooling!r}: give one of {', '.join(POOLINGS)}")
        cfg = self.config = MLMConfig(**config)
        self.pooling, self.cls_id = pooling, cls_id
        self.body = TokenEncoder(vocab_size, **asdict(cfg))
        self.segments = nn.Embedding(2, cfg.d_model)
        nn.init.normal_(self.segments.weight, std=0.02)  # BERT's initialisation
        width = cfg.d_model * (2 if pooling == "two_cls" else 1)
        self.pooler = nn.Linear(width, cfg.d_model)
        self.out = nn.Linear(cfg.d_model, num_classes)

    def pooled(self, h: torch.Tensor, tokens: torch.Tensor,
               segments: torch.Tensor) -> torch.Tensor:
        """The vector the classifier reads: ``(B, D)`` or ``(B, 2D)``."""
        first = h[:, 0]  # (B, D): the [CLS] that opens the sequence
        if self.pooling == "cls":
            return first
        opens_b = (tokens == self.cls_id) & (segments == 1)  # (B, T)
        if not bool(opens_b.any(-1).all()):
            raise ValueError("pooling='two_cls' needs a [CLS] at the start of segment "
                             "B in every sequence: pack [CLS] A [SEP] [CLS] B [SEP]")
        second = h[torch.arange(len(h)), opens_b.float().argmax(-1)]  # (B, D)
        return torch.cat([first, second], -1)  # (B, 2D)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor,
                segments: torch.Tensor) -> torch.Tensor:
        x = self.body.embed(tokens) + self.segments(segments)  # (B, T, D)
        h = self.body.encoder(x, mask)  # (B, T, D)
        pooled = torch.tanh(self.pooler(self.pooled(h, tokens, segments)))  # (B, D)
        return self.out(pooled)  # (B, C)


def packed_pair_step(model: nn.Module, batch) -> StepOutput:
    """Cross-entropy of ``model(tokens, mask, segments)`` on a
    :class:`~lamalib.data.SegmentBatch` against its labels."""
    return scored(model, model(batch.tokens, batch.mask, batch.segments), batch.labels)
