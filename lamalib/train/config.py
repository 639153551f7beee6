"""Training configuration (chapter "Setup and a first model")."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class TrainConfig:
    epochs: int = 10  # upper bound; early stopping may end sooner
    lr: float = 1e-3  # Adam learning rate
    weight_decay: float = (
        0.0  # L2 penalty through the optimizer (AdamW-style decoupled)
    )
    patience: int = 3  # epochs without a better validation score before stopping
    clip_grad: float | None = 5.0  # max gradient norm; None turns clipping off
    seed: int = 0  # seeds weights' init order, dropout and batch order
    checkpoint_dir: str | Path | None = (
        None  # save each epoch here; None: no checkpoints
    )
    resume: bool = True  # continue from checkpoint_dir's checkpoint if there is one
    amp: bool = True  # mixed precision (float16 autocast + grad scaling), CUDA only
    device: str | None = None  # None: lamalib.runtime.get_device()
    progress: bool | None = None  # progress bars; None: lamalib.runtime.show_progress()
    schedule: str = "constant"  # lr schedule by name: lamalib.train.schedule.SCHEDULES
    warmup_steps: int = 0  # updates until the peak lr (needed by every non-constant)
