"""Where a run's checkpoint lies, so that only the run that wrote it resumes from it
(chapter "Reproductions"; DESIGN.md, "Results files").

A run's checkpoint folder is ``<checkpoints>/<results name>__<hash>``: the hash is of
everything that determines the run (model and options, data, word vectors, training
settings, seed) but the settings a run may change and still be the same run (the
epoch cap, patience, the device: ``lamalib.train.identity.RESUMABLE_CHANGES``), so a
run cut at its cap goes on from there when given a higher one. ``<checkpoints>`` is
``checkpoints/`` in the run's results folder unless ``--checkpoints`` names another.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from lamalib.provenance import shown_path
from lamalib.train.checkpoint import read_checkpoint
from lamalib.train.loop import CHECKPOINT_NAME

FOLDER = "checkpoints"  # in the results folder, unless --checkpoints names another
KEY_LENGTH = 16  # hex digits of the SHA-256 that name a run's folder


def checkpoints_dir(results_dir: Path, checkpoints: Path | None = None) -> Path:
    """``checkpoints`` if given, else the ``checkpoints/`` of ``results_dir``."""
    return Path(results_dir) / FOLDER if checkpoints is None else Path(checkpoints)


def run_key(determines: dict) -> str:
    """A short SHA-256 of ``determines`` (JSON-able; other values by their text)."""
    text = json.dumps(determines, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_LENGTH]


def _epochs_in(folder: Path) -> int:
    """How many epochs the checkpoint in ``folder`` holds (0: none there)."""
    path = folder / CHECKPOINT_NAME
    return read_checkpoint(path)["epoch"] if path.exists() else 0


def run_folder(checkpoints: Path, stem: str, determines: dict, epochs: int) -> Path:
    """The checkpoint folder of the run named ``stem`` (its results file's name) that
    ``determines`` describes, with the cap ``epochs``.

    ``<stem>__<hash>``; where that holds a longer run of the same settings (more epochs
    than ``epochs``, e.g. made for another results folder), the shorter run keeps its
    own, ``<stem>__<hash>__e<epochs>``, so that neither hands its epochs to the other.
    """
    home = Path(checkpoints) / f"{stem}__{run_key(determines)}"
    if _epochs_in(home) > epochs:
        return home.with_name(f"{home.name}__e{epochs}")
    return home


def other_runs(checkpoints: Path, stem: str, folder: Path) -> list[Path]:
    """Checkpoints of runs named ``stem`` that another run wrote: other settings or
    data (another hash), or a lamalib before hashes (``<experiment>/<stem>/``)."""
    key = folder.name[len(stem) + 2:][:KEY_LENGTH]
    found = [p for p in Path(checkpoints).glob(f"{stem}__*/{CHECKPOINT_NAME}")
             if p.parent.name[len(stem) + 2:][:KEY_LENGTH] != key]
    return sorted(found + list(Path(checkpoints).glob(f"*/{stem}/{CHECKPOINT_NAME}")))


def note_other_runs(checkpoints: Path, stem: str, folder: Path) -> None:
    """One line naming the checkpoints under ``stem`` this run does not resume."""
    others = other_runs(checkpoints, stem, folder)
    if others:
        n = len(others)
        were = "were" if n != 1 else "was"
        print(f"note: {n} checkpoint{'s' * (n != 1)} of {stem} in "
              f"{shown_path(checkpoints)} {were} made with other settings or data: "
              "ignored (kept); this run keeps its own in "
              f"{shown_path(folder)}", flush=True)


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


COMPLETE = "complete"  # marks a kept checkpoint whose run wrote its results file


def mark_complete(folder: Path) -> None:
    """Mark ``folder``'s checkpoint as that of a complete run (kept at its epoch cap,
    so a higher cap can go on from it), which a later run of the same name with
    other settings replaces."""
    (Path(folder) / COMPLETE).touch()


def remove_other_runs(checkpoints: Path, stem: str, folder: Path) -> None:
    """Housekeeping once the run named ``stem`` is complete: its results file now
    describes it, so the checkpoints of complete runs of ``stem`` with other settings
    (whose results file it replaced) are removed, in one line saying which and how
    much space that frees; an interrupted run's is kept (its own command resumes it).
    Only for the results folder's own ``checkpoints/``, where a run of the same name
    writes the same (locked) results file, never a shared folder. Each run keeps at
    most one checkpoint, which holds both its last and its best epoch's weights."""
    others = [p.parent for p in other_runs(checkpoints, stem, folder)
              if (p.parent / COMPLETE).exists()]
    if not others:
        return
    freed = sum(map(_size, others))
    for other in others:
        shutil.rmtree(other, ignore_errors=True)
    names = ", ".join(p.name for p in others[:3]) + (" ..." if len(others) > 3 else "")
    print(f"removed {len(others)} checkpoint{'s' * (len(others) != 1)} of {stem} made "
          f"with other settings ({names}; {freed / 2**20:.0f} MB): its results file "
          "now describes this run", flush=True)
