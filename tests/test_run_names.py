"""Results names of runs on your own files (``run --name``, a data folder's name, a
recipe's own file), recipes only for their paper's models, the report in 100
columns with the package's published figures, and the ``models`` listing."""

import filecmp
import json
import subprocess
import sys
from pathlib import Path

import pytest

from labelled_files import write_tsv
from lamalib.experiments.cli import main
from lamalib.experiments.options import UsageError
from lamalib.experiments.papers import PAPERS
from lamalib.experiments.results import PACKAGE_PUBLISHED, RESULTS_DIR
from lamalib.experiments.spec import RunSpec
from lamalib.models import available_models
from lamalib.provenance import write_json_atomic

ROOT = Path(__file__).resolve().parents[1]


_tsv = write_tsv


@pytest.fixture
def questions(tmp_path):
    folder = tmp_path / "data" / "questions"
    return _tsv(folder / "train.tsv", 60), _tsv(folder / "test.tsv", 20, 1000)


def _run(tmp_path, data, *extra):
    train, test = data
    main(["run", "--model", "avg", "--train", str(train), "--test", str(test),
          "--set", "header=false", "--set", "epochs=1", "--set", "embed_dim=8",
          "--set", "word2vec_min_count=1", "--results", str(tmp_path / "r"),
          "--checkpoints", str(tmp_path / "c"), *extra])


def _names(tmp_path):
    return sorted(p.name for p in (tmp_path / "r").glob("*.json"))


def test_a_split_named_file_is_named_by_its_folder_else_by_its_stem(tmp_path):
    def label(path):
        return RunSpec(dataset="file", train_file=str(path)).dataset_label()

    for stem in ("train", "training", "dev", "valid", "test", "TRAIN"):
        assert label(tmp_path / "questions" / f"{stem}.tsv.gz") == "questions"
    assert label(tmp_path / "questions" / "reviews.csv") == "reviews"
    assert label(tmp_path / "my folder" / "train.tsv") == "my-folder"  # a safe name
    assert RunSpec(name="x", dataset="imdb").dataset_label() == "x"
    assert RunSpec(dataset="imdb").result_name() == "run__avg__imdb__s0.json"
    assert RunSpec(dataset="imdb", recipe="lama").result_name() == (
        "run-lama__avg__imdb__s0.json")
    assert RunSpec(experiment="lama", model="te", dataset="r8").result_name() == (
        "lama__te__r8__s0.json")  # the committed results keep their names


def test_default_and_recipe_runs_of_a_folder_have_their_own_files(
        tmp_path, questions, capsys):
    _run(tmp_path, questions)
    _run(tmp_path, questions, "--recipe", "lama")  # no conflict with the default run
    assert _names(tmp_path) == ["run-lama__avg__questions__s0.json",
                                "run__avg__questions__s0.json"]
    r = json.loads((tmp_path / "r" / "run__avg__questions__s0.json").read_text())
    assert r["dataset"] == "questions" and r["config"]["recipe"] is None
    capsys.readouterr()
    main(["report", "--results", str(tmp_path / "r"), "--no-course"])
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 100
    header, *rows = lines
    assert "recipe" in header.split() and "paper" in header.split()
    assert len(rows) == 2 and all("questions" in row for row in rows)
    assert sorted(row.split()[header.split().index("recipe")] for row in rows) == [
        "lama", "—"]


def test_name_names_the_results_file_and_a_bad_name_is_refused(tmp_path, questions):
    _run(tmp_path, questions, "--name", "my.questions-v2_a")
    assert _names(tmp_path) == ["run__avg__my.questions-v2_a__s0.json"]
    for bad in ("a/b", "a b", "..", "a__b", ""):
        with pytest.raises(UsageError, match="--name"):
            _run(tmp_path, questions, "--name", bad)


def test_a_recipe_is_only_for_its_papers_models(tmp_path, questions):
    with pytest.raises(UsageError, match="ms_transformer") as error:
        _run(tmp_path, questions, "--model", "cnn", "--recipe", "msa")
    assert "'cnn' is not one of them" in str(error.value)
    assert not (tmp_path / "r").exists()  # refused before any data is read
    train, test = questions
    done = subprocess.run(
        [sys.executable, "-m", "lamalib.experiments", "run", "--model", "lama",
         "--recipe", "msa", "--train", str(train), "--test", str(test)],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: --recipe msa covers")
    named = done.stderr.split(": ", 2)[2].split(";")[0].split(", ")
    assert set(named) == set(PAPERS["msa"].models)  # in the paper's order


def test_run_help_shows_the_defaults_and_each_recipes_models(capsys):
    with pytest.raises(SystemExit) as done:
        main(["run", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "defaults: epochs 10, patience 3, adamw lr 0.001, batch size 32" in out
    assert "--recipe lama" in out and "epochs 30, patience 5, sgd lr 0.05" in out
    msa = " ".join(out.split()).split("--recipe msa:")[1]
    assert f"for its models: {', '.join(PAPERS['msa'].models)}." in msa


def _result(experiment, model, dataset, acc, seed=0, recipe=None):
    return {"experiment": experiment, "model": model, "dataset": dataset,
            "profile": "full", "config": {"seed": seed, "recipe": recipe},
            "metrics": {"test_accuracy": acc},
            "history": [{"epoch": 1, "seconds": 2.0}],
            "hardware": {"name": "CPU Some Very Long Processor Name, 16 threads"}}


def test_report_fits_100_columns_and_reads_the_packages_published_figures(
        tmp_path, capsys):
    folder = tmp_path / "elsewhere"  # --results DIR without a published.json
    long = "a-very-long-name-for-a-dataset-of-my-own-made-last-week"
    for seed, acc in enumerate((0.80, 0.82)):
        write_json_atomic(folder / f"lama__te__imdb__s{seed}.json",
                          _result("lama", "te", "imdb", acc, seed))
    write_json_atomic(folder / f"run__lama_ctx_dp__{long}__s0.json",
                      _result("run", "lama_ctx_dp", long, 0.7))
    package = sorted(p.name for p in PACKAGE_PUBLISHED.parent.iterdir())
    main(["report", "--results", str(folder), "--no-course"])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    te = next(line for line in out.splitlines() if " te " in line)
    assert "81.0 ± 1.0" in te and "81.7" in te  # mean ± s.e.  # Mehta et al.'s TE on IMDB
    assert "lama_ctx_dp" in out and "a-very-long" in out
    main(["report", "--results", str(folder), "--wide", "--no-course"])
    assert "Some Very Long Processor" in capsys.readouterr().out
    # the report writes nothing, neither into the package nor into the folder
    assert sorted(p.name for p in PACKAGE_PUBLISHED.parent.iterdir()) == package
    assert len(list(folder.iterdir())) == 3


def test_the_packages_published_figures_are_the_results_folders():
    assert filecmp.cmp(PACKAGE_PUBLISHED, RESULTS_DIR / "published.json",
                       shallow=False)
    assert "published.json" in (ROOT / "pyproject.toml").read_text()  # shipped


def test_models_lists_every_model_with_its_options_in_100_columns(capsys):
    main(["models"])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    heads = [line.split()[0] for line in out.splitlines()
             if line and not line.startswith(" ") and "(" in line]
    assert heads == available_models()
    assert "avg (classifier)\n    embed_dim=100" in out
    assert "vocab_size" not in out.split("bert (")[0]  # a classifier's: set by the run


def test_report_of_one_paper_has_its_recipe_column(tmp_path, capsys):
    write_json_atomic(tmp_path / "lama__te__imdb__s0.json",
                      _result("lama", "te", "imdb", 0.8))
    main(["report", "--paper", "lama", "--results", str(tmp_path), "--no-course"])
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 100
    header = lines[0].split()
    te = next(line.split() for line in lines if " te " in line)
    assert te[header.index("recipe")] == "lama" and "81.7" in te
    assert sum("not run" in line for line in lines) == 21  # the rest of the grid


def test_every_published_figure_names_its_paper_metric_and_place():
    import json
    figures = json.loads(PACKAGE_PUBLISHED.read_text())["figures"]
    keys = {"paper", "model", "dataset", "metric", "value", "source", "from"}
    for f in figures:
        assert keys <= set(f) and f["from"] in ("text", "table"), f
        assert "section" in f["source"] or "Table" in f["source"], f
        relative = ("gain", "speedup", "ratio", "still_better")
        assert ("over" in f) == any(w in f["metric"] for w in relative), f
    # one test-accuracy figure per (paper, model, dataset): the results table's key
    cells = [(f["paper"], f["model"], f["dataset"]) for f in figures
             if f["metric"] == "test_accuracy"]
    assert len(cells) == len(set(cells))


def test_names_keep_letters_of_any_script(tmp_path):
    from lamalib.experiments.spec import check_name, file_label

    for name in ("đánh_giá", "数据", "हिन्दी", "отзывы-v2", "crème.brûlée"):
        assert check_name(name) == name
    assert check_name("cafe\u0301") == "café"  # macOS's decomposed spelling, as NFC
    for bad in ("a/b", "a\\b", "a b", "..", ".hidden", "a__b", "", "nul", "CON.txt",
                "x" * 101):
        with pytest.raises(ValueError, match="--name"):
            check_name(bad)
    assert file_label(str(tmp_path / "数据" / "train.tsv")) == "数据"
    assert file_label(str(tmp_path / "đánh giá" / "test.tsv")) == "đánh-giá"
    assert file_label(str(tmp_path / "отзывы.tsv")) == "отзывы"
    assert file_label(str(tmp_path / "¿qué?" / "train.tsv")) == "qué-"


def test_a_unicode_name_names_the_results_file(tmp_path, questions):
    _run(tmp_path, questions, "--name", "đánh_giá")
    assert _names(tmp_path) == ["run__avg__đánh_giá__s0.json"]
