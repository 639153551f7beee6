"""Where and how a result was made: hardware, versions, git commit, command line.

Benchmarks (``lamalib.analysis.timing``) and experiment results files
(``lamalib.experiments``) both record it (chapter "Reproductions").
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PureWindowsPath

from lamalib import runtime


def hardware() -> dict:
    """Device kind, its name (GPU or CPU model) and count, torch threads, torch, CUDA
    and Python versions, and the date."""
    import torch  # here: importing provenance (a command's --help) needs none

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


@functools.lru_cache(maxsize=None)
def git_commit() -> str | None:
    """The checkout's commit (with ``+dirty`` when files differ), None outside git.

    Read once per process: the code a process runs is the code it imported, so every
    run of one ``--seeds 3`` command records the same commit even if the checkout moves
    on while it trains."""
    return commit_of(Path(__file__).resolve().parents[1])


def commit_of(root: Path) -> str | None:
    """The commit checked out at ``root``, ``+dirty`` when a tracked file outside
    ``results/`` differs from it (a results file written by an earlier run is an
    output, not the code that ran), None outside git."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True,
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no",
                                "--", ":/", ":(top,exclude)results"],
                               cwd=root, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return sha + ("+dirty" if dirty else "")


# the files whose content is the library's code: any change to one can change a run
CODE_SUFFIXES = (".py", ".json", ".js", ".css")


def code_hash(package: Path | None = None) -> str:
    """SHA-256 over every code file of ``package`` (default: the ``lamalib/`` this
    process imported), each as its path relative to the package and its bytes, in
    sorted order: the same code gives the same hash on any machine, in a clone, a
    dirty tree or an installed copy. Weights and caches (other suffixes) are left
    out."""
    package = Path(package or Path(__file__).resolve().parent)
    digest = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.suffix in CODE_SUFFIXES
                       and p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def code_diff(root: Path | None = None) -> str | None:
    """``git diff HEAD -- lamalib`` of the checkout at ``root``: what the code that ran
    had beyond its commit (None when clean or outside git)."""
    try:
        diff = subprocess.run(["git", "diff", "HEAD", "--", "lamalib"],
                              cwd=root or REPO_ROOT,
                              check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return diff or None


@functools.lru_cache(maxsize=1)
def code_identity() -> dict:
    """``{"sha256": code_hash(), "diff": code_diff()}``, read once per process (the
    code a process runs is the code it imported, as for :func:`git_commit`): a
    results file ties its run to its code even when the commit does not."""
    return {"sha256": code_hash(), "diff": code_diff()}


def lamalib_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lamalib")
    except PackageNotFoundError:
        return "source"


# Where a run writes is not how it was made: a command is recorded without them, so it
# reproduces the run on any machine into the default folders.
LOCAL_OPTIONS = ("--results", "--checkpoints", "--save-model")

# The checkout this library runs from: a path inside it is recorded relative to it.
REPO_ROOT = Path(__file__).resolve().parents[1]

_ABSOLUTE = re.compile(r"^(?:~(?:/|$)|/[^/\s]|[A-Za-z]:[\\/]\S|\\\\\S)")
# A folder of a machine inside free text (a results file's strings, a page's text): a
# token that starts with "/" and goes on with path segments (/a/b, /a/, or a single
# segment that is a usual root of a machine: /tmp, /home, ...), a home-relative path
# (~/a) or a Windows drive (C:\); not inside a word (N/16), a relative path (a/b) or a
# URL (https://a/b); /dev/null is the same file on every machine, so it names none.
# Read by tests/test_machine_paths.py (results files) and tools/check_book_text.py.
MACHINE_PATH = re.compile(
    r"(?<![\w.:/~+-])(?!/dev/null\b)/[\w.~+-]+(?:/[\w.~+-]*)+"
    r"|(?<![\w.:/~+-])/(?:tmp|work|root|home|Users|mnt|var|opt|srv|private|scratch)\b"
    r"|(?<![\w~])~/"
    r"|(?<![A-Za-z])[A-Za-z]:\\")
_OPTION_KEY = re.compile(r"-{0,2}[A-Za-z_][\w.-]*")


def looks_like_path(text: str) -> bool:
    """Whether ``text`` names a file or folder of this machine: an absolute path
    (``/a/b``, ``~/a``, ``C:\\a``, ``\\\\host\\a``), or a relative one with a folder
    (``a/b``) that exists here, whose first folder exists here, or that climbs with
    ``..``. A bare name (``imdb``), a URL or a value such as ``N/16`` is none."""
    if not isinstance(text, str) or not text or "\n" in text:
        return False
    if _ABSOLUTE.match(text):
        return True
    if "/" not in text or "://" in text or text.startswith("/"):
        return False
    path = Path(text)
    try:
        return ".." in path.parts or path.exists() or Path(path.parts[0]).exists()
    except OSError:  # a name too long for the file system, ...
        return False


def portable_path(path: str | os.PathLike) -> str:
    """How a results file or a page names ``path``, the same on every machine: relative
    to the repository's root when it lies inside the checkout (``results``,
    ``data/x.tsv``), else its file name alone (``imdb_sg300.txt``). A file is told apart
    by its SHA-256, recorded beside it, not by where it was."""
    text = os.fspath(path)
    if re.match(r"^(?:[A-Za-z]:|\\\\)", text):  # a Windows path, read anywhere
        return PureWindowsPath(text).name or text
    given = Path(text).expanduser()
    full = given if given.is_absolute() else Path.cwd() / given
    for candidate in (Path(os.path.normpath(full)), Path(os.path.realpath(full))):
        try:
            inside = candidate.relative_to(REPO_ROOT)
        except ValueError:
            continue
        return inside.as_posix() if inside.parts else "."
    return Path(os.path.normpath(full)).name or text


def shown_path(path: str | os.PathLike) -> str:
    """How a message names ``path``: as given when it is relative (the words the user
    or a default used, e.g. ``lamalib-results/run__avg__x__s0.json``), else as
    :func:`portable_path` names it (no folder of this machine on a page)."""
    text = os.fspath(path)
    return text if not Path(text).expanduser().is_absolute() else portable_path(text)


def portable_value(value):
    """``value`` with every string that :func:`looks_like_path` replaced by its
    :func:`portable_path` (in dicts and lists too); anything else as it is."""
    if isinstance(value, str):
        return portable_path(value) if looks_like_path(value) else value
    if isinstance(value, os.PathLike):
        return portable_path(value)
    if isinstance(value, dict):
        return {k: portable_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(portable_value(v) for v in value)
    return value


def portable_arg(arg: str) -> str:
    """One command-line word with its path made portable: the whole word (the
    ``/a/b.json`` of ``--out /a/b.json`` gives ``b.json``), or the value of
    ``--opt=/a/b`` or ``key=/a/b`` (``embeddings=/tmp/v.txt`` gives
    ``embeddings=v.txt``)."""
    if looks_like_path(arg):
        return portable_path(arg)
    key, eq, value = arg.partition("=")
    if eq and _OPTION_KEY.fullmatch(key) and looks_like_path(value):
        return f"{key}={portable_path(value)}"
    return arg


def reproducible_args(args: list[str],
                      local: tuple[str, ...] = LOCAL_OPTIONS) -> list[str]:
    """``args`` without the local output folders (``--results DIR``, ``--checkpoints
    DIR``, also in their ``--opt=DIR`` form; ``local`` names other such options)."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in local:
            skip = True
        elif not arg.startswith(tuple(o + "=" for o in local)):
            kept.append(arg)
    return kept


def command_line(argv: list[str] | None = None,
                 program: str = "python -m lamalib.experiments",
                 local: tuple[str, ...] = LOCAL_OPTIONS) -> str:
    """The command that reproduces this run: ``program`` and its arguments, without
    the local output folders (``local``) and with every path portable (relative to the
    repository's root inside it, else the file name: :func:`portable_arg`), so a
    results file names no folder of the machine that made it; prefixed with
    ``LAMALIB_SEED=N`` when that shift is set."""
    args = sys.argv[1:] if argv is None else argv
    words = [portable_arg(a) for a in reproducible_args(args, local)]
    # LAMALIB_SEED shifts every seed of the run: without it the command would rerun
    # other seeds
    shift = runtime.base_seed()
    env = f"LAMALIB_SEED={shift} " if shift else ""
    return f"{env}{program} {shlex.join(words)}".rstrip()


class RunStamp:
    """What a tool's results file records about how it was made, started when the
    tool starts: the commit and the date are read then (the code that ran, not the
    code at the end), and :meth:`fields` adds the machine, the seconds since, the
    package version and the command."""

    def __init__(self) -> None:
        self.started = datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds")
        self.commit = git_commit()
        self.code = code_identity()
        self._clock = time.perf_counter()

    def seconds(self) -> float:
        """Seconds since the stamp was made."""
        return time.perf_counter() - self._clock

    def fields(self, argv: list[str] | None, program: str,
               local: tuple[str, ...] = LOCAL_OPTIONS) -> dict:
        """``hardware``, ``started``, ``seconds``, ``git_commit``, ``code`` (its
        :func:`code_identity`), ``lamalib`` and ``command`` (:func:`command_line` of
        ``argv`` as ``program``)."""
        return {"hardware": hardware(), "started": self.started,
                "seconds": self.seconds(), "git_commit": self.commit, "code": self.code,
                "lamalib": lamalib_version(),
                "command": command_line(argv, program, local)}


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
