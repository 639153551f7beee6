"""How long ``python -m lamalib.experiments`` takes to start, and what dominates: each
command line below in a fresh process (wall seconds, the median of ``--repeats``; peak
resident memory from ``wait4``), and the imports with the largest cumulative import
time (``python -X importtime``), top-level packages only.

    python benchmarks/startup.py [--repeats 3]

Writes ``results/benchmark__startup.json`` with the hardware and git commit.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = [["--help"], ["run", "--help"], ["report", "--no-course", "--results",
                                            "no-such-folder"]]


def once(argv: list[str]) -> tuple[float, float]:
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen([sys.executable, "-m", "lamalib.experiments", *argv],
                                 stdout=sink, stderr=sink)
        _, _, usage = os.wait4(child.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def top_imports(argv: list[str], n: int = 8) -> list[tuple[str, float]]:
    """The top-level packages whose import took longest (cumulative seconds)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m",
                           "lamalib.experiments", *argv], capture_output=True,
                          text=True)
    best: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        root = name.strip().split(".")[0]
        best[root] = max(best.get(root, 0.0), int(cumulative) / 1e6)
    return sorted(best.items(), key=lambda kv: -kv[1])[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="results/benchmark__startup.json")
    args = parser.parse_args()
    rows = []
    for argv in COMMANDS:
        runs = [once(argv) for _ in range(args.repeats)]
        rows.append({"command": " ".join(argv),
                     "seconds": round(statistics.median(r[0] for r in runs), 2),
                     "peak_rss_mb": round(max(r[1] for r in runs))})
    imports = top_imports(["--help"])
    print("command                                         seconds  peak RSS MB")
    for r in rows:
        print(f"{r['command']:<46} {r['seconds']:>8}  {r['peak_rss_mb']:>11}")
    print("imports of --help (cumulative seconds): " + ", ".join(
        f"{name} {seconds:.2f}" for name, seconds in imports))
    # imported last: a child's peak RSS (wait4) counts the parent's at the fork, as
    # Linux keeps it across exec, so the parent imports nothing large before
    from lamalib.analysis.timing import save_benchmark

    save_benchmark(args.out, "startup", {"repeats": args.repeats},
                   {"commands": rows, "imports": dict(imports)})


if __name__ == "__main__":
    main()
