"""Input errors of ``python -m lamalib.experiments``: one line that names the option
or file and what to do, exit code 2, no traceback, raised before any data is read."""

import subprocess
import sys

import pytest

from command_helpers import usage_error
from labelled_files import write_tsv
from lamalib.experiments import runner
from lamalib.experiments.cli import main


_tsv = write_tsv


@pytest.fixture
def files(tmp_path):
    return (_tsv(tmp_path / "train.tsv", 40), _tsv(tmp_path / "test.tsv", 10, 1000))


def _base(tmp_path, train, test):
    return ["run", "--model", "avg", "--train", str(train), "--test", str(test),
            "--results", str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")]


@pytest.mark.parametrize("setting, says", [
    ("epochs=abc", "--set epochs=abc: epochs takes a whole number >= 1"),
    ("epochs=0", "epochs takes a whole number >= 1"),
    ("lr=fast", "--set lr=fast: lr takes a number > 0"),
    ("lr=0", "lr takes a number > 0"),
    ("header=maybe", "--set header=maybe: header takes true or false"),
    ("embed_dim=-5", "--set embed_dim=-5: embed_dim takes a whole number >= 1"),
    ("dropout=1", "dropout takes a number in [0, 1)"),
    ("patience=2.5", "patience takes a whole number >= 1"),
    ("max_len=0", "max_len takes a whole number >= 1 or none"),
    ("optimizer=fast", "optimizer takes one of adamw, adam, sgd"),
    ("betas=0.9,2", "betas takes numbers in [0, 1) separated by commas"),
    ("encoding=klingon", "encoding takes a text encoding"),
    ("label_col=-1", "label_col takes a whole number >= 0"),
])
def test_a_bad_option_value_is_one_line_before_any_data_is_read(
        tmp_path, files, monkeypatch, setting, says):
    def no_data(spec):
        raise AssertionError("data read before the options were checked")

    monkeypatch.setattr(runner, "load_data", no_data)
    message = usage_error([*_base(tmp_path, *files), "--set", setting])
    assert says in message


def test_good_option_values_keep_their_types():
    from lamalib.experiments.cli import apply_settings

    fields = apply_settings({"model": "avg"}, [
        "epochs=2", "lr=0.5", "header=False", "max_len=none", "betas=0.9,0.98",
        "clip_grad=none", "dropout=0", "optimizer=sgd", "delimiter=;",
        "text_col=2", "label_col=label"])
    assert fields["train"] == {"epochs": 2, "lr": 0.5, "betas": [0.9, 0.98],
                               "clip_grad": None, "optimizer": "sgd"}
    assert fields["max_len"] is None
    assert fields["model_options"] == {"dropout": 0.0}
    assert fields["file_options"] == {"header": False, "delimiter": ";",
                                      "text_col": 2, "label_col": "label"}


def test_seeds_must_be_at_least_one(tmp_path, files):
    assert "--seeds 0: --seeds takes a whole number >= 1" in usage_error(
        [*_base(tmp_path, *files), "--seeds", "0"])


def test_the_command_prints_one_line_and_exits_2(tmp_path, files):
    done = subprocess.run(
        [sys.executable, "-m", "lamalib.experiments", *_base(tmp_path, *files),
         "--set", "epochs=abc"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: --set epochs=abc: epochs takes a whole number >= 1"]


def _command(*argv, before=""):
    """``python -m lamalib.experiments ARGV`` after the Python lines ``before``."""
    code = (f"import runpy, sys\n{before}\nsys.argv = ['lamalib.experiments', "
            f"*{list(argv)!r}]\nrunpy.run_module('lamalib.experiments', "
            "run_name='__main__')")
    env = {**__import__("os").environ, "LAMALIB_PROGRESS": "0"}  # no bars on stderr
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=300, env=env)


def _one_line(done, *says):
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for text in says:
        assert text in lines[0]


def test_a_missing_file_a_folder_and_a_missing_test_are_one_line(tmp_path, files):
    train, test = files
    missing = tmp_path / "nope.tsv"
    _one_line(_command(*_base(tmp_path, missing, test)),
              f"--train {missing}: no such file")
    _one_line(_command(*_base(tmp_path, train, tmp_path)),
              f"--test {tmp_path}: is a folder")
    message = usage_error(["run", "--model", "avg", "--train", str(train), "--valid",
                      str(missing), "--test", str(test)])
    assert message.startswith(f"--valid {missing}: no such file")
    assert "--test FILE" in usage_error(["run", "--model", "avg", "--train", str(train)])


@pytest.mark.skipif(sys.platform == "win32" or __import__("os").geteuid() == 0,
                    reason="root reads anything")
def test_an_unreadable_file_is_one_line(tmp_path, files):
    train, test = files
    train.chmod(0)
    assert "cannot be read" in usage_error(_base(tmp_path, train, test))


def test_ctrl_c_says_where_the_run_resumes_and_exits_130(tmp_path, files):
    stop = """
from lamalib.experiments import runner
real_fit = runner.fit
def fit(*args, **kwargs):
    def stop(epoch, history, model):
        if epoch == 2:
            raise KeyboardInterrupt
    kwargs["callbacks"] = [*kwargs["callbacks"], stop]
    return real_fit(*args, **kwargs)
runner.fit = fit
"""
    argv = [*_base(tmp_path, *files), "--set", "header=false", "--set", "epochs=3",
            "--set", "embed_dim=4"]
    done = _command(*argv, before=stop)
    assert done.returncode == 130 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "interrupted; the run resumes from epoch 3 with the same command"]
    assert list((tmp_path / "r").glob("*.lock")) == []
    again = _command(*argv)
    assert again.returncode == 0, again.stderr
    assert "continuing at epoch 3 of 3" in again.stdout


def test_ctrl_c_before_training_exits_130_in_one_line(tmp_path, files):
    before = """
from lamalib.experiments import runner
def load_data(spec):
    raise KeyboardInterrupt
runner.load_data = load_data
"""
    done = _command(*_base(tmp_path, *files), before=before)
    assert done.returncode == 130 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("interrupted; the same command goes on")


def test_a_run_another_process_is_writing_is_one_line(tmp_path, files):
    import os

    from lamalib.experiments.spec import RunSpec

    name = RunSpec(dataset="file", train_file=str(files[0]), model="avg").result_name()
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / (name + ".lock")).write_text(str(os.getppid()))  # alive
    done = _command(*_base(tmp_path, *files), "--set", "header=false")
    _one_line(done, "another run", "is writing", name, "wait for it to finish")


def test_a_header_row_read_as_data_is_warned_about(tmp_path):
    import warnings

    from lamalib.data.table import HeaderWarning, load_table

    path = tmp_path / "news.tsv"
    path.write_text("label\ttext\npos\tgood\nneg\tbad\n")
    with pytest.warns(HeaderWarning, match=r"news.tsv, line 1: .*--set header=true"):
        data = load_table(path, header=False)
    assert "label" in data.label_names  # still read as asked: the warning says so
    path.write_text("category\theadline\npos\tgood\nneg\tbad\n")
    with pytest.warns(HeaderWarning, match="header=True"):
        load_table(path, header=False)
    path.write_text("topic\ttext\npos\tgood\nneg\tbad\n")
    with pytest.warns(HeaderWarning):  # the text column's usual name
        load_table(path, header=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_table(path, label_col="topic")  # read as a header: nothing to say
        path.write_text("pos\ttext\npos\tgood\nneg\tbad\n")  # 'pos' is a class
        load_table(path, header=False)


def test_the_command_warns_in_one_line(tmp_path, files):
    train, test = files
    train.write_text("label\ttext\n" + train.read_text())
    done = _command(*_base(tmp_path, train, test), "--set", "header=false",
                    "--set", "epochs=1", "--set", "embed_dim=4")
    assert done.returncode == 0, done.stderr
    warning = [line for line in done.stderr.splitlines() if "header" in line]
    assert len(warning) == 1 and warning[0].startswith(f"warning: {train}, line 1:")
    assert "--set header=true" in warning[0]


def test_several_text_columns_are_joined(tmp_path):
    from lamalib.data.table import TEXT_SEP, load_splits, load_table

    path = tmp_path / "news.csv"
    path.write_text('label,title,description\nbiz,"Stocks rise","Markets, up"\n'
                    'sport,Cup final,\n')
    data = load_table(path, text_col=["title", "description"])
    assert TEXT_SEP == " . "
    assert data.texts == ["Stocks rise . Markets, up", "Cup final"]  # blank left out
    assert load_table(path, text_col="title").texts == ["Stocks rise", "Cup final"]
    plain = tmp_path / "news.tsv"
    plain.write_text("biz\tStocks rise\tMarkets up\nsport\tCup final\tA win\n")
    train, _, test = load_splits(plain, test=plain, header=False, text_col=[1, 2],
                                 text_sep="\n")
    assert train.texts == ["Stocks rise\nMarkets up", "Cup final\nA win"]
    with pytest.raises(ValueError, match="no column 'body'"):
        load_table(path, text_col=["title", "body"])


def test_the_command_takes_several_text_columns_and_records_the_separator(
        tmp_path):
    import json

    rows = [f"{'pos' if i % 2 else 'neg'}\ttitle {i}\t"
            f"{'great' if i % 2 else 'awful'} film {i}" for i in range(30)]
    train, test = tmp_path / "train.tsv", tmp_path / "test.tsv"
    train.write_text("\n".join(rows) + "\n")
    test.write_text("\n".join(rows[:10]) + "\n")
    main([*_base(tmp_path, train, test), "--set", "header=false", "--set",
          "text_col=1,2", "--set", "epochs=1", "--set", "embed_dim=4"])
    (result,) = (tmp_path / "r").glob("*.json")
    config = json.loads(result.read_text())["config"]
    assert config["file_options"] == {"header": False, "text_col": [1, 2],
                                      "text_sep": " . "}


def test_a_bad_lamalib_seed_is_one_line_before_anything_runs(tmp_path, files):
    env = {**__import__("os").environ, "LAMALIB_SEED": "x"}
    done = subprocess.run(
        [sys.executable, "-m", "lamalib.experiments", *_base(tmp_path, *files)],
        capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: LAMALIB_SEED='x' is not a seed")
    assert not (tmp_path / "r").exists()  # nothing was run or written


def test_a_file_option_in_a_library_message_is_named_as_the_command_takes_it(
        tmp_path, monkeypatch):
    """One line: the library's ``encoding='latin-1'`` becomes ``--set
    encoding=latin-1``; a failed first run leaves no empty results folder behind."""
    train = tmp_path / "train.tsv"
    train.write_bytes("neg\tdull film\npos\tcafé film\n".encode("latin-1"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LAMALIB_RESULTS")
    done = subprocess.run([sys.executable, "-m", "lamalib.experiments", "run",
                           "--model", "avg", "--train", "train.tsv", "--test",
                           "train.tsv", "--set", "header=false"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: train.tsv, line 2: the bytes b'\\xe9' are "
                                  "not valid utf-8")
    assert "--set encoding=latin-1" in done.stderr and "encoding='" not in done.stderr
    assert not (tmp_path / "lamalib-results").exists()


def test_in_command_words():
    from lamalib.experiments.cli import FILE_KEYS
    from lamalib.experiments.options import in_command_words

    assert in_command_words("use format='csv' for delimiter=';'; pass header=True, "
                            "text_col= and label_col=; text_col=[] names none",
                            FILE_KEYS) == (
        "use --set format=csv for --set delimiter=';'; pass --set header=true, "
        "--set text_col=... and --set label_col=...; text_col=[] names none")
