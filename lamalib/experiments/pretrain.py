"""``python -m lamalib.experiments pretrain``: the course's small BERT-style encoder,
pretrained with the masked LM on a real corpus, resumable (chapter "Pretraining").

A WordPiece tokenizer is learnt on the training documents, the documents are packed
into segments of ``max_len`` subword tokens, and a :class:`~lamalib.models.mlm.MaskedLM`
is trained for a fixed number of updates with BERT's 80/10/10 masking, drawn afresh at
every update (dynamic masking, as RoBERTa). ``lamalib.train.fit`` runs it, one of its
epochs being ``eval_every`` updates; after each it scores the validation segments and
writes a checkpoint, so the same command, interrupted anywhere, resumes from the last
one with the same batches and masks. The end writes the weights, tokenizer and model
card (``--out``) and a results file with the loss curve and provenance (``--results``).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

import torch

from lamalib import runtime
from lamalib.data.datasets.pretraining import PRETRAINING_CORPORA, pretraining_texts
from lamalib.data.fetch import DownloadError, sha256sum
from lamalib.data.segments import StepBatches, pack_segments, segment_batch
from lamalib.data.subword import SubwordTokenizer, train_subword_tokenizer
from lamalib.experiments.model_card import duration, write_model_card
from lamalib.experiments.options import UsageError
from lamalib.experiments.results import run_lock
from lamalib.models.mlm import MaskedLM, MaskedLMStep
from lamalib.models.pretrained import save_encoder
from lamalib.provenance import (code_identity, command_line, git_commit, hardware,
                                lamalib_version, portable_path, write_json_atomic)
from lamalib.train import TrainConfig, fit
from lamalib.experiments.pretrain_config import (  # noqa: F401
    QUICK, PretrainConfig, default_config)  # (re-exported)


def results_name(corpus: str) -> str:
    """``pretrain__course_encoder.json`` (IMDB, the shipped encoder), else
    ``pretrain__course_encoder_<corpus>.json``."""
    return ("pretrain__course_encoder.json" if corpus == "imdb"
            else f"pretrain__course_encoder_{corpus}.json")


def _tokenizer(config: PretrainConfig, checkpoints: Path, train_docs: list[str],
               given: Path | None) -> SubwordTokenizer:
    """The run's tokenizer, kept in its checkpoint folder so a resumed run reads the
    same ids: the folder's, else ``given``, else one learnt on ``train_docs``.

    ``tokenizers``' WordPiece trainer breaks ties between equally frequent merges in
    hash-map order, so two trainings on the same text can differ in a few pieces; a
    run is repeated exactly by giving it the first run's ``tokenizer.json``.
    """
    kept = checkpoints / "tokenizer.json"
    if given is not None:
        if not Path(given).is_file():
            raise UsageError(f"--tokenizer {given}: no such file (give a "
                             "tokenizer.json written by an earlier pretrain run)")
        try:
            tokenizer = SubwordTokenizer.from_file(given)
        except Exception as error:  # not JSON, not a tokenizer, wrong specials
            raise UsageError(f"--tokenizer {given}: not a tokenizer of this course "
                             f"({str(error).splitlines()[0]})") from None
        if kept.exists() and sha256sum(kept) != sha256sum(given):
            raise UsageError(f"--tokenizer {given}: the unfinished run in "
                             f"{portable_path(checkpoints)} uses another tokenizer; "
                             "resume it without --tokenizer, or pass another "
                             "--checkpoints folder")
        if len(tokenizer) != config.vocab_size:
            raise UsageError(f"--tokenizer {given}: {len(tokenizer)} tokens, but this "
                             f"run's vocabulary has {config.vocab_size}")
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(given, kept)  # the very bytes: a resumption compares them
        return tokenizer
    elif kept.exists():  # a resumed run keeps its ids
        return SubwordTokenizer.from_file(kept)
    else:
        tokenizer = train_subword_tokenizer(train_docs, config.vocab_size,
                                            config.min_frequency,
                                            length=len(train_docs))
    tokenizer.save(kept)
    return tokenizer


def _segments(config: PretrainConfig, tokenizer: SubwordTokenizer,
              train_docs: list[str], valid_docs: list[str],
              cache: Path) -> tuple[torch.Tensor, torch.Tensor]:
    """The packed training and validation segments ``(N, T)``, ``(N', T)``; kept in
    the checkpoint folder, since encoding 50k reviews takes a minute on one core and a
    resumed run needs the very same ones."""
    key = sha256sum(cache.parent / "tokenizer.json")
    if cache.exists():
        saved = torch.load(cache, map_location="cpu", weights_only=True)
        if saved.get("tokenizer_sha256") == key:
            return saved["train"].long(), saved["valid"].long()
    pack = dict(length=config.max_len, cls_id=tokenizer.cls_id,
                sep_id=tokenizer.sep_id, pad_id=tokenizer.pad_id)
    segments = pack_segments(tokenizer.encode_batch(train_docs), **pack)  # (N, T)
    valid = pack_segments(tokenizer.encode_batch(valid_docs), **pack)
    valid = valid[:config.valid_segments]  # (N', T)
    fits = len(tokenizer) <= torch.iinfo(torch.int16).max
    small = torch.int16 if fits else torch.int32
    tmp = cache.with_suffix(".tmp")
    torch.save({"tokenizer_sha256": key, "train": segments.to(small),
                "valid": valid.to(small)}, tmp)
    tmp.replace(cache)  # atomic: an interrupted write leaves no half file
    return segments, valid


def _plain(config: PretrainConfig) -> dict:
    return json.loads(json.dumps(asdict(config)))  # tuples as lists, as JSON reads


def _check_same_run(folder: Path, config: PretrainConfig) -> None:
    """Refuse to resume ``folder`` with other settings (one line naming them)."""
    saved_file = folder / "pretrain.json"
    if not saved_file.exists():
        folder.mkdir(parents=True, exist_ok=True)
        saved_file.write_text(json.dumps(_plain(config), indent=1) + "\n")
        return
    saved, now = json.loads(saved_file.read_text()), _plain(config)
    changed = [f"{k} {saved.get(k)!r} -> {now[k]!r}" for k in now
               if saved.get(k) != now[k]]
    if changed:
        raise UsageError(
            f"--checkpoints: {portable_path(folder)} holds an unfinished run with "
            f"other settings ({'; '.join(changed)}); rerun it with its settings to "
            "resume, or pass another --checkpoints folder (or delete that one) to "
            "start anew")


class _FirstSteps:
    """The training batches, plus one line after the first ``n`` updates of this
    session: seconds per update, tokens per second and the run's remaining time."""

    def __init__(self, batches: StepBatches, n: int = 10) -> None:
        self.batches, self.n, self.said = batches, n, False

    def set_epoch(self, epoch: int) -> None:
        self.batches.set_epoch(epoch)

    def __len__(self) -> int:
        return len(self.batches)

    def __iter__(self):
        start, tokens, last = None, 0, None
        for k, batch in enumerate(self.batches):
            if k == 1:
                start = time.perf_counter()  # the first update pays for warm-up
            elif k == self.n + 1 and not self.said:
                self._say(time.perf_counter() - start, tokens, last)
            if k >= 1:
                tokens += int(batch.mask.sum())
            last = self.batches.step_range(self.batches.epoch)[k]
            yield batch

    def _say(self, seconds: float, tokens: int, step: int) -> None:
        self.said = True
        per_step = seconds / self.n
        left = self.batches.steps - step
        print(f"first updates: {per_step:.2f} s per update, {tokens / seconds:,.0f} "
              f"tokens/s; {left} updates left, about {duration(left * per_step)} "
              "(without the validation scoring)", flush=True)


def _reporter(batches: StepBatches, lengths: torch.Tensor):
    """The callback that prints one line per epoch of ``fit``: update, losses,
    tokens/s and the time left."""
    def report(epoch: int, history, model) -> None:
        r, steps = history.records[-1], batches.step_range(epoch)
        tokens = sum(int(lengths[batches.rows(s)].sum()) for s in steps)
        per_step = r["seconds"] / len(steps)
        left = batches.steps - steps[-1]
        print(f"update {steps[-1]}/{batches.steps}: train loss {r['train_loss']:.3f}, "
              f"valid loss {r['valid_loss']:.3f}, valid accuracy "
              f"{r['valid_accuracy']:.3f}; {tokens / r['seconds']:,.0f} tokens/s, "
              f"{per_step:.2f} s per update; {duration(left * per_step)} left",
              flush=True)
    return report


def _curve(history, batches: StepBatches) -> list[dict]:
    """The history's records with the update each ends at, rounded for the file."""
    rows = []
    for r in history.records:
        row = {"step": batches.step_range(r["epoch"])[-1]}
        row.update({k: round(v, 5) if isinstance(v, float) else v for k, v in r.items()
                    if k != "epoch"})
        rows.append(row)
    return rows


def _corpus_identity(train_docs, valid_docs, segments, valid) -> dict:
    import hashlib

    digest = hashlib.sha256()
    for t in train_docs:
        digest.update(t.encode("utf-8") + b"\n")
    return {"train_documents": len(train_docs), "valid_documents": len(valid_docs),
            "train_segments": len(segments), "valid_segments": len(valid),
            "train_tokens": int((segments != 0).sum()), "sha256": digest.hexdigest()}


def pretrain(config: PretrainConfig, checkpoints: Path, out: Path | None,
             results_dir: Path | None, argv: list[str] | None = None,
             device: str | None = None, callbacks=(),
             tokenizer_file: Path | None = None) -> dict:
    """Run (or resume) the pretraining ``config`` describes; returns the results.

    Args:
        config: the run.
        checkpoints: a folder for this run's checkpoint, tokenizer and settings; the
            same folder resumes the run.
        out: where the weights, tokenizer and model card go (None: not written).
        results_dir: where ``results_name(corpus)`` goes (None: not written).
        argv: the command's arguments, recorded.
        device: None for ``lamalib.runtime.get_device()``.
        callbacks: more ``fit`` callbacks (the tests interrupt a run with one).
        tokenizer_file: a ``tokenizer.json`` to use instead of learning one (to
            repeat a run exactly: see :func:`_tokenizer`).
    """
    if config.corpus not in PRETRAINING_CORPORA:
        raise UsageError(f"--corpus {config.corpus}: no such corpus; choose one of "
                         f"{', '.join(sorted(PRETRAINING_CORPORA))}")
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    commit = git_commit()  # the code that runs, before anyone edits the checkout
    code = code_identity()
    wall = time.perf_counter()
    checkpoints = Path(checkpoints)
    try:
        train_docs, valid_docs = pretraining_texts(config.corpus, config.valid_one_in)
    except DownloadError as error:
        words = " ".join(str(error).split())  # one line
        raise UsageError(f"--corpus {config.corpus}: {words} For pretraining "
                         "offline, --corpus lee is embedded.") from None
    _check_same_run(checkpoints, config)  # nothing is written before the data is in
    tokenizer = _tokenizer(config, checkpoints, train_docs, tokenizer_file)
    segments, valid = _segments(config, tokenizer, train_docs, valid_docs,
                                checkpoints / "segments.pt")  # (N, T), (N', T)
    batches = StepBatches(segments, config.batch_size, config.steps, config.eval_every,
                          config.seed, tokenizer.pad_id)
    valid_batches = [segment_batch(valid, torch.arange(i, min(i + 64, len(valid))))
                     for i in range(0, len(valid), 64)]
    print(f"{config.corpus}: {len(train_docs):,} documents, {len(segments):,} segments "
          f"of {config.max_len} tokens ({int((segments != 0).sum()):,} tokens; "
          f"{config.steps * config.batch_size / len(segments):.2f} passes in "
          f"{config.steps} updates), {len(valid)} validation segments; "
          f"vocabulary {len(tokenizer):,}", flush=True)

    runtime.seed_everything(config.seed)  # the initial weights
    model = MaskedLM(len(tokenizer), pad_id=tokenizer.pad_id, **config.model_options())
    step = MaskedLMStep(tokenizer.mask_id, len(tokenizer), tokenizer.special_ids,
                        config.select_prob, seed=config.seed)
    train_config = TrainConfig(
        epochs=batches.epochs, optimizer="adamw", lr=config.lr,
        weight_decay=config.weight_decay, betas=tuple(config.betas),
        patience=batches.epochs + 1,  # no early stopping: the run is its updates
        clip_grad=config.clip_grad, seed=config.seed, checkpoint_dir=checkpoints,
        device=device, schedule=config.schedule, warmup_steps=config.warmup_steps,
        total_steps=config.steps)
    lengths = (segments != tokenizer.pad_id).sum(1)  # (N,)
    history = fit(model, _FirstSteps(batches), valid_batches, train_config, step,
                  callbacks=[_reporter(batches, lengths), *callbacks])

    curve = _curve(history, batches)
    last = curve[-1]
    best = next(r for r in curve if r["step"] ==
                batches.step_range(history.best_epoch)[-1])
    result = {
        "experiment": "pretrain", "model": "course_encoder", "dataset": config.corpus,
        "profile": runtime.profile(), "config": _plain(config),
        "objective": "masked LM, 80/10/10, dynamic masks",
        "corpus_identity": _corpus_identity(train_docs, valid_docs, segments, valid),
        "tokenizer": {"kind": "WordPiece, lower-cased", "vocab_size": len(tokenizer),
                      "given": tokenizer_file is not None,
                      "sha256": sha256sum(checkpoints / "tokenizer.json")},
        "params": sum(p.numel() for p in model.parameters()),
        "metrics": {"valid_mlm_loss": best["valid_loss"],
                    "valid_mlm_accuracy": best["valid_accuracy"],
                    "final_train_loss": last["train_loss"],
                    "final_valid_loss": last["valid_loss"],
                    "final_valid_accuracy": last["valid_accuracy"],
                    "kept_step": best["step"]},
        "history": curve, "steps": last["step"],
        "tokens_seen": batches.tokens_seen(last["step"]),
        "seconds": round(sum(r["seconds"] for r in history.records), 1),
        "session_seconds": round(time.perf_counter() - wall, 1),
        "hardware": hardware(), "started": started, "git_commit": commit,
        "code": code,
        "lamalib": lamalib_version(),
        "command": reproduce_command(argv),
    }
    if out is not None:
        files = save_encoder(model, tokenizer, out, extra={
            "corpus": config.corpus, "steps": result["steps"],
            "tokens_seen": result["tokens_seen"]})
        result["weights"] = {"files": files["sha256"], "dtype": files["dtype"],
                             "bytes": (Path(out) / "model.safetensors").stat().st_size}
        write_model_card(Path(out), result)
    if results_dir is not None:
        path = Path(results_dir) / results_name(config.corpus)
        with run_lock(path):
            write_json_atomic(path, result)
    print(f"done: {result['steps']} updates, {result['tokens_seen']:,} tokens, valid "
          f"MLM loss {result['metrics']['valid_mlm_loss']:.3f}, accuracy "
          f"{result['metrics']['valid_mlm_accuracy']:.3f}"
          + (f"; weights in {portable_path(out)}" if out is not None else ""),
          flush=True)
    return result


def reproduce_command(argv: list[str] | None) -> str:
    """The command line that reproduces the run, its profile included, without local
    folders (``--checkpoints``, ``--results``)."""
    line = command_line(sys.argv[1:] if argv is None else argv)
    return f"LAMALIB_PROFILE={runtime.profile()} {line}"


__all__ = ["PretrainConfig", "QUICK", "default_config",
           "pretrain", "results_name"]
