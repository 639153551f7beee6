"""One training loop for every model: ``fit``, ``evaluate``, ``predict``.

Chapter "Setup and a first model" shows it; later chapters plug in their own ``step``.
"""

from .config import TrainConfig
from .history import History
from .loop import evaluate, fit, predict
from .steps import StepOutput, classification_step, pair_classification_step

__all__ = [
    "History",
    "StepOutput",
    "TrainConfig",
    "classification_step",
    "pair_classification_step",
    "evaluate",
    "fit",
    "predict",
]
