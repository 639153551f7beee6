"""Time (forward + backward) and peak memory of pattern-masked attention computed
sparsely against dense attention (chapter "Finding and injecting attention patterns").

One layer's attention step, B = 1, H heads of width Dh, every head under the same
pattern. The document has N tokens in sentences of ``round(0.14 N)`` tokens, so the
same-span mask (eq. (5)) removes rho ~ 0.86 of the cells (Li et al.'s sparsity; rho
is computed from the mask and recorded). Contenders, measured in one run and timed in
turns (``lamalib.analysis.timing.compare_seconds``), memory counted by
``lamalib.analysis.complexity.peak_memory_bytes`` (tensor storages PyTorch creates;
a fused kernel's private scratch space is invisible to it):

* ``sdpa``: ``F.scaled_dot_product_attention`` without a mask (all N^2 cells);
* ``sdpa + span mask`` / ``span kernel``: the same-span mask (bool ``(1, 1, N, N)``,
  built beforehand and not timed) vs :func:`lamalib.nn.patterns.kernels.span_attention`
  (packs each sentence, builds only the blocks; its packing is timed);
* ``sdpa + previous mask`` / ``previous kernel``: the "previous" mask (eq. (6),
  rho ~ 1 - 2/N) vs :func:`lamalib.nn.patterns.kernels.offset_attention`.

``mask_seconds`` and ``mask_bytes`` record what building and holding each dense mask
costs (``pattern_mask``, as ``BoundaryTagger`` does every forward pass). Writes
``results/benchmark__patterns.json``.

    OMP_NUM_THREADS=1 nice python benchmarks/patterns.py [--lengths 128 ... 2048]
"""

from __future__ import annotations

import argparse
from functools import partial

import torch
import torch.nn.functional as F

from lamalib.analysis.complexity import layer_slopes, peak_memory_bytes
from lamalib.analysis.timing import compare_seconds, median_seconds, save_benchmark
from lamalib.nn.patterns.kernels import offset_attention, span_attention
from lamalib.nn.patterns import pattern_mask, sparsity
from lamalib.runtime import get_device, seed_everything

SPAN_SHARE = 0.14  # sentence length / N: same-span rho = 1 - 0.14 = 0.86


def fwd_bwd(fn, *inputs) -> None:
    fn(*inputs).sum().backward()


def document(n: int, device) -> tuple[torch.Tensor, ...]:
    """``tokens, mask, spans (1, n)``: sentences of ``round(0.14 n)`` tokens."""
    s = max(1, round(SPAN_SHARE * n))
    tokens = torch.randint(1, 1000, (1, n), device=device)
    mask = torch.ones(1, n, dtype=torch.bool, device=device)
    spans = (torch.arange(n, device=device) // s)[None]  # (1, n)
    return tokens, mask, spans


def rows_for(n: int, heads: int, d_head: int, repeats: int, device) -> list[dict]:
    tokens, mask, spans = document(n, device)
    q, k, v = (torch.randn(1, heads, n, d_head, device=device, requires_grad=True)
               for _ in range(3))
    masks = {p: pattern_mask(p, tokens, mask, spans)[:, None]  # (1, 1, n, n)
             for p in ("same_span", "previous")}
    rho = {p: sparsity([m], mask).item() for p, m in masks.items()}
    sdpa = F.scaled_dot_product_attention
    runs = {
        "sdpa": partial(fwd_bwd, sdpa, q, k, v),
        "sdpa + span mask": partial(fwd_bwd, lambda a, b, c: sdpa(
            a, b, c, attn_mask=masks["same_span"]), q, k, v),
        "span kernel": partial(fwd_bwd, lambda a, b, c: span_attention(
            a, b, c, spans, mask), q, k, v),
        "sdpa + previous mask": partial(fwd_bwd, lambda a, b, c: sdpa(
            a, b, c, attn_mask=masks["previous"]), q, k, v),
        "previous kernel": partial(fwd_bwd, lambda a, b, c: offset_attention(
            a, b, c, -1, mask), q, k, v),
    }
    seconds = compare_seconds(runs, repeats=repeats)
    mask_seconds = {p: median_seconds(partial(pattern_mask, p, tokens, mask, spans),
                                      repeats=repeats) for p in masks}
    rows = []
    for name, run in runs.items():
        pattern = ("same_span" if "span" in name else
                   "previous" if "previous" in name else None)
        rows.append({"layer": name, "n": n, "seconds": seconds[name],
                     "peak_bytes": peak_memory_bytes(run, device),
                     "rho": rho[pattern] if pattern else 0.0,
                     # the dense contender's bool mask, an input the counter skips
                     "mask_bytes": n * n if "sdpa +" in name else 0,
                     "mask_seconds": mask_seconds.get(pattern) if "sdpa +" in name
                     else None})
    print(f"N={n} (rho span {rho['same_span']:.3f}, previous {rho['previous']:.3f}): "
          + ", ".join(f"{k} {s * 1e3:.1f} ms" for k, s in seconds.items()), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+",
                        default=[128, 256, 512, 1024, 2048])
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--d-head", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", default="results/benchmark__patterns.json")
    args = parser.parse_args()

    seed_everything(0)
    device = get_device()
    rows = [r for n in args.lengths
            for r in rows_for(n, args.heads, args.d_head, args.repeats, device)]
    by = {(r["layer"], r["n"]): r for r in rows}
    ratios = {}  # > 1: the kernel is faster / smaller than that dense contender
    for n in args.lengths:
        ratios[str(n)] = {}
        for kernel, masked in (("span kernel", "sdpa + span mask"),
                               ("previous kernel", "sdpa + previous mask")):
            for dense in (masked, "sdpa"):
                key = f"{dense} / {kernel}"
                ratios[str(n)][f"{key} time"] = (by[dense, n]["seconds"]
                                                 / by[kernel, n]["seconds"])
                ratios[str(n)][f"{key} memory"] = (by[dense, n]["peak_bytes"]
                                                   / by[kernel, n]["peak_bytes"])
    slopes = layer_slopes(rows, width=22)
    for n, r in ratios.items():
        print(f"N={n}: " + ", ".join(f"{k} {v:.2f}" for k, v in r.items()))
    out = save_benchmark(args.out, "patterns",
                         vars(args) | {"device": str(device),
                                       "threads": torch.get_num_threads(),
                                       "span_share": SPAN_SHARE, "batch": 1},
                         {"rows": rows, "ratios": ratios, "loglog_slopes": slopes})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
