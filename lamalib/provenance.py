"""Where and how a result was made: hardware, versions, git commit, command line.

Benchmarks (``lamalib.analysis.timing``) and experiment results files
(``lamalib.experiments``) both record it (chapter "Reproductions").
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import torch


def hardware() -> dict:
    """Device kind, its name (GPU or CPU model) and count, torch threads, torch, CUDA
    and Python versions, and the date."""
    cuda = torch.cuda.is_available()
    return {
        "device": "cuda" if cuda else "cpu",
        "name": torch.cuda.get_device_name(0) if cuda else _cpu_name(),
        "count": torch.cuda.device_count() if cuda else 1,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda if cuda else None,
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
    }


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def git_commit() -> str | None:
    """The checkout's commit (with ``+dirty`` when files differ), None outside git."""
    root = Path(__file__).resolve().parents[1]
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True,
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return sha + ("+dirty" if dirty else "")


def lamalib_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lamalib")
    except PackageNotFoundError:
        return "source"


# Where a run writes is not how it was made: a command is recorded without them, so it
# reproduces the run on any machine into the default folders.
LOCAL_OPTIONS = ("--results", "--checkpoints")


def reproducible_args(args: list[str]) -> list[str]:
    """``args`` without the local output folders (``--results DIR``, ``--checkpoints
    DIR``, also in their ``--opt=DIR`` form)."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in LOCAL_OPTIONS:
            skip = True
        elif not arg.startswith(tuple(o + "=" for o in LOCAL_OPTIONS)):
            kept.append(arg)
    return kept


def command_line(argv: list[str] | None = None) -> str:
    """The command that reproduces this run (without local output folders)."""
    args = sys.argv[1:] if argv is None else argv
    return "python -m lamalib.experiments " + shlex.join(reproducible_args(args))


def write_json_atomic(path: Path, data: dict, indent: int = 1) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: a reader or a
    crash never sees half a file (results files, benchmarks)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=indent, sort_keys=False)
            f.write("\n")
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
