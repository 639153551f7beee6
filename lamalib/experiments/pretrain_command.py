"""The ``pretrain`` command's parser, without torch (a command's ``--help`` needs
none); :mod:`lamalib.experiments.pretrain` runs it, imported on use."""

from __future__ import annotations

from pathlib import Path

from lamalib.data.datasets.pretraining import PRETRAINING_CORPORA
from lamalib.experiments.options import UsageError, check_output_folder
from lamalib.experiments.pretrain_config import QUICK, PretrainConfig, default_config


def add_pretrain_command(sub, common) -> None:
    """``pretrain``: the options of :func:`pretrain`."""
    q, f = PretrainConfig(**QUICK), PretrainConfig()
    p = sub.add_parser(
        "pretrain", parents=[common],
        help="pretrain the course's BERT-style encoder with the masked LM (resumable)",
        description="Pretrain the course's small BERT-style encoder with the masked LM "
                    "(80/10/10, dynamic masks) on a corpus, for --steps updates. A "
                    "checkpoint is written every --eval-every updates in "
                    "CHECKPOINTS/pretrain__course_encoder_<corpus>/ (CHECKPOINTS: "
                    "--checkpoints, else checkpoints/ in --results); the same command, "
                    "interrupted anywhere, resumes from the last one with the same "
                    "batches and masks. The full profile (LAMALIB_PROFILE=full) trains "
                    "the course's size (4 layers, width 256, 4 heads, 8,000 "
                    "WordPieces, segments of 128); the quick one a tiny model on the "
                    "embedded Lee corpus, in seconds.")
    p.add_argument("--corpus", help=f"one of {', '.join(sorted(PRETRAINING_CORPORA))} "
                                    f"(default: {q.corpus} in the quick profile, "
                                    f"{f.corpus} in the full one)")
    p.add_argument("--steps", type=int, help=f"optimiser updates; the learning-rate "
                   f"schedule spans them (default {q.steps} quick, {f.steps} full)")
    p.add_argument("--batch-size", type=int, help=f"segments per update (default "
                   f"{q.batch_size} quick, {f.batch_size} full)")
    p.add_argument("--eval-every", type=int, help="updates between checkpoints and "
                   f"validation scores (default {q.eval_every} quick, {f.eval_every} "
                   "full: a few minutes on one CPU core)")
    p.add_argument("--tokenizer", metavar="FILE",
                   help="use this tokenizer.json instead of learning one (learning one "
                        "anew can differ in a few pieces: give the shipped one to "
                        "repeat a run exactly)")
    p.add_argument("--out", metavar="DIR",
                   help="write the weights (safetensors), tokenizer.json, config.json "
                        "and MODEL_CARD.md here; the course ships "
                        "lamalib/pretrained/course_encoder")
    p.set_defaults(func=cmd_pretrain)


def cmd_pretrain(args, argv) -> None:
    for option, value in (("--steps", args.steps), ("--batch-size", args.batch_size),
                          ("--eval-every", args.eval_every)):
        if value is not None and value < 1:
            raise UsageError(f"{option} {value}: {option} takes a whole number >= 1")
    config = default_config(corpus=args.corpus, steps=args.steps,
                            batch_size=args.batch_size, eval_every=args.eval_every)
    for option, name in (("--results", args.results),
                         ("--checkpoints", args.checkpoints), ("--out", args.out)):
        check_output_folder(option, name)
    from lamalib.experiments.pretrain import pretrain
    from lamalib.experiments.run_checkpoint import checkpoints_dir

    folder = checkpoints_dir(Path(args.results),
                             args.checkpoints and Path(args.checkpoints))
    checkpoints = folder / f"pretrain__course_encoder_{config.corpus}"
    pretrain(config, checkpoints, None if args.out is None else Path(args.out),
             Path(args.results), argv,
             tokenizer_file=None if args.tokenizer is None else Path(args.tokenizer))


__all__ = ["add_pretrain_command", "cmd_pretrain"]
