"""Time and peak memory of self-attention (full, restricted), a GRU and a convolution.

All layers are measured in one run on one machine (lamalib.analysis.complexity), and
the growth is reported as log-log slopes and as ratios to the GRU at each length,
never as absolute numbers to compare across machines. Writes
``results/benchmark__complexity.json`` with the hardware, torch version and date.

    python benchmarks/complexity.py [--lengths 64 128 256 512 1024 2048 --d-model 64
                                     --radius 8]
"""

from __future__ import annotations

import argparse

from lamalib.analysis.complexity import (
    COMPLEXITY_TABLE,
    layer_slopes,
    measure_complexity,
)
from lamalib.analysis.timing import save_benchmark
from lamalib.runtime import get_device, seed_everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+",
                        default=[64, 128, 256, 512, 1024, 2048])
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--kernel", type=int, default=3)
    parser.add_argument("--radius", type=int, default=8,
                        help="restricted self-attention: keys within this distance")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="results/benchmark__complexity.json")
    args = parser.parse_args()

    seed_everything(0)
    device = get_device()
    rows = measure_complexity(args.lengths, args.d_model, args.heads, args.kernel,
                              args.batch, args.repeats, device, args.radius)
    layers = list(dict.fromkeys(r["layer"] for r in rows))
    gru = {r["n"]: r for r in rows if r["layer"] == "recurrent (GRU)"}
    print(f"forward pass, B={args.batch} d={args.d_model} H={args.heads} "
          f"k={args.kernel} r={args.radius}, on {device}; time and memory relative "
          "to the GRU")
    print(f"{'layer':30s}" + "".join(f"{'n=' + str(n):>14s}" for n in args.lengths))
    for layer in layers:
        cells = [f"{r['seconds'] / gru[r['n']]['seconds']:6.2f}t "
                 f"{r['peak_bytes'] / gru[r['n']]['peak_bytes']:5.1f}m"
                 for r in rows if r["layer"] == layer]
        print(f"{layer:30s}" + "".join(f"{c:>14s}" for c in cells))
    slopes = layer_slopes(rows, width=30)

    out = save_benchmark(args.out, "complexity", vars(args) | {"device": str(device)},
                         {"rows": rows, "loglog_slopes": slopes},
                         table=COMPLEXITY_TABLE)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
