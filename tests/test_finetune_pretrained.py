"""Fine-tuning a pretrained encoder from the command line (issue 61, item 2): a
pretrained BERT whose config.json has the fields transformers 5 dropped (MiniLM's
``position_embedding_type``) is trained, saved, loaded and evaluated; it is
fine-tuned at the pretrained default lr unless told otherwise; a completed run's
housekeeping removes the checkpoints its results file replaced, saying so."""

import json

import pytest

from lamalib.experiments.cli import FINETUNE_LR, main
from lamalib.models.saved import load_model
from tiny_bert import saved_tiny_bert

transformers = pytest.importorskip("transformers")

ROWS = [("pos", "a warm and funny film"), ("neg", "a dull and tedious mess")] * 8


@pytest.fixture
def encoder(tmp_path):
    folder = saved_tiny_bert(tmp_path / "tiny", words=sorted(
        {w for _, t in ROWS for w in t.split()}))
    config = json.loads((folder / "config.json").read_text())
    config["position_embedding_type"] = "absolute"  # as all-MiniLM-L6-v2's says
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _files(tmp_path):
    for name in ("train.tsv", "test.tsv"):
        (tmp_path / name).write_text("".join(f"{y}\t{x}\n" for y, x in ROWS))
    return ["run", "--model", "bert", "--train", str(tmp_path / "train.tsv"),
            "--test", str(tmp_path / "test.tsv"), "--set", "header=false",
            "--set", "epochs=1", "--results", str(tmp_path / "r")]


def test_a_fine_tuned_encoder_is_saved_loaded_and_evaluated(tmp_path, encoder,
                                                            capsys):
    argv = _files(tmp_path)
    main([*argv, "--set", f"pretrained_name={encoder}", "--save-model",
          str(tmp_path / "m")])
    out = capsys.readouterr().out
    assert f"at lr {FINETUNE_LR:g} (the default for a pretrained encoder" in out
    (file,) = (tmp_path / "r").glob("*.json")
    result = json.loads(file.read_text())
    assert result["config"]["train"]["lr"] == FINETUNE_LR
    saved = load_model(tmp_path / "m")
    assert saved.name == "bert" and saved.labels == ["neg", "pos"]
    main(["evaluate", "--model", str(tmp_path / "m"), "--test",
          str(tmp_path / "test.tsv")])
    printed = capsys.readouterr().out.splitlines()
    assert printed[1] == f"accuracy\t{result['metrics']['test_accuracy']:.4f}"


def test_an_lr_given_is_kept(tmp_path, encoder, capsys):
    main([*_files(tmp_path), "--set", f"pretrained_name={encoder}", "--set",
          "lr=1e-4"])
    assert "the default for a pretrained encoder" not in capsys.readouterr().out
    (file,) = (tmp_path / "r").glob("*.json")
    assert json.loads(file.read_text())["config"]["train"]["lr"] == 1e-4


def test_housekeeping_removes_the_checkpoints_a_results_file_replaced(
        tmp_path, capsys):
    rows = [("pos", "a warm funny film"), ("neg", "a dull tedious mess")] * 10
    for name in ("train.tsv", "test.tsv"):
        (tmp_path / name).write_text("".join(f"{y}\t{x}\n" for y, x in rows))
    argv = ["run", "--model", "avg", "--train", str(tmp_path / "train.tsv"),
            "--test", str(tmp_path / "test.tsv"), "--set", "header=false",
            "--set", "epochs=1", "--set", "patience=5", "--results",
            str(tmp_path / "r"), "--force"]
    main([*argv, "--set", "dropout=0.1"])  # reaches its cap: checkpoint kept
    checkpoints = tmp_path / "r" / "checkpoints"
    [first] = checkpoints.iterdir()
    capsys.readouterr()
    main([*argv, "--set", "dropout=0.2"])  # replaces that run's results file
    out = capsys.readouterr().out
    assert not first.exists()
    [line] = [x for x in out.splitlines() if x.startswith("removed ")]
    assert line.startswith(f"removed 1 checkpoint of {first.name.split('__')[0]}__")
    assert first.name in line and "MB): its results file now describes this run" in line
    assert len(list(checkpoints.iterdir())) == 1  # the new run's, kept at its cap
