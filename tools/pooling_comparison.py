"""The seed report's pooling comparison on a stand-in task (chapter "Attention for
Vietnamese"): [CLS] alone vs [CLS] + a second [CLS] at the start of segment B.

    python tools/pooling_comparison.py [--seeds 3]

The report fine-tunes multilingual BERT on Zalo's question answering pairs; neither is
available offline. The stand-in is the course's generated sentence-pair task
``synthetic_nli`` (premise, hypothesis -> entailment / neutral / contradiction; its
answer, like Zalo's, lies in how segment B relates to segment A), read by a small
Transformer trained from scratch. The recipe, fixed before the first run and the same
for both arms: the packed input ``[CLS] A [SEP] [CLS] B [SEP]`` in both (only the
pooling differs), d_model 64, 4 heads, 2 pre-LN layers, feed-forward 128, dropout 0.1,
learned positions; AdamW at 1e-3, batches of 32, at most 30 epochs, stopping after 3
without a better validation accuracy, the best epoch tested; seeds 0, 1, 2. One
results file per arm and seed in ``results/vietnamese/pooling/``, with the code's
hash.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import torch

from lamalib.data import Vocab, load_dataset
from lamalib.data.datasets.mlm import pack_pair
from lamalib.data.nsp_batching import SegmentBatches, with_pair_tokens
from lamalib.models.packed_pair import POOLINGS, PackedPairClassifier, packed_pair_step
from lamalib.provenance import (code_identity, command_line, git_commit, hardware,
                                write_json_atomic)
from lamalib.runtime import seed_everything
from lamalib.train import TrainConfig, fit
from lamalib.train.metrics import class_report

OUT = Path(__file__).resolve().parents[1] / "results" / "vietnamese" / "pooling"
DATASET = "synthetic_nli"
MODEL = dict(d_model=64, n_heads=4, n_layers=2, d_ff=128, dropout=0.1,
             residual="pre", positional="learned", max_len=64)
RECIPE = dict(epochs=30, patience=3, lr=1e-3)
BATCH = 32


def packed(data, vocab: Vocab) -> tuple[list[list[int]], list[list[int]]]:
    """``[CLS] A [SEP] [CLS] B [SEP]`` ids and segment ids of every pair."""
    ids, segments = [], []
    for a, b in zip(data.first, data.second):
        row, seg = pack_pair(vocab.encode(a), [vocab.cls_id, *vocab.encode(b)],
                             vocab.cls_id, vocab["[SEP]"])
        ids.append(row)
        segments.append(seg)
    return ids, segments


@torch.no_grad()
def predictions(model, loader) -> tuple[list[int], list[int]]:
    model.eval()
    gold, said = [], []
    for batch in loader:
        said += model(batch.tokens, batch.mask, batch.segments).argmax(-1).tolist()
        gold += batch.labels.tolist()
    return gold, said


def one(pooling: str, seed: int) -> None:
    out = OUT / f"pooling__{pooling}__{DATASET}__s{seed}.json"
    if out.exists():
        print(f"{out.name} is there: skipped", flush=True)
        return
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    clock = time.perf_counter()
    train, valid, test = (load_dataset(DATASET, s) for s in ("train", "valid", "test"))
    vocab = with_pair_tokens(Vocab.build(train.first + train.second))
    loaders = [SegmentBatches(*packed(d, vocab), d.labels, BATCH, shuffle=shuffle,
                              seed=seed)
               for d, shuffle in ((train, True), (valid, False), (test, False))]
    seed_everything(seed)  # the same initial draw in both arms but the pooler's width
    model = PackedPairClassifier(len(vocab), len(train.label_names), vocab.cls_id,
                                 pooling, **MODEL)
    history = fit(model, loaders[0], loaders[1],
                  TrainConfig(seed=seed, **RECIPE), packed_pair_step, epoch_lines=False)
    report = class_report(*predictions(model, loaders[2]), train.label_names)
    write_json_atomic(out, {
        "experiment": "pooling", "model": f"packed_pair_{pooling}", "dataset": DATASET,
        "config": {"pooling": pooling, "model": MODEL, "train": RECIPE,
                   "batch_size": BATCH, "seed": seed,
                   "input": "[CLS] A [SEP] [CLS] B [SEP] in both arms"},
        "metrics": {"test_accuracy": report.accuracy,
                    "test_macro_f1": sum(r["f1"] for r in report.rows) / len(report.rows),
                    "best_valid_accuracy": history.best_score,
                    "best_epoch": history.best_epoch},
        "classes": report.rows, "history": history.records,
        "stopped_early": history.stopped_early,
        "params": sum(p.numel() for p in model.parameters()),
        "hardware": hardware(), "started": started,
        "seconds": time.perf_counter() - clock, "git_commit": git_commit(),
        "code": code_identity(),
        "command": command_line(program="python tools/pooling_comparison.py"),
    })
    print(f"{out.name}: accuracy {report.accuracy:.4f}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    for seed in range(args.seeds):
        for pooling in POOLINGS:
            one(pooling, seed)


if __name__ == "__main__":
    sys.exit(main())
