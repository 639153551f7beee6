"""The sentence-pair classifier that Guo et al. (2020) use for SNLI, after Bowman et
al. (2016) (chapter "Multi-scale self-attention", section "Sentence pairs: SNLI").

One sentence encoder, the same weights for both sentences, gives ``r1`` and ``r2``;
a two-layer MLP classifies ``[r1, r2, |r1 - r2|, r1 - r2]``. The encoder is any
registered classifier that can give its sentence vector: ``represent(tokens, mask)
-> r (B, R)``, with ``head`` naming the layers that turn ``r`` into its own logits
(their first linear layer reads the R features). Those layers are dropped here.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.models.registry import (MODELS, available_models, build_model,
                                     register_model)


def sentence_encoders() -> list[str]:
    """Registered classifiers that can encode one sentence of a pair."""
    return [name for name in available_models("classifier")
            if hasattr(MODELS[name], "represent") and hasattr(MODELS[name], "head")]


def pair_features(r1: torch.Tensor, r2: torch.Tensor) -> torch.Tensor:
    """``[r1, r2, |r1 - r2|, r1 - r2]`` of ``r1, r2 (B, R)`` -> ``(B, 4 R)``."""
    return torch.cat([r1, r2, (r1 - r2).abs(), r1 - r2], -1)  # (B, 4 R)


def stack_pairs(tokens1: torch.Tensor, mask1: torch.Tensor, tokens2: torch.Tensor,
                mask2: torch.Tensor, pad_id: int = 0) -> tuple[torch.Tensor,
                                                               torch.Tensor]:
    """Both sides as one batch of ``2 B`` sentences, padded to the longer side:
    ``tokens (2 B, T)``, ``mask (2 B, T)`` with ``T = max(T1, T2)``."""
    T = max(tokens1.shape[1], tokens2.shape[1])

    def pad(x: torch.Tensor, value) -> torch.Tensor:
        return nn.functional.pad(x, (0, T - x.shape[1]), value=value)

    tokens = torch.cat([pad(tokens1, pad_id), pad(tokens2, pad_id)])  # (2 B, T)
    mask = torch.cat([pad(mask1, False), pad(mask2, False)])  # (2 B, T)
    return tokens, mask


@register_model("pair", kind="pair")
class PairClassifier(nn.Module):
    """A shared sentence encoder and an MLP on ``[r1, r2, |r1 - r2|, r1 - r2]``.

    Args:
        vocab_size: V. num_classes: C (3 for SNLI).
        encoder: the name of a registered classifier that has ``represent`` (see
            :func:`sentence_encoders`), e.g. ``"ms_transformer"`` (the paper's).
        encoder_options: its options, e.g. ``{"d_model": 64, "pretrained": vectors}``.
        hidden: width of the MLP's hidden layer (ours: the paper's is in its
            appendix, which our copy lacks).
        dropout: on the features and on the hidden layer.

    ``forward(tokens1 (B, T1), mask1 (B, T1), tokens2 (B, T2), mask2 (B, T2)) ->
    logits (B, C)``. Both sentences go through the encoder as one batch of 2 B, so
    an encoder's ``regularization()`` (SAN's penalty) covers both; it is passed on.
    """

    def __init__(self, vocab_size: int, num_classes: int,
                 encoder: str = "ms_transformer", encoder_options: dict | None = None,
                 hidden: int = 300, dropout: float = 0.1) -> None:
        super().__init__()
        if encoder not in sentence_encoders():
            raise ValueError(f"{encoder!r} cannot encode a sentence of a pair (it has "
                             "no represent()); choose one of "
                             f"{', '.join(sentence_encoders())}")
        self.encoder = build_model(encoder, vocab_size=vocab_size,
                                   num_classes=num_classes, **(encoder_options or {}))
        head = getattr(self.encoder, self.encoder.head)
        R = next(m for m in head.modules() if isinstance(m, nn.Linear)).in_features
        setattr(self.encoder, self.encoder.head, None)  # one sentence's logits: unused
        self.encoder_name, self.representation_size = encoder, R
        self.classifier = nn.Sequential(  # the two-layer MLP (Bowman et al. 2016)
            nn.Dropout(dropout), nn.Linear(4 * R, hidden), nn.ReLU(),
            nn.Dropout(dropout), nn.Linear(hidden, num_classes))

    def represent_pair(self, tokens1: torch.Tensor, mask1: torch.Tensor,
                       tokens2: torch.Tensor, mask2: torch.Tensor
                       ) -> tuple[torch.Tensor, torch.Tensor]:
        """``r1, r2 (B, R)`` of the two sentences, from the same encoder."""
        tokens, mask = stack_pairs(tokens1, mask1, tokens2, mask2)  # (2 B, T)
        r = self.encoder.represent(tokens, mask)  # (2 B, R)
        return r.chunk(2)  # (B, R) each

    def forward(self, tokens1: torch.Tensor, mask1: torch.Tensor,
                tokens2: torch.Tensor, mask2: torch.Tensor) -> torch.Tensor:
        r1, r2 = self.represent_pair(tokens1, mask1, tokens2, mask2)  # (B, R)
        return self.classifier(pair_features(r1, r2))  # (B, C)

    def regularization(self) -> torch.Tensor:
        """The encoder's penalty of the last forward (0 for most encoders)."""
        if hasattr(self.encoder, "regularization"):
            return self.encoder.regularization()
        return torch.zeros((), device=self.classifier[1].weight.device)
