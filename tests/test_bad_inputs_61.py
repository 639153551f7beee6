"""The bad inputs of issue 61's item 5, each one line and exit code 2 before any work
it would waste: an optional package missing (the extra to install named), a figure
name matplotlib cannot write, a test share that leaves nothing to validate on, a
device as a data file, UTF-16 without its byte-order mark, a read-only file system, a
vectors file that is not there."""

import subprocess
import sys

import pytest
import torch

from command_helpers import usage_error
from lamalib.data import Vocab
from lamalib.data.textio import utf16_without_bom
from lamalib.experiments import options, runner
from lamalib.experiments.options import missing_dependency
from lamalib.models import build_model
from lamalib.models.saved import save_model


@pytest.fixture
def files(tmp_path):
    rows = [("pos", "a warm funny film"), ("neg", "a dull tedious mess")] * 10
    for name in ("train.tsv", "test.tsv"):
        (tmp_path / name).write_text("".join(f"{y}\t{x}\n" for y, x in rows))
    return tmp_path / "train.tsv", tmp_path / "test.tsv"


def _run(tmp_path, train, *more):
    return ["run", "--model", "avg", "--train", str(train), "--results",
            str(tmp_path / "r"), "--set", "header=false", *more]


def _command(argv, block=None):
    code = ("import sys, runpy\n"
            + (f"sys.modules[{block!r}] = None\n" if block else "")
            + f"sys.argv = ['x', *{argv!r}]\n"
            "runpy.run_module('lamalib.experiments', run_name='__main__')\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True)


@pytest.mark.parametrize("argv", [
    ["attention", "--model", "all-MiniLM-L6-v2", "a text"],
    ["run", "--model", "bert", "--dataset", "movie_reviews", "--results", "RX"],
])
def test_a_missing_optional_package_names_its_extra(tmp_path, argv):
    done = _command(argv, block="transformers")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: this command needs the Python package 'transformers', which the "
        "library alone does not install: pip install 'lamalib[bert]' (in a clone: "
        "pip install -e '.[bert]')"]


def test_missing_dependency_words():
    assert missing_dependency("transformers.models") .startswith(
        "this command needs the Python package 'transformers'")
    assert missing_dependency("foo") == ("this command needs the Python package "
                                         "'foo', which is not installed: pip "
                                         "install foo")


def test_a_figure_name_that_is_no_image_is_refused_first(tmp_path, files,
                                                         monkeypatch):
    vocab = Vocab.build(["a warm film"])
    model = build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=4)
    folder = save_model(model, vocab, ["neg", "pos"], tmp_path / "m", name="avg",
                        options={"embed_dim": 4})

    def no_model(*args, **kwargs):
        raise AssertionError("the model was read before --figure was checked")

    monkeypatch.setattr("lamalib.models.saved.load_model", no_model)
    for name, says in (("c.txt", "'.txt' is not an image format"),
                       ("c", "no suffix to tell the image format")):
        assert usage_error(["evaluate", "--model", str(folder), "--test",
                            str(files[1]), "--figure", str(tmp_path / name)]
                           ).startswith(f"--figure {tmp_path / name}: {says}")


def test_a_test_share_that_leaves_nothing_to_validate_on(tmp_path, files):
    with pytest.raises(ValueError) as caught:
        runner_main(_run(tmp_path, files[0], "--set", "test_fraction=0.999"))
    assert str(caught.value) == (
        "test_fraction=0.999 leaves 2 of 20 examples for training (one a class), too "
        "few to split a validation set off as well; give a smaller share, e.g. "
        "test_fraction=0.1, or --valid FILE")


def runner_main(argv):
    from lamalib.experiments.cli import main

    return main(argv)


def test_a_device_is_not_a_data_file(tmp_path, files):
    assert usage_error(_run(tmp_path, "/dev/null", "--test", str(files[1]))) == (
        "--train /dev/null: not a regular file (a device, a pipe or a socket); give "
        "a data file")


def test_utf16_without_a_bom_is_named(tmp_path, files):
    path = tmp_path / "u16.tsv"
    path.write_bytes("pos\ta warm film\nneg\ta dull film\n".encode("utf-16-le"))
    with pytest.raises(ValueError) as caught:
        runner_main(_run(tmp_path, path, "--test", str(files[1])))
    assert str(caught.value) == (
        f"{path}: looks like UTF-16 without a byte-order mark (every other byte is "
        "0); pass encoding='utf-16-le', or re-save the file as UTF-8")
    assert utf16_without_bom("ab".encode("utf-16-be")) == "utf-16-be"
    assert utf16_without_bom("dở tệ quá".encode("utf-8")) is None
    assert utf16_without_bom("ab\x00cd".encode()) is None  # one NUL is not UTF-16


def test_a_read_only_file_system_is_not_a_permission_to_chmod(tmp_path, files,
                                                              monkeypatch):
    monkeypatch.setattr(options, "read_only", lambda path: True)
    message = usage_error(_run(tmp_path, files[0], "--test", str(files[1])))
    assert message == (f"--results {tmp_path / 'r'}: {tmp_path} is on a read-only "
                       "file system; give a folder on a writable one")
    assert "chmod" not in message


def test_a_vectors_file_that_is_not_there(tmp_path, files, monkeypatch):
    def no_data(spec):
        raise AssertionError("data read before --set embeddings was checked")

    monkeypatch.setattr(runner, "load_data", no_data)
    assert usage_error(_run(tmp_path, files[0], "--test", str(files[1]), "--set",
                            "embeddings=glove.txt")) == (
        "--set embeddings=glove.txt: no such file; embeddings takes random, word2vec "
        "or a vectors file (GloVe's or word2vec's text format)")
