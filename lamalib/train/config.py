"""Training configuration (chapter "Setup and a first model")."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class TrainConfig:
    epochs: int = 10  # upper bound; early stopping may end sooner
    optimizer: str = "adamw"  # "adamw", "adam" or "sgd" (lamalib.train.optim)
    lr: float = 1e-3  # learning rate (peak rate when a schedule warms up)
    weight_decay: float = 0.0  # decoupled for adamw, L2 in the loss for adam / sgd
    momentum: float = 0.9  # sgd only (the LAMA paper: 0.9)
    betas: tuple[float, float] = (0.9, 0.999)  # adam / adamw; Vaswani et al.: 0.98
    eps: float = 1e-8  # adam / adamw; Vaswani et al.: 1e-9
    patience: int = 3  # epochs without a better validation score before stopping
    # the validation measure that picks the best epoch and counts patience:
    # "accuracy", or "macro_f1" (each class weighs the same: an imbalanced set)
    select: str = "accuracy"
    # None, or count patience only once training accuracy has risen this far above
    # the first epoch's (lamalib.train.stopping): a slow starter is not stopped on a
    # noisy early validation peak; a run that had begun stops where it would anyway
    stop_after_rise: float | None = None
    clip_grad: float | None = 5.0  # max gradient norm; None turns clipping off
    # Seeds dropout and batch order. The initial weights are drawn when the model is
    # built, before fit: seed first (lamalib.runtime.seed_everything) to repeat them.
    seed: int = 0
    checkpoint_dir: str | Path | None = (
        None  # save each epoch here; None: no checkpoints
    )
    resume: bool = True  # continue from checkpoint_dir's checkpoint if there is one
    amp: bool = True  # mixed precision (float16 autocast + grad scaling), CUDA only
    device: str | None = None  # None: lamalib.runtime.get_device()
    progress: bool | None = None  # progress bars; None: lamalib.runtime.show_progress()
    schedule: str = "constant"  # lr schedule by name: lamalib.train.schedule.SCHEDULES
    warmup_steps: int = 0  # updates until the peak lr (needed by every non-constant)
    total_steps: int | None = None  # where warmup_linear_decay / warmup_cosine reach 0
