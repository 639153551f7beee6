"""A package's names imported on first use (PEP 562), so that importing the package
(``python -m lamalib.experiments --help``, say) does not import torch before a name
that needs it is asked for. In its ``__init__``::

    __getattr__, __dir__ = lazy_names(__name__, globals(), {name: submodule, ...})

``from package import name`` and ``package.name`` work as before.
"""

from __future__ import annotations

import importlib


def lazy_names(package: str, namespace: dict, where: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for ``package`` (whose globals are
    ``namespace``): each name of ``where`` is read from its submodule (relative to
    ``package``) when first asked for, then kept in ``namespace``."""
    def __getattr__(name: str):
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
