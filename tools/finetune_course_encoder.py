"""Fine-tuning the course's pretrained encoder on a real labelled task, against the same
classifier trained from random weights (chapter "Pretraining", section "The course's
encoder, fine-tuned at full size").

Both arms are one :class:`~lamalib.models.te.TEClassifier` with the encoder's sizes
(4 layers, width 256, 4 heads, pre-norm, learned positions), the encoder's WordPiece
pieces cut to its 128 positions, mean pooling and a linear layer; ``pretrained`` starts
its body from the shipped encoder's weights, ``scratch`` from random ones. Everything
else is the same (DESIGN, "How a comparison is run"): splits, inputs, AdamW, batch 32,
dropout 0.1, early stopping with the same patience; each arm's learning rate is chosen
on the validation split from the same grid (by the mean over seeds), and the test
accuracy reported is the chosen rate's. Writes
``results/sweeps/finetune_course_encoder/<dataset>.json``: every run (seed, rate, arm,
history, test accuracy), the choice, mean ± s.e. per arm, the paired difference and the
course's verdict. Rows already in the file's partial log (``--log``) are not run again,
so a killed sweep resumes.

    OMP_NUM_THREADS=1 nice python tools/finetune_course_encoder.py --dataset mtl16_mr
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from lamalib import runtime
from lamalib.data.batching import BucketBatches
from lamalib.data.registry import load_dataset
from lamalib.experiments.claims import judge
from lamalib.experiments.comparison import (estimate, paired_difference,
                                           stopped_at_cap)
from lamalib.models.pretrained import (COURSE_ENCODER_DIR, cut_to_length,
                                       load_course_encoder)
from lamalib.models.te import TEClassifier
from lamalib.provenance import RunStamp, write_json_atomic
from lamalib.train import TrainConfig, evaluate, fit

OUT = Path("results/sweeps/finetune_course_encoder")
ARMS = ("scratch", "pretrained")


def classifier(encoder_config, vocab_size: int, num_classes: int,
               dropout: float) -> TEClassifier:
    """A TEClassifier with the encoder's sizes (its body is the encoder's body)."""
    c = encoder_config
    return TEClassifier(vocab_size, num_classes, d_model=c.d_model, n_heads=c.n_heads,
                        n_layers=c.n_layers, d_ff=c.d_ff, dropout=dropout,
                        residual=c.residual, positional=c.positional,
                        max_positions=c.max_len, pad_id=c.pad_id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="mtl16_mr")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--lrs", type=float, nargs="+", default=[3e-5, 1e-4, 3e-4])
    parser.add_argument("--max-epochs", type=int, default=40)
    parser.add_argument("--patience", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--out", default=None,
                        help="the results file (default results/sweeps/"
                             "finetune_course_encoder/<dataset>.json)")
    parser.add_argument("--log", default=None,
                        help="finished runs, one JSON line each (default: the results "
                             "file with .partial.jsonl); a rerun skips them")
    args = parser.parse_args()
    out = Path(args.out or OUT / f"{args.dataset}.json")
    log = Path(args.log or out.with_suffix(".partial.jsonl"))

    stamp = RunStamp()
    encoder, tokenizer = load_course_encoder()
    enc_config = json.loads((COURSE_ENCODER_DIR / "config.json").read_text())
    cfg = encoder.config
    splits = {s: load_dataset(args.dataset, s) for s in ("train", "valid", "test")}
    whole = {s: [tokenizer.encode(t, add_cls=True) for t in d.texts]
             for s, d in splits.items()}  # [CLS] pieces [SEP], uncut
    cut = {s: sum(len(x) > cfg.max_len for x in v) for s, v in whole.items()}
    ids = {s: [cut_to_length(x, cfg.max_len, tokenizer.sep_id) for x in v]
           for s, v in whole.items()}
    labels = {s: list(d.labels) for s, d in splits.items()}
    num_classes = len(splits["train"].label_names)

    done = ([json.loads(line) for line in log.read_text().splitlines() if line.strip()]
            if log.exists() else [])
    have = {(r["arm"], r["lr"], r["seed"]) for r in done}
    rows = list(done)
    for seed in args.seeds:
        for lr in args.lrs:
            for arm in ARMS:
                if (arm, lr, seed) in have:
                    continue
                t0 = time.perf_counter()
                runtime.seed_everything(seed)
                model = classifier(cfg, len(tokenizer), num_classes, args.dropout)
                if arm == "pretrained":
                    model.body.load_state_dict(encoder.body.state_dict())

                def batches(split, size, shuffle):
                    return BucketBatches(ids[split], labels[split], size,
                                         shuffle=shuffle, seed=seed)

                history = fit(model, batches("train", args.batch_size, True),
                              batches("valid", 128, False),
                              TrainConfig(epochs=args.max_epochs, lr=lr,
                                          patience=args.patience, seed=seed,
                                          optimizer="adamw", weight_decay=0.01,
                                          progress=False))
                best = next(e for e in history.records  # the weights fit kept
                            if e["epoch"] == history.best_epoch)
                test = evaluate(model, batches("test", 128, False))
                row = {"arm": arm, "lr": lr, "seed": seed,
                       "valid_accuracy": 100 * best["valid_accuracy"],
                       "test_accuracy": 100 * test["accuracy"],
                       "best_epoch": best["epoch"], "epochs": len(history),
                       "cut": stopped_at_cap(len(history), best["epoch"],
                                             args.max_epochs, args.patience),
                       "history": history.records,
                       "seconds": time.perf_counter() - t0}
                rows.append(row)
                log.parent.mkdir(parents=True, exist_ok=True)
                with log.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"{arm:10s} lr {lr:g} seed {seed}: valid {row['valid_accuracy']:.1f}"
                      f" test {row['test_accuracy']:.1f} (best epoch {best['epoch']} of "
                      f"{row['epochs']}, {row['seconds']:.0f} s)", flush=True)

    rows = [r for r in rows if r["seed"] in args.seeds and r["lr"] in args.lrs]
    chosen, test = {}, {}
    for arm in ARMS:
        by_lr = {lr: estimate([r["valid_accuracy"] for r in rows
                               if r["arm"] == arm and r["lr"] == lr]).mean
                 for lr in args.lrs}
        chosen[arm] = max(args.lrs, key=lambda lr: by_lr[lr])
        test[arm] = {r["seed"]: r["test_accuracy"] for r in rows
                     if r["arm"] == arm and r["lr"] == chosen[arm]}
    diff = paired_difference(test["pretrained"], test["scratch"])
    record = {
        "experiment": "finetune_course_encoder", "model": "te_encoder_sized",
        "dataset": args.dataset, "profile": "full",
        "encoder": {"sha256": enc_config["sha256"]["model.safetensors"],
                    "corpus": enc_config.get("corpus"), "steps": enc_config.get("steps"),
                    "tokens_seen": enc_config.get("tokens_seen")},
        "sizes": {s: len(v) for s, v in ids.items()},
        "cut_to_max_len": cut, "max_len": cfg.max_len,
        "median_pieces": {s: statistics.median(map(len, v)) for s, v in ids.items()},
        "config": {"seeds": args.seeds, "lrs": args.lrs, "max_epochs": args.max_epochs,
                   "patience": args.patience, "batch_size": args.batch_size,
                   "dropout": args.dropout, "optimizer": "adamw", "weight_decay": 0.01,
                   "params": sum(p.numel() for p in classifier(
                       cfg, len(tokenizer), num_classes, args.dropout).parameters())},
        "rows": sorted(rows, key=lambda r: (r["arm"], r["lr"], r["seed"])),
        "chosen_lr": chosen,
        "valid_by_lr": {arm: {str(lr): estimate([r["valid_accuracy"] for r in rows
                                                 if r["arm"] == arm and r["lr"] == lr]
                                                ).__dict__ for lr in args.lrs}
                        for arm in ARMS},
        "test_accuracy": {arm: estimate(list(test[arm].values())).__dict__
                          for arm in ARMS},
        "difference": diff.__dict__,
        "verdict": str(judge(diff, seeds=min(len(v) for v in test.values()))),
        "cut": sum(r["cut"] for r in rows),
        "torch_threads": torch.get_num_threads(),
        **stamp.fields(None, "python tools/finetune_course_encoder.py",
                       local=("--out", "--log")),
        # this process's seconds and those of the runs an earlier one logged
        "seconds": stamp.seconds() + sum(r["seconds"] for r in done),
    }
    write_json_atomic(out, record)
    print(f"pretrained - scratch: {diff.mean:+.1f} ± {diff.se:.1f} points over {diff.n} "
          f"seeds (lr {chosen}) -> {record['verdict']}; wrote {out}")


if __name__ == "__main__":
    main()
