"""A user's runs go to their own results folder ($LAMALIB_RESULTS, else
lamalib-results/ in the current folder): the course's committed results/ never blocks
them, and ``report`` shows both, each row saying whose runs it holds."""

import json
from pathlib import Path

import pytest

from lamalib.experiments import results
from lamalib.experiments.cli import main
from lamalib.experiments.results import user_results_dir

GRID = ["reproduce", "lama", "--datasets", "synthetic_sentiment", "--models", "avg",
        "bow_mlp", "--set", "embed_dim=8", "--set", "word2vec_min_count=1"]


def _cells(out: list[str]) -> dict[str, str]:
    """The final table's status of each model's cell."""
    return {line.split()[0]: line.split("  ")[-1].strip() for line in out
            if line.split()[1:2] == ["synthetic_sentiment"]}


def test_the_default_folder_is_lamalib_results_or_the_env_var(monkeypatch, tmp_path):
    monkeypatch.setenv("LAMALIB_RESULTS", str(tmp_path / "mine"))
    assert user_results_dir() == tmp_path / "mine"
    monkeypatch.delenv("LAMALIB_RESULTS")
    assert user_results_dir() == Path("lamalib-results")


def test_a_fresh_clone_runs_every_cell_past_committed_files_made_otherwise(
        tmp_path, monkeypatch, capsys):
    clone = tmp_path / "clone"
    course = clone / "results"
    ckpt = ["--checkpoints", str(tmp_path / "c")]
    # the course's committed runs of both cells, made with other settings (1 epoch)
    main(GRID + ckpt + ["--set", "epochs=1", "--results", str(course)])
    committed = {p.name: p.read_bytes() for p in course.glob("*.json")}
    assert len(committed) == 2
    monkeypatch.setattr(results, "RESULTS_DIR", course)
    monkeypatch.delenv("LAMALIB_RESULTS")
    monkeypatch.chdir(clone)
    capsys.readouterr()

    main(GRID + ckpt + ["--set", "epochs=2"])  # the user's first run, no --results
    out = capsys.readouterr().out.splitlines()
    assert _cells(out) == {"avg": "ran", "bow_mlp": "ran"}
    assert "results files in lamalib-results/ (`report` shows them beside the " \
           "course's runs)" in out
    assert sorted(p.name for p in (clone / "lamalib-results").glob("*.json")) == \
        sorted(committed)
    assert {p.name: p.read_bytes() for p in course.glob("*.json")} == committed

    main(GRID + ckpt + ["--set", "epochs=2"])  # again: both complete
    assert _cells(capsys.readouterr().out.splitlines()) == {
        "avg": "skipped (complete)", "bow_mlp": "skipped (complete)"}

    main(["report"])
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    runs = sorted((row.split()[header.index("model")],
                   row.split()[header.index("runs")]) for row in lines[1:])
    assert runs == [("avg", "course"), ("avg", "yours"), ("bow_mlp", "course"),
                    ("bow_mlp", "yours")]
    main(["report", "--no-course"])
    assert "course" not in capsys.readouterr().out
    main(["report", "--results", "results"])  # a maintainer's view: the course's
    lines = capsys.readouterr().out.splitlines()
    assert [row.split()[lines[0].split().index("runs")] for row in lines[1:]] == [
        "course", "course"]


def test_a_maintainer_regenerates_committed_files_only_when_asked(
        tmp_path, monkeypatch, capsys):
    course = tmp_path / "results"
    ckpt = ["--checkpoints", str(tmp_path / "c")]
    main(GRID + ckpt + ["--set", "epochs=1", "--results", str(course)])
    monkeypatch.setattr(results, "RESULTS_DIR", course)
    capsys.readouterr()
    main(GRID + ckpt + ["--set", "epochs=2", "--results", str(course)])
    out = capsys.readouterr().out.splitlines()
    assert _cells(out) == {m: "not run: other settings in the results file"
                           for m in ("avg", "bow_mlp")}
    assert out[-1].startswith("2 of 2 cells were not run") and "--force" in out[-1]
    main(GRID + ckpt + ["--set", "epochs=2", "--results", str(course), "--force"])
    assert _cells(capsys.readouterr().out.splitlines()) == {"avg": "ran",
                                                             "bow_mlp": "ran"}


@pytest.mark.parametrize("command", ["run", "reproduce", "vectors", "report"])
def test_help_names_the_default_results_folder(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "$LAMALIB_RESULTS if set, else lamalib-results/" in text
    assert "--results results" in text


def test_an_option_sweep_is_read_per_value_from_its_folders(tmp_path):
    def write(folder, name, acc):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / name).write_text(json.dumps(
            {"model": "san", "metrics": {"test_accuracy": acc}}))

    write("penalty_0", "lama__san__r8__s0.json", 0.9)
    write("penalty_0", "lama__san__r8__s1.json", 0.8)
    write("penalty_0.1", "lama__san__r8__s0.json", 0.7)
    write("other_1", "lama__san__r8__s0.json", 0.6)  # another option: skipped
    write("penalty_x", "lama__san__r8__s0.json", 0.5)  # not a value: skipped
    (tmp_path / "penalty_1").mkdir()  # a value with no run yet
    sweep = results.load_option_sweep(tmp_path, "penalty")
    assert sorted(sweep) == [0.0, 0.1, 1.0]
    assert [r["metrics"]["test_accuracy"] for r in sweep[0.0]] == [0.9, 0.8]
    assert [r["file"] for r in sweep[0.1]] == ["lama__san__r8__s0.json"]
    assert sweep[1.0] == []
