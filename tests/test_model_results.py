"""model_results: one model's full-profile rows, each read from its results file."""

import json

from lamalib.experiments import PAPERS
from lamalib.experiments.model_results import model_results


def _write(folder, experiment, model, dataset, acc, seed=0, device="cpu"):
    run = {"experiment": experiment, "model": model, "dataset": dataset,
           "profile": "full", "metrics": {"test_accuracy": acc, "best_epoch": 2},
           "history": [{"epoch": e, "seconds": 1.0} for e in (1, 2, 3)],
           "seconds": 12.4,
           "hardware": {"device": device, "name": "Some CPU", "cpu_threads": 1}}
    path = folder / f"{experiment}__{model}__{dataset}__s{seed}.json"
    path.write_text(json.dumps(run))
    return path


def test_rows_cover_every_grid_cell_and_numbers_come_from_the_files(tmp_path):
    _write(tmp_path, "msa", "bigru_max", "mtl16_books", 0.7325)
    _write(tmp_path, "lama", "bigru_max", "r8", 0.9)
    _write(tmp_path, "lama", "avg", "r8", 0.5)  # another model: not shown
    (tmp_path / "lama__bigru_max__imdb__s0.json").write_text(
        json.dumps({"experiment": "lama", "model": "bigru_max", "dataset": "imdb",
                    "metrics": {}}))  # unfinished run: no test accuracy, not shown
    rows = model_results("bigru_max", tmp_path)
    grid = [(p.name, d) for p in PAPERS.values() if "bigru_max" in p.models
            for d in p.datasets]
    assert [(r["paper"], r["dataset"]) for r in rows] == grid
    by_cell = {(r["paper"], r["dataset"]): r for r in rows}
    books = by_cell["msa", "mtl16_books"]
    assert books["file"] == "results/msa__bigru_max__mtl16_books__s0.json"
    assert books["test_accuracy"] == 0.7325 and books["epochs"] == 3
    assert books["best_epoch"] == 2 and books["seconds"] == 12
    assert books["device"] == "CPU Some CPU, 1 thread"
    assert by_cell["lama", "r8"]["test_accuracy"] == 0.9
    for cell in set(grid) - {("msa", "mtl16_books"), ("lama", "r8")}:
        assert by_cell[cell]["file"] == "not run"
        assert by_cell[cell]["test_accuracy"] is None


def test_every_seed_is_its_own_row_and_runs_outside_the_grid_are_kept(tmp_path):
    _write(tmp_path, "msa", "san", "sst5", 0.40, seed=0)
    _write(tmp_path, "msa", "san", "sst5", 0.42, seed=1, device="cuda")
    _write(tmp_path, "run", "san", "my_reviews", 0.8)
    rows = model_results("san", tmp_path)
    sst5 = [r for r in rows if r["dataset"] == "sst5"]
    assert [r["test_accuracy"] for r in sst5] == [0.40, 0.42]
    assert sst5[1]["device"] == "GPU Some CPU"
    assert rows[-1]["paper"] == "run" and rows[-1]["dataset"] == "my_reviews"


def test_no_results_folder_means_every_cell_is_not_run(tmp_path):
    rows = model_results("san", tmp_path / "missing")
    assert rows and all(r["file"] == "not run" for r in rows)
