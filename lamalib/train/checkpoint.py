"""Saving and restoring a whole training state, so a run resumes after a Colab
disconnect.

A checkpoint holds the weights, the optimizer and grad-scaler state, the history, the
best weights so far and every random-number generator, so the resumed run continues
exactly where the interrupted one stopped (chapter "Setup and a first model").
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import torch


def rng_state() -> dict:
    return {
        "python": random.getstate(),
        "numpy": np.random.get_state(),
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
    }


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if state["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(path: Path, state: dict) -> None:
    """Write ``state`` atomically: a crash mid-write never leaves a broken
    checkpoint."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save({**state, "rng": rng_state()}, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: Path, map_location: torch.device | str = "cpu") -> dict:
    """Read a checkpoint written by :func:`save_checkpoint` and restore the RNGs."""
    # weights_only=False: the file also holds Python RNG state and history dicts, and it
    # is one that this library wrote itself.
    state = torch.load(path, map_location=map_location, weights_only=False)
    set_rng_state(state["rng"])
    return state
