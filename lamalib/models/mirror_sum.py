"""Regressors for the mirror-sum task (chapter "Multi-scale self-attention"): a
Transformer encoder and the Multi-Scale Transformer variants of Guo et al. (2020).

Both read the sequence of vectors ``(B, N, d)`` through a linear layer to width D,
encode it, mean-pool and map back to ``d`` (the readout is ours: the paper does not
give it). The Transformer adds sinusoidal positions; the multi-scale layers, as in the
paper, have none.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import nn

from lamalib.data.datasets.mirror_sum import MirrorBatch
from lamalib.nn.multiscale import MultiScaleLayer, Scale
from lamalib.nn.transformer.positional import SinusoidalPositionalEncoding
from lamalib.nn.transformer.stack import Encoder
from lamalib.train.steps import StepOutput

# The paper's three MS-Trans settings (10 heads per layer) and its Transformer; the
# Transformer's depth and feed-forward width are not given there (ours: 2 layers).
MIRROR_SUM_MODELS: dict[str, dict] = {
    "Transformer": {"encoder": "transformer", "n_layers": 2},
    "MS-Trans-Hier-S": {"encoder": "multiscale", "layers": [[3] * 10] * 2},
    "MS-Trans-deepHier-S": {"encoder": "multiscale", "layers": [[3] * 10] * 6},
    "MS-Trans-Flex": {"encoder": "multiscale", "layers": [
        [s for s in (3, "N/16", "N/8", "N/4", "N/2") for _ in range(2)]] * 2},
}


class MirrorSumRegressor(nn.Module):
    """Linear in, an encoder chosen by name, mean-pool, linear out.

    Args:
        d_in: d. d_model: D (divisible by 10, the paper's head count).
        encoder: ``"transformer"`` or ``"multiscale"``.
        n_layers: Transformer layers. layers: multi-scale layers, one scale per head.
        n_heads: Transformer heads. dropout: everywhere (0 for this task).

    ``forward(a (B, N, d)) -> (B, d)``.
    """

    def __init__(self, d_in: int, d_model: int = 40, encoder: str = "multiscale",
                 n_layers: int = 2, layers: Sequence[Sequence[Scale]] = (),
                 n_heads: int = 10, dropout: float = 0.0) -> None:
        super().__init__()
        self.inp = nn.Linear(d_in, d_model)
        if encoder == "transformer":
            self.pos = SinusoidalPositionalEncoding(d_model)
            self.body = Encoder(n_layers, d_model, n_heads, 4 * d_model, dropout)
        elif encoder == "multiscale":
            if not layers:
                raise ValueError("a multi-scale encoder needs layers=[[scales], ...]")
            self.pos = nn.Identity()  # no positions: the scales give the order
            self.body = nn.ModuleList(MultiScaleLayer(d_model, s, dropout)
                                      for s in layers)
        else:
            raise ValueError(f"encoder must be 'transformer' or 'multiscale', got "
                             f"{encoder!r}")
        self.out = nn.Linear(d_model, d_in)

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        h = self.pos(self.inp(a))  # (B, N, D)
        if isinstance(self.body, nn.ModuleList):
            for layer in self.body:
                h = layer(h)  # (B, N, D), eq. (5)
        else:
            h = self.body(h)  # (B, N, D)
        return self.out(h.mean(1))  # (B, d)


def mse_step(model: torch.nn.Module, batch: MirrorBatch) -> StepOutput:
    """Mean squared error of ``model(inputs)`` against the targets, for ``fit``."""
    pred = model(batch.inputs)  # (B, d)
    loss = torch.nn.functional.mse_loss(pred, batch.targets)
    return StepOutput(loss, 0, len(batch.targets))
