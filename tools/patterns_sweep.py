"""Injected vs vanilla Transformers on the chapter's topic segmentation task, over
seeds, head budgets and pattern combinations (chapter "Finding and injecting attention
patterns"; ``lamalib.analysis.pattern_ablation``).

Trains a vanilla tagger, measures the global relevance of the four patterns in its
heads and which ones the 3-sigma rule keeps, then trains every setting of
``ablation_settings()`` (vanilla; each pattern alone and each pair on one head; all
four on 1 and 2 heads each) from each seed, and writes
``results/sweeps/patterns_injection/<dataset>.json`` with provenance.

    OMP_NUM_THREADS=1 nice python tools/patterns_sweep.py [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

import torch

from lamalib.analysis.pattern_ablation import (PAPER_PATTERNS, SIZES,
                                               ablation_settings, run_settings,
                                               segmentation_task, summarize,
                                               train_and_score)
from lamalib.nn.patterns import global_relevance, kept_patterns, significant_heads
from lamalib.provenance import command_line, git_commit, hardware, lamalib_version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", choices=sorted(SIZES))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--dataset", default="newsgroups")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = Path(args.out or f"results/sweeps/patterns_injection/{args.dataset}.json")

    started = time.perf_counter()
    commit = git_commit()  # the code that runs, before anyone edits the checkout
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    sizes = SIZES[args.profile]
    task = segmentation_task(**sizes, dataset=args.dataset)
    vanilla, _ = train_and_score(task, None, args.seeds[0])
    gr = global_relevance(vanilla, task.batches("valid"), task.patterns(),
                          forward=lambda m, b: m(b.tokens, b.mask, b.spans))
    kept = kept_patterns(gr)
    print("kept by the 3-sigma rule:", kept, flush=True)

    def log(row):
        print(f"{row['setting']:50s} seed {row['seed']}: F1 {row['F1']:.3f} "
              f"Pk {row['Pk']:.3f} rho {row['rho']:.2f} {row['cpu_seconds']:.0f} "
              "CPU s", flush=True)

    rows = run_settings(task, ablation_settings(), args.seeds, log=log)
    record = {
        "experiment": "patterns_injection", "model": "boundary_tagger",
        "dataset": args.dataset, "profile": args.profile,
        "config": {"sizes": sizes, "model": task.model, "lr": task.lr,
                   "batch_size": task.batch_size, "seeds": args.seeds,
                   "vocab": len(task.vocab),
                   # tokens the matching pattern never matches; a file without
                   # this key predates it: there <unk> matched <unk>
                   "matching_never": [task.vocab.itos[i] for i in task.never_match]},
        "global_relevance": {name: g.tolist() for name, g in gr.items()},
        "z_max": {name: ((g.max() - g.mean()) / g.std(unbiased=False)).item()
                  for name, g in gr.items()},
        "significant_heads": {name: significant_heads(g).nonzero().tolist()
                              for name, g in gr.items()},
        "kept": kept,
        "rows": rows, "summary": summarize(rows),
        "hardware": hardware(), "torch_threads": torch.get_num_threads(),
        "lamalib": lamalib_version(), "git_commit": commit,
        "command": command_line(None, "python tools/patterns_sweep.py", local=()),
        "started": date, "seconds": time.perf_counter() - started,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
