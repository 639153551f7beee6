"""Importance you can check: fine-tune all-MiniLM-L6-v2 for the chapter's segmentation
task from several seeds, name each fine-tuned model by the SHA-256 of its weights, and
set its Taylor head ranking against removing heads (chapter "Finding and injecting
attention patterns", section "Patterns in a fine-tuned encoder";
``lamalib.analysis.importance_check``).

For each seed: fine-tune the encoder and its boundary classifier as
``tools/finetuned_patterns.py`` does (same documents, same recipe; no injection step),
record the SHA-256 of the tagger's ``state_dict`` serialised with safetensors (with
``--keep DIR`` the weights are written there as ``seed<N>.safetensors``, the same
bytes), then on the validation documents: Taylor importance, the loss change when each
head is removed alone, their Spearman, the top-3-per-layer overlap of the two, and the
loss as heads are removed in importance order and in random orders. One file per seed,
``results/sweeps/minilm_importance/seed<N>.json``; a seed whose file exists with the
same configuration is skipped, so a rerun after a stop goes on where it was.
``lamalib.analysis.importance_check.summarize_check`` reads the folder (Spearman per
seed, overlap between seeds, the curves at half the heads).

    OMP_NUM_THREADS=1 nice python tools/minilm_importance.py [--seeds 0 1 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import torch

from lamalib.analysis.finetuned_heads import finetune_segmenter, gap_batches
from lamalib.analysis.importance_check import (check_importance, state_bytes,
                                               summarize_check)
from lamalib.analysis.pattern_ablation import SIZES, segmentation_task
from lamalib.models.hf_encoder import load_encoder
from lamalib.models.segmenter import boundary_step
from lamalib.provenance import RunStamp, write_json_atomic

OUT = Path("results/sweeps/minilm_importance")


def _fail(message: str) -> None:
    print(f"minilm_importance: {message}", file=sys.stderr)
    raise SystemExit(2)


def _one_seed(argv: list[str], seed: int) -> list[str]:
    """``argv`` with its ``--seeds`` list replaced by ``seed``: the command that
    remakes one seed's file."""
    out, skip = [], False
    for a in argv:
        if a == "--seeds" or a.startswith("--seeds="):
            skip = a == "--seeds"
            continue
        if skip and a.lstrip("-").isdigit():
            continue
        skip = False
        out.append(a)
    return [*out, "--seeds", str(seed)]


def run_seed(args, task, seed: int) -> dict:
    """Fine-tune from ``seed`` and check its importance ranking -> the seed's record
    (without provenance)."""
    model, tokenizer = load_encoder(args.encoder)
    tuned = finetune_segmenter(model, tokenizer, task.docs, epochs=args.ft_epochs,
                               patience=args.ft_patience, lr=args.ft_lr,
                               batch_size=args.batch_size, seed=seed,
                               max_pieces=args.max_pieces)
    print(f"seed {seed}: fine-tuned {tuned.scores}", flush=True)
    blob = state_bytes(tuned.model)
    sha = hashlib.sha256(blob).hexdigest()
    if args.keep:
        (Path(args.keep) / f"seed{seed}.safetensors").write_bytes(blob)
    valid = gap_batches(tokenizer, task.docs["valid"], args.batch_size, args.max_pieces)
    check = check_importance(tuned.model, valid, boundary_step, k=args.top_k,
                             n_random=args.random_orders, seed=seed, step=args.step)
    print(f"seed {seed}: Spearman {check['spearman']:.2f} (raw {check['spearman_raw']:.2f}),"
          f" top-{args.top_k} overlap with removal {check['overlap_with_removal']}; loss "
          f"at {check['half']} removed: {check['at_half_importance']:.3f} by importance, "
          f"{check['at_half_random']:.3f} at random", flush=True)
    return {"seed": seed, "sha256": sha,
            "finetune": {"scores": tuned.scores, "history": tuned.history},
            **check}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--encoder", default="all-MiniLM-L6-v2")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--ft-epochs", type=int, default=8)
    p.add_argument("--ft-patience", type=int, default=2)
    p.add_argument("--ft-lr", type=float, default=1e-4)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--max-pieces", type=int, default=6)
    p.add_argument("--top-k", type=int, default=3)
    p.add_argument("--random-orders", type=int, default=3)
    p.add_argument("--step", type=int, default=6,
                   help="measure the removal curves every STEP heads (each point is "
                        "one pass over the validation documents)")
    p.add_argument("--profile", default="full", choices=sorted(SIZES))
    p.add_argument("--keep", default=None,
                   help="a folder (outside git) to write each fine-tuned model's "
                        "weights to, as seed<N>.safetensors")
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    if args.keep:
        keep = Path(args.keep)
        if keep.exists() and not keep.is_dir():
            _fail(f"--keep {args.keep}: not a folder; give a folder for the weights")
        try:
            keep.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            _fail(f"--keep {args.keep}: cannot create it ({e.strerror}); give a "
                  "writable folder")
    if args.step < 1 or args.random_orders < 1 or args.top_k < 1:
        _fail("--step, --random-orders and --top-k must be at least 1")
    torch.set_num_threads(1)
    sizes = SIZES[args.profile]
    task = segmentation_task(**sizes)
    config = {k: getattr(args, k) for k in ("encoder", "ft_epochs", "ft_patience",
                                            "ft_lr", "batch_size", "max_pieces",
                                            "top_k", "random_orders", "step",
                                            "profile")}
    config.update(sizes=sizes, weight_decay=0.01, optimizer="adamw",
                  input="[CLS] s1 [SEP] s2 [SEP] ... [SEP]; classifier on each "
                        "closing [SEP]",
                  held_out=f"the task's validation split ({len(task.docs['valid'])} "
                           "documents)",
                  hash_of="the tagger's state_dict (encoder and classifier) "
                          "serialised with safetensors.torch.save")
    out = Path(args.out)
    for seed in args.seeds:
        path = out / f"seed{seed}.json"
        if path.exists() and json.loads(path.read_text()).get("config") == config:
            print(f"seed {seed}: {path} is complete, skipped", flush=True)
            continue
        stamp = RunStamp()
        record = {"experiment": "minilm_importance", "model": "bert_boundary_tagger",
                  "dataset": "newsgroups", "profile": args.profile, "config": config,
                  **run_seed(args, task, seed),
                  "torch": torch.__version__, "torch_threads": torch.get_num_threads(),
                  **stamp.fields(_one_seed(argv if argv is not None else
                                           sys.argv[1:], seed),
                                 "python tools/minilm_importance.py",
                                 local=("--out", "--keep"))}
        write_json_atomic(path, record)
        print(f"wrote {path}", flush=True)
    summary = summarize_check(out)
    print(json.dumps({k: summary[k] for k in ("spearman", "overlap_with_removal",
                                              "overlap_between_seeds",
                                              "at_half_importance", "at_half_random")}),
          flush=True)
    return summary


if __name__ == "__main__":
    main()
