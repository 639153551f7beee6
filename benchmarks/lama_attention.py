"""Time (forward + backward) and peak memory of LAMA's attention against multi-head
self-attention and SAN's attention as the length T grows (chapter "LAMA").

Contenders, all on word annotations of width D (100 = 2h for the paper's h = 50) and
measured in one run, timed in turns (``lamalib.analysis.timing.compare_seconds``; on
the CPU it runs on one thread with glibc's malloc thresholds fixed and the clock is the
thread's CPU time, which other processes on a busy machine do not inflate
(``quiet_cpu``); wall-clock time elsewhere),
memory counted by ``lamalib.analysis.complexity.peak_memory_bytes`` (on the CPU: the
tensor storages PyTorch creates, gradients included; a fused kernel's private scratch
space is not seen):

* ``lama``: the attention module of the ``lama_ctx`` model (LowRankMultiHeadAttention,
  m heads against the mean context, paper eq. 13), O(T m D);
* ``mha weights``: MultiHeadAttention keeping its (B, H, T, T) weights, O(T^2 D);
* ``sdpa``: the same module's fused path, ``F.scaled_dot_product_attention``;
* ``san``: the attention module of the ``san`` model (Lin et al.'s r hops, d_a),
  O(T r d_a), a pooling like LAMA's;
* ``sdpa pool``: the like-for-like linear alternative to LAMA's attention, m learned
  queries pooling through ``F.scaled_dot_product_attention``: keys ``tanh(W_w h_t +
  b_w)`` (LAMA's eq. (1) projection), values ``h_t``, the output ``(B, m, D)`` as
  LAMA's, O(T m D). What it leaves out is LAMA's per-document context (with rank 1,
  head i's query is ``(P_i^T c) Q_i``, a learned vector scaled by the context), the
  tanh and the l2 step across the heads.

Writes ``results/benchmark__lama_attention.json`` with the rows, the ratios of each
contender to LAMA at every T and the log-log slopes of time and memory against T.

    OMP_NUM_THREADS=1 python benchmarks/lama_attention.py [--lengths 64 ... 4096]
"""

from __future__ import annotations

import argparse
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

from lamalib.analysis.complexity import loglog_slope, peak_memory_bytes
from lamalib.analysis.timing import compare_seconds, quiet_cpu, save_benchmark
from lamalib.models import build_model
from lamalib.provenance import hardware
from lamalib.nn.self_attention.multihead import MultiHeadAttention
from lamalib.runtime import get_device, seed_everything


def fwd_bwd(fn, x) -> None:
    out = fn(x)
    out = out[0] if isinstance(out, tuple) else out
    out.sum().backward()


def contenders(d: int, heads: int, d_a: int, device) -> dict:
    """``{name: fn(x (B, T, D))}``: each attention layer, called as its model calls it.
    """
    size = dict(vocab_size=10, num_classes=2, hidden_size=d // 2)
    lama = build_model("lama_ctx", **size, heads=heads).attention.to(device)
    san = build_model("san", **size, d_a=d_a, hops=heads).attention.to(device)
    mha = MultiHeadAttention(d, heads).to(device)
    keys = nn.Linear(d, d).to(device)  # W_w, b_w of LAMA's eq. (1)
    queries = nn.Parameter(torch.randn(heads, d, device=device) * d ** -0.5)  # (m, D)

    def with_mask(module, x):  # every token real: the mask LAMA and SAN take
        return module(x, torch.ones(x.shape[:2], dtype=torch.bool, device=x.device))

    def sdpa_pool(x, mask):  # (B, T, D), (B, T) -> (B, m, D)
        q = queries.expand(x.shape[0], -1, -1)  # (B, m, D)
        return F.scaled_dot_product_attention(q, torch.tanh(keys(x)), x,
                                              attn_mask=mask[:, None, :])

    return {"lama": partial(with_mask, lama),
            "mha weights": lambda x: mha(x, x, x, need_weights=True),
            "sdpa": lambda x: mha(x, x, x),
            "san": partial(with_mask, san),
            "sdpa pool": partial(with_mask, sdpa_pool)}


def measure(lengths, d, heads, d_a, batch, repeats, device, clock) -> list[dict]:
    layers = contenders(d, heads, d_a, device)
    rows = []
    for T in lengths:
        x = torch.randn(batch, T, d, device=device, requires_grad=True)
        runs = {name: partial(fwd_bwd, fn, x) for name, fn in layers.items()}
        seconds = compare_seconds(runs, repeats=repeats, clock=clock)
        for name, run in runs.items():
            rows.append({"layer": name, "n": T, "seconds": seconds[name],
                         "peak_bytes": peak_memory_bytes(run, device)})
        print(f"T={T}: " + ", ".join(
            f"{r['layer']} {r['seconds'] * 1e3:.1f} ms "
            f"{r['peak_bytes'] / 2**20:.1f} MiB" for r in rows[-len(runs):]),
            flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+",
                        default=[64, 128, 256, 512, 1024, 2048, 4096])
    parser.add_argument("--d", type=int, default=100, help="D = 2h (paper: h = 50)")
    parser.add_argument("--heads", type=int, default=10,
                        help="LAMA's m = SAN's hops r = MHA's heads")
    parser.add_argument("--d-a", type=int, default=100, help="SAN's scorer width")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="results/benchmark__lama_attention.json")
    args = parser.parse_args()

    seed_everything(0)
    device = get_device()
    malloc, clock = quiet_cpu(device)  # one thread, steady malloc, thread CPU time
    rows = measure(args.lengths, args.d, args.heads, args.d_a, args.batch,
                   args.repeats, device, clock)
    by = {(r["layer"], r["n"]): r for r in rows}
    layers = list(dict.fromkeys(r["layer"] for r in rows))
    ratios = {str(T): {f"{name}_over_lama_{what}":
                       by[name, T][key] / by["lama", T][key]
                       for name in layers if name != "lama"
                       for what, key in (("time", "seconds"), ("memory", "peak_bytes"))}
              for T in args.lengths}
    long = [T for T in args.lengths if T >= 512]  # past the fixed overheads
    slopes = {name: {
        "time": loglog_slope(rows, name, "seconds"),
        "memory": loglog_slope(rows, name, "peak_bytes"),
        "time_T>=512": loglog_slope([r for r in rows if r["n"] in long], name,
                                    "seconds"),
        "memory_T>=512": loglog_slope([r for r in rows if r["n"] in long], name,
                                      "peak_bytes")} for name in layers}
    for name, s in slopes.items():
        print(f"{name:12s} log-log slope: " + ", ".join(
            f"{k} {v:.2f}" for k, v in s.items()))
    print(f"{hardware()['name']}, {torch.get_num_threads()} thread(s), clock "
          f"{clock.__name__}: each layer's time (memory) over LAMA's")
    for T, r in ratios.items():
        print(f"T={T}: " + ", ".join(f"{k} {v:.2f}" for k, v in r.items()))
    out = save_benchmark(args.out, "lama_attention",
                         vars(args) | {"device": str(device),
                                       "threads": torch.get_num_threads(),
                                       "clock": clock.__name__, "malloc": malloc},
                         {"rows": rows, "ratios": ratios, "loglog_slopes": slopes})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
