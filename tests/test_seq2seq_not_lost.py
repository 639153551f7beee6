"""A saved seq2seq model can't be lost, as a classifier can't (issue 60, "Keep and
ask"; the classifiers' rules: tests/test_model_not_lost.py): `seq2seq --save-model
DIR` writes whole or not at all, never replaces a saved model without --force (said
before any data is read), and a full disk (ENOSPC, simulated) is one line with
nothing half-written and no results file claiming the run; the same command then
finishes it without training again."""

import errno
import json
import os

import pytest

from command_helpers import usage_error
from lamalib.experiments import seq2seq_run
from lamalib.experiments.cli import main
from lamalib.experiments.seq2seq_run import Seq2SeqSpec, prepare
from lamalib.models import saved_seq2seq as saved_module
from lamalib.models.registry import build_model
from lamalib.models.saved import SavedModelError
from lamalib.models.saved_seq2seq import load_seq2seq, save_seq2seq
from lamalib.provenance import shown_path

pytestmark = pytest.mark.usefixtures("one_thread")

FULL = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
PAIRS = [("i like tea .", "tôi thích trà ."), ("we run .", "chúng tôi chạy ."),
         ("you run .", "bạn chạy ."), ("help !", "cứu !")] * 5


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("pairs") / "mine.tsv"
    path.write_text("".join(f"{s}\t{t}\n" for s, t in PAIRS), encoding="utf-8")
    return path


def _save(pairs_file, folder, hidden=6, **kwargs):
    spec = Seq2SeqSpec(pairs=str(pairs_file), d_emb=4, d_hidden=hidden)
    data = prepare(spec)
    model = build_model("rnn_seq2seq", vocab_size=len(data.src_vocab),
                        tgt_vocab_size=len(data.tgt_vocab), **spec.model_options())
    return save_seq2seq(model, data.src_vocab, data.tgt_vocab, folder,
                        spec.model_options(), **kwargs)


def _hidden(folder):
    return load_seq2seq(folder).config["options"]["d_hidden"]


def _full_disk(model, src_vocab, tgt_vocab, folder, config):
    (folder / "weights.safetensors").write_bytes(b"half a file")  # what a full disk leaves
    raise FULL


def test_a_saved_seq2seq_model_is_never_replaced_unless_asked(tmp_path, pairs_file):
    folder = _save(pairs_file, tmp_path / "m")
    with pytest.raises(SavedModelError, match="m: already holds a saved model; give "
                       "another folder, or replace it with --force"):
        _save(pairs_file, folder, hidden=8)
    assert _hidden(folder) == 6
    _save(pairs_file, folder, hidden=8, overwrite=True)
    assert _hidden(folder) == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]  # no temporary left
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(SavedModelError, match="already holds files"):
        _save(pairs_file, tmp_path / "other")
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"
    (tmp_path / "empty").mkdir()
    _save(pairs_file, tmp_path / "empty")  # an empty folder is not a model
    assert oct(folder.stat().st_mode & 0o777) == oct(
        (tmp_path / "empty").stat().st_mode & 0o777)


def test_a_full_disk_leaves_nothing_half_written(tmp_path, pairs_file, monkeypatch):
    monkeypatch.setattr(saved_module, "_write_seq2seq", _full_disk)
    with pytest.raises(SavedModelError) as caught:
        _save(pairs_file, tmp_path / "m")
    assert str(caught.value) == (f"{tmp_path / 'm'}: cannot save the model (No space "
                                 "left on device); nothing was written there")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    folder = _save(pairs_file, tmp_path / "m")
    monkeypatch.setattr(saved_module, "_write_seq2seq", _full_disk)
    with pytest.raises(SavedModelError):
        _save(pairs_file, folder, hidden=8, overwrite=True)
    assert _hidden(folder) == 6  # the old one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def _argv(tmp_path, pairs_file):
    return ["seq2seq", "--pairs", str(pairs_file), "--decoders", "bahdanau",
            "--set", "epochs=2", "--set", "d_emb=4", "--set", "d_hidden=6",
            "--set", "beam_width=1", "--results", str(tmp_path / "r"),
            "--save-model", str(tmp_path / "m")]


def test_seq2seq_refuses_a_model_folder_before_reading_data(tmp_path, pairs_file,
                                                            monkeypatch):
    argv = _argv(tmp_path, pairs_file)
    _save(pairs_file, tmp_path / "m", hidden=8)
    monkeypatch.setattr(seq2seq_run, "prepare",
                        lambda *a: pytest.fail("data read before --save-model was "
                                               "checked"))
    assert usage_error(argv) == (f"--save-model {tmp_path / 'm'}: already holds a "
                                 "saved model; give another folder, or add --force "
                                 "to replace it")
    assert _hidden(tmp_path / "m") == 8
    monkeypatch.undo()
    main(argv + ["--force"])  # replaced, as asked
    assert _hidden(tmp_path / "m") == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m", "r"]


def test_a_full_disk_at_the_model_keeps_the_run_and_claims_nothing(
        tmp_path, pairs_file, monkeypatch, capsys):
    argv = _argv(tmp_path, pairs_file)
    monkeypatch.setattr(saved_module, "_write_seq2seq", _full_disk)
    with pytest.raises(SavedModelError) as caught:
        main(argv)
    message = str(caught.value)
    assert "\n" not in message and "No space left on device" in message
    assert message.startswith(f"--save-model {tmp_path / 'm'}: ")
    assert "no results file was written" in message
    assert not list((tmp_path / "r").glob("*.json"))
    assert not (tmp_path / "m").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".m.")]
    assert list((tmp_path / "r" / "checkpoints").glob("*/last.pt"))  # kept
    monkeypatch.undo()
    capsys.readouterr()
    main(argv)  # the same command, with room: finishes without training again
    out = capsys.readouterr().out
    assert "epoch 1:" not in out and "epoch 2:" not in out
    assert _hidden(tmp_path / "m") == 6
    (file,) = (tmp_path / "r").glob("*.json")
    assert len(json.loads(file.read_text())["history"]) == 2
    assert not list((tmp_path / "r" / "checkpoints").glob("*/last.pt"))  # done


def test_a_full_disk_at_the_results_file_keeps_the_run_and_no_model(
        tmp_path, pairs_file, monkeypatch):
    argv = _argv(tmp_path, pairs_file)

    def full(path, data, indent=1):
        raise FULL

    monkeypatch.setattr(seq2seq_run, "write_json_atomic", full)
    with pytest.raises(ValueError) as caught:
        main(argv)
    message = str(caught.value)
    assert "\n" not in message and "No space left on device" in message
    assert message.startswith(f"--results {shown_path(tmp_path / 'r')}: cannot "
                              "write seq2seq__bahdanau__mine__s0.json (No space")
    assert not (tmp_path / "m").exists()  # the model goes with its results file
    assert not list((tmp_path / "r").glob("*.json"))
    assert list((tmp_path / "r" / "checkpoints").glob("*/last.pt"))
