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
    # a classifier's predicted and gold class ids, (B,) each (per-class measures,
    # macro-F1); None for a step that scores tokens
    predicted: torch.Tensor | None = None
    gold: torch.Tensor | None = None


def classification_step(
    model: torch.nn.Module, batch, label_smoothing: float = 0.0,
    class_weight: torch.Tensor | None = None,
) -> StepOutput:
    """Cross-entropy of ``model(batch.tokens, batch.mask)`` against ``batch.labels``.

    A model with a ``regularization()`` method (e.g. SAN's attention penalty) has its
    value added to the loss. ``label_smoothing``: see :func:`smoothing`; use it with
    ``functools.partial(classification_step, label_smoothing=0.1)``.
    ``class_weight``: ``(C,)`` weights of the classes in the training loss (e.g.
    :func:`balanced_weights`); evaluation reports the plain cross-entropy.
    """
    logits = model(batch.tokens, batch.mask)  # (B, C)
    return scored(model, logits, batch.labels, label_smoothing, class_weight)


def pair_classification_step(
    model: torch.nn.Module, batch, label_smoothing: float = 0.0,
    class_weight: torch.Tensor | None = None,
) -> StepOutput:
    """Cross-entropy of ``model(tokens1, mask1, tokens2, mask2)`` against
    ``batch.labels``: the step of a sentence-pair classifier and its
    :class:`~lamalib.data.PairBatch` es (chapter "Multi-scale self-attention").

    Regularization and ``label_smoothing`` as in :func:`classification_step`.
    """
    logits = model(batch.tokens1, batch.mask1, batch.tokens2, batch.mask2)  # (B, C)
    return scored(model, logits, batch.labels, label_smoothing, class_weight)


def scored(model: torch.nn.Module, logits: torch.Tensor, labels: torch.Tensor,
           label_smoothing: float = 0.0,
           class_weight: torch.Tensor | None = None) -> StepOutput:
    """Cross-entropy (plus ``model.regularization()`` if it has one) and the number of
    right answers of ``logits (B, C)`` against ``labels (B,)``; ``class_weight``
    ``(C,)`` weighs each class's examples in training (not in evaluation)."""
    eps = smoothing(model, label_smoothing)
    weight = (class_weight.to(logits.device) if class_weight is not None
              and model.training else None)
    loss = F.cross_entropy(logits.float(), labels, weight=weight, label_smoothing=eps)
    if hasattr(model, "regularization"):
        loss = loss + model.regularization()
    predicted = logits.argmax(-1)  # (B,)
    correct = int((predicted == labels).sum())
    return StepOutput(loss, correct, len(labels), predicted.detach(), labels)


def balanced_weights(labels, num_classes: int) -> torch.Tensor:
    """``(C,)`` class weights ``n / (C * n_c)`` (scikit-learn's "balanced"): every
    class weighs as much in the loss as if the classes were equally frequent; a class
    without examples gets weight 0."""
    counts = torch.bincount(torch.as_tensor(list(labels)), minlength=num_classes)
    n = int(counts.sum())
    return torch.where(counts > 0, n / (num_classes * counts.clamp(min=1).float()),
                       torch.zeros(num_classes))
