"""A checkpoint belongs to one run (issue 52): it lies in the run's results folder,
named by a hash of everything that determines the run, and only that run resumes from
it; a results file's settings and history always come from the one run that made it.
Tested through the command, ``main(argv)``."""

import json

import pytest

from command_helpers import stopped_fit
from labelled_files import write_tsv
from lamalib.experiments import runner
from lamalib.experiments.cli import main
from lamalib.train.checkpoint import read_checkpoint


@pytest.fixture
def files(tmp_path):
    return (write_tsv(tmp_path / "data" / "train.tsv", 80),
            write_tsv(tmp_path / "data" / "test.tsv", 20, 1000))


def _run(files, results, *extra):
    """``run`` of the avg model on ``files`` into ``results``; its results dict."""
    train, test = files
    main(["run", "--model", "avg", "--train", str(train), "--test", str(test),
          "--name", "mine", "--set", "header=false", "--set", "embed_dim=8",
          "--set", "lr=0.1", "--set", "patience=50", "--results", str(results),
          *extra])
    [path] = results.glob("run__avg__mine__s0.json")
    return json.loads(path.read_text())


def _interrupted(files, results, monkeypatch, *extra):
    """The same ``run``, stopped by Ctrl-C after its second epoch's checkpoint."""
    real_fit = runner.fit
    monkeypatch.setattr(runner, "fit", stopped_fit(real_fit, 2))
    with pytest.raises(KeyboardInterrupt):
        _run(files, results, *extra)
    monkeypatch.setattr(runner, "fit", real_fit)
    assert not list(results.glob("*.json"))


def _trajectory(result):
    """Every number of the run but the clock's."""
    return ([{k: v for k, v in h.items() if k != "seconds"} for h in result["history"]],
            result["metrics"])


def test_checkpoints_lie_in_the_runs_own_results_folder(tmp_path, files):
    _run(files, tmp_path / "r", "--set", "epochs=2")  # the cap comes first: kept
    [ckpt] = (tmp_path / "r").rglob("*.pt")
    assert ckpt.relative_to(tmp_path / "r").parts[0] == "checkpoints"
    assert read_checkpoint(ckpt)["epoch"] == 2


def test_a_setting_changed_after_ctrl_c_starts_afresh(
        tmp_path, files, monkeypatch, capsys):
    _interrupted(files, tmp_path / "r", monkeypatch, "--set", "dropout=0.5",
                 "--set", "epochs=3")
    capsys.readouterr()
    after = _run(files, tmp_path / "r", "--set", "dropout=0.3", "--set", "epochs=3")
    out = capsys.readouterr().out
    assert "Resuming" not in out
    assert "ignored" in out  # the other run's checkpoint: one line says so
    assert after["config"]["model_options"]["dropout"] == 0.3
    fresh = _run(files, tmp_path / "fresh", "--set", "dropout=0.3",
                 "--set", "epochs=3")
    assert _trajectory(after) == _trajectory(fresh)
    # the interrupted run's checkpoint is kept: its own command still resumes it
    resumed = _run(files, tmp_path / "r2", "--set", "dropout=0.5", "--set",
                   "epochs=3", "--checkpoints", str(tmp_path / "r" / "checkpoints"))
    assert "Resuming" in capsys.readouterr().out
    assert [h["epoch"] for h in resumed["history"]] == [1, 2, 3]


def test_the_same_settings_resume_after_ctrl_c(tmp_path, files, monkeypatch, capsys):
    _interrupted(files, tmp_path / "r", monkeypatch, "--set", "epochs=3")
    resumed = _run(files, tmp_path / "r", "--set", "epochs=3")
    assert "continuing at epoch 3 of 3" in capsys.readouterr().out
    straight = _run(files, tmp_path / "straight", "--set", "epochs=3")
    assert _trajectory(resumed) == _trajectory(straight)


@pytest.mark.parametrize("shared", [False, True])
def test_a_lower_cap_in_a_fresh_results_folder_records_its_own_epochs(
        tmp_path, files, capsys, shared):
    where = ["--checkpoints", str(tmp_path / "c")] if shared else []
    _run(files, tmp_path / "a", "--set", "epochs=3", *where)  # cap reached: kept
    [kept] = (tmp_path / ("c" if shared else "a")).rglob("*.pt")
    capsys.readouterr()
    one = _run(files, tmp_path / "b", "--set", "epochs=1", *where)
    assert "continuing" not in capsys.readouterr().out
    assert one["config"]["train"]["epochs"] == 1
    assert [h["epoch"] for h in one["history"]] == [1]
    assert read_checkpoint(kept)["epoch"] == 3  # the longer run's is not lost


def test_the_same_name_in_two_results_folders_keeps_two_checkpoints(tmp_path, files):
    _run(files, tmp_path / "r1", "--set", "epochs=2")
    _run(files, tmp_path / "r2", "--set", "epochs=2")
    [one] = (tmp_path / "r1").rglob("*.pt")
    [two] = (tmp_path / "r2").rglob("*.pt")
    assert read_checkpoint(one)["epoch"] == read_checkpoint(two)["epoch"] == 2


def test_another_learning_rate_in_a_shared_folder_trains_its_own_run(
        tmp_path, files, monkeypatch, capsys):
    shared = ["--checkpoints", str(tmp_path / "c")]
    _interrupted(files, tmp_path / "r", monkeypatch, "--set", "epochs=3", *shared)
    other = _run(files, tmp_path / "r", "--set", "epochs=3", "--set", "lr=0.02",
                 *shared)  # no traceback: the other run's checkpoint is ignored
    fresh = _run(files, tmp_path / "fresh", "--set", "epochs=3", "--set", "lr=0.02")
    assert _trajectory(other) == _trajectory(fresh)
    assert len(list((tmp_path / "c").rglob("*.pt"))) == 2  # each run its own
