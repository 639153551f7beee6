"""One model's full-profile runs, as a chapter shows them beside its quick live run
(chapters "Recurrent networks and the GRU" and "Self-attention and multi-head
attention"; the whole grid is on the "Reproductions" page).

Every number comes from a results file, and every row names its file; a grid cell
without a run says "not run".
"""

from __future__ import annotations

from pathlib import Path

from lamalib.experiments.papers import PAPERS
from lamalib.experiments.results import RESULTS_DIR
from lamalib.experiments.sources import model_runs


def model_results(model: str, results_dir: Path | str = RESULTS_DIR) -> list[dict]:
    """A row per (paper, dataset) of every paper grid that has ``model``, then any
    other run of it found in ``results_dir``.

    Each row: ``paper``, ``dataset``, ``file`` (``"results/<name>.json"`` or
    ``"not run"``), ``test_accuracy`` (None when not run), ``epochs``,
    ``best_epoch``, ``seconds``, ``profile``, ``device`` (e.g. "CPU AMD EPYC,
    1 thread"). One row per results file: seeds are not averaged here.
    """
    runs = model_runs(model, Path(results_dir))  # [] without a results folder
    cells = [(p.name, d) for p in PAPERS.values() if model in p.models
             for d in p.datasets]
    cells += sorted({(r["experiment"], r["dataset"]) for r in runs} - set(cells))
    rows = []
    for paper, dataset in cells:
        mine = [r for r in runs if (r["experiment"], r["dataset"]) == (paper, dataset)]
        if not mine:
            rows.append({"paper": paper, "dataset": dataset, "file": "not run",
                         "test_accuracy": None, "epochs": None, "best_epoch": None,
                         "seconds": None, "profile": None, "device": None})
        for r in sorted(mine, key=lambda r: r["file"]):
            rows.append({"paper": paper, "dataset": dataset,
                         "file": f"results/{r['file']}",
                         "test_accuracy": r["test_accuracy"], "epochs": r["epochs"],
                         "best_epoch": r["best_epoch"], "seconds": round(r["seconds"]),
                         "profile": r["profile"], "device": r["device"]})
    return rows
