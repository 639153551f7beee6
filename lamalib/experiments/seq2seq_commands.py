"""The seq2seq commands of ``python -m lamalib.experiments`` (chapter "Attention
mechanisms", section "Attention on real sentences"):

- ``seq2seq``: train encoder-decoders on a pairs file (``--pairs FILE``, one
  ``source<TAB>target`` a line; default the shipped Tatoeba English -> Vietnamese
  pairs) or on diacritic restoration (``--task diacritics``, ``--text FILE`` of
  Vietnamese sentences), score the held-out test set with sacrebleu's BLEU and chrF,
  write one results file per decoder and seed, and ``--save-model DIR`` keeps one;
- ``predict --model DIR``: a saved seq2seq model translates TEXT arguments or each line
  of ``--file`` (``--beam-width K``: beam search);
- ``attention --model DIR TEXT --html FILE``: the cross-attention of its output (target
  words over source words) in the course's offline attention view.

``cli.py`` hooks these in with :func:`add_seq2seq_commands` and sends ``predict`` and
``attention`` here when ``--model`` is a seq2seq folder (:func:`is_seq2seq_folder`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from lamalib.experiments.options import (UsageError, check_count, check_input_file,
                                         check_model_folder, check_output_file,
                                         check_output_folder, parse_value)
from lamalib.experiments.seq2seq_spec import DECODERS, TASKS, Seq2SeqSpec

SPEC_KEYS = [f.name for f in dataclasses.fields(Seq2SeqSpec)
             if f.name not in ("task", "decoder", "seed", "pairs", "text", "encoding",
                               "name")]


def _settings(items: list[str]) -> dict:
    fields = {f.name: f for f in dataclasses.fields(Seq2SeqSpec)}
    out = {}
    for item in items or []:
        key, eq, raw = item.partition("=")
        if not eq:
            raise UsageError(f"--set takes key=value, got {item!r}")
        if key not in SPEC_KEYS:
            raise UsageError(f"unknown option {key!r}; the seq2seq options: "
                             f"{', '.join(SPEC_KEYS)}")
        kind = type(fields[key].default) if fields[key].default is not None else str
        if key == "limit":
            kind = int
        out[key] = parse_value(key, raw, kind)
    return out


def cmd_seq2seq(args, argv) -> None:
    check_count("--seeds", args.seeds)
    for option in ("results", "checkpoints", "save_model"):
        check_output_folder(f"--{option.replace('_', '-')}", getattr(args, option))
    check_model_folder(args.save_model, args.force)
    check_input_file("--pairs", args.pairs)
    check_input_file("--text", args.text)
    if args.text and args.task != "diacritics":
        raise UsageError("--text FILE gives sentences for --task diacritics; a "
                         "translation reads --pairs FILE (source<TAB>target)")
    if args.pairs and args.task != "translate":
        raise UsageError("--pairs FILE is for --task translate; diacritic restoration "
                         "reads --text FILE (one sentence a line)")
    if args.save_model and (args.seeds != 1 or len(args.decoders) != 1):
        raise UsageError("--save-model keeps one model: give one --decoders and "
                         "--seeds 1")
    from lamalib.experiments.seq2seq_run import run_seq2seq

    settings = _settings(args.set)
    specs = [Seq2SeqSpec(task=args.task, decoder=d, seed=s, pairs=args.pairs,
                         text=args.text, encoding=args.encoding, name=args.name,
                         **settings)
             for s in range(args.seeds) for d in args.decoders]
    checkpoints = Path(args.checkpoints) if args.checkpoints else (
        Path(args.results) / "checkpoints")
    save = Path(args.save_model) if args.save_model else None
    print("model             seed   BLEU   chrF  BLEU(beam)  epochs")
    for spec in specs:
        r = run_seq2seq(spec, Path(args.results), argv, save, args.force, checkpoints)
        m = r["metrics"]
        print(f"{r['model']:<17} {spec.seed:>4} {m['bleu']:6.2f} {m['chrf']:6.2f} "
              f"{m.get('bleu_beam', float('nan')):11.2f} {len(r['history']):>7}",
              flush=True)
    if save:
        print(f"model kept in {args.save_model}: predict --model {args.save_model} "
              "\"a sentence\"")


def _read_lines(args, read_text) -> list[str | None]:
    if not args.file:
        return []
    text = read_text(args.file, args.encoding, "one sentence per line")
    return [line if line.strip() else None for line in text.splitlines()]


def seq2seq_predict(args, read_text) -> None:
    """``predict`` with a seq2seq folder: one TSV row (source, output) per sentence;
    ``read_text(name, encoding, what)`` reads ``--file`` as ``predict`` does."""
    check_count("--beam-width", args.beam_width)
    from lamalib.models.saved_seq2seq import load_seq2seq

    saved = load_seq2seq(args.model)
    texts = list(args.texts) + _read_lines(args, read_text)
    if not any(texts):
        raise UsageError("give sentences: predict --model DIR \"SENTENCE\" ... or "
                         "--file FILE (one sentence per line)")
    asked = [t for t in texts if t is not None]
    done = iter(saved.translate(asked, args.beam_width))
    print("source\toutput")
    for text in texts:
        out = "" if text is None else next(done).text
        print(f"{' '.join((text or '').split())}\t{out}")


def seq2seq_attention(args, attention_text) -> None:
    """``attention`` with a seq2seq folder: the cross-attention of its output, as a
    table (one row per target token) or, with ``--html``, the offline view;
    ``attention_text(args)`` reads the text as ``attention`` does."""
    check_output_file("--html", args.html)
    check_count("--beam-width", args.beam_width)
    if args.start is not None or args.hide_special:
        raise UsageError(f"{args.model}: a seq2seq model's view is one map of target "
                         "words over source words (no layers, heads or special "
                         "tokens): drop --start and --hide-special")
    text = attention_text(args)
    from lamalib.models.saved_seq2seq import load_seq2seq

    saved = load_seq2seq(args.model)
    att = saved.attention(text, args.beam_width)
    if att.weights is None:
        raise UsageError(f"{args.model}: the {saved.decoder} decoder has no attention "
                         "(it reads one fixed vector): train with --decoders bahdanau, "
                         "luong or luong_local")
    if args.html:
        from lamalib.viz.attention_view import attention_page, attention_view

        title = f"{saved.name}: target words over source words"
        page = attention_page(attention_view(att.source, att.weights[None, None],
                                             "cross", title=title,
                                             queries=att.target), title)
        try:
            Path(args.html).write_text(page, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"--html {args.html}: cannot write it "
                             f"({error.strerror})") from None
        print(f"attention view written to {args.html}; open it in any browser")
        return
    print(f"# {saved.name}: each output token's attention over the source tokens")
    print("\t".join(["output", *att.source]))
    for token, row in zip(att.target, att.weights):
        print("\t".join([token, *(f"{float(w):.4f}" for w in row)]))


def add_seq2seq_commands(sub, common: argparse.ArgumentParser) -> None:
    """The ``seq2seq`` command, and ``--beam-width`` for ``predict`` / ``attention``
    (read when ``--model`` is a seq2seq folder)."""
    s = sub.add_parser("seq2seq", parents=[common],
                       help="train encoder-decoders on sentence pairs (translation) or "
                            "on diacritic restoration; BLEU and chrF on a test split")
    s.add_argument("--task", choices=TASKS, default="translate")
    s.add_argument("--pairs", metavar="FILE",
                   help="source<TAB>target a line (more columns ignored, as Tatoeba's "
                        "attribution); default: the shipped Tatoeba en-vi pairs")
    s.add_argument("--text", metavar="FILE",
                   help="--task diacritics: Vietnamese sentences, one a line; default: "
                        "the Vietnamese side of the shipped Tatoeba pairs")
    s.add_argument("--encoding", default="utf-8", help="of --pairs / --text")
    s.add_argument("--decoders", nargs="+", choices=DECODERS, default=["bahdanau"],
                   help="plain (no attention), bahdanau (additive), luong (general), "
                        "luong_local (local-p)")
    s.add_argument("--seeds", type=int, default=1, help="runs with seeds 0..N-1")
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help=f"one of: {', '.join(SPEC_KEYS)}")
    s.add_argument("--name", help="the results name's dataset part")
    s.add_argument("--force", action="store_true",
                   help="run again over complete files, and replace the model in "
                        "--save-model DIR")
    s.add_argument("--save-model", metavar="DIR",
                   help="keep the trained model (one decoder, one seed) in DIR "
                        "(written whole or not at all; a folder that holds a model "
                        "is replaced only with --force)")
    s.set_defaults(func=cmd_seq2seq)
    for name in ("predict", "attention"):
        sub.choices[name].add_argument(
            "--beam-width", type=int, default=1, metavar="K",
            help="a seq2seq model: beam search with K prefixes (default 1: greedy)")


def is_seq2seq_folder(folder) -> bool:
    """:func:`lamalib.models.saved_seq2seq.is_seq2seq_folder`, imported when a
    command asks (it imports torch)."""
    from lamalib.models.saved_seq2seq import is_seq2seq_folder as seq2seq_folder

    return seq2seq_folder(folder)


__all__ = ["add_seq2seq_commands", "is_seq2seq_folder", "seq2seq_attention",
           "seq2seq_predict"]
