"""What one batch contributes to training: a loss and a count of correct predictions.

``fit`` calls a *step* on every batch, so classifiers, seq2seq models and masked
language models share one loop; each task only says how its loss is computed.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F


class StepOutput(NamedTuple):
    loss: torch.Tensor  # scalar, averaged over the items of the batch
    correct: int  # items predicted right (for accuracy)
    count: int  # items scored (examples, or target tokens)


def classification_step(model: torch.nn.Module, batch) -> StepOutput:
    """Cross-entropy of ``model(batch.tokens, batch.mask)`` against ``batch.labels``.

    A model with a ``regularization()`` method (e.g. SAN's attention penalty) has its
    value added to the loss.
    """
    logits = model(batch.tokens, batch.mask)  # (B, C)
    loss = F.cross_entropy(logits.float(), batch.labels)
    if hasattr(model, "regularization"):
        loss = loss + model.regularization()
    correct = int((logits.argmax(-1) == batch.labels).sum())
    return StepOutput(loss, correct, len(batch.labels))
