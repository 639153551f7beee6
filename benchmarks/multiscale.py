"""Time (forward + backward) and peak memory of multi-scale self-attention against full
multi-head attention through ``F.scaled_dot_product_attention`` (chapter "Multi-scale
self-attention").

Contenders, all of width D with H heads and measured in one run:

* ``sdpa``: MultiHeadAttention's fused path (full attention, T x T);
* ``msmsa``: MultiScaleSelfAttention with scales 1, 3, N/16, N/8 (H/4 heads each, the
  rest N/8: with 10 heads, 2, 2, 2 and 4), kernel ``"auto"``;
* ``msmsa small``: the same with scales 1, 3 only (the band kernel everywhere);
* ``head sdpa`` / ``head w=3``: one head, fused full attention vs the band of ω = 3.

Then whole models at inference, batch 128, at MTL-16's mean lengths (22, 109, 201
tokens; Guo et al. figure 4): ms_transformer vs the te Transformer classifier.

Built to be read on a busy machine. On the CPU it runs on one thread and times each
call in this thread's CPU seconds (``time.thread_time``), which other processes do not
inflate; elsewhere wall-clock time. Every repetition times all contenders at one length
back to back (``lamalib.analysis.timing.compare_seconds``), so load that drifts hits
them alike; each time is the median of the repetitions, after warm-up calls. Memory
is counted twice (``lamalib.analysis.complexity``): ``peak_bytes``, the tensor
storages that PyTorch creates (gradients included), and ``allocator_peak_bytes``,
what the allocator hands out (a fused kernel's private scratch space included).
glibc's malloc thresholds are fixed first (``steady_malloc``), so that no contender
pays for page faults that the one before it left. The file keeps the clock, the thread
count, the malloc settings and the load average at start and end.
Writes ``results/benchmark__multiscale.json``.

The goal (issue "Kernels"): the MSMSA layer faster than same-width multi-head SDPA
from T = 512 on and never more memory (D = 300, 10 heads, B = 8, fwd + bwd); the file
keeps, per goal, whether it was met.

    OMP_NUM_THREADS=1 nice -n 0 python benchmarks/multiscale.py [--lengths 128 ... 4096]
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import torch
import torch.nn.functional as F

from lamalib.analysis.complexity import (allocator_peak_bytes, layer_slopes,
                                         peak_memory_bytes)
from lamalib.analysis.timing import compare_seconds, save_benchmark, start_benchmark
from lamalib.models import build_model
from lamalib.nn.self_attention.multihead import MultiHeadAttention
from lamalib.nn.multiscale import MultiScaleSelfAttention, scale_aware_attention


# The whole-model comparison: the MS-Transformer and our Transformer classifier at one
# width, head count and depth (ours: the paper's sizes are not in our copy).
MODELS = {"ms_transformer": dict(embed_dim=300, d_model=300, n_layers=3, n_heads=10,
                                 dropout=0.0),
          "te": dict(d_model=300, n_heads=10, n_layers=3, d_ff=1200, dropout=0.0)}


def fwd_bwd(fn, *inputs) -> None:
    out = fn(*inputs)
    out = out[0] if isinstance(out, tuple) else out
    out.sum().backward()


def layer_rows(lengths, d_model, heads, batch, timing, device) -> list[dict]:
    k = heads // 4
    mixed = MultiScaleSelfAttention(d_model, [1] * k + [3] * k + ["N/16"] * k
                                    + ["N/8"] * (heads - 3 * k)).to(device)
    small = MultiScaleSelfAttention(d_model, [1, 3] * (heads // 2)).to(device)
    full = MultiHeadAttention(d_model, heads).to(device)
    mixed.load_state_dict(full.state_dict())
    small.load_state_dict(full.state_dict())
    dh = d_model // heads
    rows = []
    for T in lengths:
        x = torch.randn(batch, T, d_model, device=device, requires_grad=True)
        q, kk, v = (torch.randn(batch, 1, T, dh, device=device, requires_grad=True)
                    for _ in range(3))
        radius = torch.full((batch,), 3, device=device)
        runs = {
            "sdpa": partial(fwd_bwd, lambda t: full(t, t, t), x),
            "msmsa": partial(fwd_bwd, mixed, x),
            "msmsa small": partial(fwd_bwd, small, x),
            "head sdpa": partial(fwd_bwd, F.scaled_dot_product_attention, q, kk, v),
            "head w=3": partial(fwd_bwd, lambda a, b, c: scale_aware_attention(
                a, b, c, radius)[0], q, kk, v),
        }
        seconds = compare_seconds(runs, **timing)
        for name, run in runs.items():
            rows.append({"layer": name, "n": T, "seconds": seconds[name],
                         "peak_bytes": peak_memory_bytes(run, device),
                         "allocator_peak_bytes": allocator_peak_bytes(run, device)})
        print(f"T={T}: " + ", ".join(
            f"{r['layer']} {r['seconds'] * 1e3:.1f} ms "
            f"{r['peak_bytes'] / 2**20:.1f} MiB" for r in rows[-len(runs):]),
            flush=True)
    return rows


@torch.no_grad()
def model_rows(lengths, batch, timing, device) -> list[dict]:
    models = {name: build_model(name, vocab_size=5000, num_classes=2, **config)
              .to(device).eval() for name, config in MODELS.items()}
    rows = []
    for T in lengths:
        tokens = torch.randint(1, 5000, (batch, T), device=device)
        mask = torch.ones_like(tokens, dtype=torch.bool)
        s = compare_seconds({name: partial(model, tokens, mask)
                             for name, model in models.items()}, **timing)
        rows.append({"n": T, "ms_transformer": s["ms_transformer"], "te": s["te"],
                     "speedup": s["te"] / s["ms_transformer"]})
        print(f"model T={T}: ms_transformer {s['ms_transformer'] * 1e3:.0f} ms, "
              f"te {s['te'] * 1e3:.0f} ms", flush=True)
    return rows


def layer_ratios(rows: list[dict]) -> dict[str, dict[str, float]]:
    """At every T, how many times the fused full attention's time or memory each
    banded contender's is (above 1: the banded side is faster or smaller)."""
    by = {(r["layer"], r["n"]): r for r in rows}
    pairs = {"sdpa_over_msmsa": ("sdpa", "msmsa"),
             "sdpa_over_msmsa_small": ("sdpa", "msmsa small"),
             "head_sdpa_over_w3": ("head sdpa", "head w=3")}
    return {str(T): {f"{label}_{what}": by[a, T][key] / by[b, T][key]
                     for label, (a, b) in pairs.items()
                     for what, key in (("time", "seconds"), ("memory", "peak_bytes"),
                                       ("allocator_memory", "allocator_peak_bytes"))}
            for T in dict.fromkeys(r["n"] for r in rows)}


def layer_goals(ratios: dict, from_n: int = 512) -> dict:
    """The issue's goals for the MSMSA layer against multi-head SDPA: faster at every
    T >= ``from_n``, and never more memory (tensor bytes) at any T."""
    time = {T: r["sdpa_over_msmsa_time"] for T, r in ratios.items()
            if int(T) >= from_n}
    memory = {T: r["sdpa_over_msmsa_memory"] for T, r in ratios.items()}
    return {"faster_from": from_n,
            "slowest_speedup_from": min(time.values(), default=None),
            "faster_met": bool(time) and min(time.values()) > 1,
            "smallest_memory_ratio": min(memory.values(), default=None),
            "memory_met": bool(memory) and min(memory.values()) >= 1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+",
                        default=[128, 256, 512, 1024, 2048, 4096])
    parser.add_argument("--model-lengths", type=int, nargs="+", default=[22, 109, 201])
    parser.add_argument("--d-model", type=int, default=300)
    parser.add_argument("--heads", type=int, default=10)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--model-batch", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=7,
                        help="timed repetitions (the median is kept)")
    parser.add_argument("--warmup", type=int, default=2,
                        help="untimed calls of each contender first")
    parser.add_argument("--slopes-from", type=int, default=512,
                        help="also fit the log-log slopes over T >= this only")
    parser.add_argument("--out", default="results/benchmark__multiscale.json")
    args = parser.parse_args()

    device, malloc, clock, timing, load_start, wall, cpu = start_benchmark(
        args.repeats, args.warmup)  # one thread, steady malloc, thread CPU time
    rows = layer_rows(args.lengths, args.d_model, args.heads, args.batch, timing,
                      device)
    ratios = layer_ratios(rows)
    slopes = layer_slopes(rows, width=12, from_n=args.slopes_from, keys={
        "time": "seconds", "memory": "peak_bytes",
        "allocator_memory": "allocator_peak_bytes"})
    for T, r in ratios.items():
        print(f"T={T}: " + ", ".join(f"{k} {v:.2f}" for k, v in r.items()))
    goals = layer_goals(ratios, from_n=512)
    print("goals:", goals)
    models = model_rows(args.model_lengths, args.model_batch, timing, device)
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    out = save_benchmark(args.out, "multiscale",
                         vars(args) | {"device": str(device),
                                       "threads": torch.get_num_threads(),
                                       "clock": clock.__name__, "malloc": malloc,
                                       "models": MODELS},
                         {"rows": rows, "ratios": ratios, "loglog_slopes": slopes,
                          "goals": goals, "models": models},
                         load_average={"start": load_start, "end": os.getloadavg()},
                         seconds=wall, cpu_seconds=cpu)
    print(f"wrote {out} ({wall:.0f} s, of which {cpu / wall:.0%} on this thread's "
          f"CPU; load average {load_start[0]:.1f} at start)")


if __name__ == "__main__":
    main()
