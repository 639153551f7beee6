"""``predict --file`` memory at 10,000 and at 500,000 lines, in one run: each size in a
fresh process (``python -m lamalib.experiments predict``, output to /dev/null), its
peak resident memory read from the kernel (``wait4``), printed side by side with the
ratio. A predict that streams holds one batch at a time, so the ratio stays near 1; the
whole-file predict it replaced grew with the file (20,000 lines: 7.2 GB).

The model is a small untrained ``avg`` (memory does not depend on what it learned);
the lines are drawn from a 2,000-word vocabulary, 5 to 40 words each.

    python benchmarks/predict_memory.py [--sizes 10000 500000 --model avg]

Writes ``results/benchmark__predict_memory.json`` with the hardware and git commit.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from lamalib.analysis.timing import save_benchmark
from lamalib.data import Vocab
from lamalib.models import build_model
from lamalib.models.saved import save_model


def write_lines(path: Path, n: int, words: list[str], seed: int = 0) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as f:
        for _ in range(n):
            f.write(" ".join(rng.choices(words, k=rng.randint(5, 40))) + "\n")


def peak_mb(command: list[str]) -> tuple[float, float]:
    """Peak resident memory (MB) and wall seconds of ``command`` in its own process."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(command, stdout=sink, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {child.stderr.read().decode()}")
    return usage.ru_maxrss / 1024, seconds  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 500_000])
    parser.add_argument("--model", default="avg")
    parser.add_argument("--out", default="results/benchmark__predict_memory.json")
    args = parser.parse_args()
    words = [f"w{i}" for i in range(2000)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        vocab = Vocab.build([" ".join(words)])
        torch.manual_seed(0)
        model = build_model(args.model, vocab_size=len(vocab), num_classes=3)
        folder = save_model(model, vocab, ["a", "b", "c"], Path(tmp) / "model",
                            name=args.model)
        for n in args.sizes:
            lines = Path(tmp) / f"lines_{n}.txt"
            write_lines(lines, n, words)
            mb, seconds = peak_mb([sys.executable, "-m", "lamalib.experiments",
                                   "predict", "--model", str(folder), "--file",
                                   str(lines)])
            rows.append({"lines": n, "peak_rss_mb": round(mb, 1),
                         "seconds": round(seconds, 1),
                         "file_mb": round(lines.stat().st_size / 2**20, 1)})
    print("lines      file MB  peak RSS MB  seconds")
    for r in rows:
        print(f"{r['lines']:>9,}  {r['file_mb']:>7}  {r['peak_rss_mb']:>11}  "
              f"{r['seconds']:>7}")
    ratio = rows[-1]["peak_rss_mb"] / rows[0]["peak_rss_mb"]
    print(f"peak memory at {rows[-1]['lines']:,} lines / at {rows[0]['lines']:,} "
          f"lines: {ratio:.2f}")
    save_benchmark(args.out, "predict_memory", {"model": args.model,
                                                "sizes": args.sizes},
                   {"rows": rows, "ratio": ratio})


if __name__ == "__main__":
    main()
