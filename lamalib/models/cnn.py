"""CNN: Kim's (2014) convolutional sentence classifier, a LAMA baseline (chapter
"LAMA").

Kernels of widths 3, 4 and 5 with 100 filters each, ReLU, max over time, dropout, one
linear layer (Kim 2014; the LAMA paper's settings, section 4.2).
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.recurrent.embedding import word_embedding
from lamalib.nn.pooling import masked_max
from lamalib.nn.masking import lengths_to_mask
from lamalib.models.registry import register_model


@register_model("cnn")
class CNNClassifier(nn.Module):
    """Embed, convolve with several widths, max over time per filter, classify.

    The convolution is *wide*: each width K pads K - 1 zero vectors on both sides, so
    a sentence shorter than K still has windows, and every window that touches a real
    token counts. Pads are zeroed before the convolution and windows made only of pads
    are left out of the max, so padding never changes the result.

    Args:
        vocab_size: V. num_classes: C. embed_dim: E.
        kernel_sizes: the window widths K. filters: feature maps per width.
        pretrained: optional ``(V, E)`` matrix to start the embeddings from.
        freeze_embeddings: keep the (pretrained) embeddings fixed while training.
        dropout: on the pooled features (0.5 in Kim 2014).

    ``forward(tokens (B, T), mask (B, T)) -> logits (B, C)``.
    """

    def __init__(self, vocab_size: int, num_classes: int, embed_dim: int = 100,
                 kernel_sizes: tuple[int, ...] = (3, 4, 5), filters: int = 100,
                 pretrained: torch.Tensor | None = None,
                 freeze_embeddings: bool = False, dropout: float = 0.5) -> None:
        super().__init__()
        self.embed = word_embedding(vocab_size, embed_dim, pretrained,
                                    freeze=freeze_embeddings)
        self.convs = nn.ModuleList(
            nn.Conv1d(embed_dim, filters, k, padding=k - 1) for k in kernel_sizes)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(filters * len(kernel_sizes), num_classes)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) * mask[..., None]  # (B, T, E): pads are zero vectors
        x = x.transpose(1, 2)  # (B, E, T): Conv1d wants channels first
        lengths = mask.sum(1)  # (B,)
        pooled = []
        for conv in self.convs:
            k = conv.kernel_size[0]
            maps = torch.relu(conv(x)).transpose(1, 2)  # (B, T + K - 1, filters)
            # Output j sees tokens j-K+1 .. j: a real one iff j < n + K - 1.
            windows = lengths_to_mask(lengths + k - 1, maps.shape[1])  # (B, T + K - 1)
            pooled.append(masked_max(maps, windows))  # (B, filters)
        return self.out(self.dropout(torch.cat(pooled, dim=1)))  # (B, C)
