"""Device, seeding, the run profile and Colab detection (chapter "Setup and a first
model")."""

from __future__ import annotations

import os
import random
import sys
from typing import TypeVar

import numpy as np
import torch

PROFILES = ("quick", "full")
T_ = TypeVar("T_")


def get_device() -> torch.device:
    """The device to run on: CUDA when available, else CPU (``LAMALIB_DEVICE``
    overrides)."""
    name = os.environ.get("LAMALIB_DEVICE")
    if name:
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def seed_everything(seed: int = 0) -> None:
    """Seed Python, NumPy and torch (CPU and CUDA) so a run can be repeated."""
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
    return "full" if torch.cuda.is_available() else "quick"


def by_profile(quick: T_, full: T_) -> T_:
    """Pick a setting by profile: ``epochs = by_profile(quick=3, full=30)``."""
    return quick if profile() == "quick" else full


def is_colab() -> bool:
    """True inside Google Colab."""
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def show_progress() -> bool:
    """Whether to draw progress bars (``LAMALIB_PROGRESS=0`` turns them off, as the book
    build does)."""
    return os.environ.get("LAMALIB_PROGRESS", "1") != "0"


def setup(seed: int = 0) -> str:
    """Start a chapter: seed everything and, for the quick profile on a CPU, use one
    thread.

    The quick profile's models are tiny; on a small CPU that other work shares, threads
    that wait for each other make each step many times slower (and timings unsteady), so
    one thread is faster. Returns a one-line summary to print.
    """
    seed_everything(seed)
    if profile() == "quick" and get_device().type == "cpu":
        torch.set_num_threads(1)
    threads = torch.get_num_threads()
    return f"profile: {profile()} | device: {get_device()} | torch threads: {threads}"
