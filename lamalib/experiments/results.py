"""Results files: one JSON per run, written atomically under a lock, and the table
that the report command and the book's "Reproductions" page both print (chapter
"Reproductions")."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path

from lamalib.provenance import portable_path


# The course's own runs, committed with the repository: the book reads them, and a
# user's command never writes there unless told to (``--results results``).
RESULTS_DIR = Path(__file__).resolve().parents[2] / "results"
# Where a user's runs go by default: $LAMALIB_RESULTS, else this folder of the current
# directory (as lightning_logs/ or mlruns/), so a run on a fresh clone never meets the
# course's files, and an installed package never writes into site-packages.
USER_RESULTS_ENV, USER_RESULTS_FOLDER = "LAMALIB_RESULTS", "lamalib-results"
PUBLISHED = "published.json"
# The papers' figures as the package ships them (a copy of results/published.json,
# kept equal by a test): the report reads them under any --results DIR and from an
# installed package, where no results/ folder is.
PACKAGE_PUBLISHED = Path(__file__).resolve().parent / PUBLISHED


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def user_results_dir() -> Path:
    """The folder a user's ``run``, ``reproduce`` and ``vectors`` write to by default:
    ``$LAMALIB_RESULTS``, else ``lamalib-results/`` in the current directory."""
    folder = os.environ.get(USER_RESULTS_ENV, "").strip()
    return Path(folder).expanduser() if folder else Path(USER_RESULTS_FOLDER)


def course_results_dir() -> Path | None:
    """The course's committed runs (``results/`` of a checkout), None where there are
    none (an installed package)."""
    return RESULTS_DIR if RESULTS_DIR.is_dir() else None


def is_course_dir(folder: str | Path) -> bool:
    """Whether ``folder`` is the course's ``results/`` (a maintainer's --results)."""
    course = course_results_dir()
    return course is not None and Path(folder).resolve() == course.resolve()


class RunLocked(RuntimeError):
    """Another live process is making the same results file."""


class LockUnwritable(RunLocked):
    """The run's lock file beside its results file cannot be written (a full disk,
    say): the run is not started, and nothing is written."""


@contextmanager
def run_lock(results_file: Path):
    """Hold ``<file>.lock`` while a run makes ``results_file``; a second run on the same
    file is refused (a lock left by a dead process is taken over)."""
    lock = Path(str(results_file) + ".lock")
    made = not lock.parent.exists()  # removed again if the run leaves it empty
    lock.parent.mkdir(parents=True, exist_ok=True)
    if not os.access(lock.parent, os.W_OK):
        raise PermissionError(f"results directory {lock.parent} is not writable; "
                              "pass --results DIR with a writable folder")
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            break
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and _alive(pid):
                raise RunLocked(
                    f"another run (process {pid}) is writing "
                    f"{portable_path(results_file)}; wait for it to finish, or stop it "
                    f"(kill {pid}), then run the command again") from None
            lock.unlink(missing_ok=True)  # a stale lock of a process that died
        except OSError as error:  # a full disk, a quota
            raise _unwritable(lock, error) from None
    else:
        raise RunLocked(f"could not lock {portable_path(results_file)}; run the "
                        "command again")
    try:
        os.write(fd, str(os.getpid()).encode())
    except OSError as error:
        os.close(fd)
        lock.unlink(missing_ok=True)
        raise _unwritable(lock, error) from None
    os.close(fd)
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)
        if made and not any(lock.parent.iterdir()):  # a run that failed at once
            lock.parent.rmdir()


def _unwritable(lock: Path, error: OSError) -> LockUnwritable:
    return LockUnwritable(
        f"{portable_path(lock.parent)}: cannot write there ({error.strerror or error}); "
        "nothing was run: free some space, or give --results a folder with room")


class ResultsConflict(ValueError):
    """A complete results file of the same name holds a run made on other data or with
    other settings: it is kept, and the asked run is not made."""


def is_complete(path: Path) -> bool:
    """A results file that holds a finished run's test metrics."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return False
    return "test_accuracy" in data.get("metrics", {})


def load_results(results_dir: Path = RESULTS_DIR) -> list[dict]:
    """Every complete run in ``results_dir`` (benchmarks and published figures are
    other files and are skipped)."""
    runs = []
    for path in sorted(Path(results_dir).glob("*__*__*.json")):
        data = json.loads(path.read_text())
        if "test_accuracy" in data.get("metrics", {}):
            runs.append({**data, "file": path.name})
    return runs


def load_option_sweep(sweep_dir: Path, option: str) -> dict[float, list[dict]]:
    """The complete runs of a sweep over one option, ``{value: runs}``: one folder
    ``<option>_<value>`` per value, as ``--results results/sweeps/X/<option>_<value>``
    writes them (other folders are skipped)."""
    runs = {}
    for folder in sorted(Path(sweep_dir).glob(f"{option}_*/")):
        try:
            value = float(folder.name[len(option) + 1:])
        except ValueError:
            continue
        runs[value] = load_results(folder)
    return runs


def load_published(results_dir: Path | None = RESULTS_DIR) -> list[dict]:
    """The published figures in ``results_dir/published.json``; the package's copy
    where that folder has none (or ``results_dir`` is None)."""
    path = Path(results_dir) / PUBLISHED if results_dir is not None else None
    if path is None or not path.exists():
        path = PACKAGE_PUBLISHED
    return json.loads(path.read_text())["figures"] if path.exists() else []


def run_recipe(r: dict) -> str:
    """The settings a run started from: a paper's grid (its name), ``run --recipe
    NAME`` (NAME), or the defaults (``""``)."""
    recipe = r.get("config", {}).get("recipe")
    return recipe or ("" if r["experiment"] == "run" else r["experiment"])


def results_table(results_dir: Path = RESULTS_DIR, paper: str | None = None,
                  grid: list[tuple[str, str]] | None = None,
                  published: list[dict] | None = None):
    """One row per (experiment, model, dataset, recipe): test accuracy mean ± standard
    error over seeds (points), seeds, mean epochs a run, seconds per epoch (all the
    group's seconds over all its epochs), profile and device, beside the published
    figure. ``recipe``: the paper whose settings the run started from (a grid's
    paper, or ``run --recipe``), empty for a run with the defaults; a column only
    without ``paper``. A run on your own files is under its results name (``run
    --name``).

    ``grid`` lists (model, dataset) pairs that must appear: those without a run get
    the row "not run", never a number. ``published``: the figures to put beside
    ours (default: :func:`load_published` of ``results_dir``); a row gets the test
    accuracy that its own paper (``paper``, else the row's recipe) states for its
    model and dataset, and a run with the defaults gets none.
    """
    import pandas as pd

    runs = [r for r in load_results(results_dir)
            if paper is None or r["experiment"] == paper]
    if published is None:
        published = load_published(results_dir)
    # a figure belongs to one paper: the key holds it, so two papers' figures for the
    # same model and dataset never stand in for each other
    published = {(p["paper"], p["model"], p["dataset"]): p for p in published
                 if p.get("metric", "test_accuracy") == "test_accuracy"}
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        key = (r["experiment"], r["model"], r["dataset"], run_recipe(r))
        groups.setdefault(key, []).append(r)
    keys = list(groups)
    for model, dataset in grid or []:
        if not any(k[1:3] == (model, dataset) for k in keys):
            keys.append((paper or "", model, dataset, paper or ""))
    rows = []
    for key in sorted(keys):
        experiment, model, dataset, recipe = key
        group = groups.get(key, [])
        pub = published.get((paper or recipe, model, dataset))  # "": no paper's figure
        row = {"experiment": experiment, "model": model, "dataset": dataset,
               "recipe": recipe}
        if group:
            from lamalib.experiments.comparison import estimate  # pandas: lazily

            acc = estimate([100 * g["metrics"]["test_accuracy"] for g in group])
            epochs = [h for g in group for h in g["history"]]
            row.update(
                # mean ± s.e., as every table of the course; one seed has no spread
                ours=(f"{acc.mean:.1f} ± {acc.se:.1f}" if acc.n > 1
                      else f"{acc.mean:.1f}"),
                seeds=len(group),
                epochs=f"{sum(len(g['history']) for g in group) / len(group):g}",
                sec_per_epoch=f"{sum(h['seconds'] for h in epochs) / len(epochs):.1f}",
                profile=group[0]["profile"],
                device=group[0]["hardware"]["name"],
            )
        else:
            row.update(ours="not run", seeds=0, epochs="", sec_per_epoch="",
                       profile="", device="")
        row["paper"] = f"{100 * pub['value']:.1f}" if pub else "—"
        row["paper_source"] = pub["source"] if pub else ""
        rows.append(row)
    table = pd.DataFrame(rows)
    # one paper's grid: every row has that paper's recipe (the book's tables)
    return table.drop(columns=["recipe"]) if paper is not None and rows else table
