"""The band attention kernels side by side, and the measurements behind ``"auto"``
(chapter "Multi-scale self-attention").

Three parts, one run, one CPU thread (this thread's CPU time, interleaved repetitions,
glibc malloc thresholds fixed: ``lamalib.analysis.timing.quiet_cpu``):

1. **The grid** behind ``kernel="auto"``: forward + backward of one group of heads
   (H heads of D dims, a batch of ``--tokens // T`` sequences) through every eager
   candidate, ``window`` (ω <= 16), ``blocked``, ``neighbour b=8 .. 128`` and
   ``dense`` (T <= 1024 or ω >= T / 8), on lengths x radii. With ``--write-table`` the
   medians become ``lamalib/nn/multiscale/band_kernel_table.json`` (what
   :func:`lamalib.nn.multiscale.pick_kernel` reads); then ``auto`` is timed against the
   fastest candidate of every cell (the "auto / fastest" column, goal <= 1.1).
2. **The table** of the issue's sizes (B = 2, H = 8, D = 64, ω = 3 and 16): every
   candidate in ms, its ratio to SDPA with the band mask (``dense``), its peak memory;
   ``compiled`` (the neighbour kernel under ``torch.compile``) at ``--compile-at``;
   then forward only, against FlexAttention compiled.
3. **The bandwidth floor and a profile**: a copy probe measures this thread's memory
   bandwidth; the floor of fwd + bwd is the 12 tensors of ``B H T D`` floats that it
   must at least read or write (q, k, v, out; q, k, v, out, grad; three gradients) at
   that bandwidth;
   and torch.profiler's top operators of ``auto`` at T = 4096, ω = 3.

Then the goals row (issue "Kernels"). Writes ``results/benchmark__band_kernels.json``.

    OMP_NUM_THREADS=1 python benchmarks/band_kernels.py --write-table
    OMP_NUM_THREADS=1 python benchmarks/band_kernels.py --grid-from-table  # parts 1b-3
"""

from __future__ import annotations

import argparse
import json
import os
import time
from functools import partial

import torch

from lamalib.analysis.complexity import peak_memory_bytes
from lamalib.analysis.timing import compare_seconds, save_benchmark, start_benchmark
from lamalib.nn.multiscale import (flex_available, load_table, parse_candidate,
                                   pick_kernel, scale_aware_attention)
from lamalib.nn.multiscale.kernel_table import TABLE_PATH

WINDOW_UP_TO = 16  # the diagonal-by-diagonal kernel: 2ω + 1 passes, slow beyond
BLOCKS = [8, 16, 32, 64, 128]


def candidates(T: int, r: int) -> list[str]:
    """The eager candidates timed at (T, ω)."""
    names = ["window"] if r <= WINDOW_UP_TO else []
    names += ["blocked"] + [f"neighbour b={b}" for b in BLOCKS if b <= max(2 * r, 8)
                            and b < 2 * T]
    if T <= 1024 or r >= T // 8:
        names.append("dense")
    return names


def attend(name: str, radii, q, k, v):
    kernel, block = parse_candidate(name)
    return scale_aware_attention(q, k, v, radii, kernel=kernel, block=block)[0]


def fwd_bwd(name: str, radii, q, k, v) -> None:
    attend(name, radii, q, k, v).sum().backward()


@torch.no_grad()
def fwd(name: str, radii, q, k, v) -> None:
    attend(name, radii, q, k, v)


def inputs(B, H, T, D, device, grad=True):
    return [torch.randn(B, H, T, D, device=device, requires_grad=grad)
            for _ in range(3)]


def grid(args, device, timing) -> tuple[list[dict], dict]:
    """Part 1: every candidate at every cell; returns rows and the table cells."""
    rows, cells = [], []
    for T in args.lengths:
        B = max(1, args.tokens // T)
        q, k, v = inputs(B, args.heads, T, args.d_head, device)
        for r in [r for r in args.radii if r < T]:
            radii = torch.full((B,), r, device=device)
            names = candidates(T, r)
            s = compare_seconds({n: partial(fwd_bwd, n, radii, q, k, v)
                                 for n in names}, **timing)
            best = min(s, key=s.get)
            cells.append({"n": T, "radius": r, "batch": B, "seconds": s})
            rows.append({"n": T, "radius": r, "batch": B, "fastest": best,
                         "seconds": s})
            print(f"grid T={T} ω={r} B={B}: " + ", ".join(
                f"{n} {t * 1e3:.1f}" for n, t in s.items()) + f" ms | {best}",
                flush=True)
    return rows, {"cells": cells}


def auto_check(args, device, timing, rows, table) -> list[dict]:
    """Part 1b: ``auto`` (reading ``table``) against each cell's fastest candidate."""
    out = []
    for row in rows:
        T, r, B = row["n"], row["radius"], row["batch"]
        q, k, v = inputs(B, args.heads, T, args.d_head, device)
        radii = torch.full((B,), r, device=device)
        choice = pick_kernel(radii, T, q.dtype, device, table)
        name = choice.kernel + (f" b={choice.block}" if choice.block else "")
        s = compare_seconds({"auto": partial(fwd_bwd, "auto", radii, q, k, v),
                             "fastest": partial(fwd_bwd, row["fastest"], radii, q, k,
                                                v)}, **timing)
        out.append({"n": T, "radius": r, "fastest": row["fastest"], "auto_picks": name,
                    "auto_over_fastest": s["auto"] / s["fastest"]})
        print(f"auto T={T} ω={r}: picks {name}, fastest {row['fastest']}, "
              f"auto / fastest {out[-1]['auto_over_fastest']:.2f}", flush=True)
    return out


def issue_table(args, device, timing) -> tuple[list[dict], list[dict]]:
    """Part 2: the issue's sizes, fwd + bwd (with memory), then forward only."""
    B, H, D = 2, 8, 64
    rows, forward = [], []
    for T in args.table_lengths:
        q, k, v = inputs(B, H, T, D, device)
        for r in args.table_radii:
            radii = torch.full((B,), r, device=device)
            choice = pick_kernel(radii, T, q.dtype, device)
            # dense first, then the window, whose big temporaries leave the caches
            # cold: auto runs after kernels of its own size (measured: right after
            # dense it took 5-7% longer than the same kernel timed later)
            names = ["dense", "window", "blocked", "neighbour",
                     *(f"neighbour b={b}" for b in BLOCKS[:3]), "auto"]
            if T in args.compile_at:
                names.append("compiled")
                fwd_bwd("compiled", radii, q, k, v)  # compile outside the clock
            runs = {n: partial(fwd_bwd, n, radii, q, k, v) for n in names}
            s = compare_seconds(runs, **timing)
            for n, run in runs.items():
                rows.append({"n": T, "radius": r, "kernel": n, "seconds": s[n],
                             "over_dense": s["dense"] / s[n],
                             "peak_bytes": peak_memory_bytes(run, device),
                             **({"picks": choice.kernel, "block": choice.block}
                                if n == "auto" else {})})
            print(f"table T={T} ω={r}: " + ", ".join(
                f"{n} {s[n] * 1e3:.1f} ms ({s['dense'] / s[n]:.1f}x)" for n in names),
                flush=True)
            qf, kf, vf = (t.detach() for t in (q, k, v))
            names = ["neighbour", "blocked", "auto"]
            if flex_available(device, needs_grad=False) is None:
                names.append("flex")
                fwd("flex", radii, qf, kf, vf)  # compile outside the clock
            s = compare_seconds({n: partial(fwd, n, radii, qf, kf, vf) for n in names},
                                **timing)
            forward += [{"n": T, "radius": r, "kernel": n, "seconds": s[n]}
                        for n in names]
            print(f"forward T={T} ω={r}: " + ", ".join(
                f"{n} {s[n] * 1e3:.1f} ms" for n in names), flush=True)
    return rows, forward


def profile(device, T: int = 4096, r: int = 3, calls: int = 3, top: int = 8) -> list:
    """Where ``auto``'s time goes at (T, ω), B = 2, H = 8, D = 64: the ``top`` operators
    by self CPU time over ``calls`` forward + backward calls (torch.profiler)."""
    q, k, v = inputs(2, 8, T, 64, device)
    radii = torch.full((2,), r, device=device)
    fwd_bwd("auto", radii, q, k, v)
    with torch.profiler.profile() as prof:
        for _ in range(calls):
            fwd_bwd("auto", radii, q, k, v)
    events = sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)
    total = sum(e.self_cpu_time_total for e in events)
    return [{"op": e.key, "calls": e.count // calls,
             "self_ms": e.self_cpu_time_total / calls / 1e3,
             "share": e.self_cpu_time_total / total} for e in events[:top]]


def bandwidth(device, timing, mib: int = 256) -> float:
    """Bytes a second that one ``copy_`` of ``mib`` MiB moves (read + write)."""
    x = torch.empty(mib << 18, device=device).normal_()  # floats
    y = torch.empty_like(x)
    s = compare_seconds({"copy": lambda: y.copy_(x)}, **timing)["copy"]
    return 2 * x.numel() * x.element_size() / s


def goals(rows, forward, floor_s) -> dict:
    """The issue's goals, each with what was reached."""
    at = {(r["n"], r["radius"], r["kernel"]): r for r in rows}
    fw = {(r["n"], r["radius"], r["kernel"]): r["seconds"] for r in forward}

    def get(T, r, k, key="over_dense"):
        row = at.get((T, r, k))
        return None if row is None else row[key]

    out = {"eager_4096_r3": {"goal": 15, "reached": get(4096, 3, "auto")},
           "compiled_4096_r3": {"goal": 25, "reached": get(4096, 3, "compiled")},
           "eager_8192_r3": {"goal": 25, "reached": get(8192, 3, "auto")}}
    memory = [r["peak_bytes"] / at[r["n"], r["radius"], "dense"]["peak_bytes"]
              for r in rows if r["kernel"] == "auto"]
    out["memory_over_dense"] = {"goal": 1.0, "reached": max(memory, default=None)}
    flex = [fw[T, r, "neighbour"] / fw[T, r, "flex"] for (T, r, k) in fw
            if k == "flex" and T >= 2048]
    out["forward_over_flex_T2048"] = {"goal": 1.0, "reached": max(flex, default=None)}
    auto = get(4096, 3, "auto", "seconds")
    out["over_floor_4096_r3"] = {"goal": 5.0, "reached": None if auto is None
                                 else auto / floor_s}
    for name, g in out.items():
        lower = name.startswith(("memory", "forward", "over_floor"))
        g["met"] = None if g["reached"] is None else (
            g["reached"] <= g["goal"] if lower else g["reached"] >= g["goal"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[64, 256, 1024, 4096])
    parser.add_argument("--radii", type=int, nargs="+",
                        default=[1, 3, 7, 16, 32, 64, 128, 256, 1024])
    parser.add_argument("--tokens", type=int, default=8192,
                        help="grid: tokens per call, the batch is tokens // T")
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--d-head", type=int, default=64)
    parser.add_argument("--table-lengths", type=int, nargs="+",
                        default=[1024, 2048, 4096, 8192])
    parser.add_argument("--table-radii", type=int, nargs="+", default=[3, 16])
    parser.add_argument("--compile-at", type=int, nargs="*", default=[4096])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--write-table", action="store_true",
                        help="write the grid to the package's band_kernel_table.json")
    parser.add_argument("--grid-from-table", action="store_true",
                        help="skip part 1's timing: read the grid from the package's "
                             "table (written by an earlier --write-table run)")
    parser.add_argument("--out", default="results/benchmark__band_kernels.json")
    args = parser.parse_args()

    device, malloc, clock, timing, load_start, wall, cpu = start_benchmark(
        args.repeats, args.warmup)  # one thread, steady malloc, thread CPU time
    table = load_table()
    if args.grid_from_table:
        measured = {"cells": table["devices"][device.type]["float32"]}
        rows = [{**c, "fastest": min(c["seconds"], key=c["seconds"].get)}
                for c in measured["cells"]]
    else:
        rows, measured = grid(args, device, timing)
    if args.write_table:
        dtype = "float32"
        table = {"source": "benchmarks/band_kernels.py --write-table",
                 "config": {"heads": args.heads, "d_head": args.d_head,
                            "tokens": args.tokens, "clock": clock.__name__,
                            "torch": torch.__version__},
                 "devices": {**table.get("devices", {}),
                             device.type: {dtype: measured["cells"]}}}
        TABLE_PATH.write_text(json.dumps(table, indent=1) + "\n")
        load_table.cache_clear()
    checked = auto_check(args, device, timing, rows, table)
    table_rows, forward = issue_table(args, device, timing)
    bytes_per_s = bandwidth(device, timing)
    where = profile(device)
    for e in where:
        print(f"profile {e['op'][:60]:60s} {e['self_ms']:7.1f} ms {e['share']:.0%}")
    floor = {f"{T}": 12 * 2 * 8 * T * 64 * 4 / bytes_per_s for T in args.table_lengths}
    reached = goals(table_rows, forward, floor.get("4096", float("nan")))
    for name, g in reached.items():
        print(f"goal {name}: {g['reached']} (goal {g['goal']}, met {g['met']})")
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    out = save_benchmark(args.out, "band_kernels",
                         vars(args) | {"device": str(device),
                                       "threads": torch.get_num_threads(),
                                       "clock": clock.__name__, "malloc": malloc},
                         {"grid": rows, "auto_check": checked, "table": table_rows,
                          "forward": forward, "bandwidth_bytes_per_s": bytes_per_s,
                          "floor_seconds": floor, "goals": reached,
                          "profile_4096_r3": where},
                         load_average={"start": load_start, "end": os.getloadavg()},
                         seconds=wall, cpu_seconds=cpu)
    print(f"wrote {out} ({wall:.0f} s)")


if __name__ == "__main__":
    main()
