"""The language-model tests' shared check that an objective learns: ``fit`` a model
on a tiny corpus of two token rows, each repeated eight times (no padding)."""

from __future__ import annotations

import torch

from lamalib.data import Batch
from lamalib.train import TrainConfig, fit


def repeated_rows_losses(model, step, epochs: int = 6) -> list[float]:
    """Training loss per epoch of ``model`` fitted with ``step`` on the tiny corpus."""
    rows = torch.tensor([[5, 6, 7, 8, 9, 10, 11, 12]] * 8
                        + [[20, 21, 22, 23, 24, 25, 26, 27]] * 8)  # (16, 8)
    batches = [Batch(rows[i:i + 4], torch.ones(4, 8, dtype=torch.bool),
                     torch.zeros(4, dtype=torch.long), torch.arange(i, i + 4))
               for i in range(0, 16, 4)]
    history = fit(model, batches, None, TrainConfig(epochs=epochs, lr=3e-3, patience=99,
                                                    progress=False), step=step)
    return history.column("train_loss")
