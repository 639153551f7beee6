"""Which band kernel ``kernel="auto"`` runs, read from measurements (chapter
"Multi-scale self-attention").

``benchmarks/band_kernels.py`` times every eager kernel (and block size) forward +
backward on a grid of lengths T and radii ω and writes, beside this module,
``band_kernel_table.json``: per device type and dtype, one cell per measured (T, ω)
with the median seconds of each candidate. :func:`pick_kernel` takes the nearest
measured cell (in log T and log(ω + 1)) and, of the candidates that can run these
radii, the fastest there.

Why a table shipped with the package rather than a calibration on the reader's machine:
the choice is then the same on every run (results do not depend on a timing race at
import; a re-measured table may pick another kernel, and under dropout that changes a
training run's random draws), it costs nothing at the first call (a calibration would
time every kernel for minutes), and the chapter can show the measurements behind it. The
ranking of kernels (how many passes, how much padding each wastes) carries over between
CPUs far better than their absolute times. A device type the table does not know (or no
table) gets the neighbour-block kernel with its default block: linear in T, every
radius, every device. Only eager kernels are chosen: the compiled ones spend tens of
seconds compiling at their first call, so they are asked for by name.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import torch

TABLE_PATH = Path(__file__).with_name("band_kernel_table.json")
AUTO_KERNELS = ("window", "blocked", "neighbour", "dense")  # what "auto" may pick
WINDOW_MAX_RADIUS = 63  # beyond, the diagonal-by-diagonal kernel takes minutes


class KernelChoice(NamedTuple):
    """A kernel name and its block size (None: the kernel's default or none)."""

    kernel: str
    block: int | None = None


DEFAULT = KernelChoice("neighbour")  # an unmeasured device


def parse_candidate(name: str) -> KernelChoice:
    """``"neighbour b=16" -> ("neighbour", 16)``, ``"window" -> ("window", None)``."""
    kernel, _, block = name.partition(" b=")
    return KernelChoice(kernel, int(block) if block else None)


@lru_cache(maxsize=4)
def load_table(path: str | None = None) -> dict:
    """The measured table (``{"devices": {type: {dtype: [cell, ...]}}}``), or an
    empty one where the file is missing."""
    path = Path(path) if path else TABLE_PATH
    if not path.exists():
        return {"devices": {}}
    return json.loads(path.read_text())


def _runs(kernel: str, radii: torch.Tensor) -> bool:
    """Whether ``kernel`` can compute these radii (``(B,)`` or ``(B, H)``)."""
    if kernel == "window":
        r = int(radii.max())
        return r <= WINDOW_MAX_RADIUS and bool((radii == r).all())
    if kernel == "blocked":  # one radius per sequence
        return radii.dim() == 1 or bool((radii == radii[:, :1]).all())
    return kernel in AUTO_KERNELS


def pick_kernel(radii: torch.Tensor, T: int, dtype: torch.dtype = torch.float32,
                device: torch.device | str = "cpu",
                table: dict | None = None) -> KernelChoice:
    """The kernel and block that ``"auto"`` runs for radii ``(B,)`` or ``(B, H)``
    (already clamped to ``T - 1``) over T positions: the fastest that can run them
    in the nearest measured cell for this device type and dtype (float32's cells for
    a dtype not measured), else :data:`DEFAULT`."""
    table = load_table() if table is None else table
    by_dtype = table.get("devices", {}).get(torch.device(device).type)
    if not by_dtype:
        return DEFAULT
    cells = by_dtype.get(str(dtype).removeprefix("torch."), by_dtype.get("float32"))
    if not cells:
        return DEFAULT
    r = int(radii.max()) if radii.numel() else 0

    def distance(cell):
        return ((math.log2(cell["n"]) - math.log2(max(T, 1))) ** 2
                + (math.log2(cell["radius"] + 1) - math.log2(r + 1)) ** 2)

    cell = min(cells, key=distance)
    runnable = {name: s for name, s in cell["seconds"].items()
                if _runs(parse_candidate(name).kernel, radii)}
    if not runnable:
        return DEFAULT
    return parse_candidate(min(runnable, key=runnable.get))
