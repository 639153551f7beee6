"""Copying weights from ``torch.nn.Transformer*Layer`` into our layers (chapter "The
Transformer"): the tests load a torch layer and check both compute the same."""

from __future__ import annotations

import torch
from torch import nn


@torch.no_grad()
def load_ff_and_norms(layer: nn.Module, ref: nn.Module, blocks: list) -> None:
    """Copy ``ref``'s feed-forward net into ``layer.ff`` and its norms ``norm1, norm2,
    ...`` into the residual ``blocks`` in order (``ref`` a torch Transformer layer)."""
    layer.ff.linear1.load_state_dict(ref.linear1.state_dict())
    layer.ff.linear2.load_state_dict(ref.linear2.state_dict())
    for i, block in enumerate(blocks, start=1):
        block.norm.load_state_dict(getattr(ref, f"norm{i}").state_dict())
