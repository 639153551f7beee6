"""Run one experiment: data, vocabulary, optional word2vec start, model, ``fit``,
test, results file with provenance (chapter "Reproductions").

On a sentence-pair dataset (SNLI) the run's classifier is the shared sentence encoder
of the pair classifier (``lamalib.models.pair``), so ``--model ms_transformer
--dataset snli`` is the Multi-Scale Transformer's cell of its paper's SNLI table.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import time
import warnings
from collections import Counter
from contextlib import nullcontext
from dataclasses import replace
from functools import partial
from datetime import datetime, timezone
from pathlib import Path

import torch

from lamalib.data import (PairBatches, PairDataset, Vocab, load_dataset, load_splits,
                          stratified_split)
from lamalib.data.batching import LONG_TEXT_LIMIT, BucketBatches, LongTextWarning
from lamalib.data.fetch import sha256sum
from lamalib.data.vietnamese import segment_dataset
from lamalib.data.cache import (cached_array, cached_ids, cached_vocab, fingerprint,
                                vocab_digest)
from lamalib.models import build_model, model_options
from lamalib.models.registry import UNRECORDED_OPTIONS
from lamalib.models.saved import SavedModelError, save_model
from lamalib.nn.transformer.positional import LearnedPositionalEmbedding
from lamalib import runtime
from lamalib.runtime import get_device, profile, seed_everything
from lamalib.train import (classification_step, distributed, evaluate, fit,
                           pair_classification_step)
from lamalib.train.steps import balanced_weights
from lamalib.train.checkpoint import read_checkpoint
from lamalib.train.identity import (LATER_DEFAULTS, RESUMABLE_CHANGES, goes_on_from,
                                    run_identity)
from lamalib.train.loop import CHECKPOINT_NAME
from lamalib.provenance import (code_identity, command_line, git_commit, hardware,
                                lamalib_version, portable_value, shown_path,
                                write_json_atomic)
from lamalib.experiments.results import (ResultsConflict, is_complete, run_lock,
                                         user_results_dir)
from lamalib.experiments.run_checkpoint import (COMPLETE, FOLDER, checkpoints_dir,
                                                mark_complete, note_other_runs,
                                                remove_other_runs,
                                                run_folder)
from lamalib.experiments.spec import RunSpec


def load_data(spec: RunSpec):
    """``(train, valid, test)`` datasets of a registry name or of the user's files,
    their texts segmented into words where ``spec.tokenizer`` asks."""
    return tuple(segment_dataset(d, spec.tokenizer) for d in _load_data(spec))


def _load_data(spec: RunSpec):
    if spec.dataset == "file":
        if not spec.train_file or bool(spec.test_file) == bool(spec.test_fraction):
            raise ValueError("dataset 'file' needs --train FILE and either --test FILE "
                             "or --set test_fraction=F")
        splits = load_splits(spec.train_file, valid=spec.valid_file,
                             test=spec.test_file, **spec.file_options)
        train, valid, test = splits.train, splits.valid, splits.test
        if spec.test_fraction:  # the test split first, then validation from the rest
            train, test = stratified_split(train, spec.test_fraction, seed=0,
                                           split="test")
            counts = Counter(train.labels)
            if valid is None and max(counts.values()) < 2:
                raise ValueError(
                    f"test_fraction={spec.test_fraction:g} leaves {len(train)} of "
                    f"{len(train) + len(test)} examples for training (one a class), "
                    "too few to split a validation set off as well; give a smaller "
                    "share, e.g. test_fraction=0.1, or --valid FILE")
        if valid is None:
            train, valid = stratified_split(train, valid_fraction=0.1, seed=0)
        return train, valid, test
    if spec.test_fraction:
        raise ValueError(f"test_fraction={spec.test_fraction:g} splits a test set off "
                         f"your --train FILE; dataset {spec.dataset!r} has its own")
    return tuple(load_dataset(spec.dataset, s) for s in ("train", "valid", "test"))


def dataset_identity(spec: RunSpec, train, valid, test) -> dict:
    """Name, split sizes, label names and a SHA-256 of each split's (label, text)s."""
    identity = {"name": spec.dataset_label(), "label_names": list(train.label_names),
                "sizes": {"train": len(train), "valid": len(valid), "test": len(test)},
                "sha256": {s: fingerprint(d) for s, d in
                           (("train", train), ("valid", valid), ("test", test))}}
    if spec.dataset == "file":  # named as the command names them, no machine's folder
        identity["files"] = {"train": portable_value(spec.train_file),
                             "valid": portable_value(spec.valid_file),
                             "test": portable_value(spec.test_file)}
    return identity


def _plain(value):
    """Tuples as lists, as a results file stores them (JSON has no tuples)."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# Fields that name a file: a results file keeps its name (``portable_path``), and the
# file itself is told apart by its SHA-256, wherever it lies.
FILE_FIELDS = ("train_file", "valid_file", "test_file")
WORD_VECTORS = ("random", "word2vec")  # the other values of ``embeddings`` name a file


def _file_name(value) -> str | None:
    return None if value is None else Path(str(value)).name


def _embeddings_difference(stored: dict, spec: RunSpec) -> str | None:
    """How the word vectors ``spec`` asks for differ from those of ``stored``: None
    when the same. A vectors file is the same file when its SHA-256 is the one the
    results file records, at any path and under any name (the name alone decides
    only where the stored file has no SHA-256, or the asked file is not there)."""
    before = stored["config"]["embeddings"]
    asked = spec.embeddings
    if asked in WORD_VECTORS or before in WORD_VECTORS:
        return None if before == asked else (
            f"embeddings: {portable_value(before)!r} -> {portable_value(asked)!r}")
    name_before, name_asked = _file_name(before), _file_name(asked)
    sha_before = (stored.get("embeddings_file") or {}).get("sha256")
    path = Path(asked).expanduser()
    if sha_before and path.is_file():
        sha_asked = sha256sum(path)
        if sha_asked == sha_before:
            return None
        return (f"embeddings: {name_before!r} (SHA-256 {sha_before[:12]}...) -> "
                f"{name_asked!r} (SHA-256 {sha_asked[:12]}...)")
    return None if name_before == name_asked else (
        f"embeddings: {name_before!r} -> {name_asked!r}")


def stored_differences(stored: dict, spec: RunSpec) -> list[str]:
    """How the run ``spec`` asks for differs from the complete run ``stored`` (a results
    file's dict) that has the same file name: ``["key: stored -> asked", ...]``, empty
    when they are the same run.

    Compared: every field of the spec, the resolved training options (so a run of 2
    epochs does not stand for one of 10), a vectors file by its SHA-256, and for the
    user's files their names and the SHA-256 of each split (two folders'
    ``train.tsv`` share a file name, and a file can change). Where a file lies is not
    compared: the same file elsewhere is the same run. A field the stored file does not
    record (it predates the field) is not compared.
    """
    config = stored.get("config", {})
    asked = config_record(spec, spec.train_config())
    skip = {"experiment", "model", "seed"}  # in the file name already
    out = []
    for key, value in asked.items():
        if key in skip or key not in config:
            continue
        if key == "train":
            for k, v in value.items():
                if k in config["train"] and _plain(config["train"][k]) != _plain(v):
                    out.append(f"{k}: {config['train'][k]!r} -> {v!r}")
        elif key == "embeddings":
            difference = _embeddings_difference(stored, spec)
            if difference:
                out.append(difference)
        elif key in FILE_FIELDS:
            if _file_name(config[key]) != _file_name(value):
                out.append(f"{key}: {_file_name(config[key])!r} -> "
                           f"{_file_name(value)!r}")
        elif _plain(config[key]) != _plain(value):
            out.append(f"{key}: {config[key]!r} -> {value!r}")
    if spec.dataset == "file" and not out:  # same names: the same contents?
        identity = dataset_identity(spec, *load_data(spec))
        before = stored.get("dataset_identity", {}).get("sha256") or {}
        changed = [f"{s}_file" if getattr(spec, f"{s}_file") else f"{s} split"
                   for s in ("train", "valid", "test")
                   if identity["sha256"][s] != before.get(s)]
        if changed:
            out.append("the data files' contents (SHA-256) changed: "
                       + ", ".join(changed))
    return out


def _cut(ids: list[list[int]], limit: int) -> tuple[list[list[int]], int]:
    """``ids`` with every sequence cut to ``limit``, and how many were longer."""
    cut = sum(len(x) > limit for x in ids)
    return ([x[:limit] for x in ids] if cut else ids), cut


def split_loaders(spec: RunSpec, vocab, train, valid, test) -> list[BucketBatches]:
    """Length-bucketed batches of the three splits, numericalised through the cache;
    only the training split is shuffled (with the run's seed). Sentence pairs give
    :class:`~lamalib.data.PairBatches`.

    Every text is cut to ``spec.max_len`` tokens, or, in a run without one, to
    ``LONG_TEXT_LIMIT`` (a bound no sentence or review reaches, not recorded in the
    results file: one 2-million-token line would otherwise ask tens of GB); one
    :class:`LongTextWarning` says which data, how many texts and how to change it."""
    limit = spec.max_len or LONG_TEXT_LIMIT
    cut = {}

    def ids_of(d, name: str) -> list[list[int]]:
        ids, n = _cut(cached_ids(d, vocab, None), limit)
        if n:
            cut[name] = cut.get(name, 0) + n
        return ids

    def batches(d, split: str, size: int, shuffle: bool) -> BucketBatches:
        name = getattr(spec, f"{split}_file", None) or (
            f"{spec.train_file} (its {split} split)" if spec.dataset == "file"
            else f"{spec.dataset} {split}")
        if isinstance(d, PairDataset):
            first, second = (ids_of(s, name) for s in d.sides())
            return PairBatches(first, second, d.labels, size, shuffle=shuffle,
                               seed=spec.seed, pad_id=vocab.pad_id)
        return BucketBatches(ids_of(d, name), d.labels, size,
                             shuffle=shuffle, seed=spec.seed, pad_id=vocab.pad_id)

    loaders = [batches(train, "train", spec.batch_size, True),
               batches(valid, "valid", spec.eval_batch_size, False),
               batches(test, "test", spec.eval_batch_size, False)]
    if cut:
        where = ", ".join(f"{n} in {name}" for name, n in cut.items())
        warnings.warn(
            f"{sum(cut.values())} texts longer than {limit} tokens were cut to "
            f"{limit} ({where}); change the limit with --set max_len=N",
            LongTextWarning, stacklevel=2)
    return loaders


def build_run_model(spec: RunSpec, train, vocab_size: int, options: dict):
    """The run's classifier; on a sentence-pair dataset, the pair classifier with it as
    the shared sentence encoder (``options`` are the encoder's)."""
    num_classes = len(train.label_names)
    if isinstance(train, PairDataset):
        return build_model("pair", vocab_size=vocab_size, num_classes=num_classes,
                           encoder=spec.model, encoder_options=options)
    return build_model(spec.model, vocab_size=vocab_size, num_classes=num_classes,
                       **options)


def check_position_tables(model, loaders) -> None:
    """Refuse, before any training, a run whose longest text (after truncation) has
    more tokens than a learned position table of the model has rows: it would fail at
    its first long batch, minutes in. Sinusoidal positions extend to any length."""
    longest = max((len(seq) for batches in loaders
                   for seqs in (batches.ids, getattr(batches, "second", ()))
                   for seq in seqs), default=0)
    for module in model.modules():
        if isinstance(module, LearnedPositionalEmbedding) and longest > module.max_len:
            raise ValueError(
                f"the longest text has {longest} tokens (after truncation) but the "
                f"model has learned positions for {module.max_len}: truncate with "
                f"--set max_len={module.max_len}, or give the model more with "
                f"--set max_positions={longest}")


def pair_head_options() -> dict:
    """The pair classifier's own options (its MLP) as a pair run builds it."""
    return {k: v for k, v in model_options("pair").items()
            if k not in ("vocab_size", "num_classes", "encoder", "encoder_options")}


def config_record(spec: RunSpec, config) -> dict:
    """The run's spec and its resolved ``TrainConfig`` as a results file keeps them
    (the checkpoint folder says where a run writes, not how it was made; a file is
    named by ``portable_path``, never by a folder of this machine)."""
    record = spec.to_dict()
    for key in FILE_FIELDS + ("embeddings", "model_options"):  # e.g. a local BERT
        record[key] = portable_value(record[key])
    return {**record, "train": {
        k: (list(v) if isinstance(v, tuple) else v)
        for k, v in vars(config).items() if k != "checkpoint_dir"}}


def model_vocab(spec: RunSpec, train):
    """Our Vocab of the training split (both sentences of each pair), or the WordPiece
    ids a pretrained BERT reads (``lamalib.models.bert.bert_vocab``; fails fast
    offline)."""
    if spec.model == "bert":
        from lamalib.models.bert import DEFAULT_NAME, bert_vocab

        name = spec.model_options.get("pretrained_name", DEFAULT_NAME)
        if name is not None:
            return bert_vocab(train.sentences().texts, name,
                              max_length=spec.max_len or 512)
    return cached_vocab(train.sentences(), min_freq=spec.min_freq)


def resolved_model_options(spec: RunSpec) -> dict:
    """Every option of the model as this run built it: its defaults, then the run's.

    A results file keeps them all, so that a later change of a default cannot change
    what an old file says about how it was made.
    """
    options = {**model_options(spec.model), **spec.model_options}
    return {k: portable_value(list(v) if isinstance(v, tuple) else v)
            for k, v in options.items() if k not in UNRECORDED_OPTIONS}


def word2vec_vectors(spec: RunSpec, train, vocab: Vocab, dim: int) -> torch.Tensor:
    """word2vec on the training split (gensim), cached by content as a NumPy array."""
    from lamalib.embeddings import pretrain_for

    return torch.from_numpy(cached_array(
        "word2vec",
        lambda: pretrain_for(train, vocab, dim=dim, min_count=spec.word2vec_min_count,
                             epochs=spec.word2vec_epochs, seed=spec.seed).numpy(),
        texts=fingerprint(train), vocab=vocab_digest(vocab), dim=dim,
        min_count=spec.word2vec_min_count, epochs=spec.word2vec_epochs, seed=spec.seed))


def file_vectors(spec: RunSpec, vocab: Vocab, dim: int) -> tuple[torch.Tensor, dict]:
    """Vectors for ``vocab`` from the file ``spec.embeddings`` (GloVe or word2vec text
    format), and what the results file records of it (name, SHA-256, coverage)."""
    from lamalib.embeddings.vectors_file import GLOVE_HINT, vectors_for

    path = Path(spec.embeddings).expanduser()
    if not path.is_file():
        raise ValueError(f"embeddings must be 'random', 'word2vec' or a vectors file; "
                         f"{spec.embeddings!r} is none of them. {GLOVE_HINT}")
    matrix, info = vectors_for(vocab, path, seed=spec.seed)  # (V, E)
    if matrix.shape[1] != dim:
        width = _width_option(spec.model)
        raise ValueError(f"{path.name} holds {matrix.shape[1]}-d vectors and the model "
                         f"is {dim} wide: add --set {width}={matrix.shape[1]}")
    return matrix, {**info, "sha256": sha256sum(path)}


def _width_option(model: str) -> str:
    options = model_options(model)
    return "embed_dim" if "embed_dim" in options else "d_model"


def _peak_memory_mb(device: torch.device) -> dict:
    if device.type == "cuda":
        return {"peak_memory_mb": torch.cuda.max_memory_allocated() / 2**20,
                "peak_memory_kind": "CUDA max allocated"}
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"peak_memory_mb": kb / 1024, "peak_memory_kind": "process max RSS"}


def last_line(metrics: dict) -> str:
    """A run's last line: test accuracy, macro-F1 and the class recalled least (an
    imbalanced set's accuracy hides a class the model rarely finds)."""
    line = f"test accuracy {metrics['test_accuracy']:.4f}"
    if "test_macro_f1" in metrics:
        recalls = {label: r["recall"] for label, r in metrics["test_per_class"].items()
                   if r["support"]}
        label = min(recalls, key=recalls.get)
        line += (f", macro-F1 {metrics['test_macro_f1']:.4f}, lowest recall "
                 f"{recalls[label]:.2f} ({label})")
    return line


class ResultsUnwritable(ValueError):
    """The results file cannot be written (a full disk): nothing of the run is
    claimed, its checkpoint is kept."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during training; the message says where the same command resumes."""


def _print_epoch(epoch, history, model) -> None:
    if not distributed.is_main_process():
        return
    r = history[-1]
    print(f"  epoch {epoch:>3}  train loss {r['train_loss']:.4f}  valid acc "
          f"{r.get('valid_accuracy', float('nan')):.4f}  ({r['seconds']:.1f} s)",
          flush=True)


def run(spec: RunSpec, results_dir: Path | None = None,
        argv: list[str] | None = None, checkpoints: Path | None = None,
        force: bool = False, save_to: Path | None = None) -> dict:
    """Train and test ``spec``; write and return its results dict.

    ``results_dir``: where the results file goes (default: your own folder,
    ``$LAMALIB_RESULTS`` or ``lamalib-results/``; the course's ``results/`` only when
    named).
    A complete results file is returned as it is unless ``force``; an interrupted run
    resumes from its checkpoint, which a run that reaches its epoch cap before early
    stopping fires keeps: under ``force`` with a higher cap it goes on from there (any
    other ``force`` trains afresh). ``checkpoints`` (default: ``checkpoints/`` in
    ``results_dir``) holds each run's in a folder named by a hash of everything that
    determines the run (``run_checkpoint.py``): only the same run resumes from it.
    ``LAMALIB_SEED`` shifts the run's seed once, here: the results file is named and
    recorded by the shifted seed, and every seed inside the run (the weights, the batch
    order, the validation split's fixed seed 0) is then used as given. ``save_to``:
    also keep the trained model (its best weights), vocabulary, labels and ``max_len``
    in that folder (``lamalib.models.saved``; ``load_model(folder)`` reads it back).
    """
    if not isinstance(spec.seed, int):
        raise TypeError(f"a run's seed is a whole number, not {spec.seed!r}")
    spec = replace(spec, seed=runtime.seed(spec.seed))
    results_dir = user_results_dir() if results_dir is None else results_dir
    checkpoints = checkpoints_dir(results_dir, checkpoints)
    with runtime.exact_seeds():
        return _run(spec, results_dir, argv, checkpoints, force, save_to)


def run_determines(spec: RunSpec, model, step, data: dict,
                   vectors_info: dict | None, pairs: bool) -> dict:
    """Everything that determines the run, whose hash names its checkpoint's folder:
    its record but for what may change while it stays the same run (the epoch cap,
    patience, the device: ``RESUMABLE_CHANGES``), the data's identity (``data``), every
    model option, a vectors file's SHA-256 and what ``fit`` checks on resuming."""
    config = spec.train_config()
    record = config_record(spec, config)
    record["train"] = {k: v for k, v in record["train"].items()
                       if k not in RESUMABLE_CHANGES
                       and not (k in LATER_DEFAULTS and v == LATER_DEFAULTS[k])}
    if record.get("class_weights") is None:  # a later option, at its default: the
        record.pop("class_weights", None)    # hash of a run made before it holds
    return {"run": record, "data": data, "model": resolved_model_options(spec),
            "pair_classifier": pair_head_options() if pairs else None,
            "vectors": (vectors_info or {}).get("sha256"),
            "fit": run_identity(model, config, step)}


def _goes_on(run_dir: Path, model, config, step) -> bool:
    """Under ``--force``: whether the run's checkpoint, if one is there, is continued
    (an interrupted run of the same settings, or one that reached a lower epoch cap
    before early stopping fired) rather than trained afresh."""
    ckpt = run_dir / CHECKPOINT_NAME
    return ckpt.exists() and goes_on_from(read_checkpoint(ckpt),
                                          run_identity(model, config, step),
                                          config.epochs)


def input_format(spec: RunSpec) -> dict | None:
    """How a run on the user's files read them: every file option, the defaults of
    ``load_splits`` filled in (None for a registry dataset)."""
    if spec.dataset != "file":
        return None
    import inspect

    defaults = {k: p.default for k, p in
                inspect.signature(load_splits).parameters.items()
                if p.kind is p.KEYWORD_ONLY}
    return {k: spec.file_options.get(k, defaults[k]) for k in
            ("text_col", "label_col", "header", "format", "delimiter", "encoding",
             "text_sep")}


def _save_run_model(spec: RunSpec, model, vocab, train, save_to: Path,
                    force: bool = False) -> None:
    """Keep the run's model: a sentence-pair run's whole pair classifier (its encoder
    named by the run), a pretrained BERT with its WordPiece tokenizer's files."""
    if isinstance(train, PairDataset):
        name = "pair"
        options = {"encoder": spec.model, "encoder_options": spec.model_options,
                   **pair_head_options()}
    else:
        name, options = spec.model, spec.model_options
    save_model(model, vocab, train.label_names, save_to, name=name, options=options,
               max_len=spec.max_len, input_format=input_format(spec), overwrite=force,
               tokenizer=spec.tokenizer)
    print(f"model saved to {shown_path(save_to)}", flush=True)


def _run(spec: RunSpec, results_dir: Path, argv: list[str] | None, checkpoints: Path,
         force: bool, save_to: Path | None = None) -> dict:
    out = Path(results_dir) / spec.result_name()
    if out.exists() and is_complete(out) and not force and save_to is not None:
        raise ValueError(
            f"{shown_path(out)} is complete, so this run trains nothing to save "
            "to --save-model: pass --force to train it again, or --results DIR")
    if out.exists() and is_complete(out) and not force:
        stored = json.loads(out.read_text())
        differences = stored_differences(stored, spec)
        if differences:
            kept = any(checkpoints.glob(f"{out.stem}__*/{CHECKPOINT_NAME}"))
            raise ResultsConflict(
                f"{shown_path(out)} holds a complete run made with other settings "
                "or data (" + "; ".join(differences) + "): it was kept and this run "
                "was not made. Pass --force to run again and replace it"
                + (" (a run that reached its cap before early stopping fired goes on "
                   "from its kept checkpoint when only the cap is raised)"
                   if kept else "") + ", or --results DIR to keep both.")
        print(f"{shown_path(out)} is complete: skipped")
        return stored
    main = not distributed.launched() or int(os.environ.get("RANK", "0")) == 0
    with run_lock(out) if main else nullcontext():
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        commit, clock = git_commit(), time.perf_counter()  # the code this run uses
        code = code_identity()
        train, valid, test = load_data(spec)
        vocab = model_vocab(spec, train)
        options = dict(spec.model_options)
        seed_everything(spec.seed)
        vectors_info = None
        if spec.embeddings != "random":
            width = _width_option(spec.model)
            dim = options.get(width, model_options(spec.model)[width])
            if spec.embeddings == "word2vec":
                options["pretrained"] = word2vec_vectors(spec, train.sentences(),
                                                         vocab, dim)
            else:  # a vectors file (GloVe, or word2vec saved by `vectors --save`)
                options["pretrained"], vectors_info = file_vectors(spec, vocab, dim)
        seed_everything(spec.seed)  # the weights' draw depends on the seed alone
        model = build_run_model(spec, train, len(vocab), options)
        pairs = isinstance(train, PairDataset)
        step = pair_classification_step if pairs else classification_step
        if spec.class_weights == "balanced":
            step = partial(step, class_weight=balanced_weights(
                train.labels, len(train.label_names)))
        loaders = split_loaders(spec, vocab, train, valid, test)
        check_position_tables(model, loaders)
        data = dataset_identity(spec, train, valid, test)
        run_dir = run_folder(checkpoints, out.stem, run_determines(
            spec, model, step, data, vectors_info, pairs), spec.train_config().epochs)
        if main:
            note_other_runs(checkpoints, out.stem, run_dir)
        config = spec.train_config(checkpoint_dir=run_dir)
        if force:  # run again: a kept checkpoint is continued only if this run goes on
            config = replace(config, resume=_goes_on(run_dir, model, config, step))
        if main:
            print(f"{spec.model}{' in the pair classifier' if pairs else ''} on "
                  f"{spec.dataset_label()} (seed {spec.seed}): "
                  f"{len(train)}/{len(valid)}/{len(test)} examples, vocab "
                  f"{len(vocab)}", flush=True)
        (run_dir / COMPLETE).unlink(missing_ok=True)  # until it is complete again
        done: list[int] = []  # the epochs this process finished (and checkpointed)
        try:
            history = fit(model, loaders[0], loaders[1], config, step,
                          callbacks=[_print_epoch, lambda epoch, *_: done.append(epoch)],
                          epoch_lines=False)  # _print_epoch prints one per epoch
        except KeyboardInterrupt:
            where = (f"epoch {done[-1] + 1}" if done and config.checkpoint_dir
                     else "its last checkpoint")
            raise RunInterrupted(f"interrupted; the run resumes from {where} with the "
                                 "same command") from None
        # epochs trained by an earlier process, before a resume from the checkpoint:
        # their time counts in the run's, which this process's clock does not see
        earlier = sum(r["seconds"] for r in history.records if r["epoch"] not in done)
        device = next(model.parameters()).device
        scores = evaluate(model, loaders[2], step, labels=train.label_names)
        report = scores["report"]
        best = next((r for r in history.records if r["epoch"] == history.best_epoch),
                    {})
        result = {
            "experiment": spec.experiment, "model": spec.model,
            "dataset": spec.dataset_label(), "profile": profile(),
            "config": config_record(spec, config),
            "dataset_identity": data,
            "vocab_size": len(vocab),
            "metrics": {"test_accuracy": scores["accuracy"], "test_loss": scores["loss"],
                        "test_macro_f1": report.macro_f1,
                        "test_per_class": {r["label"]: {
                            k: r[k] for k in ("precision", "recall", "f1", "support")}
                            for r in report.rows},
                        "best_valid_accuracy": best.get("valid_accuracy",
                                                        history.best_score),
                        **({"best_valid_macro_f1": best["valid_macro_f1"]}
                           if "valid_macro_f1" in best else {}),
                        "selected_by": config.select,
                        "best_epoch": history.best_epoch},
            "history": history.records,
            "model_config": resolved_model_options(spec),
            **({"pair_classifier": pair_head_options()} if pairs else {}),
            **({"embeddings_file": vectors_info} if vectors_info else {}),
            "params": sum(p.numel() for p in model.parameters()),
            "hardware": {**hardware(), "processes": distributed.world_size()},
            **_peak_memory_mb(device),
            "started": started, "seconds": time.perf_counter() - clock + earlier,
            "git_commit": commit, "code": code,
            "lamalib": lamalib_version(),
            "command": command_line(argv),
        }
        if main:
            kept = f"the run's checkpoint stays in {shown_path(run_dir)}"
            if save_to is not None:  # first: no results file for a model not kept
                try:  # fit restored the best epoch's weights
                    _save_run_model(spec, model, vocab, train, Path(save_to), force)
                except SavedModelError as error:
                    raise SavedModelError(
                        f"--save-model {error}; no results file was written and "
                        f"{kept}: the same command finishes the run (without "
                        "training again) once the model can be written") from None
            try:
                write_json_atomic(out, result)
            except OSError as error:
                if save_to is not None:  # the model goes with its results file
                    shutil.rmtree(save_to, ignore_errors=True)
                raise ResultsUnwritable(
                    f"--results {shown_path(results_dir)}: cannot write "
                    f"{out.name} ({error.strerror}); nothing was written "
                    + ("(nor the model) " if save_to is not None else "")
                    + f"and {kept}: the same command finishes the run (without "
                    "training again) once the file can be written") from None
            if checkpoints == Path(results_dir) / FOLDER:
                remove_other_runs(checkpoints, out.stem, run_dir)
            if history.stopped_early:
                shutil.rmtree(run_dir, ignore_errors=True)  # the results file is it now
            else:  # the cap came first: kept, so a higher cap can go on from it
                mark_complete(run_dir)
                print(f"{spec.model} on {spec.dataset_label()} (seed {spec.seed}) "
                      f"reached its cap of {config.epochs} epochs before early "
                      f"stopping fired (best epoch {history.best_epoch}); its "
                      f"checkpoint stays in {shown_path(run_dir)}: the same command "
                      "with --set epochs=N (more) and --force goes on from it",
                      flush=True)
            print(f"{last_line(result['metrics'])} -> {shown_path(out)}", flush=True)
    return result


__all__ = ["RunSpec", "dataset_identity", "get_device", "load_data", "run"]
