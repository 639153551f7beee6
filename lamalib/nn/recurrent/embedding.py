"""The word-embedding layer of classifiers (chapter "Recurrent networks and the GRU").

One place that starts the table from pretrained vectors (chapter "Word vectors") and
optionally freezes it, so models do not each repeat it.
"""

from __future__ import annotations

import torch
from torch import nn


def word_embedding(
    vocab_size: int,
    embed_dim: int,
    pretrained: torch.Tensor | None = None,
    freeze: bool = False,
    pad_id: int = 0,
) -> nn.Embedding:
    """An ``nn.Embedding (V, E)``, copied from ``pretrained (V, E)`` when given.

    ``freeze`` keeps the table fixed during training; the pad row gets no gradient.
    """
    embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
    return load_pretrained_(embed, pretrained, freeze)


def load_pretrained_(
    embed: nn.Embedding, pretrained: torch.Tensor | None, freeze: bool = False
) -> nn.Embedding:
    """Copy ``pretrained (V, E)`` into ``embed`` (if given) and freeze it if asked.

    Models whose embedding layer is built elsewhere (the Transformer's, which also
    scales and adds positions) call this on it.
    """
    if pretrained is not None:
        pretrained = torch.as_tensor(pretrained, dtype=embed.weight.dtype)
        if pretrained.shape != embed.weight.shape:
            raise ValueError(
                f"pretrained vectors have shape {tuple(pretrained.shape)}, the model "
                f"needs {tuple(embed.weight.shape)}: build them from the same Vocab "
                "and pass the model a width equal to theirs"
            )
        with torch.no_grad():
            embed.weight.copy_(pretrained)
    embed.weight.requires_grad_(not freeze)
    return embed
