"""Saving and restoring a whole training state, so a run resumes after a Colab
disconnect.

A checkpoint holds the weights, the optimizer and grad-scaler state, the history, the
best weights so far, every random-number generator (Python's, NumPy's, torch's and
those a training step owns) and what identifies the run, so the resumed run continues
exactly where the interrupted one stopped (chapter "Setup and a first model").

Everything is stored as tensors, numbers, strings, lists and dicts, and read back with
``torch.load(..., weights_only=True)``: opening a checkpoint someone shared can never
run code hidden in it (unpickling arbitrary objects could).
"""

from __future__ import annotations

import os
import pickle
import random
from pathlib import Path

import numpy as np
import torch


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be read safely or does not belong to this run."""


class CheckpointUnwritable(ValueError):
    """A checkpoint that cannot be written (a full disk): one line, the last good
    checkpoint kept."""


def _python_rng() -> dict:
    version, internal, gauss = random.getstate()
    return {"version": version, "state": list(internal), "gauss": gauss}


def _numpy_rng() -> dict:
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    return {
        "kind": kind,
        "keys": torch.from_numpy(keys.astype(np.int64)),  # (624,) uint32 values
        "pos": int(pos),
        "has_gauss": int(has_gauss),
        "cached_gaussian": float(cached),
    }


def rng_state() -> dict:
    """Every global generator's state, in forms ``weights_only`` loading accepts."""
    return {
        "python": _python_rng(),
        "numpy": _numpy_rng(),
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
    }


def set_rng_state(state: dict) -> None:
    """Restore what :func:`rng_state` returned."""
    py = state["python"]
    random.setstate((py["version"], tuple(py["state"]), py["gauss"]))
    np_state = state["numpy"]
    np.random.set_state(
        (
            np_state["kind"],
            np_state["keys"].numpy().astype(np.uint32),
            np_state["pos"],
            np_state["has_gauss"],
            np_state["cached_gaussian"],
        )
    )
    # The CPU generator's state must be a CPU ByteTensor, whatever device trains.
    torch.set_rng_state(state["torch"].cpu())
    if state["cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda"]])


def save_checkpoint(path: Path, state: dict) -> None:
    """Write ``state`` (plus the global RNG states) atomically: a crash mid-write never
    leaves a broken checkpoint."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        torch.save({**state, "rng": rng_state()}, tmp)
        os.replace(tmp, path)
    except (OSError, RuntimeError) as error:  # torch.save says a full disk this way
        tmp.unlink(missing_ok=True)
        why = (error.strerror if isinstance(error, OSError) and error.strerror
               else " ".join(str(error).split())[:200])
        raise CheckpointUnwritable(
            f"{path.parent}: cannot write the run's checkpoint ({why}); the last "
            "one written (if any) is kept, and the same command resumes from it once "
            "there is room") from None


def read_checkpoint(path: Path) -> dict:
    """Read a checkpoint onto the CPU with ``weights_only=True`` (no code runs).

    Raises :class:`CheckpointError` for a file that holds anything else than tensors,
    numbers, strings, lists and dicts (e.g. a pickled object planted in a shared file).
    """
    try:
        return torch.load(Path(path), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        raise CheckpointError(
            f"{path} is not a plain lamalib checkpoint: it holds objects that only "
            "full unpickling could build, and unpickling can run code, so it was not "
            f"opened. Delete it or use a checkpoint you wrote yourself. ({error})"
        ) from error


def load_checkpoint(path: Path) -> dict:
    """Read a checkpoint written by :func:`save_checkpoint` and restore the RNGs."""
    state = read_checkpoint(path)
    set_rng_state(state["rng"])
    return state
