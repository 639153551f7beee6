"""Attention distance per layer of a Transformer encoder trained on a real dataset
(chapter "Multi-scale self-attention"; Guo et al. 2020, Figure 3, which used BERT).

Trains the ``te`` classifier (``--layers`` encoder layers) with ``lamalib.train.fit``
on the dataset's training split, then measures, on the test split, every head's
argmax and expected attention distance (``lamalib.analysis.attention_distance``),
for the trained model and for the same model before training (the reference: what
the positions and the random weights alone give). Writes
``results/sweeps/msa_attention_distance/<dataset>.json`` with provenance.

    LAMALIB_PROFILE=full nice python tools/msa_attention_distance.py --dataset sst5
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lamalib.analysis.attention_distance import attention_distances
from lamalib.data.cache import cached_vocab
from lamalib.provenance import write_json_atomic
from lamalib.experiments.runner import (config_record, dataset_identity, load_data,
                                        split_loaders)
from lamalib.experiments.spec import RunSpec
from lamalib.models import build_model
from lamalib.provenance import RunStamp
from lamalib.runtime import profile, seed_everything
from lamalib.train import evaluate, fit

OUT = Path(__file__).resolve().parents[1] / "results" / "sweeps" / \
    "msa_attention_distance"


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default="sst5")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--max-distance", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    stamp = RunStamp()
    options = {"d_model": args.d_model, "n_heads": args.heads, "n_layers": args.layers,
               "d_ff": 2 * args.d_model, "dropout": 0.1}
    # the TE baseline's optimizer (lamalib.experiments.papers); no early stop
    spec = RunSpec(experiment="msa_attention_distance", model="te",
                   dataset=args.dataset, seed=args.seed, model_options=options,
                   train={"optimizer": "adamw", "lr": args.lr, "weight_decay": 0.0,
                          "epochs": args.epochs, "patience": args.epochs})
    train, valid, test = load_data(spec)
    vocab = cached_vocab(train, min_freq=spec.min_freq)
    seed_everything(spec.seed)
    model = build_model("te", vocab_size=len(vocab),
                        num_classes=len(train.label_names), **options)
    loaders = split_loaders(spec, vocab, train, valid, test)
    before = attention_distances(model, loaders[2])
    config = spec.train_config()
    history = fit(model, loaders[0], loaders[1], config)
    after = attention_distances(model, loaders[2])
    scores = evaluate(model, loaders[2])
    record = {
        "experiment": spec.experiment, "model": "te", "dataset": args.dataset,
        "profile": profile(), "split": "test",
        "config": config_record(spec, config),
        "dataset_identity": dataset_identity(spec, train, valid, test),
        "metrics": {"test_accuracy": scores["accuracy"],
                    "best_valid_accuracy": history.best_score,
                    "best_epoch": history.best_epoch},
        "history": history.records,
        "distances": {"trained": after.record(args.max_distance),
                      "untrained": before.record(args.max_distance)},
        "params": sum(p.numel() for p in model.parameters()),
        # the command without --out DIR: where a run writes is not how it ran
        **stamp.fields(argv, "python tools/msa_attention_distance.py",
                       local=("--out",)),
    }
    out = Path(args.out) / f"{args.dataset}.json"
    write_json_atomic(out, record)
    print(f"test accuracy {scores['accuracy']:.4f} -> {out}")
    for name, d in (("untrained", before), ("trained", after)):
        for row in d.summary():
            print(f"{name:9s} layer {row['layer']}: mean argmax distance "
                  f"{row['mean_argmax']:.2f}, local share {row['share_local']:.2f}, "
                  f"chance {row['chance']:.2f}")
    return record


if __name__ == "__main__":
    main()
