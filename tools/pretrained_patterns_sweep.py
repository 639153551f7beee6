"""The patterns the course's pretrained encoder shows, injected into the chapter's
small segmentation model and compared with the vanilla one over seeds (chapter
"Finding and injecting attention patterns", section "Patterns in a pretrained
encoder"; ``lamalib.analysis.pretrained_heads``).

Loads the shipped encoder, measures the global relevance of each pattern in its heads
on the Lee corpus' 50 test documents, keeps the injectable patterns the 3-sigma rule
keeps (else the one whose best head lies furthest above uniform attention, labelled
so), then trains the vanilla tagger and the tagger with those patterns (one head each,
every layer) from each seed, to early stopping, and writes
``results/sweeps/patterns_injection/pretrained_encoder.json`` with the paired
difference of test F1, the course's verdict and provenance (the encoder's checksum
included, so the chapter sees when the file is stale).

    OMP_NUM_THREADS=1 nice python tools/pretrained_patterns_sweep.py [--seeds 0 1 2 3 4]
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from dataclasses import asdict
from pathlib import Path

import torch

from lamalib.analysis.pattern_ablation import (SIZES, Setting, run_settings,
                                               segmentation_task, summarize)
from lamalib.analysis.pretrained_heads import (document_batches, encoder_patterns,
                                               encoder_relevance, findings,
                                               mlm_importance, patterns_to_inject,
                                               uniform_reference)
from lamalib.data.datasets.embedded import lee_texts
from lamalib.experiments.claims import judge
from lamalib.experiments.comparison import estimate, paired_difference
from lamalib.models.pretrained import COURSE_ENCODER_DIR, load_course_encoder
from lamalib.provenance import command_line, git_commit, hardware, lamalib_version

OUT = Path("results/sweeps/patterns_injection/pretrained_encoder.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", choices=sorted(SIZES))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--max-epochs", type=int, default=40)
    parser.add_argument("--patience", type=int, default=3)
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()

    started = time.perf_counter()
    commit = git_commit()  # the code that runs, before anyone edits the checkout
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    model, tokenizer = load_course_encoder()
    config = json.loads((COURSE_ENCODER_DIR / "config.json").read_text())
    batches = document_batches(tokenizer, lee_texts("test"), model.config.max_len)
    patterns = encoder_patterns(tokenizer)
    gr = encoder_relevance(model, batches, patterns)
    found = findings(gr, uniform_reference(batches, patterns))
    injected, why = patterns_to_inject(found)
    print("injecting", injected, f"({why})", flush=True)

    sizes = {**SIZES[args.profile], "epochs": args.max_epochs}
    task = segmentation_task(**sizes)
    task.patience = args.patience

    def log(row):
        print(f"{row['setting']:30s} seed {row['seed']}: F1 {row['F1']:.3f} "
              f"Pk {row['Pk']:.3f} epochs {row['epochs']} (best {row['best_epoch']}) "
              f"{row['cpu_seconds']:.0f} CPU s", flush=True)

    vanilla, pattern = Setting(), Setting(tuple(injected), 1)
    rows = run_settings(task, [vanilla, pattern], args.seeds, log=log)
    f1 = {name: {r["seed"]: r["F1"] for r in rows if r["setting"] == name}
          for name in (vanilla.name, pattern.name)}
    diff = paired_difference(f1[pattern.name], f1[vanilla.name])
    pk = {name: {r["seed"]: r["Pk"] for r in rows if r["setting"] == name}
          for name in (vanilla.name, pattern.name)}
    record = {
        "experiment": "patterns_injection", "model": "boundary_tagger",
        "dataset": "newsgroups", "profile": args.profile,
        "encoder": {"sha256": config["sha256"]["model.safetensors"],
                    "corpus": config.get("corpus"), "steps": config.get("steps"),
                    "layers": model.config.n_layers, "heads": model.config.n_heads},
        "held_out": "lee.cor (50 documents)",
        "importance_taylor": mlm_importance(model, tokenizer, batches).tolist(),
        "global_relevance": {name: g.tolist() for name, g in gr.items()},
        "findings": [asdict(f) for f in found],
        "injected": injected, "why": why, "setting": pattern.name,
        "config": {"sizes": sizes, "patience": args.patience, "model": task.model,
                   "lr": task.lr, "batch_size": task.batch_size, "seeds": args.seeds,
                   "vocab": len(task.vocab)},
        "rows": rows, "summary": summarize(rows),
        "f1": {name: estimate(list(v.values())).__dict__ for name, v in f1.items()},
        "difference_f1": diff.__dict__,
        # Pk: lower is better, so vanilla - injected > 0 means injection helps
        "difference_pk": paired_difference(pk[vanilla.name], pk[pattern.name]).__dict__,
        "verdict": str(judge(diff, seeds=min(len(v) for v in f1.values()))),
        "cut": sum(r["epochs"] >= args.max_epochs and
                   r["epochs"] - r["best_epoch"] < args.patience for r in rows),
        "hardware": hardware(), "torch_threads": torch.get_num_threads(),
        "lamalib": lamalib_version(), "git_commit": commit,
        "command": command_line(None, "python tools/pretrained_patterns_sweep.py",
                                local=()),
        "started": date, "seconds": time.perf_counter() - started,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"injected {pattern.name} ({why}): F1 difference {diff.mean:+.3f} ± "
          f"{diff.se:.3f} over {diff.n} seeds -> {record['verdict']}; wrote {out}")


if __name__ == "__main__":
    main()
