"""The score registry and the ``Score`` base class (chapter "Attention mechanisms").

A query ``q`` is compared with each key ``k_i`` by a score function ``f(q, k_i)``
(eq. (1)). Every score module has the same interface::

    score(q (B, Tq, Dq), k (B, Tk, Dk)) -> scores (B, Tq, Tk)

and is chosen by name: ``build_score("additive", d_q=8, d_k=8)``.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

SCORES: dict[str, type["Score"]] = {}
ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "tanh": torch.tanh, "relu": torch.relu, "identity": lambda x: x,
}


def register_score(name: str) -> Callable[[type["Score"]], type["Score"]]:
    """Class decorator: make a score function available to :func:`build_score`."""

    def add(cls: type["Score"]) -> type["Score"]:
        if name in SCORES:
            raise ValueError(f"score {name!r} is already registered")
        SCORES[name] = cls
        cls.name = name
        return cls

    return add


def build_score(name: str, d_q: int, d_k: int, **kwargs) -> "Score":
    """The score function ``name`` for queries of width ``d_q`` and keys of ``d_k``."""
    if name not in SCORES:
        raise ValueError(f"Unknown score {name!r}; choose one of {sorted(SCORES)}")
    return SCORES[name](d_q, d_k, **kwargs)


class Score(nn.Module):
    """Base class: ``forward(q (B, Tq, Dq), k (B, Tk, Dk)) -> (B, Tq, Tk)``."""

    name = "score"

    def __init__(self, d_q: int, d_k: int) -> None:
        super().__init__()
        self.d_q, self.d_k = d_q, d_k

    def _same_width(self) -> None:
        if self.d_q != self.d_k:
            raise ValueError(
                f"score {self.name!r} compares q and k directly, so it needs "
                f"d_q == d_k (got {self.d_q} and {self.d_k}); use 'general' or "
                "'additive', which project them"
            )
