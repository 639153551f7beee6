"""One training loop for every model: ``fit``, ``evaluate``, ``predict``.

Chapter "Setup and a first model" shows it; later chapters plug in their own ``step``.
"""

from lamalib.train.config import TrainConfig
from lamalib.train.history import History
from lamalib.train.loop import evaluate, fit, predict
from lamalib.train.metrics import ClassReport, class_report
from lamalib.train.steps import (StepOutput, classification_step,
                                 pair_classification_step)

__all__ = [
    "ClassReport",
    "class_report",
    "History",
    "StepOutput",
    "TrainConfig",
    "classification_step",
    "pair_classification_step",
    "evaluate",
    "fit",
    "predict",
]
