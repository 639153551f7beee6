"""Which band kernel is fastest for which radius and length (chapter "Multi-scale
self-attention"): the measurements behind ``lamalib.nn.multiscale.pick_kernel``.

For each length T and radius ω, forward + backward of one group of heads that share a
scale (2 heads of 32 dims, like a scale's share of an 8-head layer; a batch of
``--tokens // T`` sequences, so that every length does about the same work per call,
as a training batch does) through ``scale_aware_attention`` with each kernel, timed
side by side in one run:

* ``window``: the band one diagonal at a time (ω <= 63 only: beyond, it is far
  slower than every other kernel and costs minutes);
* ``blocked b=16/32/64/128``: blocks of queries against slabs of keys, fixed block
  sizes, to check ``default_block``;
* ``blocked``: the default block size;
* ``dense``: fused full attention under the band mask;
* ``auto``: whatever ``pick_kernel`` chooses.

Each row also keeps the peak bytes of the tensors each kernel creates. The summary says,
for every (T, ω), the fastest kernel and how many times slower ``auto`` is than it.
On the CPU: one thread, this thread's CPU time (``time.thread_time``), interleaved
repetitions, glibc malloc thresholds fixed, as in ``benchmarks/multiscale.py``.
Writes ``results/benchmark__band_kernels.json``.

    OMP_NUM_THREADS=1 python benchmarks/band_kernels.py [--lengths 256 1024 4096]
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import torch

from lamalib.analysis.complexity import peak_memory_bytes
from lamalib.analysis.timing import compare_seconds, quiet_cpu, save_benchmark
from lamalib.nn.multiscale.blocked_band import blocked_band_attention
from lamalib.nn.multiscale import pick_kernel, scale_aware_attention
from lamalib.runtime import get_device, seed_everything

RADII = [1, 2, 3, 7, 15, 31, 63, 127, 255, 511, 1023]
WINDOW_UP_TO = 63
BLOCKS = [16, 32, 64, 128]


def fwd_bwd(fn, q, k, v) -> None:
    fn(q, k, v).sum().backward()


def contenders(radii: torch.Tensor) -> dict:
    def kernel(name):
        return lambda q, k, v: scale_aware_attention(q, k, v, radii, kernel=name)[0]

    runs = {"window": kernel("window")} if int(radii.max()) <= WINDOW_UP_TO else {}
    for b in BLOCKS:
        runs[f"blocked b={b}"] = partial(
            lambda q, k, v, b: blocked_band_attention(q, k, v, radii, block=b), b=b)
    runs |= {"blocked": kernel("blocked"), "dense": kernel("dense"),
             "auto": kernel("auto")}
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+",
                        default=[64, 128, 256, 512, 1024, 4096])
    parser.add_argument("--tokens", type=int, default=4096,
                        help="tokens per call: the batch is tokens // T (at least 1)")
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--d-head", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--out", default="results/benchmark__band_kernels.json")
    args = parser.parse_args()

    seed_everything(0)
    device = get_device()
    malloc, clock = quiet_cpu(device)  # one thread, steady malloc, thread CPU time
    load_start = os.getloadavg()
    wall, cpu = time.perf_counter(), time.thread_time()
    rows, summary = [], []
    for T in args.lengths:
        B = max(1, args.tokens // T)
        q, k, v = (torch.randn(B, args.heads, T, args.d_head, device=device,
                               requires_grad=True) for _ in range(3))
        for r in [r for r in RADII if r < T]:
            radii = torch.full((B,), r, device=device)
            runs = {name: partial(fwd_bwd, fn, q, k, v)
                    for name, fn in contenders(radii).items()}
            seconds = compare_seconds(runs, repeats=args.repeats, warmup=args.warmup,
                                      clock=clock)
            for name, run in runs.items():
                rows.append({"n": T, "batch": B, "radius": r, "kernel": name,
                             "seconds": seconds[name],
                             "peak_bytes": peak_memory_bytes(run, device)})
            named = {n: s for n, s in seconds.items() if n != "auto"}
            best = min(named, key=named.get)
            summary.append({"n": T, "batch": B, "radius": r, "fastest": best,
                            "auto_picks": pick_kernel(radii, T),
                            "auto_over_fastest": seconds["auto"] / named[best],
                            "dense_over_blocked":
                                seconds["dense"] / seconds["blocked"]})
            print(f"T={T} ω={r}: " + ", ".join(
                f"{n} {s * 1e3:.2f} ms" for n, s in seconds.items())
                + f" | fastest {best}, auto ({summary[-1]['auto_picks']}) "
                f"{summary[-1]['auto_over_fastest']:.2f}x it", flush=True)
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    out = save_benchmark(args.out, "band_kernels",
                         vars(args) | {"device": str(device), "radii": RADII,
                                       "threads": torch.get_num_threads(),
                                       "clock": clock.__name__, "malloc": malloc},
                         {"rows": rows, "summary": summary},
                         load_average={"start": load_start, "end": os.getloadavg()},
                         seconds=wall, cpu_seconds=cpu)
    print(f"wrote {out} ({wall:.0f} s)")


if __name__ == "__main__":
    main()
