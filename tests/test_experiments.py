"""The experiments command on files it has never seen: results with provenance,
skip and resume, report beside published figures, and clear errors for bad input."""

import json
import os
import subprocess
import sys

import pytest
import torch

from command_helpers import stopped_fit
from labelled_files import write_tsv
from lamalib.experiments import RunSpec, results_table, run
from lamalib.experiments.cli import main
from lamalib.experiments.results import ResultsConflict, run_lock
from lamalib.experiments.runner import LongTextWarning
from lamalib.train.checkpoint import read_checkpoint
from lamalib.provenance import write_json_atomic
from lamalib.models import build_model, model_options


_tsv = write_tsv


@pytest.fixture
def files(tmp_path):
    return (_tsv(tmp_path / "train.tsv", 80), _tsv(tmp_path / "test.tsv", 20, 1000))


def _run_cli(tmp_path, files, *extra):
    train, test = files
    main(["run", "--model", "avg", "--train", str(train), "--test", str(test),
          "--set", "header=false", "--set", "epochs=3", "--set", "embed_dim=8",
          "--set", "lr=0.1", "--results", str(tmp_path / "results"),
          "--checkpoints", str(tmp_path / "ckpt"), *extra])


def test_run_on_a_users_files_writes_a_results_file_with_provenance(
        tmp_path, files, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_cli(tmp_path, files)
    out = capsys.readouterr().out
    assert "test acc" in out and "avg" in out  # the summary table
    [path] = (tmp_path / "results").glob("*.json")
    assert path.name == f"run__avg__{tmp_path.name}__s0.json"  # the folder: train.tsv
    r = json.loads(path.read_text())
    for key in ("experiment", "model", "dataset", "profile", "config", "metrics",
                "history", "params", "hardware", "started", "seconds", "git_commit",
                "command", "dataset_identity", "peak_memory_mb", "lamalib", "code"):
        assert key in r, key
    assert len(r["code"]["sha256"]) == 64  # the code that ran, even without its commit
    assert r["dataset_identity"]["sizes"] == {"train": 72, "valid": 8, "test": 20}
    assert r["dataset_identity"]["label_names"] == ["neg", "pos"]
    assert len(r["dataset_identity"]["sha256"]["test"]) == 64
    assert r["config"]["train"]["epochs"] == 3 and r["config"]["model_options"] == {
        "embed_dim": 8}
    # Every model option, the defaults included, so a changed default cannot blur it.
    defaults = {k: v for k, v in model_options("avg").items()
                if k not in ("vocab_size", "num_classes", "pretrained",
                             "freeze_embeddings")}
    assert r["model_config"] == {**defaults, "embed_dim": 8} and "dropout" in defaults
    assert [h["epoch"] for h in r["history"]] == [1, 2, 3]
    assert all(h["seconds"] > 0 for h in r["history"])
    # The words decide the label: a trained AVG beats chance on unseen sentences.
    assert r["metrics"]["test_accuracy"] >= 0.8
    assert r["command"].startswith("python -m lamalib.experiments run --model avg")
    assert r["hardware"]["device"] in ("cpu", "cuda") and r["params"] > 0


def test_a_complete_run_is_skipped(tmp_path, files, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_cli(tmp_path, files)
    [path] = (tmp_path / "results").glob("*.json")
    before = path.read_text()
    _run_cli(tmp_path, files)
    assert "is complete: skipped" in capsys.readouterr().out
    assert path.read_text() == before


def test_a_complete_run_of_other_data_with_the_same_file_name_is_kept_not_reused(
        tmp_path, files, capsys, monkeypatch):
    # two folders of the same name, each with a train.tsv, give one results name:
    # the second run used to be "skipped" and reported the first's accuracy as its own
    monkeypatch.chdir(tmp_path)
    _run_cli(tmp_path, files)
    [path] = (tmp_path / "results").glob("*.json")
    before = path.read_text()
    other = tmp_path / "elsewhere" / tmp_path.name
    other.mkdir(parents=True)
    other_files = (_tsv(other / "train.tsv", 60, 500), _tsv(other / "test.tsv", 20, 9))
    with pytest.raises(ResultsConflict, match="train_file") as error:
        _run_cli(tmp_path, other_files)
    assert "--force" in str(error.value) and "--results" in str(error.value)
    assert path.read_text() == before  # kept
    # the same paths with new contents are another dataset too
    _tsv(files[0], 80, 77)
    with pytest.raises(ResultsConflict, match="SHA-256"):
        _run_cli(tmp_path, files)
    _run_cli(tmp_path, files, "--force")  # replaced on request
    assert json.loads(path.read_text())["dataset_identity"] != json.loads(before)[
        "dataset_identity"]


def test_a_complete_run_with_other_settings_is_kept_and_named(tmp_path, files,
                                                             monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_cli(tmp_path, files)  # 3 epochs
    [path] = (tmp_path / "results").glob("*.json")
    with pytest.raises(ResultsConflict, match="epochs: 3 -> 5"):
        _run_cli(tmp_path, files, "--set", "epochs=5")
    with pytest.raises(ResultsConflict, match="embed_dim"):
        _run_cli(tmp_path, files, "--set", "embed_dim=16")
    assert len(json.loads(path.read_text())["history"]) == 3


def test_the_command_line_names_a_conflict_in_one_line(tmp_path, files):
    train, test = files
    base = [sys.executable, "-m", "lamalib.experiments", "run", "--model", "avg",
            "--train", str(train), "--test", str(test), "--set", "header=false",
            "--set", "embed_dim=8", "--results", str(tmp_path / "r"),
            "--checkpoints", str(tmp_path / "c")]
    first = subprocess.run(base + ["--set", "epochs=1"], capture_output=True,
                           text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    done = subprocess.run(base + ["--set", "epochs=2"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "epochs: 1 -> 2" in done.stderr and "--set format" not in done.stderr


def test_reproduce_says_a_conflicting_cell_was_not_run_and_goes_on(
        tmp_path, capsys, monkeypatch):
    args = ["reproduce", "lama", "--datasets", "synthetic_sentiment",
            "--set", "embed_dim=8", "--set", "word2vec_min_count=1",
            "--results", str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")]
    main(args + ["--models", "avg", "--set", "epochs=1"])
    main(args + ["--models", "avg", "bow_mlp", "--set", "epochs=2"])
    out = capsys.readouterr().out
    assert "avg on synthetic_sentiment: not run" in out and "epochs: 1 -> 2" in out
    names = sorted(p.name for p in (tmp_path / "r").glob("*.json"))
    assert names == ["lama__avg__synthetic_sentiment__s0.json",
                     "lama__bow_mlp__synthetic_sentiment__s0.json"]


def test_reproduce_lists_every_cell_and_says_how_to_go_on_past_committed_results(
        tmp_path, capsys):
    """Complete files made with other settings (as results/ holds on a fresh clone)
    are kept; the final table lists every cell with its status and one line names
    --results DIR and --force; --force replaces the file."""
    args = ["reproduce", "lama", "--datasets", "synthetic_sentiment",
            "--set", "embed_dim=8", "--set", "word2vec_min_count=1",
            "--results", str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")]
    main(args + ["--models", "avg", "--set", "epochs=1"])
    committed = (tmp_path / "r" / "lama__avg__synthetic_sentiment__s0.json")
    before = committed.read_bytes()
    capsys.readouterr()
    main(args + ["--models", "avg", "bow_mlp", "--seeds", "2", "--set", "epochs=2"])
    out = capsys.readouterr().out.splitlines()
    rows = {tuple(x.split()[:3]): x for x in out
            if x.split()[1:2] == ["synthetic_sentiment"]}
    assert set(rows) == {(m, "synthetic_sentiment", s) for m in ("avg", "bow_mlp")
                         for s in ("0", "1")}
    assert rows[("avg", "synthetic_sentiment", "0")].endswith(
        "not run: other settings in the results file")
    assert rows[("avg", "synthetic_sentiment", "1")].endswith("ran")
    assert rows[("bow_mlp", "synthetic_sentiment", "0")].endswith("ran")
    assert out[-1].startswith("1 of 4 cells were not run")
    assert "--results DIR" in out[-1] and "--force" in out[-1]
    assert committed.read_bytes() == before  # never silently overwritten
    main(args + ["--models", "avg", "bow_mlp", "--seeds", "2", "--set", "epochs=2"])
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("1 of 4 cells were not run")  # avg s0, again
    assert sum(x.endswith("skipped (complete)") for x in out) == 3
    main(args + ["--models", "avg", "--seeds", "2", "--set", "epochs=2", "--force"])
    out = capsys.readouterr().out.splitlines()
    assert out[-3].endswith("ran") and out[-2].endswith("ran")
    assert out[-1].startswith("results files in ")
    assert "not run" not in "".join(out) and committed.read_bytes() != before


def test_reproduce_table_prints_the_seed_each_file_is_named_by(
        tmp_path, capsys, monkeypatch):
    """Under LAMALIB_SEED=k the table's seed column is the seed the run used and its
    results file carries (k, k+1, ...), not the position in ``--seeds``."""
    monkeypatch.setenv("LAMALIB_SEED", "1")
    main(["reproduce", "lama", "--datasets", "synthetic_sentiment", "--models", "avg",
          "--seeds", "2", "--set", "embed_dim=8", "--set", "word2vec_min_count=1",
          "--set", "epochs=1", "--results", str(tmp_path / "r"),
          "--checkpoints", str(tmp_path / "c")])
    rows = [x.split() for x in capsys.readouterr().out.splitlines()
            if x.split()[1:2] == ["synthetic_sentiment"]]
    assert [r[2] for r in rows] == ["1", "2"]
    assert sorted(p.name for p in (tmp_path / "r").glob("*.json")) == [
        "lama__avg__synthetic_sentiment__s1.json",
        "lama__avg__synthetic_sentiment__s2.json"]


def test_an_interrupted_run_resumes_from_its_checkpoint(tmp_path, files, monkeypatch):
    from lamalib.experiments import runner

    spec = RunSpec(model="avg", dataset="file", train_file=str(files[0]),
                   test_file=str(files[1]), file_options={"header": False},
                   model_options={"embed_dim": 8}, train={"epochs": 3, "lr": 0.1})
    real_fit = runner.fit
    monkeypatch.setattr(runner, "fit", stopped_fit(real_fit, 2))
    with pytest.raises(KeyboardInterrupt):
        run(spec, tmp_path / "results", [], tmp_path / "ckpt")
    assert list((tmp_path / "results").glob("*.json")) == []  # nothing misleading
    # the first process's two epochs took (say) 100 s each: the run's time counts them
    [ckpt] = (tmp_path / "ckpt").rglob("*.pt")
    state = read_checkpoint(ckpt)
    for record in state["history"]["records"]:
        record["seconds"] = 100.0
    torch.save(state, ckpt)
    monkeypatch.setattr(runner, "fit", real_fit)
    result = run(spec, tmp_path / "results", [], tmp_path / "ckpt")
    assert [h["epoch"] for h in result["history"]] == [1, 2, 3]
    assert 200 + result["history"][2]["seconds"] <= result["seconds"] < 250
    # it reached its cap of 3 epochs before patience ran out: the checkpoint is kept
    assert list((tmp_path / "ckpt").rglob("*.pt")) == [ckpt]


def _avg_spec(files, **train):
    return RunSpec(model="avg", dataset="file", train_file=str(files[0]),
                   test_file=str(files[1]), file_options={"header": False},
                   model_options={"embed_dim": 8}, train={"lr": 0.1, **train})


def _trajectory(result):
    # every number of the run but the clock's
    return ([{k: v for k, v in h.items() if k != "seconds"} for h in result["history"]],
            result["metrics"])


def test_a_run_that_early_stopping_ended_removes_its_checkpoint(tmp_path, files):
    # lr 0: the first epoch stays the best, so patience 1 stops the run at epoch 2
    result = run(_avg_spec(files, epochs=10, patience=1, lr=0.0), tmp_path / "r", [],
                 tmp_path / "ckpt")
    assert len(result["history"]) == 2
    assert not any((tmp_path / "ckpt").rglob("*.pt"))  # the results file replaces it


def test_a_run_cut_at_its_cap_goes_on_as_if_it_had_never_stopped(tmp_path, files,
                                                                 capsys):
    straight = run(_avg_spec(files, epochs=4, patience=50), tmp_path / "straight", [],
                   tmp_path / "c0")
    cut = run(_avg_spec(files, epochs=2, patience=50), tmp_path / "r", [],
              tmp_path / "ckpt")
    assert "reached its cap of 2 epochs before early stopping fired" in (
        capsys.readouterr().out)
    [ckpt] = (tmp_path / "ckpt").rglob("*.pt")
    assert read_checkpoint(ckpt)["epoch"] == 2
    higher = _avg_spec(files, epochs=4, patience=50)
    with pytest.raises(ResultsConflict, match="epochs: 2 -> 4") as error:
        run(higher, tmp_path / "r", [], tmp_path / "ckpt")
    assert "kept checkpoint" in str(error.value)
    went_on = run(higher, tmp_path / "r", [], tmp_path / "ckpt", force=True)
    assert "continuing at epoch 3 of 4" in capsys.readouterr().out
    assert _trajectory(went_on) == _trajectory(straight)
    assert _trajectory(went_on)[0][:2] == _trajectory(cut)[0]
    assert went_on["config"]["train"]["epochs"] == 4
    assert went_on["seconds"] >= sum(h["seconds"] for h in went_on["history"])


def test_force_trains_afresh_unless_the_checkpoint_goes_on(tmp_path, files, capsys):
    run(_avg_spec(files, epochs=2, patience=50), tmp_path / "r", [], tmp_path / "ckpt")
    capsys.readouterr()
    # the same cap: --force means run again, not hand back the kept epochs
    again = run(_avg_spec(files, epochs=2, patience=50), tmp_path / "r", [],
                tmp_path / "ckpt", force=True)
    assert "Resuming" not in capsys.readouterr().out and len(again["history"]) == 2
    # other settings: the kept checkpoint is another run's, so it is not resumed
    other_spec = _avg_spec(files, epochs=3, patience=50, lr=0.02)
    other = run(other_spec, tmp_path / "r", [], tmp_path / "ckpt", force=True)
    assert "Resuming" not in capsys.readouterr().out
    fresh = run(other_spec, tmp_path / "fresh", [], tmp_path / "c1")
    assert _trajectory(other) == _trajectory(fresh)


def test_bad_input_gets_a_clear_error(tmp_path, files, capsys):
    train, test = files
    base = ["run", "--train", str(train), "--test", str(test), "--results",
            str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")]
    with pytest.raises(SystemExit, match="unknown model 'lstm'.*choose one of.*avg"):
        main(["run", "--model", "lstm", "--dataset", "movie_reviews"])
    with pytest.raises(SystemExit, match="unknown dataset 'yelp'.*movie_reviews"):
        main(["run", "--model", "avg", "--dataset", "yelp"])
    with pytest.raises(SystemExit, match="unknown option 'hidden'.*embed_dim"):
        main([*base, "--model", "avg", "--set", "hidden=3"])
    bad = tmp_path / "bad_test.tsv"
    bad.write_text("neutral\tnot seen in training\n")
    with pytest.raises(ValueError, match="neutral"):
        main(["run", "--model", "avg", "--train", str(train), "--test", str(bad),
              "--set", "header=false", "--results", str(tmp_path / "r"),
              "--checkpoints", str(tmp_path / "c")])
    assert not list((tmp_path / "r").glob("*.json"))


def test_a_second_writer_is_refused_and_a_stale_lock_taken_over(tmp_path):
    target = tmp_path / "x.json"
    with run_lock(target):
        with pytest.raises(RuntimeError, match="another run"):
            with run_lock(target):
                pass
    lock = tmp_path / "x.json.lock"
    lock.write_text("999999999")  # no such process
    with run_lock(target):
        assert lock.read_text() == str(os.getpid())
    assert not lock.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_results_directory(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    with pytest.raises(PermissionError, match="not writable"):
        with run_lock(folder / "x.json"):
            pass


def test_report_puts_published_figures_beside_ours_and_says_not_run(tmp_path):
    def result(seed, acc):
        return {"experiment": "lama", "model": "te", "dataset": "r8", "profile": "full",
                "config": {"seed": seed}, "metrics": {"test_accuracy": acc},
                "history": [{"epoch": 1, "seconds": 2.0}],
                "hardware": {"name": "cpu x"}}

    write_json_atomic(tmp_path / "lama__te__r8__s0.json", result(0, 0.90))
    write_json_atomic(tmp_path / "lama__te__r8__s1.json", result(1, 0.92))
    write_json_atomic(tmp_path / "published.json", {"figures": [
        {"paper": "lama", "model": "te", "dataset": "r8", "value": 0.901,
         "source": "Mehta et al., section 5.3 (text)", "from": "text"}]})
    table = results_table(tmp_path, "lama", grid=[("te", "r8"), ("avg", "r8")])
    te = table[table.model == "te"].iloc[0]
    assert te.ours == "91.0 ± 1.0" and te.seeds == 2 and te.paper == "90.1"  # ± s.e.
    avg = table[table.model == "avg"].iloc[0]
    assert avg.ours == "not run" and avg.seeds == 0


def test_report_epochs_are_the_mean_and_seconds_are_per_epoch(tmp_path):
    def result(seed, seconds):
        return {"experiment": "lama", "model": "te", "dataset": "r8", "profile": "full",
                "config": {"seed": seed}, "metrics": {"test_accuracy": 0.9},
                "history": [{"epoch": i + 1, "seconds": s} for i, s in enumerate(seconds)],
                "hardware": {"name": "cpu x"}}

    write_json_atomic(tmp_path / "lama__te__r8__s0.json", result(0, [1.0, 1.0, 1.0, 1.0]))
    write_json_atomic(tmp_path / "lama__te__r8__s1.json", result(1, [4.0, 4.0]))
    [row] = results_table(tmp_path, "lama", published=[]).to_dict("records")
    assert row["epochs"] == "3"  # (4 + 2) / 2 runs, not the longest run's 4
    assert row["sec_per_epoch"] == "2.0"  # 12 s over 6 epochs, not 12 s / 2 runs


def test_each_row_gets_the_figure_of_its_own_paper(tmp_path):
    # two papers state a figure for the same model and dataset: each row shows its own
    def result(experiment, acc, recipe=None):
        config = {"seed": 0, **({"recipe": recipe} if recipe else {})}
        return {"experiment": experiment, "model": "te", "dataset": "sst5",
                "profile": "full", "config": config, "metrics": {"test_accuracy": acc},
                "history": [{"epoch": 1, "seconds": 2.0}],
                "hardware": {"name": "cpu x"}}

    write_json_atomic(tmp_path / "lama__te__sst5__s0.json", result("lama", 0.40))
    write_json_atomic(tmp_path / "msa__te__sst5__s0.json", result("msa", 0.45))
    write_json_atomic(tmp_path / "run-msa__te__sst5__s0.json",
                      result("run", 0.46, "msa"))
    write_json_atomic(tmp_path / "run__te__sst5__s0.json", result("run", 0.47))
    figures = [{"paper": "msa", "model": "te", "dataset": "sst5", "value": 0.504,
                "source": "msa, Table 2", "from": "table"},
               {"paper": "lama", "model": "te", "dataset": "sst5", "value": 0.410,
                "source": "lama, text", "from": "text"},
               {"paper": "lama", "model": "te", "dataset": "sst5", "value": 3.0,
                "metric": "speedup", "source": "lama, text", "from": "text"}]
    for order in (figures, figures[::-1]):
        write_json_atomic(tmp_path / "published.json", {"figures": order})
        for paper, value in [("lama", "41.0"), ("msa", "50.4")]:
            [row] = results_table(tmp_path, paper).to_dict("records")
            assert row["paper"] == value and row["paper_source"] == f"{paper}, " + (
                "text" if paper == "lama" else "Table 2")
        every = results_table(tmp_path).set_index(["experiment", "recipe"]).paper
        assert every.to_dict() == {("lama", "lama"): "41.0", ("msa", "msa"): "50.4",
                                   ("run", "msa"): "50.4", ("run", ""): "—"}


def test_the_command_says_how_to_pass_a_file_option(tmp_path):
    train = tmp_path / "reviews.dat"  # a name that says neither TSV nor CSV
    train.write_text("1\tgood\n0\tbad\n")
    done = subprocess.run(
        [sys.executable, "-m", "lamalib.experiments", "run", "--model", "avg",
         "--train", str(train), "--test", str(train), "--results", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--set format=tsv" in done.stderr and "format='" not in done.stderr
    assert done.stderr.count("\n") == 1  # one line, in the command's words


def test_reproduce_offline_skips_bert_and_says_not_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no weights can be had
    main(["reproduce", "lama", "--datasets", "movie_reviews", "--models", "bert",
          "--results", str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert "bert on movie_reviews: not run" in out and "pretrained_name" in out
    assert not list((tmp_path / "r").glob("*.json"))
    grid = [(m, "r8") for m in ("bert",)]
    assert results_table(tmp_path / "r", "lama", grid=grid).iloc[0].ours == "not run"


def test_run_can_start_from_a_papers_recipe(tmp_path, files):
    train, test = files
    main(["run", "--model", "avg", "--recipe", "lama", "--train", str(train),
          "--test", str(test), "--set", "header=false", "--set", "epochs=1",
          "--set", "embed_dim=8", "--set", "word2vec_min_count=1",
          "--results", str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")])
    [path] = (tmp_path / "r").glob("*.json")
    r = json.loads(path.read_text())
    assert r["experiment"] == "run" and path.name.startswith("run-lama__avg__")
    assert r["config"]["recipe"] == "lama"
    train_cfg = r["config"]["train"]  # the LAMA paper's SGD, with our epochs
    assert (train_cfg["optimizer"], train_cfg["lr"], train_cfg["momentum"],
            train_cfg["epochs"]) == ("sgd", 0.05, 0.9, 1)
    assert r["config"]["embeddings"] == "word2vec"
    assert r["config"]["min_freq"] == 5  # the paper drops words seen under 5 times
    assert "--recipe lama" in r["command"]
    from lamalib.experiments.papers import PAPERS, paper_spec_fields
    assert paper_spec_fields(PAPERS["msa"], "avg", "sst5")["min_freq"] == 1


def test_on_sentence_pairs_the_classifier_is_the_pair_classifiers_encoder(
        tmp_path, capsys):
    main(["run", "--model", "avg", "--dataset", "synthetic_nli", "--set", "epochs=4",
          "--set", "embed_dim=16", "--set", "lr=0.003", "--results",
          str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")])
    assert "avg in the pair classifier on synthetic_nli" in capsys.readouterr().out
    [path] = (tmp_path / "r").glob("*.json")
    assert path.name == "run__avg__synthetic_nli__s0.json"
    r = json.loads(path.read_text())
    assert r["model"] == "avg" and r["model_config"]["embed_dim"] == 16
    assert r["pair_classifier"] == {"hidden": 300, "dropout": 0.1}
    identity = r["dataset_identity"]
    assert identity["sizes"] == {"train": 2000, "valid": 500, "test": 500}
    assert identity["label_names"] == ["entailment", "neutral", "contradiction"]
    # 16-d word vectors, the MLP on 4 x 16 features, 3 classes
    assert r["params"] == r["vocab_size"] * 16 + (64 + 1) * 300 + (300 + 1) * 3
    assert r["metrics"]["test_accuracy"] > 0.6  # three balanced labels: chance 1/3


def test_reproduce_offline_says_snli_was_not_run(tmp_path, capsys, monkeypatch):
    import shutil
    import urllib.error

    from lamalib.data import fetch
    from lamalib.experiments import PAPERS
    from lamalib.experiments.results import RESULTS_DIR

    def offline(*args, **kwargs):
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(fetch.urllib.request, "urlopen", offline)
    monkeypatch.setitem(sys.modules, "datasets", None)  # not installed
    monkeypatch.setenv("LAMALIB_DATA", str(tmp_path / "data"))  # no copy there
    assert "snli" in PAPERS["msa"].datasets
    main(["reproduce", "msa", "--datasets", "snli", "--models", "te",
          "ms_transformer", "--results", str(tmp_path / "r"), "--checkpoints",
          str(tmp_path / "c")])
    out = capsys.readouterr().out.splitlines()
    lines = [x for x in out if "not run." in x]
    assert len(lines) == 1 and lines[0].startswith("snli: not run. Could not download")
    table = [x for x in out if x.endswith("not run: dataset unavailable (see above)")]
    assert [x.split()[0] for x in table] == ["te", "ms_transformer"]  # every cell
    assert "snli_1.0.zip" in lines[0] and "synthetic_nli" in lines[0]
    assert not (tmp_path / "r").exists()  # no run made: no empty folder left
    (tmp_path / "r").mkdir()
    shutil.copy(RESULTS_DIR / "published.json", tmp_path / "r" / "published.json")
    row = results_table(tmp_path / "r", "msa", grid=[("ms_transformer", "snli")])
    assert (row.iloc[0].ours, row.iloc[0].paper) == ("not run", "85.9")
    assert "Table 5" in row.iloc[0].paper_source


def test_the_pair_model_is_named_through_its_encoder():
    with pytest.raises(SystemExit, match=r"unknown model 'pair'.*--model "
                                         r"ms_transformer --dataset snli"):
        main(["run", "--model", "pair", "--dataset", "snli"])


def test_max_len_is_the_run_truncation_and_max_positions_the_models_table():
    from lamalib.experiments.cli import apply_settings

    for model in ("te", "self_attention", "le"):
        fields = apply_settings({"model": model},
                                ["max_len=600", "max_positions=1024"])
        assert fields["max_len"] == 600  # the run's truncation
        assert fields["model_options"] == {"max_positions": 1024}
    te = build_model("te", vocab_size=10, num_classes=2, d_model=8, n_heads=2,
                     d_ff=8, positional="learned", max_positions=700)
    assert te.body.embed.positions.embedding.num_embeddings == 700


def test_texts_longer_than_a_learned_position_table_fail_before_training(
        tmp_path, files):
    train, test = files  # texts of 6 tokens
    with pytest.raises(ValueError, match="max_len=4.*max_positions=6"):
        main(["run", "--model", "le", "--train", str(train), "--test", str(test),
              "--set", "header=false", "--set", "embed_dim=8", "--set", "heads=2",
              "--set", "max_positions=4", "--results", str(tmp_path / "r"),
              "--checkpoints", str(tmp_path / "c")])
    assert not (tmp_path / "c").exists()  # no epoch ran, no checkpoint written
    with pytest.warns(LongTextWarning, match="cut to 4"):  # truncated to fit: it runs
        main(["run", "--model", "le", "--train", str(train), "--test", str(test),
              "--set", "header=false", "--set", "embed_dim=8", "--set", "heads=2",
              "--set", "max_positions=4", "--set", "max_len=4", "--set", "epochs=1",
              "--results", str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")])
    assert list((tmp_path / "r").glob("*.json"))


def test_lamalib_seed_shifts_a_runs_seed_once_and_names_the_file_by_it(
        tmp_path, files, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LAMALIB_SEED", "2")
    _run_cli(tmp_path, files)
    [path] = (tmp_path / "results").glob("*.json")
    assert path.name == f"run__avg__{tmp_path.name}__s2.json"
    shifted = json.loads(path.read_text())
    assert shifted["config"]["seed"] == 2
    # the same run as seed 2 without the shift: the seed is not shifted twice inside
    monkeypatch.delenv("LAMALIB_SEED")
    _run_cli(tmp_path / "plain", files, "--seeds", "3")
    plain = json.loads((tmp_path / "plain" / "results" / path.name).read_text())
    assert [h["train_loss"] for h in plain["history"]] == [
        h["train_loss"] for h in shifted["history"]]


def test_a_too_long_line_is_cut_with_one_warning(tmp_path, files, monkeypatch):
    """A text longer than the run's max_len (here the bound of a run without one,
    made small) is cut to it: one warning names the file, the count and the limit
    and says --set max_len=N; the results file's config is unchanged."""
    import json
    import warnings

    from lamalib.experiments import runner

    train, test = files
    lines = train.read_text().splitlines()
    label = lines[0].split("\t")[0]
    long_train = tmp_path / "long.tsv"
    long_train.write_text("\n".join(lines + [f"{label}\t" + "word " * 5000,
                                             f"{label}\t" + "other " * 300]) + "\n")
    monkeypatch.setattr(runner, "LONG_TEXT_LIMIT", 200)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _run_cli(tmp_path, (long_train, test), "--set", "epochs=1")
    cut = [w for w in seen if issubclass(w.category, runner.LongTextWarning)]
    assert len(cut) == 1
    message = str(cut[0].message)
    assert message.startswith("2 texts longer than 200 tokens were cut to 200")
    assert str(long_train) in message and "--set max_len=N" in message
    stored = json.loads(next((tmp_path / "results").glob("*.json")).read_text())
    assert stored["config"]["max_len"] is None  # the bound is not a setting
    with warnings.catch_warnings(record=True) as seen:  # a given max_len: the same
        warnings.simplefilter("always")
        _run_cli(tmp_path, (long_train, test), "--set", "epochs=1",
                 "--set", "max_len=250", "--results", str(tmp_path / "r2"))
    cut = [str(w.message) for w in seen
           if issubclass(w.category, runner.LongTextWarning)]
    assert len(cut) == 1 and cut[0].startswith("2 texts longer than 250 tokens")
