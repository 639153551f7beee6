"""What ``fit`` costs over a bare PyTorch loop: one epoch of the same model on the same
batches, both timed in turns in one run (``compare_seconds``); prints the ratio.

``fit`` adds its bookkeeping (history, best-weights copy, early stopping, progress bar
switched off here, the seeding of each call); the target is at most 1.10x on a CPU. It
writes ``results/benchmark__train_overhead.json`` with the hardware and git commit.

    python benchmarks/train_overhead.py [--model bigru_max --n 2000 --batch 32]
"""

from __future__ import annotations

import argparse

import torch

from lamalib.analysis.timing import compare_seconds, save_benchmark
from lamalib.data import Vocab, load_dataset, make_loader
from lamalib.models import build_model
from lamalib.runtime import get_device, seed_everything
from lamalib.train import TrainConfig, fit
from lamalib.train.steps import classification_step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bigru_max")
    parser.add_argument("--n", type=int, default=2000, help="training sentences")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--out", default="results/benchmark__train_overhead.json")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    device = get_device()
    data = load_dataset("synthetic_sentiment", "train", n=args.n)
    vocab = Vocab.build(data.texts)
    loader = make_loader(data, vocab, args.batch, shuffle=True)
    seed_everything(0)
    model = build_model(args.model, vocab_size=len(vocab), num_classes=2,
                        embed_dim=64).to(device)
    config = TrainConfig(epochs=1, lr=1e-3, clip_grad=None, amp=False, progress=False,
                         device=str(device))

    def with_fit():
        fit(model, loader, None, config)

    def bare_loop():
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        model.train()
        loader.set_epoch(1)
        for batch in loader:
            loss = classification_step(model, batch.to(device)).loss
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

    seconds = compare_seconds({"fit": with_fit, "bare_loop": bare_loop},
                              repeats=args.repeats)
    ratio = seconds["fit"] / seconds["bare_loop"]
    print(f"one epoch of {args.model}, {args.n} sentences, batch {args.batch}, on "
          f"{device} ({torch.get_num_threads()} threads):")
    print(f"fit / bare loop time ratio: {ratio:.3f}x (target <= 1.10x)")
    out = save_benchmark(args.out, "train_overhead", config=vars(args) | {
        "device": str(device)}, metrics={"seconds": seconds, "ratio_fit_over_bare":
                                         ratio})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
