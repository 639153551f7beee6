"""One training loop for every model: ``fit``, ``evaluate``, ``predict``.

Chapter "Setup and a first model" shows it; later chapters plug in their own ``step``.
Each name is imported from its module on first use (``lamalib.lazy``): ``TrainConfig``
alone does not import torch.
"""

from lamalib.lazy import lazy_names

_WHERE = {
    "TrainConfig": "config",
    "History": "history",
    **dict.fromkeys(["evaluate", "fit", "predict"], "loop"),
    **dict.fromkeys(["ClassReport", "class_report"], "metrics"),
    **dict.fromkeys(["StepOutput", "classification_step", "pair_classification_step"],
                    "steps"),
}
__getattr__, __dir__ = lazy_names(__name__, globals(), _WHERE)

__all__ = sorted(_WHERE)
