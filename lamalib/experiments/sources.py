"""Where a full-profile number on a page comes from: one label per results file
(profile, file, command, device, date), and one model's classifier runs as a table
(chapters "Setup and a first model" and "Word vectors")."""

from __future__ import annotations

import shlex
from pathlib import Path

from lamalib.provenance import portable_arg, portable_value, reproducible_args
from lamalib.experiments.results import RESULTS_DIR, load_results


def device_label(hw: dict) -> str:
    """``"CPU AMD EPYC, 1 thread"`` or ``"GPU NVIDIA H100"`` from a run's hardware."""
    device = "GPU" if hw.get("device") == "cuda" else "CPU"
    threads = hw.get("threads", hw.get("cpu_threads"))  # older files: cpu_threads
    where = f"{device} {hw.get('name', '')}".strip()
    if device == "CPU" and threads:
        where += f", {threads} thread" + ("s" if threads > 1 else "")
    return where


def source_label(run: dict) -> str:
    """``"full profile, from results/<file> (command `...`, CPU <name>, 1 thread,
    started <date>)"``, read from a loaded results file (it needs its ``file`` key)."""
    hw = run.get("hardware", {})
    where = device_label(hw)
    started = (run.get("started") or hw.get("date") or "date unknown")[:10]
    command = run.get("command", "?")
    if command.startswith("python -m lamalib.experiments "):  # older files kept the
        args = shlex.split(command)[3:]  # local output folder: not part of the recipe,
        command = "python -m lamalib.experiments " + shlex.join(  # and its full paths
            [portable_arg(a) for a in reproducible_args(args)])
    return (f"{run.get('profile', '?')} profile, from results/{run['file']} "
            f"(command `{command}`, {where}, started {started})")


def model_runs(model: str, results_dir: Path = RESULTS_DIR) -> list[dict]:
    """The complete classifier runs of ``model`` in ``results_dir``, one row each:
    dataset, profile, labels, split sizes, word vectors and optimizer, test accuracy,
    epochs, seconds and the run's source label.
    An empty list when there are none (or no such folder)."""
    if not Path(results_dir).is_dir():
        return []
    rows = []
    for r in load_results(results_dir):
        if r["model"] != model:
            continue
        identity, config = r.get("dataset_identity", {}), r.get("config", {})
        sizes = identity.get("sizes", {})
        rows.append({
            "dataset": r["dataset"], "experiment": r["experiment"],
            "profile": r.get("profile"), "seed": config.get("seed"),
            "labels": identity.get("label_names", []),
            "classes": len(identity.get("label_names", [])),
            "train": sizes.get("train"), "test": sizes.get("test"),
            "embeddings": portable_value(config.get("embeddings")),
            "optimizer": config.get("train", {}).get("optimizer"),
            "test_accuracy": r["metrics"]["test_accuracy"],
            "epochs": len(r.get("history", [])),
            "best_epoch": r["metrics"].get("best_epoch"),
            "seconds": r.get("seconds"), "file": r["file"],
            "device": device_label(r.get("hardware", {})), "source": source_label(r),
        })
    return rows
