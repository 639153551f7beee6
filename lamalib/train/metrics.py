"""Per-class metrics of a classifier's predictions: the confusion matrix, precision,
recall, F1 and support of each class (chapter "Setup"; ``evaluate`` of
``python -m lamalib.experiments``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch


@dataclass
class ClassReport:
    """``confusion[i, j]``: examples of class ``i`` predicted as ``j``, ``(C, C)``;
    one row per class of ``rows`` (label, precision, recall, f1, support)."""

    labels: list[str]
    confusion: torch.Tensor
    accuracy: float
    rows: list[dict]

    def macro(self, key: str = "f1") -> float:
        """The mean of ``key`` (``"precision"``, ``"recall"`` or ``"f1"``) over the
        classes that occur: those with gold examples or predictions (a label the
        model knows that neither the gold labels nor the predictions use is left
        out, as scikit-learn's default ``labels=None``); every class weighs the
        same, however many examples it has."""
        said = self.confusion.sum(0)  # (C,) predictions of each class
        rows = [r for r, n in zip(self.rows, said.tolist()) if r["support"] or n]
        return sum(r[key] for r in rows) / len(rows)

    @property
    def macro_f1(self) -> float:
        return self.macro("f1")

    def recalls(self) -> dict[str, float]:
        """Each class with gold examples: its recall."""
        return {r["label"]: r["recall"] for r in self.rows if r["support"]}

    def lowest_recall(self) -> tuple[str, float]:
        """The class with gold examples that is recalled least, and its recall."""
        return min(self.recalls().items(), key=lambda item: item[1])


def class_report(gold: Sequence[int], predicted: Sequence[int],
                 labels: Sequence[str]) -> ClassReport:
    """Accuracy, the confusion matrix and each class's precision, recall, F1 and
    support (its number of gold examples). A class never predicted has precision 0
    (no prediction is right), one with no examples recall 0, as scikit-learn's
    ``zero_division=0``.

    Args:
        gold, predicted: label ids in ``range(len(labels))``, one per example.
        labels: the class names in id order.
    """
    if len(gold) != len(predicted) or not len(gold):
        raise ValueError("give as many predictions as gold labels, at least one")
    c = len(labels)
    confusion = torch.zeros(c, c, dtype=torch.long)  # (C, C): gold row, predicted col
    pairs = (torch.as_tensor(list(gold)), torch.as_tensor(list(predicted)))
    confusion.index_put_(pairs, torch.ones(len(gold), dtype=torch.long),
                         accumulate=True)
    right = confusion.diagonal()
    rows = []
    for i, label in enumerate(labels):
        said, support = int(confusion[:, i].sum()), int(confusion[i].sum())
        p = int(right[i]) / said if said else 0.0
        r = int(right[i]) / support if support else 0.0
        rows.append({"label": label, "precision": p, "recall": r,
                     "f1": 2 * p * r / (p + r) if p + r else 0.0, "support": support})
    return ClassReport(list(labels), confusion, int(right.sum()) / len(gold), rows)
