"""``attention --file FILE`` and ``attention -``: the text from a file or from
standard input (a long text exceeds the shell's argument limit) gives the same table
as the TEXT argument; one-line errors otherwise."""

import io

import pytest
import torch

from command_helpers import usage_error
from lamalib.data import Vocab
from lamalib.experiments.cli import main
from lamalib.models import build_model
from lamalib.models.saved import save_model

TEXT = "a warm and funny film"
OPTIONS = dict(embed_dim=8, hidden_size=6, d_a=5, hops=3, mlp_size=8)


@pytest.fixture
def folder(tmp_path):
    vocab = Vocab.build([TEXT, "a dull , tedious mess"])
    torch.manual_seed(0)
    model = build_model("san", vocab_size=len(vocab), num_classes=2, **OPTIONS)
    return save_model(model.eval(), vocab, ["neg", "pos"], tmp_path / "san",
                      name="san", options=OPTIONS)


def _table(capsys, argv) -> list[str]:
    main(argv)
    return capsys.readouterr().out.splitlines()


def test_file_and_stdin_give_the_text_argument_s_table(tmp_path, capsys, folder,
                                                       monkeypatch):
    expected = _table(capsys, ["attention", "--model", str(folder), TEXT])
    assert [r.split("\t")[0] for r in expected[2:]] == TEXT.split()
    path = tmp_path / "text.txt"
    path.write_text("a warm and\nfunny film\n")  # line breaks read as spaces
    assert _table(capsys, ["attention", "--model", str(folder), "--file",
                           str(path)]) == expected
    for argv in (["-"], ["--file", "-"]):
        monkeypatch.setattr("sys.stdin", io.StringIO(TEXT + "\n"))
        assert _table(capsys, ["attention", "--model", str(folder), *argv]) == expected


def test_attention_input_errors_are_one_line(tmp_path, folder, monkeypatch):
    path = tmp_path / "text.txt"
    path.write_text(TEXT)
    base = ["attention", "--model", str(folder)]
    assert usage_error(base) == ('give the text: attention --model DIR "TEXT", '
                                 "--file FILE or - (standard input)")
    assert usage_error([*base, TEXT, "--file", str(path)]) == (
        f"give the text once: as TEXT or with --file {path}, not both")
    assert usage_error([*base, "--file", str(tmp_path / "no.txt")]) == (
        f"--file {tmp_path / 'no.txt'}: no such file (give a file holding the text)")
    monkeypatch.setattr("sys.stdin", io.StringIO(" \n"))
    assert usage_error([*base, "-"]) == (
        "standard input holds no text; give at least one word")


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path, folder):
    import os
    import subprocess
    import sys

    path = tmp_path / "long.txt"
    path.write_text("a warm and funny film " * 2000)  # a table far beyond a pipe
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.Popen([sys.executable, "-m", "lamalib.experiments", "attention",
                             "--model", str(folder), "--file", str(path),
                             "--max-len", "10000"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert done.stdout.readline().startswith(b"# san")  # as `| head -1` reads
    done.stdout.close()
    err = done.stderr.read().decode()
    assert done.wait() == 1 and "Traceback" not in err and "Broken" not in err
