"""MathJax served from the built book itself (a Sphinx extension of the book, loaded by
_config.yml), so that every formula renders with no network: a reader who opens
``_build/html`` on a train, or a machine without internet, sees typeset maths instead
of raw TeX.

MathJax 3 comes from the PyPI package ``django-static-mathjax`` (installed by
``make install``; its importable package is ``mathjax`` and holds MathJax's own ``es5``
build, Apache-2.0). The build copies that folder to ``_static/mathjax/`` of the output
and points Sphinx's ``mathjax_path`` at it; nothing of MathJax is committed to the
repository. Without the package the build warns (and so fails under ``-W``, as
``make book`` runs it) instead of quietly loading MathJax from a CDN.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from sphinx.util import logging
from sphinx.util.fileutil import copy_asset

logger = logging.getLogger(__name__)

PACKAGE = "django-static-mathjax"  # on PyPI; imported as `mathjax`
SCRIPT = "tex-mml-chtml.js"        # the same combined component the CDN default loads
TARGET = "mathjax"                 # under the output's _static/


def mathjax_folder() -> Path | None:
    """The installed MathJax ``es5`` folder, or None when the package is missing."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        folder = Path(root) / "static" / "mathjax" / "es5"
        if (folder / SCRIPT).is_file():
            return folder
    return None


def _use_local_copy(app, config) -> None:
    if mathjax_folder() is None:
        logger.warning(f"MathJax for offline reading is not installed (pip install "
                       f"{PACKAGE}, or `make install`); formulas will need a network")
        return
    # relative to _static/, where Sphinx looks for a script that names no host
    config.mathjax_path = f"{TARGET}/{SCRIPT}"


def _copy(app, exception) -> None:
    folder = mathjax_folder()
    if exception is None and folder is not None and app.builder.format == "html":
        copy_asset(str(folder), str(Path(app.outdir) / "_static" / TARGET))


def setup(app):
    app.connect("config-inited", _use_local_copy, priority=900)
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
