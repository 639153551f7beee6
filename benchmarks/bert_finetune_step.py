"""What one fine-tuning step of a pretrained encoder costs here, and from it an epoch
of the LAMA grid's BERT baseline on R8 (chapter "LAMA", Reproductions' BERT row).

Times ``--repeats`` Adam steps of ``BertClassifier`` (``--model``, default the 6-layer
``all-MiniLM-L6-v2`` that installs offline; ``bert-base-uncased`` with network) on a
batch of ``--batch`` x ``--tokens`` WordPiece ids, after one warm-up step, and prints
the median step and the minutes an epoch of ``--train`` examples takes at that batch.
Writes ``results/benchmark__bert_finetune_step.json`` with the hardware and commit.

    OMP_NUM_THREADS=1 python benchmarks/bert_finetune_step.py [--threads 1]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import torch
import torch.nn.functional as F

from lamalib.analysis.timing import save_benchmark
from lamalib.models.bert import BertClassifier, bert_vocab
from lamalib.runtime import seed_everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--classes", type=int, default=8, help="R8: 8")
    parser.add_argument("--train", type=int, default=4936,
                        help="training examples an epoch (R8's split: 4,936)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--out", default="results/benchmark__bert_finetune_step.json")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    seed_everything(0)
    tokens = bert_vocab([], args.model, max_length=args.tokens)
    model = BertClassifier(len(tokens), args.classes, pretrained_name=args.model)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-6)  # the paper's rate
    ids = torch.randint(1000, len(tokens), (args.batch, args.tokens))  # (B, T)
    mask = torch.ones_like(ids, dtype=torch.bool)
    labels = torch.randint(0, args.classes, (args.batch,))
    model.train()
    seconds = []
    for _ in range(args.repeats + 1):  # the first is a warm-up
        start = time.perf_counter()
        loss = F.cross_entropy(model(ids, mask), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        seconds.append(time.perf_counter() - start)
    step = statistics.median(seconds[1:])
    epoch_minutes = math.ceil(args.train / args.batch) * step / 60
    print(f"{args.model}: one Adam step at batch {args.batch} x {args.tokens} tokens "
          f"on {torch.get_num_threads()} CPU thread(s): {step:.2f} s (median of "
          f"{args.repeats}); an epoch of {args.train:,} examples: "
          f"{epoch_minutes:.0f} min")
    out = save_benchmark(args.out, "bert_finetune_step", config=vars(args), metrics={
        "step_seconds": seconds[1:], "median_step_seconds": step,
        "epoch_minutes": epoch_minutes,
        "params": sum(p.numel() for p in model.parameters())})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
