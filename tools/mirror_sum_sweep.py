"""Test MSE against K on the mirror-sum task for the Transformer and the paper's three
Multi-Scale Transformers (chapter "Multi-scale self-attention"; Guo et al. 2020,
section 4.1, which used N = 100, d = 50 and 200k training and test samples).

Runs ``lamalib.analysis.mirror_sum.mirror_sum_curves`` for every model of
``MIRROR_SUM_MODELS`` and writes ``results/sweeps/mirror_sum/N<N>_d<d>.json`` with the
sizes, the curves and their provenance. On a CPU, with one thread:

    OMP_NUM_THREADS=1 nice python tools/mirror_sum_sweep.py --n-train 8000 \
        --n-test 2000 --epochs 4 --batch-size 32 --d-model 20 --lr 3e-3

(the committed ``N100_d50.json``: sizes chosen to fit in about 40 minutes of a shared
2-core CPU, at a width D = 20 too narrow to hold a pair of 50-d vectors; nothing was
learned. ``--out`` writes another file beside it, e.g. ``N100_d50_D100.json``, K = 1 at
the defaults D = 100 and lr 1e-3. The paper's 200k samples are 25 times as many per
epoch as 8000).
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime, timezone
from pathlib import Path

import torch

from lamalib.analysis.mirror_sum import mirror_sum_curves
from lamalib.models.mirror_sum import MIRROR_SUM_MODELS
from lamalib.provenance import (command_line, git_commit, hardware, lamalib_version,
                                write_json_atomic)

RESULTS = Path(__file__).resolve().parents[1] / "results"


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--N", type=int, default=100)
    p.add_argument("--d", type=int, default=50)
    p.add_argument("--Ks", type=int, nargs="+", default=[1, 10, 25, 40, 50])
    p.add_argument("--n-train", type=int, default=8000)
    p.add_argument("--n-test", type=int, default=2000)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--d-model", type=int, default=100,
                   help="D of every model (divisible by 10 heads; at least 2d, so that "
                        "both vectors of a pair fit: at D = 20 nothing was learned)")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=32,
                   help="the chapter's 64 halved: twice the updates on few samples")
    p.add_argument("--models", nargs="+", default=list(MIRROR_SUM_MODELS),
                   choices=list(MIRROR_SUM_MODELS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--results", default=str(RESULTS),
                   help="results folder; writes sweeps/mirror_sum/N<N>_d<d>.json there")
    p.add_argument("--out", default=None,
                   help="write this file instead (a run beside the committed one)")
    args = p.parse_args(argv)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    commit, clock = git_commit(), time.perf_counter()  # the code that runs
    torch.set_num_threads(args.threads)
    models = {name: MIRROR_SUM_MODELS[name] for name in args.models}
    curves = mirror_sum_curves(models, args.N, args.d, args.Ks, args.n_train,
                               args.n_test, args.epochs, d_model=args.d_model,
                               lr=args.lr, batch_size=args.batch_size,
                               seed=args.seed, progress=False,
                               log=lambda line: print(line, flush=True))
    record = {
        "experiment": "mirror_sum", "dataset": "synthetic mirror sum",
        "model_options": models, "curves": curves,
        "paper_sizes": {"n_train": 200_000, "n_test": 200_000},  # Guo et al. 4.1
        "hardware": hardware(), "started": started,
        "seconds": time.perf_counter() - clock, "git_commit": commit,
        "lamalib": lamalib_version(),
        "command": command_line(argv, "python tools/mirror_sum_sweep.py"),
    }
    out = Path(args.out) if args.out else (
        Path(args.results) / "sweeps" / "mirror_sum" / f"N{args.N}_d{args.d}.json")
    write_json_atomic(out, record)
    print(f"{record['seconds']:.0f} s -> {out}")
    return record


if __name__ == "__main__":
    main()
