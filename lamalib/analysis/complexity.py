"""Time and memory of self-attention, restricted self-attention, a recurrent layer and a
convolution as the length n grows (chapter "Self-attention and multi-head attention").

The complexity table of Vaswani et al. (2017, table 1) says what should happen; this
module measures what does, on the reader's machine, in one run:

* time: the median of a few forward passes, timed in turns
  (``lamalib.analysis.timing.compare_seconds``);
* peak memory: on CUDA, ``torch.cuda.max_memory_allocated``; on the CPU, the bytes of
  every tensor storage that PyTorch creates during the forward, counted by
  :class:`PeakMemory` (a dispatch mode: it sees each op's outputs and each free), so
  allocator caching or other processes never blur the number.
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import Callable, Sequence

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from lamalib.analysis.timing import compare_seconds
from lamalib.nn.self_attention.window import LocalWindowAttention
from lamalib.nn.masking import band_mask
from lamalib.nn.self_attention.multihead import MultiHeadAttention

# Per layer: total work, operations that must run one after another, and the longest
# path between two tokens (Vaswani et al. 2017, table 1 and section 4). n tokens, width
# d, kernel k, neighbourhood r. The table prints one convolution row, O(log_k n), the
# dilated case; section 4 gives O(n/k) for contiguous kernels.
COMPLEXITY_TABLE = [
    {"layer": "self-attention", "complexity": "O(n^2 d)", "sequential": "O(1)",
     "max path": "O(1)"},
    {"layer": "restricted self-attention", "complexity": "O(r n d)",
     "sequential": "O(1)", "max path": "O(n/r)"},
    {"layer": "recurrent (GRU)", "complexity": "O(n d^2)", "sequential": "O(n)",
     "max path": "O(n)"},
    {"layer": "convolution, contiguous", "complexity": "O(k n d^2)",
     "sequential": "O(1)", "max path": "O(n/k)"},
    {"layer": "convolution, dilated", "complexity": "O(k n d^2)", "sequential": "O(1)",
     "max path": "O(log_k n)"},
]


class PeakMemory(TorchDispatchMode):
    """Count the bytes of tensor storages alive inside a ``with`` block; keep the peak.

    Only storages created inside the block count (inputs and parameters do not, nor
    does an op's output that lies on one of its inputs' storages: a view such as a
    weight's transpose, or a gradient accumulated in place). A fused kernel's private
    scratch space is invisible to it: it counts what PyTorch stores, which is what the
    complexity table is about.
    """

    def __init__(self) -> None:
        super().__init__()
        self.current = 0  # bytes alive now
        self.peak = 0  # the most bytes alive at once
        self._live: dict[int, int] = {}

    def _free(self, key: int) -> None:
        self.current -= self._live.pop(key, 0)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        # An output on an input's storage (a view, an in-place op) is no new memory.
        inputs = {t.untyped_storage()._cdata for t in tree_flatten((args, kwargs))[0]
                  if isinstance(t, torch.Tensor)}
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            storage = t.untyped_storage()
            key = storage._cdata  # views share a storage: count it once
            if key in self._live or key in inputs:
                continue
            self._live[key] = storage.nbytes()
            self.current += storage.nbytes()
            self.peak = max(self.peak, self.current)
            # The storage's Python object lives exactly as long as the memory does.
            weakref.finalize(storage, self._free, key)
        return out


def peak_memory_bytes(fn: Callable[[], object], device: torch.device) -> int:
    """Peak bytes of the tensors that ``fn()`` creates (its result included)."""
    if device.type == "cuda":
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        fn()
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base
    with PeakMemory() as counter:
        fn()
    return counter.peak


def allocator_peak_bytes(fn: Callable[[], object], device: torch.device) -> int:
    """Peak bytes that the allocator hands out while ``fn()`` runs, above what was
    allocated before, a fused kernel's private scratch space included.

    On CUDA this is :func:`peak_memory_bytes`. On the CPU, the PyTorch profiler
    records every allocation and free (``profile_memory=True``); their running sum, in
    order, peaks here. It sees everything the process allocates through PyTorch, so
    run it single-threaded, with nothing else going on in the process.
    """
    if device.type == "cuda":
        return peak_memory_bytes(fn, device)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                profile_memory=True) as prof:
        fn()
    events = [e for e in prof.profiler.kineto_results.events()
              if e.name() == "[memory]"]  # nbytes: > 0 allocated, < 0 freed
    current = peak = 0
    for event in sorted(events, key=lambda e: e.start_ns()):  # stable: ties in order
        current += event.nbytes()
        peak = max(peak, current)
    return peak


def complexity_layers(d_model: int = 64, n_heads: int = 4, kernel: int = 3,
                      radius: int = 8) -> dict[str, tuple[nn.Module, Callable]]:
    """The layers the chapter compares, each with how to call it on ``x (B, n, D)``.

    The two restricted layers compute the same function (a window of ``2 radius + 1``
    keys): one masks full attention with ``band_mask``, one computes only the band.
    """

    def attend(m, x):  # the from-scratch path stores the (n, n) matrix, eq. (1)
        return m(x, x, x, need_weights=True)[0]  # (B, n, D)

    def attend_band(m, x):  # all n x n scores, most of them then masked
        mask = band_mask(x.shape[1], radius, x.device)  # (n, n)
        return m(x, x, x, mask=mask, need_weights=True)[0]  # (B, n, D)

    def attend_window(m, x):  # only the n x (2 radius + 1) scores of the band
        return m(x, x, x)[0]  # (B, n, D)

    def attend_fused(m, x):  # F.scaled_dot_product_attention: no (n, n) tensor kept
        return m(x, x, x)[0]  # (B, n, D)

    def recur(m, x):
        return m(x)[0]  # (B, n, D)

    def convolve(m, x):
        return m(x.transpose(1, 2))  # Conv1d wants (B, D, n); returns (B, D, n)

    attention = MultiHeadAttention(d_model, n_heads)
    window = LocalWindowAttention(d_model, n_heads, radius)
    window.load_state_dict(attention.state_dict())  # the same weights
    return {
        "self-attention": (attention, attend),
        "self-attention (fused sdpa)": (attention, attend_fused),
        "restricted, band mask": (attention, attend_band),
        "restricted, window": (window, attend_window),
        "recurrent (GRU)": (nn.GRU(d_model, d_model, batch_first=True), recur),
        "convolution": (nn.Conv1d(d_model, d_model, kernel, padding=kernel // 2),
                        convolve),
    }


@torch.no_grad()
def measure_complexity(lengths: Sequence[int], d_model: int = 64, n_heads: int = 4,
                       kernel: int = 3, batch: int = 2, repeats: int = 3,
                       device: torch.device | str | None = None,
                       radius: int = 8) -> list[dict]:
    """Time and peak memory of one forward pass of every layer at every length n.

    Returns rows ``{"layer", "n", "seconds", "peak_bytes"}``, all from this one run.
    """
    device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    layers = complexity_layers(d_model, n_heads, kernel, radius)
    for module, _ in layers.values():
        module.to(device).eval()
    rows = []
    for n in lengths:
        x = torch.randn(batch, n, d_model, device=device)  # (B, n, D)
        runs = {name: partial(call, module, x)
                for name, (module, call) in layers.items()}
        # Timed in turns (A, B, C, A, B, C, ...): a busy spell hits every layer alike.
        seconds = compare_seconds(runs, repeats=repeats)
        rows += [{"layer": name, "n": n, "seconds": seconds[name],
                  "peak_bytes": peak_memory_bytes(run, device)}
                 for name, run in runs.items()]
    return rows


def loglog_slope(rows: list[dict], layer: str, key: str) -> float:
    """Least-squares slope of ``log(rows[key])`` against ``log(n)`` for one layer.

    A slope near 2 means the quantity grows like n^2, near 1 like n.
    """
    points = [(r["n"], r[key]) for r in rows if r["layer"] == layer]
    x = torch.tensor([p[0] for p in points], dtype=torch.float64).log()
    y = torch.tensor([max(p[1], 1e-12) for p in points], dtype=torch.float64).log()
    x = x - x.mean()
    return float((x * (y - y.mean())).sum() / (x * x).sum())


def layer_slopes(rows: list[dict], width: int = 22, from_n: int | None = None,
                 keys: dict[str, str] | None = None) -> dict[str, dict[str, float]]:
    """Time and memory log-log slopes of every layer in ``rows``, printed one per line.

    ``rows`` as :func:`measure_complexity` gives them (``layer``, ``n``, ``seconds``,
    ``peak_bytes``); returns ``{layer: {"time": slope, "memory": slope}}``. ``keys``
    names other columns (``{label: row key}``); with ``from_n``, each label also gets
    a slope over the rows with ``n >= from_n`` only (``"memory_n>=512"``), past the
    fixed costs that flatten the short lengths.
    """
    keys = keys or {"time": "seconds", "memory": "peak_bytes"}
    parts = {"": rows}
    if from_n is not None:
        parts[f"_n>={from_n}"] = [r for r in rows if r["n"] >= from_n]
    layers = list(dict.fromkeys(r["layer"] for r in rows))
    slopes = {name: {label + suffix: loglog_slope(part, name, key)
                     for suffix, part in parts.items() for label, key in keys.items()}
              for name in layers}
    for name, s in slopes.items():
        print(f"{name:{width}s} log-log slope: "
              + ", ".join(f"{label} {value:.2f}" for label, value in s.items()))
    return slopes
