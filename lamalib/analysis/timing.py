"""Side-by-side timing for speed comparisons (chapter "Recurrent networks and the GRU").

Speeds are only ever reported as ratios of two functions timed in the same run on the
same machine, never as absolute numbers to compare across machines.
"""

from __future__ import annotations

import datetime
import platform
import statistics
import time
from typing import Callable

import torch


def _sync() -> None:
    # CUDA kernels run asynchronously; without a sync we would time only the launch.
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def median_seconds(
    fn: Callable[[], object], repeats: int = 5, warmup: int = 1
) -> float:
    """Median wall-clock seconds of ``fn()`` over ``repeats`` calls after ``warmup``.

    The median, not the mean: another process stealing the CPU for one call should not
    decide the result.
    """
    for _ in range(warmup):
        fn()
    _sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        _sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def hardware() -> dict:
    """Where a timing was taken: device name, torch and CUDA versions, threads, date."""
    cuda = torch.cuda.is_available()
    return {
        "device": (
            torch.cuda.get_device_name()
            if cuda
            else platform.processor() or platform.machine()
        ),
        "torch": torch.__version__,
        "cuda": torch.version.cuda if cuda else None,
        "threads": torch.get_num_threads(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
    }
