"""A model can't be lost (issue 61, item 4): a save is written whole or not at all
(a temporary folder, then a rename), never replaces a saved model without --force,
and a full disk (ENOSPC, simulated) is one line with nothing half-written and no
results file claiming the run; the same command then finishes it without training
again."""

import errno
import json
import os

import pytest
import torch

from command_helpers import usage_error
from lamalib.data import Vocab
from lamalib.experiments import runner
from lamalib.experiments.cli import main
from lamalib.experiments.runner import ResultsUnwritable
from lamalib.models import build_model
from lamalib.models import saved as saved_module
from lamalib.models.saved import SavedModelError, load_model, save_model
from lamalib.train import checkpoint as checkpoint_module
from lamalib.train.checkpoint import CheckpointUnwritable

FULL = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _model(dim=4):
    vocab = Vocab.build(["a warm film", "a dull film"])
    torch.manual_seed(0)
    return build_model("avg", vocab_size=len(vocab), num_classes=2,
                       embed_dim=dim), vocab


def _save(folder, dim=4, **kwargs):
    model, vocab = _model(dim)
    return save_model(model, vocab, ["neg", "pos"], folder, name="avg",
                      options={"embed_dim": dim}, **kwargs)


def _width(folder):
    return load_model(folder).config["options"]["embed_dim"]


def _full_disk(model, vocab, folder, *args):
    (folder / "weights.safetensors").write_bytes(b"half a file")  # what a full disk leaves
    raise FULL


def test_a_saved_model_is_never_replaced_unless_asked(tmp_path):
    folder = _save(tmp_path / "m")
    with pytest.raises(SavedModelError, match="already holds a saved model"):
        _save(folder, dim=6)
    assert _width(folder) == 4
    _save(folder, dim=6, overwrite=True)
    assert _width(folder) == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]  # no temporary left
    (tmp_path / "empty").mkdir()
    _save(tmp_path / "empty")  # an empty folder is not a model
    assert oct((tmp_path / "m").stat().st_mode & 0o777) == oct(
        (tmp_path / "empty").stat().st_mode & 0o777)


def test_a_full_disk_leaves_nothing_half_written(tmp_path, monkeypatch):
    monkeypatch.setattr(saved_module, "_write_model", _full_disk)
    with pytest.raises(SavedModelError) as caught:
        _save(tmp_path / "m")
    assert str(caught.value) == (f"{tmp_path / 'm'}: cannot save the model (No space "
                                 "left on device); nothing was written there")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    folder = _save(tmp_path / "m")
    monkeypatch.setattr(saved_module, "_write_model", _full_disk)
    with pytest.raises(SavedModelError):
        _save(folder, dim=6, overwrite=True)
    assert _width(folder) == 4  # the old one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def _files(tmp_path):
    rows = [("pos", "a warm funny film"), ("neg", "a dull tedious mess")] * 10
    for name in ("train.tsv", "test.tsv"):
        (tmp_path / name).write_text("".join(f"{y}\t{x}\n" for y, x in rows))
    return ["run", "--model", "avg", "--train", str(tmp_path / "train.tsv"),
            "--test", str(tmp_path / "test.tsv"), "--set", "header=false",
            "--set", "epochs=2", "--results", str(tmp_path / "r"),
            "--save-model", str(tmp_path / "m")]


def test_run_refuses_a_model_folder_before_reading_data(tmp_path, monkeypatch):
    argv = _files(tmp_path)
    _save(tmp_path / "m")

    def no_data(spec):
        raise AssertionError("data read before --save-model was checked")

    monkeypatch.setattr(runner, "load_data", no_data)
    assert usage_error(argv) == (f"--save-model {tmp_path / 'm'}: already holds a "
                                 "saved model; give another folder, or add --force "
                                 "to replace it")


def test_a_full_disk_at_the_model_keeps_the_run_and_claims_nothing(
        tmp_path, monkeypatch, capsys):
    argv = _files(tmp_path)
    monkeypatch.setattr(saved_module, "_write_model", _full_disk)
    with pytest.raises(SavedModelError) as caught:
        main(argv)
    message = str(caught.value)
    assert "\n" not in message and "No space left on device" in message
    assert "no results file was written" in message
    assert not list((tmp_path / "r").glob("*.json"))
    assert not (tmp_path / "m").exists()
    assert list((tmp_path / "r" / "checkpoints").glob("*/last.pt"))  # kept
    monkeypatch.undo()
    capsys.readouterr()
    main(argv)  # the same command, with room: finishes without training again
    out = capsys.readouterr().out
    assert "epoch   1" not in out and "epoch   2" not in out
    assert load_model(tmp_path / "m").labels == ["neg", "pos"]
    (file,) = (tmp_path / "r").glob("*.json")
    result = json.loads(file.read_text())
    assert len(result["history"]) == 2


def test_safetensors_own_full_disk_error_is_one_line_and_leaves_nothing(tmp_path):
    # safetensors reports a full disk as its own SafetensorError, not an OSError
    from safetensors import SafetensorError

    def write(tmp):
        (tmp / "weights.safetensors").write_bytes(b"half a file")
        raise SafetensorError("Error while serializing: IoError(Os { code: 28, kind: "
                              "StorageFull, message: \"No space left on device\" })")

    with pytest.raises(SavedModelError) as caught:
        saved_module.write_atomically(tmp_path / "m", write)
    message = str(caught.value)
    assert "\n" not in message and "No space left on device" in message
    assert list(tmp_path.iterdir()) == []  # no model, no temporary folder


def test_a_full_disk_at_the_run_lock_is_one_line_and_runs_nothing(tmp_path,
                                                                  monkeypatch):
    import lamalib.experiments.results as results_module

    def full(*args, **kwargs):
        raise FULL

    monkeypatch.setattr(results_module.os, "open", full)
    with pytest.raises(results_module.LockUnwritable) as caught:
        with results_module.run_lock(tmp_path / "r" / "run.json"):
            raise AssertionError("the run must not start")
    assert "\n" not in str(caught.value) and "No space left" in str(caught.value)
    assert isinstance(caught.value, results_module.RunLocked)  # exit 2 on the CLI


def test_a_full_disk_at_the_results_file_keeps_the_run_and_no_model(
        tmp_path, monkeypatch):
    argv = _files(tmp_path)

    def full(path, data, indent=1):
        raise FULL

    monkeypatch.setattr(runner, "write_json_atomic", full)
    with pytest.raises(ResultsUnwritable) as caught:
        main(argv)
    message = str(caught.value)
    assert "\n" not in message and "No space left on device" in message
    assert not (tmp_path / "m").exists()  # the model goes with its results file
    assert not list((tmp_path / "r").glob("*.json"))
    assert list((tmp_path / "r" / "checkpoints").glob("*/last.pt"))


def test_a_full_disk_at_a_checkpoint_is_one_line(tmp_path, monkeypatch):
    argv = _files(tmp_path)

    def full():
        raise FULL

    monkeypatch.setattr(checkpoint_module, "rng_state", full)
    with pytest.raises(CheckpointUnwritable) as caught:
        main(argv)
    assert "\n" not in str(caught.value)
    assert "cannot write the run's checkpoint (No space left on device)" in str(
        caught.value)
    assert not list((tmp_path / "r" / "checkpoints").glob("*/*.tmp"))
