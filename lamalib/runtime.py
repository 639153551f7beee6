"""Device, seeding, the run profile, Colab detection and Colab's widget manager
(chapter "Setup and a first model")."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import random
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

import numpy as np

if TYPE_CHECKING:  # torch is imported where it is used: --help needs none
    import torch

PROFILES = ("quick", "full")
T_ = TypeVar("T_")


def get_device() -> torch.device:
    """The device to run on: CUDA when available, else CPU (``LAMALIB_DEVICE``
    overrides)."""
    import torch

    name = os.environ.get("LAMALIB_DEVICE")
    if name:
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


_exact = False  # True inside exact_seeds(): seeds are used as given


def base_seed() -> int:
    """The shift ``LAMALIB_SEED`` (default 0) adds to every seed a chapter uses."""
    value = os.environ.get("LAMALIB_SEED", "").strip()
    if not value:
        return 0
    try:
        shift = int(value)
    except ValueError:
        shift = -1
    if shift < 0:
        raise ValueError(f"LAMALIB_SEED={value!r} is not a seed: set it to a whole "
                         "number >= 0 (0, the default, gives the book's own runs)")
    return shift


def seed(k: int = 0) -> int:
    """Seed number ``k`` of a chapter, shifted by ``LAMALIB_SEED``: ``k + base_seed()``.

    Every seed in the book and the library (:func:`seed_everything`, data splits,
    synthetic data, batch samplers, random vectors) goes through here, so one setting
    reruns a whole chapter with other seeds; a fact the chapter asserts must hold for
    any of them. Inside :func:`exact_seeds` it returns ``k`` itself.
    """
    return int(k) if _exact else int(k) + base_seed()


_shifted = seed  # for functions whose argument is named ``seed``


@contextmanager
def exact_seeds():
    """Use seeds as given, without ``LAMALIB_SEED``'s shift: the experiments runner
    shifts a run's seed once, when it starts, and names its results file by it."""
    global _exact
    before, _exact = _exact, True
    try:
        yield
    finally:
        _exact = before


def seed_everything(seed: int = 0) -> None:
    """Seed Python, NumPy and torch (CPU and CUDA) with ``runtime.seed(seed)`` (shifted
    by ``LAMALIB_SEED``) so a run can be repeated."""
    import torch

    seed = _shifted(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def profile() -> str:
    """The run profile: ``LAMALIB_PROFILE`` if set, else ``full`` on CUDA, else
    ``quick``."""
    value = os.environ.get("LAMALIB_PROFILE", "").strip().lower()
    if value:
        if value not in PROFILES:
            raise ValueError(
                f"LAMALIB_PROFILE={value!r} is not a profile; use one of {PROFILES}"
            )
        return value
    import torch

    return "full" if torch.cuda.is_available() else "quick"


def by_profile(quick: T_, full: T_) -> T_:
    """Pick a setting by profile: ``epochs = by_profile(quick=3, full=30)``."""
    return quick if profile() == "quick" else full


def is_colab() -> bool:
    """True inside Google Colab."""
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def ipywidgets_version() -> str | None:
    """The ipywidgets version this kernel uses: the imported module's, else the
    installed one's; ``None`` without ipywidgets."""
    module = sys.modules.get("ipywidgets")
    if module is not None:
        return getattr(module, "__version__", None)
    try:
        return importlib.metadata.version("ipywidgets")
    except importlib.metadata.PackageNotFoundError:
        return None


def _major(version: str | None) -> int | None:
    head = (version or "").split(".")[0]
    return int(head) if head.isdigit() else None


_widget_manager_on = False  # Colab's custom widget manager, enabled once per kernel


def widget_manager_enabled() -> bool:
    """Whether :func:`enable_colab_widgets` turned Colab's custom widget manager on."""
    return _widget_manager_on


def enable_colab_widgets() -> str | None:
    """On Colab with ipywidgets 8 or later, turn on Colab's custom widget manager.

    Colab draws ipywidgets 7 (the version it ships) itself; widgets of version 8, the
    explorers' controls and every ``tqdm.auto`` bar, render only through the custom
    manager (``google.colab.output.enable_custom_widget_manager()``), which loads
    their code from a CDN. It is switched on once per kernel. Returns a line to
    print the first time, else ``None`` (outside Colab, with ipywidgets 7, or when
    already on).
    """
    global _widget_manager_on
    if _widget_manager_on or not is_colab():
        return None
    version = ipywidgets_version()
    major = _major(version)
    if major is None or major < 8:
        return None
    try:
        output = importlib.import_module("google.colab.output")
    except ImportError:  # COLAB_RELEASE_TAG set, but no google.colab to call
        return None
    output.enable_custom_widget_manager()
    _widget_manager_on = True
    return (f"widgets: ipywidgets {version} on Colab, so Colab's custom widget "
            "manager is now on (it loads the widgets' code from a CDN)")


def progress_mode() -> str:
    """How training reports its progress: ``"bars"`` (tqdm) on a terminal or in a
    notebook, ``"lines"`` (one line per epoch) when stderr goes to a file or a pipe,
    where a bar's redraws would fill a log. ``LAMALIB_PROGRESS`` overrides it: ``0``
    draws nothing (as the book build does), any other value bars."""
    value = os.environ.get("LAMALIB_PROGRESS")
    if value is not None:
        return "none" if value == "0" else "bars"
    if "ipykernel" in sys.modules:  # Jupyter, Colab: tqdm.auto draws a widget
        return "bars"
    try:
        return "bars" if sys.stderr.isatty() else "lines"
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return "lines"


def show_progress() -> bool:
    """Whether to draw progress bars: :func:`progress_mode` is ``"bars"``."""
    return progress_mode() == "bars"


def setup(seed: int = 0) -> str:
    """Start a chapter: seed everything, for the quick profile on a CPU use one
    thread, and on Colab make ipywidgets 8 render (:func:`enable_colab_widgets`).

    The quick profile's models are tiny; on a small CPU that other work shares, threads
    that wait for each other make each step many times slower (and timings unsteady), so
    one thread is faster. Returns a summary to print: one line, plus a second the
    first time the widget manager is switched on.
    """
    import torch

    seed_everything(seed)
    if profile() == "quick" and get_device().type == "cpu":
        torch.set_num_threads(1)
    summary = (f"profile: {profile()} | device: {get_device()} | "
               f"torch threads: {torch.get_num_threads()}")
    widgets = enable_colab_widgets()
    return summary if widgets is None else f"{summary}\n{widgets}"
