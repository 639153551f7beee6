"""The papers' speed claims, measured side by side in one run (chapters "LAMA" and
"Multi-scale self-attention").

* ``msa``: Guo et al. (AAAI 2020), section "Text Classification", text on Figure 4
  (test time per batch of 128): the MS-Transformer is 1.8 times faster than the
  Transformer on very short sentences (mean length 22 tokens, MR), 6.5 times on MTL-16
  on average (mean length 109) and at most 10 times (mean length 201, IMDB); the
  figures come from ``results/published.json``. We build the msa grid's two models,
  ``ms_transformer`` and the matched ``transformer`` (``lamalib.models.ms_baseline``),
  with the grid's options (``lamalib.experiments.papers``), and time at each length
  (a) one training step, forward + backward + the recipe's optimizer step with its
  gradient clipping, on a batch of ``--batch`` sequences, and (b) the paper's own
  measure, one forward pass at inference on a batch of ``--infer-batch``; peak memory
  of both.
* ``lama``: Mehta et al. (arXiv 1912.00835), section 5.2 and Figure 2: the time per
  epoch of the LAMA Encoder (LE, no RNN) and a one-layer Transformer Encoder (TE) as
  the length grows from 50 to 250; the text says only that TE costs more per epoch
  (the figure's values are not in the text). We time an epoch of ``--epoch-examples``
  sequences in batches of 32 (section 3.5) for ``le``, ``lama_ctx`` (the BiGRU model
  of the paper's tables) and ``te``, each with the lama grid's options and training
  recipe (SGD for the LAMA models, AdamW for TE).

Every sequence is ``T`` random tokens of a ``--vocab``-word vocabulary, no padding
(the papers' lengths are means: a real batch of mixed lengths pads to its longest).
The embeddings are random (the grids' word vectors cost the same to look up and
train). On the CPU it runs on one thread, with glibc's malloc thresholds fixed, and
times each call in this thread's CPU seconds (``lamalib.analysis.timing.quiet_cpu``);
contenders are timed in turns at each length and each time is the median of the
repeats (``compare_seconds``). Memory: the tensor storages PyTorch creates during
the call (``lamalib.analysis.complexity.peak_memory_bytes``), gradients and
activations included, parameters and optimizer state (made by the warm-up) not.
Writes ``results/benchmark__paper_speed.json``.

    OMP_NUM_THREADS=1 python benchmarks/paper_speed.py [--parts msa lama]
"""

from __future__ import annotations

import argparse
import os
import time
from functools import partial

import torch

from lamalib.analysis.complexity import peak_memory_bytes
from lamalib.analysis.timing import compare_seconds, save_benchmark, start_benchmark
from lamalib.data.batching import Batch
from lamalib.experiments.papers import PAPERS, paper_spec_fields
from lamalib.experiments.results import load_published
from lamalib.models import build_model
from lamalib.provenance import hardware
from lamalib.train import TrainConfig
from lamalib.train.optim import build_optimizer
from lamalib.train.steps import classification_step

# Each part: the paper's grid, one of its datasets (for the options it sets), the
# number of classes there, and the models compared (the baseline first).
PARTS = {"msa": ("mtl16_mr", 2, ("transformer", "ms_transformer")),
         "lama": ("r8", 8, ("te", "le", "lama_ctx"))}
# Guo et al.'s lengths (mean tokens) and the published.json dataset each belongs to.
MSA_LENGTHS = {22: "mtl16_mr", 109: "mtl16", 201: "mtl16_imdb"}
TRAIN_FIELDS = ("optimizer", "lr", "weight_decay", "momentum")
# What each part measures, recorded in the results file so that it reads on its own.
CLAIMS = {
    "msa": ("Guo et al. (AAAI 2020), section 'Text Classification', text on Figure "
            "4 (test time per batch of 128 on MTL-16): the MS-Transformer is 1.8, "
            "6.5 and 10 times faster than the Transformer at mean lengths of 22 "
            "(MR), 109 (MTL-16 average) and 201 tokens (IMDB). Ours: ms_transformer"
            " vs the matched transformer (lamalib.models.ms_baseline) with the msa "
            "grid's options; ratios[T]['transformer_over_ms_*_time'] = Transformer "
            "seconds / MS-Transformer seconds (above 1: the MS-Transformer is "
            "faster) for one training step (forward + backward + Adam step, batch "
            "config.batch) and one inference forward (batch config.infer_batch, the"
            " paper's measure); *_memory: the same ratio of peak bytes; "
            "'paper_speedup' is the paper's figure at that length, 'paper_source' "
            "its place."),
    "lama": ("Mehta et al. (arXiv 1912.00835), section 5.2 and Figure 2: time per "
             "epoch (mean of 10 epochs, IMDB and Reuters) of the LAMA Encoder (LE, "
             "no RNN) and a one-layer Transformer Encoder (TE) for lengths 50 to "
             "250; the text says TE costs more per epoch than LE and gives no "
             "values. Ours: rows[*]['epoch_seconds'] of one epoch of "
             "config.epoch_examples sequences in batches of config.lama_batch for "
             "te, le and lama_ctx (BiGRU + LAMA, the paper's tables' model) with the"
             " lama grid's options and optimizers; ratios[T]['te_over_le_time'] = TE"
             " seconds / LE seconds, and te_over_lama_ctx_time likewise."),
}


def grid_model(paper: str, name: str, vocab: int, device) -> tuple:
    """``(model, optimizer, options, train settings)`` of ``name`` as ``paper``'s grid
    builds and trains it; the model in training mode (dropout on)."""
    dataset, classes, _ = PARTS[paper]
    spec = paper_spec_fields(PAPERS[paper], name, dataset)
    options = spec["model_options"]
    train = {k: spec["train"][k] for k in TRAIN_FIELDS if k in spec["train"]
             and (k != "momentum" or spec["train"]["optimizer"] == "sgd")}
    config = TrainConfig(**train)  # clip_grad: the default 5.0, on in every grid run
    model = build_model(name, vocab_size=vocab, num_classes=classes, **options)
    model = model.to(device).train()
    optimizer = build_optimizer(model.parameters(), config)
    return model, optimizer, options, train | {"clip_grad": config.clip_grad}


def random_batch(n: int, T: int, vocab: int, classes: int, device) -> Batch:
    """``n`` sequences of ``T`` random word ids (no padding) and random labels."""
    tokens = torch.randint(1, vocab, (n, T), device=device)  # (B, T); 0 is padding
    return Batch(tokens, torch.ones_like(tokens, dtype=torch.bool),
                 torch.randint(0, classes, (n,), device=device),
                 torch.arange(n, device=device))


def train_step(model, optimizer, clip: float | None, batch: Batch) -> None:
    """One update as ``lamalib.train.fit`` makes it: loss, backward, clip, step."""
    loss = classification_step(model, batch).loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if clip is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()


def train_epoch(step, batches: list[Batch]) -> None:
    for batch in batches:
        step(batch)


@torch.no_grad()
def infer(model, batch: Batch) -> None:
    model.eval()
    model(batch.tokens, batch.mask)
    model.train()


def msa_rows(args, timing, device) -> tuple[list[dict], dict, dict]:
    """Per length and model: training-step and inference seconds and peak bytes."""
    _, classes, names = PARTS["msa"]
    built = {name: grid_model("msa", name, args.vocab, device) for name in names}
    rows = []
    for T in args.msa_lengths:
        train = random_batch(args.batch, T, args.vocab, classes, device)
        test = random_batch(args.infer_batch, T, args.vocab, classes, device)
        steps = {name: partial(train_step, m, opt, t["clip_grad"], train)
                 for name, (m, opt, _, t) in built.items()}
        tests = {name: partial(infer, m, test) for name, (m, *_) in built.items()}
        s_train = compare_seconds(steps, **timing)
        s_test = compare_seconds(tests, **timing)
        for name in names:
            peak = partial(peak_memory_bytes, device=device)
            rows.append({"n": T, "model": name,
                         "train_step_seconds": s_train[name],
                         "train_step_peak_bytes": peak(steps[name]),
                         "inference_seconds": s_test[name],
                         "inference_peak_bytes": peak(tests[name])})
        print(f"msa T={T}: " + ", ".join(
            f"{r['model']} step {r['train_step_seconds'] * 1e3:.0f} ms "
            f"{r['train_step_peak_bytes'] / 2**20:.0f} MiB, inference "
            f"{r['inference_seconds'] * 1e3:.0f} ms" for r in rows[-len(names):]),
            flush=True)
    options = {name: o for name, (_, _, o, _) in built.items()}
    train = {name: t for name, (*_, t) in built.items()}
    return rows, options, train


def lama_rows(args, timing, device) -> tuple[list[dict], dict, dict]:
    """Per length and model: seconds of one epoch of ``args.epoch_examples``."""
    _, classes, names = PARTS["lama"]
    built = {name: grid_model("lama", name, args.vocab, device) for name in names}
    rows = []
    for T in args.lama_lengths:
        batches = [random_batch(args.lama_batch, T, args.vocab, classes, device)
                   for _ in range(args.epoch_examples // args.lama_batch)]
        epochs = {name: partial(train_epoch, partial(train_step, m, opt,
                                                     t["clip_grad"]), batches)
                  for name, (m, opt, _, t) in built.items()}
        seconds = compare_seconds(epochs, **timing)
        for name in names:
            rows.append({"n": T, "model": name, "epoch_seconds": seconds[name]})
        print(f"lama T={T}: " + ", ".join(
            f"{r['model']} {r['epoch_seconds']:.2f} s/epoch"
            for r in rows[-len(names):]), flush=True)
    options = {name: o for name, (_, _, o, _) in built.items()}
    train = {name: t for name, (*_, t) in built.items()}
    return rows, options, train


def msa_ratios(rows: list[dict]) -> dict[str, dict]:
    """At every length: the Transformer's time (memory) over the MS-Transformer's
    (above 1: the MS-Transformer is faster or smaller) and the paper's figure."""
    published = {f["dataset"]: f for f in load_published()
                 if f["paper"] == "msa" and f["metric"] == "test_speedup"}
    by = {(r["model"], r["n"]): r for r in rows}
    out = {}
    for T in dict.fromkeys(r["n"] for r in rows):
        base, ms = by["transformer", T], by["ms_transformer", T]
        paper = published.get(MSA_LENGTHS.get(T))
        out[str(T)] = {
            **{f"transformer_over_ms_{key.removesuffix('_seconds')}_time":
               base[key] / ms[key] for key in ("train_step_seconds",
                                                "inference_seconds")},
            **{f"transformer_over_ms_{key.removesuffix('_peak_bytes')}_memory":
               base[key] / ms[key] for key in ("train_step_peak_bytes",
                                                "inference_peak_bytes")},
            "paper_speedup": paper["value"] if paper else None,
            "paper_source": paper["source"] if paper else None}
    return out


def lama_ratios(rows: list[dict]) -> dict[str, dict]:
    """At every length: TE's time per epoch over LE's and over LAMA+ctx's."""
    by = {(r["model"], r["n"]): r["epoch_seconds"] for r in rows}
    return {str(T): {f"te_over_{name}_time": by["te", T] / by[name, T]
                     for name in ("le", "lama_ctx")}
            for T in dict.fromkeys(r["n"] for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", choices=list(PARTS),
                        default=list(PARTS))
    parser.add_argument("--msa-lengths", type=int, nargs="+",
                        default=list(MSA_LENGTHS))
    parser.add_argument("--batch", type=int, default=32,
                        help="msa: sequences per training step")
    parser.add_argument("--infer-batch", type=int, default=128,
                        help="msa: sequences per inference batch (Guo et al.: 128)")
    parser.add_argument("--lama-lengths", type=int, nargs="+",
                        default=[50, 100, 150, 200, 250])
    parser.add_argument("--lama-batch", type=int, default=32,
                        help="lama: batch size (Mehta et al., section 3.5: 32)")
    parser.add_argument("--epoch-examples", type=int, default=128,
                        help="lama: sequences in one timed epoch")
    parser.add_argument("--vocab", type=int, default=20000,
                        help="words in the vocabulary (random ids)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed repetitions (the median is kept)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed calls of each contender first")
    parser.add_argument("--out", default="results/benchmark__paper_speed.json")
    args = parser.parse_args()

    device, malloc, clock, timing, load_start, wall, cpu = start_benchmark(
        args.repeats, args.warmup)  # one thread, steady malloc, thread CPU time
    metrics, models, train = {}, {}, {}
    if "msa" in args.parts:
        rows, models["msa"], train["msa"] = msa_rows(args, timing, device)
        metrics["msa"] = {"rows": rows, "ratios": msa_ratios(rows)}
    if "lama" in args.parts:
        rows, models["lama"], train["lama"] = lama_rows(args, timing, device)
        metrics["lama"] = {"rows": rows, "ratios": lama_ratios(rows)}
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu

    print(f"\n{hardware()['name']}, {torch.get_num_threads()} thread(s), clock "
          f"{clock.__name__}")
    if "msa" in metrics:
        print(f"MS-Transformer vs the matched Transformer (Guo et al., Figure 4): "
              f"Transformer / MS-Transformer; training step at batch {args.batch}, "
              f"inference at batch {args.infer_batch}")
        print(f"{'T':>5} {'step time':>10} {'step memory':>12} {'inference':>10} "
              f"{'paper':>6}")
        for T, r in metrics["msa"]["ratios"].items():
            paper = "" if r["paper_speedup"] is None else f"{r['paper_speedup']:.1f}"
            print(f"{T:>5} {r['transformer_over_ms_train_step_time']:9.2f}x "
                  f"{r['transformer_over_ms_train_step_memory']:11.2f}x "
                  f"{r['transformer_over_ms_inference_time']:9.2f}x {paper:>6}")
    if "lama" in metrics:
        print(f"time per epoch of {args.epoch_examples} sequences, batch "
              f"{args.lama_batch} (Mehta et al., Figure 2): TE over LE and LAMA+ctx")
        for T, r in metrics["lama"]["ratios"].items():
            print(f"{T:>5} TE/LE {r['te_over_le_time']:5.2f}x  TE/LAMA+ctx "
                  f"{r['te_over_lama_ctx_time']:5.2f}x")
    config = vars(args) | {"device": str(device), "threads": torch.get_num_threads(),
                           "clock": clock.__name__, "malloc": malloc,
                           "models": models, "train": train,
                           "msa_length_datasets": {str(k): v
                                                   for k, v in MSA_LENGTHS.items()}}
    out = save_benchmark(args.out, "paper_speed", config, metrics,
                         claims={part: CLAIMS[part] for part in metrics},
                         load_average={"start": load_start, "end": os.getloadavg()},
                         seconds=wall, cpu_seconds=cpu)
    print(f"wrote {out} ({wall:.0f} s; load average {load_start[0]:.1f} at start)")


if __name__ == "__main__":
    main()
