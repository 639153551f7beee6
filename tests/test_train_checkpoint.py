"""Checkpoints: safe to open, resumed only by the run that wrote them, exact on resume
(issues "Library: correctness defects" items 1, 2, 6, 8 and "Checkpoints that cannot
run code when opened")."""

import pickle
import random

import numpy as np
import pytest
import torch

from lamalib.data import Batch, Vocab, load_dataset, make_loader
from lamalib.models import build_model
from lamalib.models.mlm import MaskedLM, MaskedLMStep
from lamalib.train import TrainConfig, fit
from lamalib.train.checkpoint import (
    CheckpointError,
    load_checkpoint,
    read_checkpoint,
    rng_state,
    save_checkpoint,
    set_rng_state,
)
from lamalib.train.loop import _restore_scaler


@pytest.fixture(scope="module")
def task():
    train = load_dataset("synthetic_sentiment", "train", n=200, p_negate=0.0)
    valid = load_dataset("synthetic_sentiment", "valid", n=100, p_negate=0.0)
    vocab = Vocab.build(train.texts)
    return vocab, make_loader(train, vocab, 32, shuffle=True), make_loader(valid, vocab)


def _avg(vocab, seed=0, embed_dim=16):
    torch.manual_seed(seed)
    return build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=embed_dim)


class _Interrupt(Exception):
    pass


def _disconnect_after(n):
    def callback(epoch, history, model):
        if epoch == n:
            raise _Interrupt

    return callback


# -- issue 14: checkpoints are plain data, read with weights_only=True ---------------


class _Payload:
    """Unpickling this object would create ``marker`` (it stands for any code)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_malicious_checkpoint_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "last.pt"
    torch.save({"model": {}, "rng": _Payload(marker)}, path)
    with pytest.raises(CheckpointError, match="unpickling can run code"):
        load_checkpoint(path)
    assert not marker.exists()
    # Resuming through fit refuses it the same way.
    vocab = Vocab.build(["a b c"])
    with pytest.raises(CheckpointError):
        fit(_avg(vocab), [], None, TrainConfig(checkpoint_dir=tmp_path, progress=False))
    assert not marker.exists()


def test_every_rng_state_round_trips_through_a_weights_only_file(tmp_path):
    random.seed(1), np.random.seed(2), torch.manual_seed(3)
    np.random.standard_normal()  # leaves a cached Gaussian in NumPy's state
    save_checkpoint(tmp_path / "c.pt", {"x": torch.ones(2)})
    expected = (random.random(), np.random.standard_normal(), torch.rand(3))
    random.seed(9), np.random.seed(9), torch.manual_seed(9)
    state = load_checkpoint(tmp_path / "c.pt")  # weights_only=True inside
    assert torch.equal(state["x"], torch.ones(2))
    again = (random.random(), np.random.standard_normal(), torch.rand(3))
    assert expected[:2] == again[:2] and torch.equal(expected[2], again[2])
    # The stored form holds nothing but plain containers, numbers, strings, tensors.

    def plain(x):
        if isinstance(x, dict):
            return all(isinstance(k, str) and plain(v) for k, v in x.items())
        if isinstance(x, (list, tuple)):
            return all(plain(v) for v in x)
        return isinstance(x, (bool, int, float, str, type(None), torch.Tensor))

    assert plain(rng_state())


def test_library_never_loads_with_weights_only_false():
    from pathlib import Path

    import lamalib

    root = Path(lamalib.__file__).parent
    offenders = [p for p in root.rglob("*.py") if "weights_only=False" in p.read_text()]
    assert offenders == []


# -- item 1: resuming on another device ----------------------------------------------


def test_checkpoint_is_read_on_the_cpu(tmp_path, monkeypatch):
    # Moving the saved CPU generator state to CUDA made torch.set_rng_state raise;
    # the file is read on the CPU and load_state_dict moves the weights.
    save_checkpoint(tmp_path / "c.pt", {"w": torch.ones(1)})
    seen = {}
    real_load = torch.load

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(torch, "load", spy)
    state = read_checkpoint(tmp_path / "c.pt")
    assert seen["map_location"] == "cpu" and seen["weights_only"] is True
    set_rng_state(state["rng"])  # a CPU ByteTensor: accepted


def test_scaler_state_of_a_run_without_mixed_precision_is_accepted():
    # A CPU run saves a disabled scaler's empty state; resuming on CUDA enables it.
    enabled = torch.amp.GradScaler("cpu", enabled=True)
    with pytest.raises(RuntimeError):
        enabled.load_state_dict({})  # what fit did before
    _restore_scaler(enabled, {})  # a fresh scaler, as in a new run
    assert enabled.get_scale() == torch.amp.GradScaler("cpu").get_scale()
    saved = torch.amp.GradScaler("cpu", init_scale=8.0).state_dict()
    _restore_scaler(enabled, saved)
    assert enabled.get_scale() == 8.0


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cpu_run_resumes_on_cuda_with_mixed_precision(task, tmp_path):
    vocab, train, valid = task
    config = dict(epochs=3, lr=0.05, patience=5, progress=False)
    with pytest.raises(_Interrupt):
        fit(_avg(vocab), train, valid,
            TrainConfig(checkpoint_dir=tmp_path, device="cpu", amp=False, **config),
            callbacks=[_disconnect_after(1)])
    history = fit(_avg(vocab), train, valid,
                  TrainConfig(checkpoint_dir=tmp_path, device="cuda", amp=True, **config))
    assert history.column("epoch") == [1, 2, 3]


# -- item 2: a reused checkpoint_dir -------------------------------------------------


def test_reused_checkpoint_dir_refuses_another_run(task, tmp_path):
    vocab, train, valid = task
    fit(_avg(vocab), train, valid,
        TrainConfig(epochs=1, lr=0.0, checkpoint_dir=tmp_path, progress=False))
    with pytest.raises(RuntimeError, match=r"config\.lr: checkpoint 0\.0, now 0\.05"):
        fit(_avg(vocab), train, valid,
            TrainConfig(epochs=2, lr=0.05, checkpoint_dir=tmp_path, progress=False))
    # Another vocabulary or width: named parameter shapes, not torch's size mismatch.
    with pytest.raises(RuntimeError, match=r"parameter embed\.weight"):
        fit(_avg(vocab, embed_dim=8), train, valid,
            TrainConfig(epochs=2, lr=0.0, checkpoint_dir=tmp_path, progress=False))
    # The message says how to start fresh, and resume=False does it.
    with pytest.raises(RuntimeError, match="resume=False"):
        fit(_avg(vocab), train, valid,
            TrainConfig(epochs=2, lr=0.05, checkpoint_dir=tmp_path, progress=False))
    model = _avg(vocab)
    history = fit(model, train, valid, TrainConfig(
        epochs=2, lr=0.05, checkpoint_dir=tmp_path, progress=False, resume=False))
    assert history.column("epoch") == [1, 2] and history[-1]["train_loss"] < 0.69


def test_resuming_says_from_which_epoch(task, tmp_path, capsys):
    vocab, train, valid = task
    config = dict(epochs=3, lr=0.05, patience=5, progress=False,
                  checkpoint_dir=tmp_path)
    with pytest.raises(_Interrupt):
        fit(_avg(vocab), train, valid, TrainConfig(**config),
            callbacks=[_disconnect_after(2)])
    fit(_avg(vocab), train, valid, TrainConfig(**config))
    out = capsys.readouterr().out
    assert "Resuming from" in out and "2 epoch(s) done" in out
    assert "continuing at epoch 3 of 3" in out


# -- item 6: what a step owns is saved too --------------------------------------------


def _mlm_batches(n_batches=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for i in range(n_batches):
        tokens = torch.randint(3, 30, (8, 10), generator=g)
        batches.append(Batch(tokens, torch.ones_like(tokens, dtype=torch.bool),
                             torch.zeros(8, dtype=torch.long), torch.arange(8) + 8 * i))
    return batches


def test_masked_lm_resume_is_exact(tmp_path):
    train = _mlm_batches()
    config = dict(epochs=3, lr=1e-2, patience=5, progress=False)

    def run(checkpoint_dir=None, callbacks=()):
        torch.manual_seed(0)
        model = MaskedLM(30, d_model=16, n_heads=2, d_ff=32, max_len=16, dropout=0.0)
        step = MaskedLMStep(mask_id=2, vocab_size=30, seed=5)
        fit(model, train, None,
            TrainConfig(checkpoint_dir=checkpoint_dir, **config), step=step,
            callbacks=callbacks)
        return model

    straight = run()
    with pytest.raises(_Interrupt):
        run(tmp_path, [_disconnect_after(1)])
    resumed = run(tmp_path)  # a new step object: its generator starts from the seed
    for (name, a), b in zip(straight.state_dict().items(),
                            resumed.state_dict().values()):
        assert torch.equal(a, b), name


# -- item 4: empty validation ---------------------------------------------------------


def test_empty_validation_set_is_refused(task):
    vocab, train, _ = task
    with pytest.raises(ValueError, match="validation set is empty"):
        fit(_avg(vocab), train, [], TrainConfig(epochs=2, progress=False))

    def no_batches():  # an iterable without len() that yields nothing
        yield from ()

    class Empty:
        def __iter__(self):
            return no_batches()

    with pytest.raises(ValueError, match="nothing to score"):
        fit(_avg(vocab), train, Empty(), TrainConfig(epochs=2, progress=False))
