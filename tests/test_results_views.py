"""What the chapters read from results files: word-vector runs and a model's classifier
runs, each with a label that says where it came from. Checked against files that the
experiments command itself writes."""

import json

import pytest

from lamalib.experiments.cli import main
from lamalib.experiments.sources import model_runs, source_label
from lamalib.experiments.vector_runs import (
    SCORES,
    load_vectors_results,
    neighbour_lists,
    score_row,
)


@pytest.fixture(scope="module")
def vectors_dir(tmp_path_factory):
    """A results folder with one real word-vector run (Lee corpus, 1 epoch), a
    classifier file, a run still writing (its lock and an unfinished file) and junk."""
    folder = tmp_path_factory.mktemp("results")
    main(["vectors", "--corpus", "lee", "--epochs", "1", "--dim", "16",
          "--results", str(folder)])
    (folder / "word2vec__lamalib_skipgram__lee.json.lock").write_text("1")
    (folder / "word2vec__gensim_cbow__lee.json").write_text('{"experiment": "word2')
    (folder / "word2vec__lamalib_cbow__lee.json").write_text(json.dumps(
        {"experiment": "word2vec", "metrics": {"WordSim-353 ρ": 0.1}}))  # no neighbours
    (folder / "lama__avg__r8__s0.json").write_text(json.dumps(
        {"experiment": "lama", "metrics": {"test_accuracy": 0.9}}))
    return folder


def test_only_finished_vector_runs_are_loaded_as_the_file_holds_them(vectors_dir):
    [run] = load_vectors_results(vectors_dir)
    on_disk = json.loads((vectors_dir / "word2vec__gensim_skipgram__lee.json")
                         .read_text())
    assert run == {**on_disk, "file": "word2vec__gensim_skipgram__lee.json"}


def test_no_folder_or_an_empty_one_gives_no_runs(tmp_path):
    assert load_vectors_results(tmp_path) == []
    assert load_vectors_results(tmp_path / "missing") == []
    assert model_runs("avg", tmp_path / "missing") == []


def test_score_row_and_neighbours_are_the_files_values(vectors_dir):
    [run] = load_vectors_results(vectors_dir)
    row = score_row(run)
    for key in SCORES:
        assert row[key] == run["metrics"][key]
    assert row["tokens"] == run["corpus_identity"]["tokens"] > 0
    assert row["vocabulary"] == run["vocab_size"] and row["corpus"] == "lee"
    lists = neighbour_lists(run, k=3)
    assert set(lists) == set(run["neighbours"]) and lists
    for word, text in lists.items():
        near = run["neighbours"][word][:3]
        assert text == ", ".join(f"{n} {c:.2f}" for n, c in near)
        assert neighbour_lists(run, k=3, cosines=False)[word].split(", ") == [
            n for n, _ in near]


def test_source_label_names_the_file_command_device_and_date(vectors_dir):
    [run] = load_vectors_results(vectors_dir)
    label = source_label(run)
    assert label.startswith(f"{run['profile']} profile, from results/{run['file']} ")
    assert f"command `{run['command']}`" in label
    assert run["started"][:10] in label and run["hardware"]["name"] in label
    if run["hardware"]["device"] == "cpu":
        assert f"CPU {run['hardware']['name']}, " in label and " thread" in label
    gpu = {**run, "hardware": {"device": "cuda", "name": "Tesla T4", "count": 1}}
    assert "GPU Tesla T4, started" in source_label(gpu)


def test_model_runs_lists_that_models_complete_runs(tmp_path):
    rows = [f"{'pos' if i % 2 else 'neg'}\tthe film was {'great' if i % 2 else 'dull'}"
            f" number {i}" for i in range(60)]
    (tmp_path / "train.tsv").write_text("\n".join(rows[:48]) + "\n")
    (tmp_path / "test.tsv").write_text("\n".join(rows[48:]) + "\n")
    results = tmp_path / "results"
    main(["run", "--model", "avg", "--train", str(tmp_path / "train.tsv"),
          "--test", str(tmp_path / "test.tsv"), "--set", "header=false",
          "--set", "epochs=2", "--set", "embed_dim=8", "--results", str(results),
          "--checkpoints", str(tmp_path / "ckpt")])
    [path] = results.glob("*.json")
    r = json.loads(path.read_text())
    [row] = model_runs("avg", results)
    assert row["test_accuracy"] == r["metrics"]["test_accuracy"]
    assert row["epochs"] == len(r["history"]) == 2 and row["file"] == path.name
    assert (row["train"], row["test"]) == (r["dataset_identity"]["sizes"]["train"], 12)
    assert row["classes"] == 2 and row["dataset"] == r["dataset"]
    assert row["labels"] == r["dataset_identity"]["label_names"] == ["neg", "pos"]
    assert row["profile"] == r["profile"] and row["seed"] == r["config"]["seed"] == 0
    assert row["optimizer"] == r["config"]["train"]["optimizer"]
    assert row["embeddings"] == r["config"]["embeddings"]
    assert row["source"] == source_label({**r, "file": path.name})
    assert model_runs("bigru_max", results) == []


def test_labels_leave_out_local_output_folders():
    from lamalib.experiments.sources import source_label
    from lamalib.provenance import reproducible_args

    assert reproducible_args(["run", "--results", "/x", "--model", "avg",
                              "--checkpoints=/c", "--seeds", "2"]) == [
        "run", "--model", "avg", "--seeds", "2"]
    old = {"file": "f.json", "profile": "full", "hardware": {"name": "cpu"},
           "command": "python -m lamalib.experiments reproduce msa --results "
                      "/work/main/results --set epochs=15"}
    assert "`python -m lamalib.experiments reproduce msa --set epochs=15`" in (
        source_label(old))
