"""Side-by-side timing for speed comparisons (chapter "Recurrent networks and the GRU").

Speeds are only ever reported as ratios of two functions timed in the same run on the
same machine, never as absolute numbers to compare across machines.
"""

from __future__ import annotations

import ctypes
import os
import statistics
import time
from pathlib import Path
from typing import Callable, NamedTuple

import torch

from lamalib.provenance import (code_identity, git_commit, hardware, portable_value,
                                write_json_atomic)
from lamalib.runtime import get_device, seed_everything


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


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def steady_malloc(mmap_threshold: int = 32 << 20,
                  trim_threshold: int = 1 << 30) -> dict | None:
    """Fix glibc malloc's thresholds so that a CPU benchmark reuses the memory it frees.

    By default glibc serves each large block with fresh pages from the kernel (mmap)
    and moves that threshold as blocks are freed, so whether a call pays for page
    faults depends on what ran before it: a small, memory-bound kernel timed after a
    large one can take twice as long as alone. With fixed thresholds, blocks up to
    ``mmap_threshold`` bytes come from the heap, which keeps up to ``trim_threshold``
    free bytes, and every contender meets the same allocator. Returns the settings,
    to record with the results, or None where the C library has no glibc ``mallopt``
    (then nothing changed).
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None
    if not (mallopt(_M_MMAP_THRESHOLD, mmap_threshold)
            and mallopt(_M_TRIM_THRESHOLD, trim_threshold)):
        return None
    return {"allocator": "glibc malloc", "M_MMAP_THRESHOLD": mmap_threshold,
            "M_TRIM_THRESHOLD": trim_threshold}


def quiet_cpu(device: torch.device) -> tuple[dict | None, Callable[[], float]]:
    """Set up a benchmark that must be read on a busy machine; returns
    ``(malloc settings or None, clock)``.

    On the CPU: one thread (its CPU time is this run's own work), glibc's malloc
    thresholds fixed (:func:`steady_malloc`) and ``time.thread_time`` as the clock,
    which other processes do not inflate. Elsewhere: nothing changed, wall-clock time.
    """
    if device.type != "cpu":
        return None, time.perf_counter
    torch.set_num_threads(1)
    return steady_malloc(), time.thread_time


class BenchmarkStart(NamedTuple):
    """What :func:`start_benchmark` sets up: where and how a benchmark times."""

    device: torch.device
    malloc: dict | None  # the malloc settings fixed (CPU), or None
    clock: Callable[[], float]  # thread CPU time on the CPU, wall time elsewhere
    timing: dict  # repeats, warmup and clock, as the timing helpers take them
    load_start: tuple[float, float, float]  # os.getloadavg() when it started
    wall: float  # time.perf_counter() when it started
    cpu: float  # time.thread_time() when it started


def start_benchmark(repeats: int, warmup: int, seed: int = 0) -> BenchmarkStart:
    """The first lines of every benchmark script: seed, device, :func:`quiet_cpu`,
    and the load, wall and CPU clocks at the start (for the results file)."""
    seed_everything(seed)
    device = get_device()
    malloc, clock = quiet_cpu(device)  # one thread, steady malloc, thread CPU time
    return BenchmarkStart(device, malloc, clock,
                          dict(repeats=repeats, warmup=warmup, clock=clock),
                          os.getloadavg(), time.perf_counter(), time.thread_time())


def save_benchmark(path: str | Path, model: str, config: dict, metrics: dict,
                   **extra) -> Path:
    """Write ``results/benchmark__<model>.json`` with the hardware, git commit and code
    identity (:func:`~lamalib.provenance.code_identity`); a
    path in ``config`` or ``extra`` (``--out``) is recorded by ``portable_path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"experiment": "benchmark", "model": model,
              "config": portable_value(config), "metrics": metrics,
              **portable_value(extra), "hardware": hardware(),
              "git_commit": git_commit(), "code": code_identity()}
    write_json_atomic(path, record, indent=2)
    return path
