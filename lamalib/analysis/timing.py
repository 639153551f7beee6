"""Side-by-side timing for speed comparisons (chapter "Recurrent networks and the GRU").

Speeds are only ever reported as ratios of two functions timed in the same run on the
same machine, never as absolute numbers to compare across machines.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Callable

import torch

from ..provenance import git_commit, hardware, write_json_atomic  # noqa: F401


def _sync() -> None:
    # CUDA kernels run asynchronously; without a sync we would time only the launch.
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def median_seconds(
    fn: Callable[[], object], repeats: int = 5, warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median seconds of ``fn()`` over ``repeats`` calls after ``warmup``.

    The median, not the mean: another process stealing the CPU for one call should not
    decide the result. ``clock`` is wall-clock time by default; on a busy CPU, a
    single-threaded run can pass ``time.thread_time`` (this thread's CPU seconds), which
    other processes do not inflate (never on CUDA, whose kernels run asynchronously).
    """
    for _ in range(warmup):
        fn()
    _sync()
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        _sync()
        times.append(clock() - start)
    return statistics.median(times)


def compare_seconds(
    fns: dict[str, Callable[[], object]], repeats: int = 7, warmup: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Median seconds of each function, timed in turns: A, B, A, B, ...

    Interleaving makes a burst of load from other processes hit every contender alike,
    so the ratio of the medians is steadier than timing one function after the other.
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            times[name].append(median_seconds(fn, repeats=1, warmup=0, clock=clock))
    return {name: statistics.median(t) for name, t in times.items()}


def save_benchmark(path: str | Path, model: str, config: dict, metrics: dict,
                   **extra) -> Path:
    """Write ``results/benchmark__<model>.json`` with the hardware and git commit."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"experiment": "benchmark", "model": model, "config": config,
              "metrics": metrics, **extra, "hardware": hardware(),
              "git_commit": git_commit()}
    write_json_atomic(path, record, indent=2)
    return path
