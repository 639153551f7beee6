"""Optimisers by name, so a paper's recipe is a config value (chapter "Setup and a
first model"; the LAMA paper trains with SGD + momentum, the Transformer with Adam).
"""

from __future__ import annotations

from typing import Callable, Iterable

import torch

from lamalib.train.config import TrainConfig

Params = Iterable[torch.nn.Parameter]


def _sgd(params: Params, c: TrainConfig) -> torch.optim.Optimizer:
    # Coupled L2 weight decay, as in the LAMA paper (lr 0.05, momentum 0.9, wd 1e-4).
    return torch.optim.SGD(params, lr=c.lr, momentum=c.momentum,
                           weight_decay=c.weight_decay)


def _adam(params: Params, c: TrainConfig) -> torch.optim.Optimizer:
    # Vaswani et al. (2017): beta2 = 0.98, eps = 1e-9 (set by c.betas / c.eps).
    return torch.optim.Adam(params, lr=c.lr, betas=c.betas, eps=c.eps,
                            weight_decay=c.weight_decay)


def _adamw(params: Params, c: TrainConfig) -> torch.optim.Optimizer:
    return torch.optim.AdamW(params, lr=c.lr, betas=c.betas, eps=c.eps,
                             weight_decay=c.weight_decay)


OPTIMIZERS: dict[str, Callable[[Params, TrainConfig], torch.optim.Optimizer]] = {
    "adamw": _adamw,
    "adam": _adam,
    "sgd": _sgd,
}


def build_optimizer(params: Params, config: TrainConfig) -> torch.optim.Optimizer:
    """The optimiser ``config.optimizer`` names, with the config's hyperparameters."""
    if config.optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {config.optimizer!r}; choose one of "
                         f"{sorted(OPTIMIZERS)}")
    return OPTIMIZERS[config.optimizer](params, config)
