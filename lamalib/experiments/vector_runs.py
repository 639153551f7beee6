"""Read the word-vector results files that ``python -m lamalib.experiments vectors``
writes (``word2vec__<impl>_<arch>__<corpus>.json``) into the rows and neighbour lists
that chapter "Word vectors" prints beside its quick-profile run."""

from __future__ import annotations

import json
from pathlib import Path

from lamalib.experiments.results import RESULTS_DIR

SCORES = ("WordSim-353 ρ", "WordSim-353 pairs", "SimLex-999 ρ", "SimLex-999 pairs",
          "analogy accuracy", "analogy questions")


def is_vectors_result(data: dict) -> bool:
    """A finished word-vector run: its scores and neighbour lists are there."""
    return (data.get("experiment") == "word2vec" and "neighbours" in data
            and all(k in data.get("metrics", {}) for k in SCORES))


def load_vectors_results(results_dir: Path = RESULTS_DIR) -> list[dict]:
    """Every finished word-vector run in ``results_dir``, sorted by file name, each with
    its ``file`` name added; an empty list when there is none (or no such folder)."""
    runs = []
    for path in sorted(Path(results_dir).glob("word2vec__*__*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):  # unreadable: not a finished run
            continue
        if is_vectors_result(data):
            runs.append({**data, "file": path.name})
    return runs


def score_row(run: dict) -> dict:
    """One run's benchmark scores as they are in the file (None where a score could
    not be computed), with the corpus and the vocabulary's size."""
    row = {"corpus": run["dataset"], "tokens": run["corpus_identity"]["tokens"],
           "vocabulary": run["vocab_size"]}
    row.update({k: run["metrics"][k] for k in SCORES})
    row["train seconds"] = run.get("train_seconds")
    return row


def neighbour_lists(run: dict, k: int = 5, cosines: bool = True) -> dict[str, str]:
    """``{probe word: "great 0.79, decent 0.79, ..."}``: the first ``k`` neighbours
    that the file holds for each probe word, with their cosines."""
    return {word: ", ".join(f"{n} {c:.2f}" if cosines else n for n, c in near[:k])
            for word, near in run["neighbours"].items()}
