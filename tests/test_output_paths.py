"""Every folder or file a command writes is checked before any data is read (issue
52): one line naming the option and what to do, exit code 2, nothing trained first
and lost at the end."""

import os

import pytest

from command_helpers import usage_error
from labelled_files import write_tsv
from lamalib.experiments import runner

ROOT = os.name != "nt" and os.geteuid() == 0


@pytest.fixture
def files(tmp_path):
    return (write_tsv(tmp_path / "train.tsv", 40),
            write_tsv(tmp_path / "test.tsv", 10, 1000))


@pytest.fixture
def no_data(monkeypatch):
    def load_data(spec):
        raise AssertionError("data read before the output folders were checked")

    monkeypatch.setattr(runner, "load_data", load_data)


def _run(tmp_path, files, *extra):
    train, test = files
    return ["run", "--model", "avg", "--train", str(train), "--test", str(test),
            "--results", str(tmp_path / "r"), *extra]


@pytest.mark.parametrize("option", ["--results", "--checkpoints", "--save-model"])
def test_an_output_folder_under_a_file_is_one_line_before_data(
        tmp_path, files, no_data, option):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder\n")
    target = blocker / "out"
    argv = [a for a in _run(tmp_path, files) if option != "--results"
            or a not in ("--results", str(tmp_path / "r"))]
    message = usage_error([*argv, option, str(target)])
    assert message.startswith(f"{option} {target}: ")
    assert f"{blocker} is a file" in message


@pytest.mark.parametrize("option", ["--results", "--checkpoints", "--save-model"])
def test_an_output_folder_that_is_a_file_is_one_line(tmp_path, files, no_data, option):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder\n")
    argv = [a for a in _run(tmp_path, files) if option != "--results"
            or a not in ("--results", str(tmp_path / "r"))]
    assert "is a file" in usage_error([*argv, option, str(blocker)])


@pytest.mark.skipif(ROOT, reason="root writes into a read-only folder (chmod does "
                                 "not stop it); the file-on-the-way tests cover root")
@pytest.mark.parametrize("option", ["--results", "--checkpoints", "--save-model"])
def test_a_read_only_output_folder_is_one_line_before_data(
        tmp_path, files, no_data, option):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        argv = [a for a in _run(tmp_path, files) if option != "--results"
                or a not in ("--results", str(tmp_path / "r"))]
        message = usage_error([*argv, option, str(locked / "out")])
    finally:
        locked.chmod(0o700)
    assert f"{locked} is not writable" in message


def test_reproduce_checks_its_folders_before_data(tmp_path, no_data, monkeypatch):
    from lamalib.experiments import cli

    def no_run(*args, **kwargs):
        raise AssertionError("a cell ran before the output folders were checked")

    monkeypatch.setattr(cli, "run", no_run)
    blocker = tmp_path / "notes.txt"
    blocker.write_text("x\n")
    message = usage_error(["reproduce", "lama", "--datasets", "synthetic_sentiment",
                      "--models", "avg", "--results", str(blocker / "r")])
    assert message.startswith(f"--results {blocker / 'r'}: ")


def test_html_under_a_file_is_one_line_before_the_model_is_read(tmp_path):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("x\n")
    message = usage_error(["attention", "--model", str(tmp_path / "no-model"), "a text",
                      "--html", str(blocker / "view.html")])
    assert message.startswith(f"--html {blocker / 'view.html'}: ")
    assert f"{blocker} is a file" in message
