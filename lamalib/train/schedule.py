"""Learning-rate schedules by name: constant, linear warm-up, Noam (chapter "The
Transformer").

A schedule is a function ``factor(step, warmup_steps) -> float`` that multiplies the
configured learning rate, so ``TrainConfig.lr`` is always the *peak* rate. ``step``
counts optimizer updates from 1 (the first update uses ``factor(1, warmup)``).

Vaswani et al. (2017), section 5.3, use ``lr = D^-0.5 min(s^-0.5, s w^-1.5)``: a
linear rise for ``w`` warm-up steps, then decay as ``1 / sqrt(s)``. Its peak, at
``s = w``, is ``D^-0.5 w^-0.5``; dividing by the peak gives ``"noam"`` below, so the
paper's schedule is ``"noam"`` with ``lr = D^-0.5 w^-0.5``.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

Schedule = Callable[[int, int], float]


def constant(step: int, warmup_steps: int) -> float:
    """The configured rate at every step (``warmup_steps`` is ignored)."""
    return 1.0


def linear_warmup(step: int, warmup_steps: int) -> float:
    """Rise linearly to the configured rate over ``warmup_steps``, then stay there."""
    return min(1.0, step / warmup_steps)


def noam(step: int, warmup_steps: int) -> float:
    """Linear rise, then ``1 / sqrt(step)`` decay; 1 at ``step == warmup_steps``."""
    return min(step / warmup_steps, math.sqrt(warmup_steps / step))


SCHEDULES: dict[str, Schedule] = {
    "constant": constant,
    "linear_warmup": linear_warmup,
    "noam": noam,
}


def get_schedule(name: str, warmup_steps: int = 0) -> Schedule:
    """The schedule registered under ``name``, checked against ``warmup_steps``."""
    if name not in SCHEDULES:
        raise ValueError(f"unknown schedule {name!r}; use one of {list(SCHEDULES)}")
    if name != "constant" and warmup_steps < 1:
        raise ValueError(
            f"schedule {name!r} needs warmup_steps >= 1, got {warmup_steps}; "
            "set TrainConfig(warmup_steps=...) or use schedule='constant'"
        )
    return SCHEDULES[name]


def build_scheduler(
    optimizer: torch.optim.Optimizer, name: str = "constant", warmup_steps: int = 0
) -> torch.optim.lr_scheduler.LambdaLR:
    """A ``LambdaLR`` for ``optimizer``; call its ``step()`` after every update.

    Args:
        optimizer: its learning rate at construction is the peak rate.
        name: a key of ``SCHEDULES``.
        warmup_steps: updates until the peak (>= 1 for every schedule but
            ``"constant"``).
    """
    schedule = get_schedule(name, warmup_steps)
    # LambdaLR counts from 0 at construction; the first update is step 1.
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda index: schedule(index + 1, warmup_steps)
    )


def learning_rates(
    name: str, lr: float, warmup_steps: int, n_steps: int
) -> list[float]:
    """The rate of updates ``1 .. n_steps`` under ``name`` (for plots)."""
    schedule = get_schedule(name, warmup_steps)
    return [lr * schedule(s, warmup_steps) for s in range(1, n_steps + 1)]
