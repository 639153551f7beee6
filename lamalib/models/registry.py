"""Models by name: ``build_model("avg", vocab_size=..., num_classes=...)``.

Every module in ``lamalib/models`` registers its classes with :func:`register_model`;
the registry imports them all on first use, so adding a model file needs no other edit.
``available_models(kind)`` lists them by kind and ``model_options(name)`` gives each
option with its default, so a wrong argument gets an answer that lists the right ones.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # models import torch when the registry imports them
    import torch

MODELS: dict[str, Callable[..., torch.nn.Module]] = {}
KINDS: dict[str, str] = {}
# classifier: forward(tokens (B, T), mask (B, T)) -> logits (B, C).
# seq2seq: forward(src, src_mask, tgt_in) -> (logits (B, T, V), weights (B, T, S)).
# pair: forward(tokens1 (B, T1), mask1, tokens2 (B, T2), mask2) -> logits (B, C).
MODEL_KINDS = ("classifier", "seq2seq", "pair")
REQUIRED = "required"  # the default shown for an option without one
# A classifier's options that a run sets from its data (and --set embeddings), never
# the user; a results file or saved model also leaves out freeze_embeddings, which
# goes with the pretrained vectors it does not keep.
DATA_OPTIONS = ("vocab_size", "num_classes", "pretrained")
UNRECORDED_OPTIONS = DATA_OPTIONS + ("freeze_embeddings",)


def register_model(name: str, kind: str = "classifier"):
    """Class decorator: make the model buildable by ``name``; ``kind`` is one of
    :data:`MODEL_KINDS`."""
    if kind not in MODEL_KINDS:
        raise ValueError(f"kind must be one of {MODEL_KINDS}, got {kind!r}")

    def add(cls):
        if name in MODELS and MODELS[name] is not cls:
            raise ValueError(f"model name {name!r} is already taken by {MODELS[name]}")
        MODELS[name], KINDS[name] = cls, kind
        return cls

    return add


def _import_all() -> None:
    # every module beside this one registers its models when imported
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        importlib.import_module(f"{__package__}.{info.name}")


def _known(name: str) -> type:
    _import_all()
    if name not in MODELS:
        raise KeyError(
            f"Unknown model {name!r}. Available: {', '.join(sorted(MODELS))}."
        )
    return MODELS[name]


def available_models(kind: str | None = None) -> list[str]:
    """Names that :func:`build_model` accepts, all or only those of one ``kind``
    (``"classifier"``, ``"seq2seq"`` or ``"pair"``)."""
    _import_all()
    if kind is not None and kind not in MODEL_KINDS:
        raise ValueError(f"kind must be one of {MODEL_KINDS} or None, got {kind!r}")
    return sorted(n for n in MODELS if kind is None or KINDS[n] == kind)


_DECLARED = re.compile(r'^@register_model\(\s*"([^"]+)"(?:\s*,\s*(?:kind=)?"([^"]+)")?\s*\)',
                       re.M)


def declared_models(kind: str | None = None) -> list[str]:
    """:func:`available_models` read from the ``@register_model("name", kind=...)``
    lines of the model files, without importing them (and torch): what a command's
    ``--help`` lists. (tests/test_startup.py checks both agree.)"""
    found = {}
    for path in sorted(Path(__file__).parent.glob("*.py")):
        for name, declared in _DECLARED.findall(path.read_text(encoding="utf-8")):
            found[name] = declared or "classifier"
    return sorted(n for n, k in found.items() if kind is None or k == kind)


def model_kind(name: str) -> str:
    """``"classifier"``, ``"seq2seq"`` or ``"pair"``."""
    _known(name)
    return KINDS[name]


def _parameters(fn) -> tuple[dict, bool]:
    """Named parameters of ``fn`` with defaults, and whether it takes ``**kwargs``."""
    options, open_ended = {}, False
    for p in list(inspect.signature(fn).parameters.values()):
        if p.name == "self" or p.kind is p.VAR_POSITIONAL:
            continue
        if p.kind is p.VAR_KEYWORD:
            open_ended = True
            continue
        options[p.name] = REQUIRED if p.default is p.empty else p.default
    return options, open_ended


def _options(cls) -> tuple[dict, bool]:
    options, open_ended = _parameters(cls.__init__)
    # A model that forwards **kwargs to a config dataclass or another constructor
    # names it in `options_from`, so its options can be listed and checked.
    source = getattr(cls, "options_from", None)
    if open_ended and source is not None:
        if dataclasses.is_dataclass(source):
            extra = {f.name: f.default for f in dataclasses.fields(source)}
        else:
            extra, open_ended = _parameters(source)
        fixed = getattr(cls, "options_fixed", ())  # set by the model itself
        options.update({k: v for k, v in extra.items()
                        if k not in options and k not in fixed})
        open_ended = open_ended and not dataclasses.is_dataclass(source)
    return options, open_ended


def model_options(name: str) -> dict:
    """Each option of model ``name`` and its default (``"required"`` if none)."""
    return _options(_known(name))[0]


def _listing(options: dict) -> str:
    return ", ".join(k if v == REQUIRED else f"{k}={v!r}" for k, v in options.items())


def build_model(name: str, **kwargs) -> torch.nn.Module:
    """Instantiate the model registered as ``name`` with ``kwargs``.

    An unknown or missing option raises a ``TypeError`` that lists the model's
    options and defaults.
    """
    cls = _known(name)
    options, open_ended = _options(cls)
    unknown = [k for k in kwargs if k not in options]
    missing = [k for k, v in options.items() if v == REQUIRED and k not in kwargs]
    if (unknown and not open_ended) or missing:
        what = (f"has no option {', '.join(map(repr, unknown))}" if unknown and
                not open_ended else f"needs {', '.join(map(repr, missing))}")
        raise TypeError(f"model {name!r} {what}. Its options: {_listing(options)}.")
    return cls(**kwargs)


def describe_models() -> list[dict]:
    """One row per model: name, kind, options with defaults (a table for the book)."""
    return [{"name": n, "kind": KINDS[n], "options": _listing(model_options(n))}
            for n in available_models()]
