"""What one batch contributes to training: a loss and a count of correct predictions.

``fit`` calls a *step* on every batch, so classifiers, seq2seq models and masked
language models share one loop; each task only says how its loss is computed.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F


def smoothing(model: torch.nn.Module, label_smoothing: float) -> float:
    """The label smoothing to use now: ``label_smoothing`` in training, 0 in eval mode.

    Smoothing (Szegedy et al., 2016; chapter "The Transformer") trains against
    ``(1 - eps)`` on the target plus ``eps / C`` on every class; evaluation reports the
    plain cross-entropy, so validation losses stay comparable between runs.
    """
    if not 0.0 <= label_smoothing < 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1), got {label_smoothing}")
    return label_smoothing if model.training else 0.0


class StepOutput(NamedTuple):
    loss: torch.Tensor  # scalar, averaged over the items of the batch
    correct: int  # items predicted right (for accuracy)
    count: int  # items scored (examples, or target tokens)


def classification_step(
    model: torch.nn.Module, batch, label_smoothing: float = 0.0
) -> StepOutput:
    """Cross-entropy of ``model(batch.tokens, batch.mask)`` against ``batch.labels``.

    A model with a ``regularization()`` method (e.g. SAN's attention penalty) has its
    value added to the loss. ``label_smoothing``: see :func:`smoothing`; use it with
    ``functools.partial(classification_step, label_smoothing=0.1)``.
    """
    logits = model(batch.tokens, batch.mask)  # (B, C)
    return scored(model, logits, batch.labels, label_smoothing)


def pair_classification_step(
    model: torch.nn.Module, batch, label_smoothing: float = 0.0
) -> StepOutput:
    """Cross-entropy of ``model(tokens1, mask1, tokens2, mask2)`` against
    ``batch.labels``: the step of a sentence-pair classifier and its
    :class:`~lamalib.data.PairBatch` es (chapter "Multi-scale self-attention").

    Regularization and ``label_smoothing`` as in :func:`classification_step`.
    """
    logits = model(batch.tokens1, batch.mask1, batch.tokens2, batch.mask2)  # (B, C)
    return scored(model, logits, batch.labels, label_smoothing)


def scored(model: torch.nn.Module, logits: torch.Tensor, labels: torch.Tensor,
           label_smoothing: float = 0.0) -> StepOutput:
    """Cross-entropy (plus ``model.regularization()`` if it has one) and the number of
    right answers of ``logits (B, C)`` against ``labels (B,)``."""
    eps = smoothing(model, label_smoothing)
    loss = F.cross_entropy(logits.float(), labels, label_smoothing=eps)
    if hasattr(model, "regularization"):
        loss = loss + model.regularization()
    correct = int((logits.argmax(-1) == labels).sum())
    return StepOutput(loss, correct, len(labels))
