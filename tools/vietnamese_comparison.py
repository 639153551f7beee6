"""The runs of chapter "Attention for Vietnamese": syllables vs words on UIT-VSFC.

    LAMALIB_DATA=<folder holding uit-vsfc/> python tools/vietnamese_comparison.py \
        [--models avg lama_ctx san te] [--seeds 3] [--models-dir DIR]

Each run is the project's own ``run`` (``lamalib.experiments.runner.run``): its results
file goes to ``results/vietnamese/`` with its code hash. The recipe, fixed before the
first run and the same for every arm: the official train/dev/test splits, random word
vectors, the models' default settings (no tuning: no free setting differs between
arms), AdamW at 1e-3, batches of 32, at most 30 epochs, stopping after 3 epochs
without a better validation accuracy (plain patience) and testing the best epoch.

The Transformer arm (``te``) was added after the others, with its own settings fixed
before its first judged run (``ARM_SETTINGS``) and the same for both tokenizations:
chapter 6's width of 512 took longer per epoch on a 2-core CPU than a whole LAMA+ctx
run, and without warm-up a Transformer stayed at the majority class for its first
epochs. So ``te`` is a quarter as wide (d_model 128, 4 heads, one layer, d_ff 512) and
its rate rises linearly over the first 358 updates (one epoch of the sentiment task's
11,426 sentences at batches of 32). A 3-epoch pilot on sentiment, seed 0, syllables,
checked only that it learns (dev accuracy 0.89 after one epoch); nothing was chosen
from it, and its run is not among the results.

The trained model is kept (``save_to``, outside the repository) and read back with
``load_model``; it predicts the raw test sentences (segmenting them as the run did)
and ``class_report`` gives per-class precision, recall and F1, written beside the
results file as ``classes__<results name>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from lamalib.experiments.runner import _load_data, run
from lamalib.experiments.spec import RunSpec
from lamalib.models.saved import load_model
from lamalib.provenance import code_identity, git_commit, write_json_atomic
from lamalib.train.metrics import class_report

RESULTS = Path(__file__).resolve().parents[1] / "results" / "vietnamese"
TASKS = ("uit_vsfc_sentiment", "uit_vsfc_topic")
TOKENIZERS = ("plain", "vi-words-underthesea")
RECIPE = {"epochs": 30, "patience": 3}
# a model's own settings on top of the recipe: (model options, training settings)
ARM_SETTINGS = {"te": ({"d_model": 128, "n_heads": 4, "n_layers": 1, "d_ff": 512},
                       {"schedule": "linear_warmup", "warmup_steps": 358})}


def classes_file(spec: RunSpec) -> Path:
    return RESULTS / f"classes__{spec.result_name()}"


def one(spec: RunSpec, models_dir: Path) -> None:
    out = classes_file(spec)
    if out.exists():
        print(f"{out.name} is there: skipped", flush=True)
        return
    folder = models_dir / spec.result_name().removesuffix(".json")
    # a complete results file without its classes file: train again to keep the
    # model (an interrupted run resumes from its checkpoint)
    done = (RESULTS / spec.result_name()).exists()
    result = run(spec, RESULTS, save_to=folder, force=done)
    saved = load_model(folder)
    test = _load_data(spec)[2]  # raw sentences: the saved model segments them
    predicted = saved.logits(test.texts).argmax(-1).tolist()
    report = class_report(test.labels, predicted, test.label_names)
    write_json_atomic(out, {
        "results_file": spec.result_name(),
        "test_accuracy_of_run": result["metrics"]["test_accuracy"],
        "accuracy": report.accuracy,
        "macro_f1": sum(r["f1"] for r in report.rows) / len(report.rows),
        "classes": report.rows,
        "confusion": report.confusion.tolist(),
        "git_commit": git_commit(), "code": code_identity(),
    })
    print(f"{out.name}: accuracy {report.accuracy:.4f}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="+", default=["avg", "lama_ctx", "san", "te"])
    parser.add_argument("--tasks", nargs="+", default=list(TASKS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--models-dir", type=Path, default=None,
                        help="where the trained models are kept (default: a "
                             "temporary folder)")
    args = parser.parse_args(argv)
    models_dir = args.models_dir or Path(tempfile.mkdtemp(prefix="vi_models_"))
    for seed in range(args.seeds):  # a whole seed of every arm before the next
        for task in args.tasks:
            for model in args.models:
                for tokenizer in TOKENIZERS:
                    options, train = ARM_SETTINGS.get(model, ({}, {}))
                    one(RunSpec(model=model, dataset=task, seed=seed,
                                tokenizer=tokenizer, model_options=dict(options),
                                train={**RECIPE, **train}), models_dir)


if __name__ == "__main__":
    sys.exit(main())
