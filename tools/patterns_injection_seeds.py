"""The injection experiment of chapter "Finding and injecting attention patterns",
sized to answer: a recipient tagger that beats the trivial baselines, the paper's
combination of patterns and its ablation arm (positional patterns alone; Li et al.
2022, section 4.3.2), each from the same seeds, one results file per arm and seed
(resumable: a file that exists is not rerun).

The recipe (:data:`RECIPE`) is fixed before any run and written into every file: the
task's sizes, the stopping rule, the arms, which seeds are the pilot's (they size the
main run and are never part of its verdict) and the rule that sets the main run's
seeds from the pilot's spread.

    OMP_NUM_THREADS=1 nice -n 10 python tools/patterns_injection_seeds.py pilot
    OMP_NUM_THREADS=1 nice -n 10 python tools/patterns_injection_seeds.py main --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from lamalib.analysis.pattern_ablation import (PAPER_PATTERNS, Setting, plan_for,
                                               segmentation_task, train_and_score,
                                               trivial_baselines)
from lamalib.provenance import RunStamp, write_json_atomic

OUT = Path(__file__).resolve().parents[1] / "results" / "sweeps" / \
    "patterns_injection_seeds"

RECIPE = {
    "task": dict(train=400, valid=100, test=200, epochs=30),
    "stopping": "up to 30 epochs; stop after 4 epochs without a better validation gap "
                "accuracy (a tie with a lower validation loss counts as better); the "
                "best epoch's weights are scored on the test split",
    "patience": 4,
    "arms": {"vanilla": [],
             "paper's combination": list(PAPER_PATTERNS),
             "positional alone": ["previous", "next"]},
    "recipient_rule": "the vanilla recipient must beat every trivial baseline on the "
                      "pilot seeds' mean test F1 and Pk before the main run starts",
    "pilot_seeds": [100, 101, 102],
    "fallback": "if the recipient fails the rule on the pilot, recipe B: the same with "
                "train=1200 documents, piloted on the same seeds (written after the "
                "first pilot run, vanilla seed 100, F1 0.443, had been seen, and "
                "before any other)",
    "seed_rule": "main seeds 0..n-1 with n = the seeds a paired t-test needs for 80 % "
                 "power at alpha 0.05 to detect 3 F1 points at the pilot's standard "
                 "deviation of the paired differences (largest over the two injected "
                 "arms), at least 5; the verdict uses the main seeds only",
}


RECIPES = {"A": RECIPE["task"], "B": {**RECIPE["task"], "train": 1200}}


def task_for(recipe: str = "A"):
    t = segmentation_task(**RECIPES[recipe])
    t.patience = RECIPE["patience"]
    return t


def run(stage: str, arm: str, seed: int, task, recipe: str = "A",
        argv: list[str] | None = None) -> dict:
    stage = stage if recipe == "A" else f"{stage}{recipe}"
    out = OUT / f"{stage}__{arm.replace(' ', '_').replace(chr(39), '')}__s{seed}.json"
    if out.exists():
        return json.loads(out.read_text())
    stamp = RunStamp()  # this run's time and code
    patterns = RECIPE["arms"][arm]
    plan = plan_for(patterns, task.model["n_layers"], task.model["n_heads"], 1,
                    task.never_match) if patterns else None
    _, scores = train_and_score(task, plan, seed)
    record = {"experiment": "patterns_injection_seeds", "stage": stage, "arm": arm,
              "setting": Setting(tuple(patterns), 1).name, "patterns": patterns,
              "seed": seed, "recipe": RECIPE, "task": RECIPES[recipe],
              "metrics": scores,
              **stamp.fields(argv, "python tools/patterns_injection_seeds.py")}
    write_json_atomic(out, record)
    print(f"{stage} {arm:22s} seed {seed}: F1 {scores['F1']:.3f} Pk {scores['Pk']:.3f} "
          f"epochs {scores['epochs']} (best {scores['best_epoch']}) "
          f"{scores['cpu_seconds']:.0f} CPU s", flush=True)
    return record


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("stage", choices=["pilot", "main", "baselines"])
    p.add_argument("--seeds", type=int, nargs="*", default=None)
    p.add_argument("--arms", nargs="*", default=list(RECIPE["arms"]))
    p.add_argument("--recipe", default="A", choices=sorted(RECIPES))
    argv = sys.argv[1:] if argv is None else list(argv)
    args = p.parse_args(argv)
    stamp = RunStamp()
    task = task_for(args.recipe)
    if args.stage == "baselines":
        name = "baselines.json" if args.recipe == "A" else f"baselines{args.recipe}.json"
        write_json_atomic(OUT / name, {
            "experiment": "patterns_injection_seeds", "recipe": RECIPE,
            "task": RECIPES[args.recipe], "baselines": trivial_baselines(task),
            **stamp.fields(argv, "python tools/patterns_injection_seeds.py")})
        return
    seeds = args.seeds if args.seeds is not None else RECIPE["pilot_seeds"]
    for seed in seeds:  # seed by seed: every arm of a seed before the next seed
        for arm in args.arms:
            run(args.stage, arm, seed, task, args.recipe, argv)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"{time.perf_counter() - started:.0f} s")
