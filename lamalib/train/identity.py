"""What identifies a training run, so a checkpoint is resumed only by the run that
wrote it (chapter "Setup and a first model").

A reused ``checkpoint_dir`` must not silently hand back another run's weights and
history: the checkpoint stores the model class, every parameter's shape, the step and
the settings that change the trajectory, and :func:`check_identity` compares them.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import torch

from lamalib.train.config import TrainConfig

# Settings that may change between an interrupted run and its resumption: where it
# runs, how it reports, how long it may go on. Every other field identifies the run.
RESUMABLE_CHANGES = ("epochs", "patience", "stop_after_rise", "checkpoint_dir",
                     "resume", "amp", "device", "progress")


# Settings added after checkpoints were first written: at their default they are left
# out of a run's identity, so a checkpoint written before them still resumes.
LATER_DEFAULTS = {"select": "accuracy"}


def _name(obj) -> str:
    kind = obj if hasattr(obj, "__qualname__") else type(obj)  # function, class
    return f"{kind.__module__}.{kind.__qualname__}"


def _plain(value):
    return value if isinstance(value, (bool, int, float, str, type(None))) else str(value)


def run_identity(model: torch.nn.Module, config: TrainConfig, step) -> dict:
    """Model class, parameter shapes, step and trajectory-changing settings."""
    settings = {
        k: _plain(v) for k, v in asdict(config).items() if k not in RESUMABLE_CHANGES
        and not (k in LATER_DEFAULTS and v == LATER_DEFAULTS[k])
    }
    shapes = {name: list(t.shape) for name, t in model.state_dict().items()}
    return {"model": _name(type(model)), "step": _name(step), "config": settings,
            "shapes": shapes}


def _differences(saved: dict, now: dict) -> list[str]:
    lines = []
    for key in ("model", "step"):
        if saved[key] != now[key]:
            lines.append(f"{key}: checkpoint {saved[key]}, now {now[key]}")
    for key in sorted(set(saved["config"]) | set(now["config"])):
        old, new = saved["config"].get(key), now["config"].get(key)
        if old != new:
            lines.append(f"config.{key}: checkpoint {old!r}, now {new!r}")
    old_shapes, new_shapes = saved["shapes"], now["shapes"]
    for name in sorted(set(old_shapes) | set(new_shapes)):
        old, new = old_shapes.get(name), new_shapes.get(name)
        if old != new:
            lines.append(f"parameter {name}: checkpoint {old}, now {new}")
    return lines


def check_identity(saved: dict | None, now: dict, path: Path) -> None:
    """Refuse to resume from ``path`` when it was written by another run."""
    how = (f"To start fresh, delete {path.parent}, choose another checkpoint_dir, or "
           "pass TrainConfig(resume=False) to overwrite it.")
    if saved is None:
        raise RuntimeError(f"{path} has no run identity (an older or foreign "
                           f"checkpoint), so it cannot be resumed safely. {how}")
    differences = _differences(saved, now)
    if differences:
        shown = "\n  ".join(differences[:10])
        more = f"\n  ... and {len(differences) - 10} more" if len(differences) > 10 else ""
        raise RuntimeError(
            f"{path} was written by a different run:\n  {shown}{more}\n{how}")


def goes_on_from(state: dict, now: dict, epochs: int) -> bool:
    """Whether a run identified by ``now`` with the cap ``epochs`` would continue the
    checkpoint ``state`` (a dict read by ``read_checkpoint``): the same run wrote it,
    and it holds fewer than ``epochs`` epochs (an interrupted run, or one that reached
    a lower cap before early stopping fired and is now given a higher one)."""
    saved = state.get("identity")
    return (saved is not None and not _differences(saved, now)
            and state["epoch"] < epochs)
