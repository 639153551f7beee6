"""Learning-rate schedules by name: constant, linear warm-up, Noam, and warm-up
then a linear or cosine decay to zero (chapters "The Transformer", "Pretraining").

A schedule is a function ``factor(step, warmup_steps, total_steps) -> float`` that
multiplies the configured learning rate, so ``TrainConfig.lr`` is always the *peak*
rate. ``step`` counts optimizer updates from 1 (the first update uses
``factor(1, warmup, total)``). Only the decaying schedules read ``total_steps``: a
pretraining run defines its schedule over its planned number of updates, so the same
command gives the same rates however long it takes in wall time.

Vaswani et al. (2017), section 5.3, use ``lr = D^-0.5 min(s^-0.5, s w^-1.5)``: a
linear rise for ``w`` warm-up steps, then decay as ``1 / sqrt(s)``. Its peak, at
``s = w``, is ``D^-0.5 w^-0.5``; dividing by the peak gives ``"noam"`` below, so the
paper's schedule is ``"noam"`` with ``lr = D^-0.5 w^-0.5``.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

Schedule = Callable[[int, int, int | None], float]


def constant(step: int, warmup_steps: int, total_steps: int | None = None) -> float:
    """The configured rate at every step (``warmup_steps`` is ignored)."""
    return 1.0


def linear_warmup(step: int, warmup_steps: int,
                  total_steps: int | None = None) -> float:
    """Rise linearly to the configured rate over ``warmup_steps``, then stay there."""
    return min(1.0, step / warmup_steps)


def noam(step: int, warmup_steps: int, total_steps: int | None = None) -> float:
    """Linear rise, then ``1 / sqrt(step)`` decay; 1 at ``step == warmup_steps``."""
    return min(step / warmup_steps, math.sqrt(warmup_steps / step))


def _decayed(step: int, warmup_steps: int, total_steps: int) -> float:
    """The share of the decay phase done after ``step``: 0 at the peak, 1 at the end."""
    return min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))


def warmup_linear_decay(step: int, warmup_steps: int, total_steps: int) -> float:
    """Linear rise to the peak, then linear decay to 0 at ``total_steps`` (BERT)."""
    if step < warmup_steps:
        return step / warmup_steps
    return 1.0 - _decayed(step, warmup_steps, total_steps)


def warmup_cosine(step: int, warmup_steps: int, total_steps: int) -> float:
    """Linear rise to the peak, then half a cosine down to 0 at ``total_steps``."""
    if step < warmup_steps:
        return step / warmup_steps
    return 0.5 * (1.0 + math.cos(math.pi * _decayed(step, warmup_steps, total_steps)))


SCHEDULES: dict[str, Schedule] = {
    "constant": constant,
    "linear_warmup": linear_warmup,
    "noam": noam,
    "warmup_linear_decay": warmup_linear_decay,
    "warmup_cosine": warmup_cosine,
}
DECAYING = ("warmup_linear_decay", "warmup_cosine")  # they need total_steps


def get_schedule(name: str, warmup_steps: int = 0,
                 total_steps: int | None = None) -> Schedule:
    """The schedule registered under ``name``, checked against ``warmup_steps`` and
    (for the decaying ones) ``total_steps``."""
    if name not in SCHEDULES:
        raise ValueError(f"unknown schedule {name!r}; use one of {list(SCHEDULES)}")
    if name != "constant" and warmup_steps < 1:
        raise ValueError(
            f"schedule {name!r} needs warmup_steps >= 1, got {warmup_steps}; "
            "set TrainConfig(warmup_steps=...) or use schedule='constant'"
        )
    if name in DECAYING and (total_steps is None or total_steps < warmup_steps):
        raise ValueError(
            f"schedule {name!r} decays to 0 at total_steps, which must be >= "
            f"warmup_steps ({warmup_steps}), got {total_steps}; set "
            "TrainConfig(total_steps=...)"
        )
    return SCHEDULES[name]


def build_scheduler(
    optimizer: torch.optim.Optimizer, name: str = "constant", warmup_steps: int = 0,
    total_steps: int | None = None,
) -> torch.optim.lr_scheduler.LambdaLR:
    """A ``LambdaLR`` for ``optimizer``; call its ``step()`` after every update.

    Args:
        optimizer: its learning rate at construction is the peak rate.
        name: a key of ``SCHEDULES``.
        warmup_steps: updates until the peak (>= 1 for every schedule but
            ``"constant"``).
        total_steps: where a decaying schedule reaches 0 (ignored by the others).
    """
    schedule = get_schedule(name, warmup_steps, total_steps)
    # LambdaLR counts from 0 at construction; the first update is step 1.
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda index: schedule(index + 1, warmup_steps, total_steps)
    )


def learning_rates(
    name: str, lr: float, warmup_steps: int, n_steps: int,
    total_steps: int | None = None,
) -> list[float]:
    """The rate of updates ``1 .. n_steps`` under ``name`` (for plots); a decaying
    schedule ends at ``total_steps`` (default ``n_steps``)."""
    total = n_steps if total_steps is None else total_steps
    schedule = get_schedule(name, warmup_steps, total)
    return [lr * schedule(s, warmup_steps, total) for s in range(1, n_steps + 1)]
