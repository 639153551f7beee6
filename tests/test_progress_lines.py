"""Progress only on a terminal: where stderr is a file or a pipe, ``fit`` prints one
line per epoch instead of tqdm bars; ``LAMALIB_PROGRESS`` overrides either way, and
the experiments command keeps its own epoch lines on stdout."""

import io
import sys

import torch

from lamalib import runtime
from lamalib.data import Vocab, make_loader
from lamalib.data.dataset import TextDataset
from lamalib.models import build_model
from lamalib.train import TrainConfig, fit

TEXTS = ["a warm film", "a dull film", "warm", "dull"] * 4


class Terminal(io.StringIO):
    def isatty(self):
        return True


def _fit(**kwargs):
    data = TextDataset(TEXTS, [0, 1, 0, 1] * 4, ["pos", "neg"], "toy", "train")
    vocab = Vocab.build(TEXTS)
    torch.manual_seed(0)
    model = build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=4)
    loader = make_loader(data, vocab, 8)
    return fit(model, loader, loader, TrainConfig(epochs=2, device="cpu"), **kwargs)


def test_the_mode_follows_stderr_unless_overridden(monkeypatch):
    monkeypatch.delenv("LAMALIB_PROGRESS", raising=False)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert runtime.progress_mode() == "lines" and not runtime.show_progress()
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert runtime.progress_mode() == "bars" and runtime.show_progress()
    monkeypatch.setenv("LAMALIB_PROGRESS", "0")
    assert runtime.progress_mode() == "none"
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setenv("LAMALIB_PROGRESS", "1")
    assert runtime.progress_mode() == "bars"


def test_fit_prints_one_line_per_epoch_off_a_terminal(monkeypatch, capsys):
    monkeypatch.delenv("LAMALIB_PROGRESS", raising=False)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    history = _fit()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "\r" not in "".join(err)  # no bar's redraws
    for line, record in zip(err, history.records):
        assert line.startswith(f"epoch {record['epoch']}/2  train loss "
                               f"{record['train_loss']:.4f}  valid acc ")
    _fit(epoch_lines=False)  # a caller that prints its own lines
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("LAMALIB_PROGRESS", "0")
    _fit()
    assert capsys.readouterr().err == ""


def test_lamalib_progress_still_forces_bars(monkeypatch, capsys):
    monkeypatch.setenv("LAMALIB_PROGRESS", "1")
    _fit()
    err = capsys.readouterr().err
    assert "epoch 1/2" in err and "train loss" not in err  # the bar, not the lines


def test_the_command_prints_its_epoch_lines_once(monkeypatch, capsys, tmp_path):
    from labelled_files import write_tsv
    from lamalib.experiments.cli import main

    monkeypatch.delenv("LAMALIB_PROGRESS", raising=False)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    main(["run", "--model", "avg", "--train", str(write_tsv(tmp_path / "a.tsv", 30)),
          "--set", "test_fraction=0.2", "--set", "header=false", "--set", "epochs=2",
          "--set", "embed_dim=4", "--results", str(tmp_path / "r")])
    out, err = capsys.readouterr()
    assert sum("train loss" in line for line in out.splitlines()) == 2
    assert "train loss" not in err and "\r" not in err
