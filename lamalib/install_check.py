"""After the Colab install cell's ``pip install``: did pip change a package that this
runtime has already imported? (chapter "Setup and a first model", first cell).

A Python process keeps the modules it has imported; if pip replaces one of them on
disk (numpy, say), the old copy in memory and the new files mix and the next imports
fail in confusing ways until the runtime restarts. pip's ``--report`` file lists what
it installed; any of those whose modules are already imported needs a restart.

Standard library only, and ``lamalib/__init__.py`` imports nothing, so the install
cell can import this module right after pip without loading numpy or torch.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import re
import sys
from pathlib import Path
from typing import Iterable, Mapping

RESTART = "Runtime > Restart session"  # Colab's menu entry


def canonical(name: str) -> str:
    """A distribution name as pip compares them: ``PyYAML`` -> ``pyyaml``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_by_pip(report_path: str | Path) -> dict[str, str]:
    """``{distribution: version}`` that a ``pip install --report`` run installed."""
    report = json.loads(Path(report_path).read_text())
    return {
        item["metadata"]["name"]: item["metadata"]["version"]
        for item in report.get("install", [])
    }


def in_use(
    distributions: Iterable[str],
    modules: Mapping[str, object] | None = None,
    top_levels: Mapping[str, list[str]] | None = None,
) -> dict[str, str]:
    """The given distributions that have a module imported here, with the version of
    that module in memory (``""`` where it has no ``__version__``).

    Args:
        distributions: names to look for. modules: default ``sys.modules``.
        top_levels: ``{module: [distribution, ...]}``, default
            ``importlib.metadata.packages_distributions()``.
    """
    modules = sys.modules if modules is None else modules
    if top_levels is None:
        importlib.invalidate_caches()  # see what pip just wrote
        top_levels = importlib.metadata.packages_distributions()
    wanted = {canonical(d): d for d in distributions}
    used: dict[str, str] = {}
    for name, module in list(modules.items()):
        if "." in name or module is None:
            continue  # a submodule's package is imported too
        for dist in top_levels.get(name, []):
            key = canonical(dist)
            if key in wanted and wanted[key] not in used:
                used[wanted[key]] = str(getattr(module, "__version__", ""))
    return used


def restart_message(
    before: Mapping[str, str], after: Mapping[str, str]
) -> str | None:
    """One line asking for a restart if pip changed a package already in use.

    Args:
        before: ``{distribution: version in memory}`` of the packages in use (see
            :func:`in_use`). after: ``{distribution: version}`` pip installed.
    """
    after_by_key = {canonical(d): v for d, v in after.items()}
    changed = [
        f"{dist} {old} -> {after_by_key[canonical(dist)]}" if old
        else f"{dist} (now {after_by_key[canonical(dist)]})"
        for dist, old in sorted(before.items())
        if canonical(dist) in after_by_key and old != after_by_key[canonical(dist)]
    ]
    if not changed:
        return None
    return (
        f"Installing lamalib changed {', '.join(changed)}, already imported in this "
        f"runtime: restart it ({RESTART}) and run this notebook again."
    )


def restart_hint(report_path: str | Path) -> None:
    """What the install cell calls: print :func:`restart_message` for pip's report
    (lamalib itself, imported just now to run this, does not count)."""
    installed = installed_by_pip(report_path)
    others = {d: v for d, v in installed.items() if canonical(d) != "lamalib"}
    message = restart_message(in_use(others), others)
    if message:
        print(message)
