"""One training loop for every model in the course (chapter "Setup and a first
model")."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Callable, Iterable

import torch
from tqdm.auto import tqdm

from lamalib.provenance import portable_path
from lamalib.runtime import (get_device, progress_mode, seed_everything,
                             show_progress)
from lamalib.train import distributed
from lamalib.train.checkpoint import load_checkpoint, save_checkpoint
from lamalib.train.config import TrainConfig
from lamalib.train.history import History
from lamalib.train.metrics import class_report
from lamalib.train.identity import check_identity, run_identity
from lamalib.train.optim import build_optimizer
from lamalib.train.schedule import build_scheduler
from lamalib.train.steps import StepOutput, classification_step
from lamalib.train.stopping import improved, should_stop

Step = Callable[[torch.nn.Module, object], StepOutput]
Callback = Callable[[int, History, torch.nn.Module], None]
CHECKPOINT_NAME = "last.pt"
SELECT = ("accuracy", "macro_f1")  # the measures TrainConfig.select may name


class NonFiniteLoss(ValueError):
    """The training loss became NaN or infinite: the run stops (no result from it)."""


def _autocast(device: torch.device, enabled: bool):
    return torch.autocast("cuda", dtype=torch.float16) if enabled else nullcontext()


def _cpu_copy(model: torch.nn.Module) -> dict:
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


@torch.no_grad()
def evaluate(
    model: torch.nn.Module,
    loader: Iterable,
    step: Step = classification_step,
    device: torch.device | str | None = None,
    amp: bool = False,
    labels: Sequence[str] | None = None,
) -> dict:
    """Mean loss and accuracy of ``model`` over ``loader`` (no gradients, eval mode).

    For a step that gives its predictions (a classifier's), also ``macro_f1``
    (:meth:`~lamalib.train.metrics.ClassReport.macro`) and ``report``, the
    :class:`~lamalib.train.metrics.ClassReport` (per-class precision, recall, F1),
    its classes named by ``labels`` (default: the class ids)."""
    device = torch.device(device) if device else next(model.parameters()).device
    was_training = model.training
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    gold, predicted = [], []
    for batch in loader:
        with _autocast(device, amp and device.type == "cuda"):
            out = step(model, batch.to(device))
        total_loss += float(out.loss.detach()) * out.count
        correct, count = correct + out.correct, count + out.count
        if getattr(out, "predicted", None) is not None:
            predicted += out.predicted.tolist()
            gold += out.gold.tolist()
    model.train(was_training)
    if count == 0:
        # 0 / 0 scored as 0 would make every epoch tie and stop training silently.
        raise ValueError(
            "evaluate: the loader gave nothing to score (an empty validation or test "
            "set?); pass a non-empty one, or valid=None to select on training loss"
        )
    scores = {"loss": total_loss / count, "accuracy": correct / count}
    if gold:
        names = (list(labels) if labels is not None
                 else [str(i) for i in range(max(gold + predicted) + 1)])
        report = class_report(gold, predicted, names)
        scores.update(macro_f1=report.macro_f1, report=report)
    return scores


@torch.no_grad()
def predict(
    model: torch.nn.Module, loader: Iterable
) -> tuple[torch.Tensor, torch.Tensor]:
    """Class probabilities ``(N, C)`` and predicted labels ``(N,)`` in dataset order."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    rows, probs = [], []
    for batch in loader:
        batch = batch.to(device)
        probs.append(torch.softmax(model(batch.tokens, batch.mask).float(), -1).cpu())
        rows.append(batch.index.cpu())
    model.train(was_training)
    order = torch.cat(rows).argsort()
    p = torch.cat(probs)[order]  # (N, C)
    return p, p.argmax(-1)


def _restore_scaler(scaler: torch.amp.GradScaler, state: dict) -> None:
    """Load a grad scaler's state; a run saved without mixed precision (CPU) and
    resumed with it (CUDA) has none, so the fresh scaler starts as in a new run."""
    if state and scaler.is_enabled():
        scaler.load_state_dict(state)


def _epoch_line(record: dict, epochs: int) -> None:
    """One epoch's line on stderr, where a progress bar would have been."""
    valid = (f"  valid acc {record['valid_accuracy']:.4f}"
             if "valid_accuracy" in record else "")
    print(f"epoch {record['epoch']}/{epochs}  train loss {record['train_loss']:.4f}"
          f"{valid}  ({record['seconds']:.1f} s)", file=sys.stderr, flush=True)


def _non_finite(value: float, epoch: int, batch: int | None,
                config: TrainConfig, what: str = "training") -> None:
    where = f"epoch {epoch}" + (f", batch {batch}" if batch else "")
    raise NonFiniteLoss(
        f"{where}: the {what} loss is {value} (not a finite number), so the run "
        f"stopped and records no result; lower the learning rate (lr={config.lr:g}) "
        "or keep gradient clipping on (clip_grad)")


def fit(
    model: torch.nn.Module,
    train: Iterable,
    valid: Iterable | None = None,
    config: TrainConfig | None = None,
    step: Step = classification_step,
    callbacks: Iterable[Callback] = (),
    epoch_lines: bool = True,
) -> History:
    """Train ``model`` and return its :class:`History`; the best weights are kept.

    Each epoch: one pass over ``train`` (``train.set_epoch(epoch)`` is called when it
    exists, so batch order depends only on the seed and the epoch), then ``valid`` is
    scored; the best validation accuracy (or macro-F1: ``select="macro_f1"``; ties
    broken by the lower validation loss;
    without ``valid``, the lowest training loss) picks the weights to keep, and
    ``patience`` epochs without improvement stop the run (with ``stop_after_rise``,
    only once training accuracy has risen that far above the first epoch's, and
    ``patience`` epochs after it did: :mod:`lamalib.train.stopping`). With
    ``checkpoint_dir`` the whole state is saved after every epoch and a later call with
    the same directory resumes from it, after checking that it is the same run (model,
    parameter shapes, settings); given a larger ``patience`` (or a ``stop_after_rise``),
    a run that had stopped early goes on if the new rule would not have stopped it. A
    ``step`` with ``state_dict``/``load_state_dict`` (e.g. one that owns a random
    generator) is saved and restored with it. Mixed precision is used on CUDA.

    Progress: a tqdm bar per epoch on a terminal or in a notebook; where stderr is a
    file or a pipe (:func:`lamalib.runtime.progress_mode`), one line per epoch on
    stderr instead (``epoch_lines=False``: none, for a caller that prints its own).

    A training loss that is NaN or infinite (a learning rate far too high, say) stops
    the run with :class:`NonFiniteLoss` naming the epoch and batch (under mixed
    precision, where a scaled step may overflow and be skipped, only when no batch of
    an epoch was finite).
    """
    config = config or TrainConfig()
    if config.select not in SELECT:
        raise ValueError(f"select={config.select!r}: give one of {', '.join(SELECT)}")
    if valid is not None and hasattr(valid, "__len__") and len(valid) == 0:
        raise ValueError(
            "fit: the validation set is empty; pass a non-empty one (see "
            "lamalib.data.stratified_split) or valid=None to select on training loss"
        )
    device = torch.device(config.device) if config.device else get_device()
    device = distributed.device_for_rank(device)
    distributed.init(device)  # under torchrun / accelerate launch: join the group
    model.to(device)
    seed_everything(config.seed)
    optimizer = build_optimizer(model.parameters(), config)
    scheduler = build_scheduler(optimizer, config.schedule, config.warmup_steps,
                                config.total_steps)
    net = model  # what the steps call: the model, or its DDP wrapper
    if distributed.world_size() > 1:
        net = distributed.wrap(model, device)
        train = distributed.RankShard(train, distributed.rank(),
                                      distributed.world_size())
    use_amp = config.amp and device.type == "cuda"
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    progress = show_progress() if config.progress is None else config.progress
    lines = (epoch_lines and config.progress is None and progress_mode() == "lines"
             and distributed.is_main_process())
    history, best_state, bad_epochs, first_epoch = History(), None, 0, 1
    identity = run_identity(model, config, step)

    ckpt = (
        Path(config.checkpoint_dir) / CHECKPOINT_NAME if config.checkpoint_dir else None
    )
    if ckpt is not None and config.resume and ckpt.exists():
        state = load_checkpoint(ckpt)  # on the CPU; load_state_dict moves the tensors
        check_identity(state.get("identity"), identity, ckpt)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        _restore_scaler(scaler, state["scaler"])
        scheduler.load_state_dict(state["scheduler"])
        if hasattr(step, "load_state_dict"):
            step.load_state_dict(state["step"])
        history = History.from_state_dict(state["history"])
        best_state, bad_epochs = state["best_state"], state["bad_epochs"]
        first_epoch = state["epoch"] + 1
        # patience and stop_after_rise may change on resumption (RESUMABLE_CHANGES): a
        # run stopped early goes on if the new rule would not have stopped it yet
        history.stopped_early = should_stop(history.records, bad_epochs,
                                            config.patience, config.stop_after_rise)
        if history.stopped_early:
            first_epoch = config.epochs + 1  # the run had already finished
        if distributed.is_main_process():
            where = portable_path(ckpt)  # no folder of this machine on a page
            print(f"{where}: this run already finished (stopped early at epoch "
                  f"{state['epoch']}); its best weights are restored"
                  if history.stopped_early else
                  f"Resuming from {where}: {state['epoch']} epoch(s) done, "
                  f"continuing at epoch {first_epoch} of {config.epochs}")

    for epoch in range(first_epoch, config.epochs + 1):
        if hasattr(train, "set_epoch"):
            train.set_epoch(epoch)
        start = time.perf_counter()
        model.train()
        total_loss, correct, count, finite = 0.0, 0, 0, 0
        bar = tqdm(
            train,
            desc=f"epoch {epoch}/{config.epochs}",
            leave=False,
            disable=not progress or not distributed.is_main_process(),
        )
        for number, batch in enumerate(bar, 1):
            with _autocast(device, use_amp):
                out = step(net, batch.to(device))
            loss_value = float(out.loss.detach())
            finite += math.isfinite(loss_value)
            if not math.isfinite(loss_value) and not use_amp:  # (AMP skips a step)
                _non_finite(loss_value, epoch, number, config)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(out.loss).backward()
            if config.clip_grad is not None:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip_grad)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            total_loss += loss_value * out.count
            correct, count = correct + out.correct, count + out.count
            bar.set_postfix(loss=f"{total_loss / max(count, 1):.4f}")
        if count and not finite:  # mixed precision: no batch of the epoch was finite
            _non_finite(total_loss, epoch, None, config)
        record = {
            "epoch": epoch,
            "train_loss": total_loss / max(count, 1),
            "train_accuracy": correct / max(count, 1),
        }
        if valid is not None:
            scores = evaluate(model, valid, step, device, use_amp)
            if not math.isfinite(scores["loss"]):  # the weights themselves diverged
                _non_finite(scores["loss"], epoch, None, config, "validation")
            record.update(valid_loss=scores["loss"], valid_accuracy=scores["accuracy"])
            if "macro_f1" in scores:
                record["valid_macro_f1"] = scores["macro_f1"]
            if config.select not in scores:
                raise ValueError(f"select={config.select!r}: this step gives no "
                                 "predictions to compute it from; use accuracy")
            score, loss = scores[config.select], scores["loss"]
        else:
            score, loss = -record["train_loss"], record["train_loss"]
        record["seconds"] = time.perf_counter() - start
        history.records.append(record)

        if improved(history.best_score, history.best_loss, score, loss):
            history.best_score, history.best_loss = score, loss
            history.best_epoch = epoch
            best_state, bad_epochs = _cpu_copy(model), 0
        else:
            bad_epochs += 1
        history.stopped_early = should_stop(history.records, bad_epochs,
                                            config.patience, config.stop_after_rise)
        if ckpt is not None and distributed.is_main_process():
            save_checkpoint(
                ckpt,
                {
                    "identity": identity,
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scaler": scaler.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "step": step.state_dict() if hasattr(step, "state_dict") else {},
                    "history": history.state_dict(),
                    "best_state": best_state,
                    "bad_epochs": bad_epochs,
                    "epoch": epoch,
                },
            )
        if lines:
            _epoch_line(record, config.epochs)
        for callback in callbacks:
            callback(epoch, history, model)
        if history.stopped_early:
            break

    if best_state is not None:
        model.load_state_dict(best_state)
    return history
