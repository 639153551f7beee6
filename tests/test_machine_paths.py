"""No path of the machine that made them in results files or on pages (issue "No
machine paths"): a file is recorded by its name (a path inside the repository by its
path from the root), its SHA-256 and the command that makes it; the same file at
another path is the same run, another file is another run."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from lamalib.embeddings import save_vectors
from lamalib.experiments.cli import main
from lamalib.experiments.results import ResultsConflict
from lamalib.provenance import (MACHINE_PATH, REPO_ROOT, command_line,
                                looks_like_path, portable_arg, portable_path,
                                portable_value)

RESULTS = Path(__file__).resolve().parents[1] / "results"


def machine_paths(value, where="") -> list[str]:
    """``["where: path", ...]`` for every machine path in the keys and strings of a
    loaded JSON value."""
    found = []
    if isinstance(value, dict):
        for k, v in value.items():
            found += [f"{where}: key {m}" for m in MACHINE_PATH.findall(str(k))]
            found += machine_paths(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += machine_paths(v, f"{where}[{i}]")
    elif isinstance(value, str):
        found += [f"{where}: {m}" for m in MACHINE_PATH.findall(value)]
    return found


def test_the_detector_finds_machine_paths_and_leaves_the_rest():
    for text in ("/tmp/vecs/imdb_sg300.txt", "--results /work/main/results",
                 "embeddings=/home/me/v.txt", "/Users/me/", "saved in /tmp",
                 "~/glove.txt", "C:\\Users\\me\\v.txt", "'/root/x'"):
        assert MACHINE_PATH.search(text), text
    for text in ("results/sweeps/x.json", "scales=1,3,N/16,N/8,N/4",
                 "layer_scales=1/2,1/3|1/4", "https://github.com/a/b", "imdb_sg300.txt",
                 "train/valid/test", "words/sec", "a / b", "N/A", "--train /dev/null"):
        assert not MACHINE_PATH.search(text), text


def test_no_results_file_names_a_path_of_a_machine():
    files = sorted(RESULTS.rglob("*.json"))
    assert files, "no results files found"
    found = [f"{path.relative_to(RESULTS)}{hit}" for path in files
             for hit in machine_paths(json.loads(path.read_text()))]
    assert not found, "machine paths in results files:\n" + "\n".join(found[:20])


# -- the rule: inside the repository, relative to its root; elsewhere, the name ---------

def test_portable_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert portable_path(tmp_path / "vecs" / "v.txt") == "v.txt"
    assert portable_path(REPO_ROOT / "results") == "results"
    assert portable_path(REPO_ROOT / "results" / "a" / "b.json") == "results/a/b.json"
    assert portable_path(REPO_ROOT) == "."
    assert portable_path("C:\\Users\\me\\glove.txt") == "glove.txt"
    monkeypatch.chdir(REPO_ROOT / "tests")
    assert portable_path("../results") == "results"  # from the root, not from here
    assert looks_like_path("/tmp/x") and looks_like_path("~/x")
    assert not looks_like_path("1,3,N/16") and not looks_like_path("imdb")
    assert not looks_like_path("https://a.b/c/d") and not looks_like_path("/")
    assert portable_arg("embeddings=/tmp/vecs/v.txt") == "embeddings=v.txt"
    assert portable_arg("--out=/tmp/o/b.json") == "--out=b.json"
    assert portable_arg("scales=1,3,N/16") == "scales=1,3,N/16"
    assert portable_value({"out": str(tmp_path / "b.json"), "n": [1, "/tmp/x/y"],
                           "clock": "thread_time"}) == {
        "out": "b.json", "n": [1, "y"], "clock": "thread_time"}


def test_a_recorded_command_names_no_folder_of_the_machine(tmp_path, monkeypatch):
    monkeypatch.delenv("LAMALIB_SEED", raising=False)  # its shift is tested below
    argv = ["run", "--model", "avg", "--set", f"embeddings={tmp_path / 'v.txt'}",
            "--results", str(tmp_path / "r"), "--checkpoints=/tmp/c",
            "--out", str(REPO_ROOT / "results" / "sweeps" / "x.json"),
            "--set", "scales=1,3,N/16"]
    assert command_line(argv) == (
        "python -m lamalib.experiments run --model avg --set embeddings=v.txt "
        "--out results/sweeps/x.json --set scales=1,3,N/16")
    assert command_line(["--out", str(tmp_path / "a.json"), "--n", "2"],
                        "python tools/t.py", local=("--out",)) == "python tools/t.py --n 2"


def test_a_recorded_command_keeps_the_seed_shift(monkeypatch):
    # LAMALIB_SEED=1 with --seeds 1 runs seed 1; the command alone would run seed 0
    monkeypatch.setenv("LAMALIB_SEED", "1")
    assert command_line(["reproduce", "lama", "--seeds", "1"]) == (
        "LAMALIB_SEED=1 python -m lamalib.experiments reproduce lama --seeds 1")
    monkeypatch.setenv("LAMALIB_SEED", "0")
    assert command_line(["run"]) == "python -m lamalib.experiments run"
    monkeypatch.delenv("LAMALIB_SEED")
    assert command_line(["run"]) == "python -m lamalib.experiments run"


def test_a_benchmark_file_names_itself_by_its_path_in_the_repository(tmp_path):
    from lamalib.analysis.timing import save_benchmark

    out = save_benchmark(tmp_path / "benchmark__x.json", "x",
                         {"out": str(tmp_path / "benchmark__x.json"), "repeats": 3},
                         {"seconds": 1.0})
    text = out.read_text()
    assert str(tmp_path) not in text
    assert json.loads(text)["config"] == {"out": "benchmark__x.json", "repeats": 3}


def test_resuming_prints_no_folder_of_the_machine(tmp_path, capsys):
    # chapter "Setup" resumes a fit from a temporary folder: its output is on the page
    import torch
    from lamalib.data import Vocab, load_dataset, make_loader
    from lamalib.models import build_model
    from lamalib.train import TrainConfig, fit

    data = load_dataset("synthetic_sentiment", "train", n=64)
    vocab = Vocab.build(data.texts)
    batches = make_loader(data, vocab, 32)

    class Stop(Exception):
        pass

    def stop(epoch, history, model):
        if epoch == 1:
            raise Stop

    def model():
        torch.manual_seed(0)
        return build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=4)

    config = TrainConfig(epochs=2, lr=0.1, progress=False, checkpoint_dir=tmp_path)
    with pytest.raises(Stop):
        fit(model(), batches, batches, config, callbacks=[stop])
    fit(model(), batches, batches, config)
    out = capsys.readouterr().out
    assert "Resuming from" in out and str(tmp_path) not in out


# -- a run that starts from a vectors file --------------------------------------------

def _tsv(path, n, offset=0):
    words = {"pos": "good fine great", "neg": "bad awful poor"}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(
        f"{label}\t{words[label]} film number {i}\n" for i in range(n)
        for label in ["pos" if (i + offset) % 2 else "neg"]))
    return path


def _vectors(path, scale=1.0):
    path.parent.mkdir(parents=True, exist_ok=True)
    return save_vectors(path, ["good", "bad", "film"], scale * np.array(
        [[1, 0, 0, 0], [-1, 0, 0, 0], [0, 1, 0, 0]], np.float32))


def test_a_run_records_its_files_by_name_and_sha256_and_tells_them_by_content(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "data"
    train, test = _tsv(data / "tr.tsv", 60), _tsv(data / "te.tsv", 20, 1)
    vectors = _vectors(tmp_path / "vecs" / "vec.txt")
    results = tmp_path / "results"

    def run_with(vectors_file, train=train, test=test, *extra):
        main(["run", "--model", "avg", "--train", str(train), "--test", str(test),
              "--set", "header=false", "--set", "epochs=1", "--set", "embed_dim=4",
              "--set", f"embeddings={vectors_file}", "--results", str(results),
              "--checkpoints", str(tmp_path / "ckpt"), *extra])

    run_with(vectors)
    [path] = results.glob("*.json")
    text = path.read_text()
    assert str(tmp_path) not in text and not machine_paths(json.loads(text))
    r = json.loads(text)
    assert r["config"]["embeddings"] == "vec.txt"
    assert r["config"]["train_file"] == "tr.tsv" and r["config"]["test_file"] == "te.tsv"
    assert r["dataset_identity"]["files"] == {"train": "tr.tsv", "valid": None,
                                              "test": "te.tsv"}
    assert r["embeddings_file"]["file"] == "vec.txt"
    assert len(r["embeddings_file"]["sha256"]) == 64
    assert "--set embeddings=vec.txt" in r["command"]
    assert "--train tr.tsv --test te.tsv" in r["command"]
    assert "--results" not in r["command"] and "--checkpoints" not in r["command"]
    capsys.readouterr()

    # The same vectors and data at other paths (another machine): the same run.
    moved = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "vecs", moved / "vecs")
    shutil.copytree(data, moved / "data")
    run_with(moved / "vecs" / "vec.txt", moved / "data" / "tr.tsv",
             moved / "data" / "te.tsv")
    assert "is complete: skipped" in capsys.readouterr().out
    renamed = shutil.copy(vectors, tmp_path / "same_vectors.txt")  # same SHA-256
    run_with(renamed)
    out = capsys.readouterr().out
    assert "is complete: skipped" in out and str(tmp_path) not in out
    assert path.read_text() == text

    # Another vectors file, even of the same name, is another run.
    other = _vectors(tmp_path / "other" / "vec.txt", scale=2.0)
    with pytest.raises(ResultsConflict, match="embeddings: 'vec.txt' .*SHA-256") as e:
        run_with(other)
    assert str(tmp_path) not in str(e.value)
    with pytest.raises(ResultsConflict, match="embeddings: 'vec.txt' -> 'random'"):
        run_with("random")
    assert path.read_text() == text  # kept
    run_with(other, train, test, "--force")  # replaced on request
    assert json.loads(path.read_text())["embeddings_file"]["sha256"] != (
        r["embeddings_file"]["sha256"])


def test_a_results_file_of_an_older_version_with_a_full_path_is_compared_by_sha256(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    train, test = _tsv(tmp_path / "tr.tsv", 60), _tsv(tmp_path / "te.tsv", 20, 1)
    vectors = _vectors(tmp_path / "vec.txt")
    args = ["run", "--model", "avg", "--train", str(train), "--test", str(test),
            "--set", "header=false", "--set", "epochs=1", "--set", "embed_dim=4",
            "--results", str(tmp_path / "r"), "--checkpoints", str(tmp_path / "c")]
    main([*args, "--set", f"embeddings={vectors}"])
    [path] = (tmp_path / "r").glob("*.json")
    old = json.loads(path.read_text())  # as the files before this rule recorded it
    old["config"].update(embeddings="/tmp/vecs/vec.txt", train_file="/data/x/tr.tsv",
                         test_file="/data/x/te.tsv")
    path.write_text(json.dumps(old, indent=1) + "\n")
    capsys.readouterr()
    main([*args, "--set", f"embeddings={vectors}"])
    assert "is complete: skipped" in capsys.readouterr().out


def test_the_commit_is_read_once_per_process(monkeypatch):
    # every run of one process records the commit of the code it imported
    import subprocess

    from lamalib import provenance

    provenance.git_commit.cache_clear()
    first = provenance.git_commit()
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append(a))
    assert provenance.git_commit() == first and calls == []
    provenance.git_commit.cache_clear()


def test_a_tool_stamp_records_how_its_file_was_made(tmp_path, monkeypatch):
    # the commit and date are read when the tool starts; the command names no folder
    from lamalib import provenance

    monkeypatch.delenv("LAMALIB_SEED", raising=False)
    stamp = provenance.RunStamp()
    fields = stamp.fields(["--out", str(tmp_path), "--n", "2"], "python tools/x.py",
                          local=("--out",))
    assert fields["command"] == "python tools/x.py --n 2"
    assert fields["git_commit"] == provenance.git_commit()
    assert fields["started"] == stamp.started and fields["seconds"] >= 0
    assert fields["lamalib"] == provenance.lamalib_version()
    assert fields["hardware"]["device"] in ("cpu", "cuda")
    assert not provenance.looks_like_path(json.dumps(fields["command"]))


def test_a_changed_results_file_does_not_make_the_code_dirty(tmp_path):
    # a benchmark that starts after another rewrote its results file ran clean code
    import subprocess

    from lamalib.provenance import commit_of

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "results").mkdir()
    (tmp_path / "lamalib").mkdir()
    (tmp_path / "results" / "a.json").write_text("{}")
    (tmp_path / "lamalib" / "b.py").write_text("x = 1\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    sha = commit_of(tmp_path)
    assert len(sha) == 40
    (tmp_path / "results" / "a.json").write_text('{"new": 1}')
    assert commit_of(tmp_path) == sha
    (tmp_path / "lamalib" / "b.py").write_text("x = 2\n")
    assert commit_of(tmp_path) == sha + "+dirty"
    assert commit_of(tmp_path / "results") == sha + "+dirty"  # from any folder
    (tmp_path / "lamalib" / "b.py").write_text("x = 1\n")
    assert commit_of(tmp_path / "results") == sha
