"""Models by name: ``build_model("avg", vocab_size=..., num_classes=...)``.

Every module in ``lamalib/models`` registers its classes with :func:`register_model`;
the registry imports them all on first use, so adding a model file needs no other edit.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

import torch

MODELS: dict[str, Callable[..., torch.nn.Module]] = {}


def register_model(name: str):
    """Class decorator: make the model buildable by ``name``."""

    def add(cls):
        if name in MODELS and MODELS[name] is not cls:
            raise ValueError(f"model name {name!r} is already taken by {MODELS[name]}")
        MODELS[name] = cls
        return cls

    return add


def _import_all() -> None:
    import lamalib.models as package

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")


def available_models() -> list[str]:
    """Names that :func:`build_model` accepts."""
    _import_all()
    return sorted(MODELS)


def build_model(name: str, **kwargs) -> torch.nn.Module:
    """Instantiate the model registered as ``name`` with ``kwargs``."""
    _import_all()
    if name not in MODELS:
        raise KeyError(
            f"Unknown model {name!r}. Available: {', '.join(sorted(MODELS))}."
        )
    return MODELS[name](**kwargs)
