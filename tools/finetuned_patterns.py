"""Li et al.'s pipeline as the paper ran it, on a real pretrained encoder: fine-tune
it for the chapter's task, find its important heads on the task loss and their
patterns, inject those into the chapter's small tagger and compare it with the
vanilla one over seeds (chapter "Finding and injecting attention patterns", section
"Patterns in a fine-tuned encoder"; ``lamalib.analysis.finetuned_heads``).

1. Loads the encoder (default all-MiniLM-L6-v2, the copy a package ships, its
   SHA-256 checked) and measures, before any update, the GR of every pattern in its
   heads on the task's validation documents (the pretrained contrast).
2. Fine-tunes it whole, with a linear boundary classifier on the ``[SEP]`` closing
   each sentence, on the task's training documents, to early stopping on the
   validation split; scores it on the test split.
3. On the validation documents: head importance for the task loss (Taylor, eq. (7),
   and the head-mask gradient, eq. (8)), GR of the paper's four patterns and of
   ``[CLS]``/``[SEP]`` in every head, the 3-sigma rule, and which kept heads are
   among the 3 most important of their layer.
4. Injects the injectable patterns found there (matching, same sentence, previous,
   next: those with a 3-sigma head among the important heads), one head each in
   every layer of the chapter's tagger, and trains it and the vanilla tagger from
   each seed to early stopping on the same documents; writes the paired test-F1
   difference, the course's verdict and provenance to
   ``results/sweeps/patterns_injection/minilm_finetuned.json``.

Steps 1-3 are saved to ``--stage`` once done, so a rerun after a stop goes straight
to step 4.

    OMP_NUM_THREADS=1 nice python tools/finetuned_patterns.py [--seeds 0 1 2 3 4]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

import torch

from lamalib.analysis.finetuned_heads import (finetune_segmenter, finetuned_patterns,
                                              gap_batches, injectable_found,
                                              pattern_relevance, task_importance)
from lamalib.analysis.pattern_ablation import (SIZES, Setting, run_settings,
                                               segmentation_task, summarize)
from lamalib.analysis.pretrained_heads import findings
from lamalib.data.fetch import sha256sum
from lamalib.experiments.claims import judge
from lamalib.experiments.comparison import estimate, paired_difference
from lamalib.models.hf_encoder import known_model, load_encoder, packaged_copy
from lamalib.provenance import RunStamp, write_json_atomic

OUT = Path("results/sweeps/patterns_injection/minilm_finetuned.json")


def weights_sha256(name: str) -> str:
    """The SHA-256 of the weights ``load_encoder(name)`` reads."""
    known = known_model(name)
    folder = packaged_copy(known) if known is not None else Path(name)
    return sha256sum(Path(folder) / "model.safetensors")


def _lists(d: dict) -> dict:
    return {k: v.tolist() for k, v in d.items()}


def analyse(args, task) -> dict:
    """Steps 1-3: the record of the encoder before and after fine-tuning."""
    model, tokenizer = load_encoder(args.encoder)
    valid = gap_batches(tokenizer, task.docs["valid"], args.batch_size, args.max_pieces)
    # step 1: the encoder as it ships (no update yet), on the same documents
    gr0, uniform0 = pattern_relevance(model, tokenizer, valid)
    found0 = findings(gr0, uniform0)
    print("pretrained:", [(f.pattern, f.best, round(f.z, 1), f.significant)
                          for f in found0], flush=True)
    # step 2: fine-tune (the encoder's weights change in place)
    tuned = finetune_segmenter(model, tokenizer, task.docs, epochs=args.ft_epochs,
                               patience=args.ft_patience, lr=args.ft_lr,
                               batch_size=args.batch_size, seed=args.ft_seed,
                               max_pieces=args.max_pieces)
    print("fine-tuned:", tuned.scores, flush=True)
    # step 3: importance on the task loss, patterns, the 3-sigma rule
    result = finetuned_patterns(tuned.model, tokenizer, valid, k=args.top_k)
    mask_imp = task_importance(tuned.model, valid, method="mask")
    for f, i in zip(result["findings"], result["important"]):
        print(f"{f.pattern:9s} best {f.best} GR {f.gr:.3f} (uniform {f.uniform:.3f}) "
              f"z {f.z:.1f}; kept {f.significant}; among important: {i.heads}",
              flush=True)
    cfg = model.config
    return {
        "encoder": {"name": args.encoder, "sha256": weights_sha256(args.encoder),
                    "layers": cfg.num_hidden_layers, "heads": cfg.num_attention_heads,
                    "width": cfg.hidden_size,
                    "params": sum(p.numel() for p in model.parameters())},
        "held_out": f"the task's validation split ({len(task.docs['valid'])} "
                    "documents)",
        "valid_pieces": float(torch.cat([b.mask.sum(-1) for b in valid]).float()
                              .mean()),
        "pretrained": {"global_relevance": _lists(gr0), "uniform": uniform0,
                       "findings": [asdict(f) for f in found0]},
        "finetune": {"scores": tuned.scores, "history": tuned.history,
                     "config": {"epochs": args.ft_epochs, "patience": args.ft_patience,
                                "lr": args.ft_lr, "batch_size": args.batch_size,
                                "seed": args.ft_seed, "max_pieces": args.max_pieces,
                                "weight_decay": 0.01, "optimizer": "adamw",
                                "input": "[CLS] s1 [SEP] s2 [SEP] ... [SEP]; "
                                         "classifier on each closing [SEP]"}},
        "importance_taylor": result["importance"].tolist(),
        "importance_mask": mask_imp.tolist(),
        "top_k": args.top_k, "top_heads": result["top"],
        "global_relevance": _lists(result["gr"]), "uniform": result["uniform"],
        "findings": [asdict(f) for f in result["findings"]],
        "important": [asdict(i) for i in result["important"]],
    }


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--encoder", default="all-MiniLM-L6-v2")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--max-epochs", type=int, default=40)
    p.add_argument("--patience", type=int, default=3)
    p.add_argument("--ft-epochs", type=int, default=8)
    p.add_argument("--ft-patience", type=int, default=2)
    p.add_argument("--ft-lr", type=float, default=1e-4)
    p.add_argument("--ft-seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--max-pieces", type=int, default=6,
                   help="WordPieces kept per sentence (cost: one update of MiniLM on "
                        "16 documents of ~110 pieces takes ~7 s on one core)")
    p.add_argument("--top-k", type=int, default=3)
    p.add_argument("--profile", default="full", choices=sorted(SIZES))
    p.add_argument("--stage", default="/tmp/finetuned_patterns.stage.json",
                   help="steps 1-3 are saved here and reused by a rerun")
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    stamp = RunStamp()
    torch.set_num_threads(1)

    sizes = {**SIZES[args.profile], "epochs": args.max_epochs}
    task = segmentation_task(**sizes)
    task.patience = args.patience
    stage_key = {k: getattr(args, k) for k in ("encoder", "ft_epochs", "ft_patience",
                                               "ft_lr", "ft_seed", "batch_size",
                                               "max_pieces", "top_k", "profile")}
    stage = Path(args.stage)
    found = json.loads(stage.read_text()) if stage.exists() else None
    if found is None or found.get("key") != stage_key:
        found = {"key": stage_key, "analysis": analyse(args, task)}
        write_json_atomic(stage, found)
    else:
        print(f"steps 1-3 read from {stage}", flush=True)
    analysis = found["analysis"]

    from lamalib.analysis.finetuned_heads import ImportantPattern
    from lamalib.analysis.pretrained_heads import Finding
    fs = [Finding(**{**f, "best": tuple(f["best"]),
                     "significant": tuple(map(tuple, f["significant"]))})
          for f in analysis["findings"]]
    imp = [ImportantPattern(i["pattern"], tuple(map(tuple, i["heads"])),
                            tuple(map(tuple, i["kept"])))
           for i in analysis["important"]]
    injected, why = injectable_found(imp, fs)
    print("injecting", injected, f"({why})", flush=True)

    def log(row):
        print(f"{row['setting']:40s} seed {row['seed']}: F1 {row['F1']:.3f} "
              f"Pk {row['Pk']:.3f} epochs {row['epochs']} (best {row['best_epoch']}) "
              f"{row['cpu_seconds']:.0f} CPU s", flush=True)

    vanilla, pattern = Setting(), Setting(tuple(injected), 1)
    rows = run_settings(task, [vanilla, pattern], args.seeds, log=log)
    f1 = {name: {r["seed"]: 100 * r["F1"] for r in rows if r["setting"] == name}
          for name in (vanilla.name, pattern.name)}
    pk = {name: {r["seed"]: 100 * r["Pk"] for r in rows if r["setting"] == name}
          for name in (vanilla.name, pattern.name)}
    diff = paired_difference(f1[pattern.name], f1[vanilla.name])  # points
    verdict = judge(diff)
    record = {
        "experiment": "patterns_injection", "model": "boundary_tagger",
        "dataset": "newsgroups", "profile": args.profile,
        **analysis,
        "injected": injected, "why": why, "setting": pattern.name,
        "config": {"sizes": sizes, "patience": args.patience, "model": task.model,
                   "lr": task.lr, "batch_size": task.batch_size, "seeds": args.seeds,
                   "vocab": len(task.vocab), "finetune": stage_key},
        "rows": rows, "summary": summarize(rows),
        "units": "f1, difference_f1 and difference_pk in points (x 100)",
        "f1": {name: estimate(list(v.values())).__dict__ for name, v in f1.items()},
        "difference_f1": diff.__dict__,
        # Pk: lower is better, so vanilla - injected > 0 means injection helps
        "difference_pk": paired_difference(pk[vanilla.name], pk[pattern.name]).__dict__,
        "verdict": str(verdict), "outcome": verdict.outcome,
        "cut": sum(r["epochs"] >= args.max_epochs and
                   r["epochs"] - r["best_epoch"] < args.patience for r in rows),
        "torch_threads": torch.get_num_threads(),
        **stamp.fields(argv if argv is not None else sys.argv[1:],
                       "python tools/finetuned_patterns.py",
                       local=("--out", "--stage")),
    }
    out = Path(args.out)
    write_json_atomic(out, record)
    print(f"injected {pattern.name} ({why}): F1 difference {diff.mean:+.2f} ± "
          f"{diff.se:.2f} points over {diff.n} seeds -> {record['verdict']}; "
          f"wrote {out}")
    return record


if __name__ == "__main__":
    main()
