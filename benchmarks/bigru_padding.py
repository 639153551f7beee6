"""A padded batch through the BiGRU: packed (``pack_padded_sequence``) vs each row
reversed within its length (``BiGRU``'s CPU path), side by side, forward + backward.

Both compute the same function with the same weights (tests/test_bigru.py checks it
in float64, gradients included). On the CPU, autograd through a packed sequence
zero-fills a full-size gradient at every time step, so its cost grows as T^2; the
reversed-rows path stays linear. This script times both at several lengths in one
run, in turns (A, B, A, B, ...), prints the ratios and writes
``results/benchmark__bigru_padding.json``.

    python benchmarks/bigru_padding.py [--lengths 50 100 200 400]
"""

from __future__ import annotations

import argparse
import os
import time

import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from lamalib.analysis.timing import compare_seconds, save_benchmark, start_benchmark
from lamalib.nn.recurrent.bigru import BiGRU


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lengths", type=int, nargs="+", default=[50, 100, 200, 400])
    parser.add_argument("--embed", type=int, default=300)
    parser.add_argument("--hidden", type=int, default=150)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--out", default="results/benchmark__bigru_padding.json")
    args = parser.parse_args()

    start = start_benchmark(args.repeats, args.warmup)
    device = start.device
    encoder = BiGRU(args.embed, args.hidden).to(device)

    def packed(x, mask, lengths):
        p = pack_padded_sequence(x, lengths.cpu(), batch_first=True,
                                 enforce_sorted=False)
        out = pad_packed_sequence(encoder.gru(p)[0], batch_first=True,
                                  total_length=x.shape[1])[0]
        (out * mask[..., None]).sum().backward()

    rows = []
    for T in args.lengths:
        x = torch.randn(args.batch, T, args.embed, device=device, requires_grad=True)
        # lengths from half to all of T, the longest row full: a bucketed batch
        lengths = torch.randint(T // 2, T + 1, (args.batch,), device=device)
        lengths[0] = T
        mask = torch.arange(T, device=device)[None, :] < lengths[:, None]
        seconds = compare_seconds(
            {"packed": lambda: packed(x, mask, lengths),
             "reversed_rows": lambda: encoder(x, mask).sum().backward()},
            repeats=args.repeats, warmup=args.warmup, clock=start.clock)
        ratio = seconds["packed"] / seconds["reversed_rows"]
        rows.append({"T": T, "seconds": seconds, "packed_over_reversed": ratio})
        print(f"T = {T:4d}: packed {seconds['packed']:.3f} s, reversed rows "
              f"{seconds['reversed_rows']:.3f} s -> {ratio:.2f}x", flush=True)
    out = save_benchmark(
        args.out, "bigru_padding",
        config={k: v for k, v in vars(args).items() if k != "out"}
        | {"device": str(device), "clock": start.clock.__name__, "malloc": start.malloc},
        metrics={"rows": rows},
        load_start=start.load_start, load_end=os.getloadavg(),
        wall_seconds=time.perf_counter() - start.wall)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
