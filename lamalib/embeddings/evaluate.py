"""Judge word vectors: similarity (Spearman) and analogies (chapter "Word vectors").

Every function takes gensim ``KeyedVectors`` (ours via ``Word2VecRun.keyed_vectors()``),
so our vectors and gensim's are judged by the same code. The test suite checks that
these functions agree with gensim's own ``evaluate_word_pairs`` and
``evaluate_word_analogies``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

BENCHMARKS = {  # name -> file in gensim's test data
    "WordSim-353": "wordsim353.tsv",
    "SimLex-999": "simlex999.txt",
    "analogies": "questions-words.txt",
}


def _path(file: str | Path) -> Path:
    from lamalib.data import gensim_datapath

    return Path(file) if Path(file).exists() else gensim_datapath(str(file))


def read_word_pairs(file: str | Path) -> list[tuple[str, str, float]]:
    """``(word1, word2, human score)`` from a TSV file (``#`` lines skipped)."""
    pairs = []
    for line in _path(file).read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            a, b, score = line.split("\t")[:3]
            pairs.append((a.lower(), b.lower(), float(score)))
    return pairs


def read_analogies(file: str | Path = "questions-words.txt"
                   ) -> list[tuple[str, str, str, str]]:
    """Questions ``a : b :: c : d`` (section lines starting with ``:`` skipped)."""
    questions = []
    for line in _path(file).read_text("utf-8").splitlines():
        if line.strip() and not line.startswith(":"):
            questions.append(tuple(line.lower().split()))
    return questions


def rank(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``x (n,)``; tied values share the mean of their ranks."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    # Ties: every member of a group of equal values gets the group's mean rank.
    _, group, sizes = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.bincount(group, weights=ranks)
    return (sums / sizes)[group]


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation: Pearson's correlation of the ranks (eq. (6))."""
    rx, ry = rank(x), rank(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denom = np.sqrt((rx**2).sum() * (ry**2).sum())
    return float((rx * ry).sum() / denom) if denom > 0 else float("nan")


@dataclass
class SimilarityResult:
    spearman: float  # rank correlation of cosine similarity with human scores
    pairs: int  # pairs with both words in the vocabulary (the others are skipped)
    total: int  # pairs in the file

    @property
    def coverage(self) -> float:
        return self.pairs / self.total


def similarity_spearman(kv, file: str | Path = "wordsim353.tsv") -> SimilarityResult:
    """Spearman correlation between cosine similarity and human similarity judgments.

    Pairs with a word outside the vocabulary are skipped, as gensim does by default.
    """
    pairs = read_word_pairs(file)
    known = [(a, b, s) for a, b, s in pairs
             if a in kv.key_to_index and b in kv.key_to_index]
    if len(known) < 2:
        return SimilarityResult(float("nan"), len(known), len(pairs))
    model = np.array([kv.similarity(a, b) for a, b, _ in known])  # (P,)
    human = np.array([s for _, _, s in known])  # (P,)
    return SimilarityResult(spearman(model, human), len(known), len(pairs))


@dataclass
class AnalogyResult:
    accuracy: float  # share of answerable questions whose top answer is right
    questions: int  # questions whose four words are in the vocabulary
    total: int  # questions in the file


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """``(V, E)`` rows scaled to length 1 (cosine similarity becomes a dot product)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def analogy_accuracy(kv, file: str | Path = "questions-words.txt",
                     restrict_vocab: int = 300_000) -> AnalogyResult:
    """3CosAdd: answer ``a : b :: c : ?`` with the word closest to ``b - a + c``
    (eq. (7)), excluding ``a``, ``b`` and ``c`` themselves.

    As gensim, only questions whose four words are among the ``restrict_vocab`` most
    frequent words count.
    """
    questions = read_analogies(file)
    index = {w: i for w, i in kv.key_to_index.items() if i < restrict_vocab}
    known = [q for q in questions if all(w in index for w in q)]
    if not known:
        return AnalogyResult(float("nan"), 0, len(questions))
    units = unit_rows(kv.vectors[: len(index)])  # (V, E)
    ids = np.array([[index[w] for w in q] for q in known])  # (Q, 4)
    a, b, c = units[ids[:, 0]], units[ids[:, 1]], units[ids[:, 2]]  # (Q, E) each
    target = unit_rows(b - a + c)  # (Q, E)
    scores = target @ units.T  # (Q, V)
    rows = np.arange(len(known))[:, None]
    scores[rows, ids[:, :3]] = -np.inf  # the question words are not answers
    correct = scores.argmax(axis=1) == ids[:, 3]  # (Q,)
    return AnalogyResult(float(correct.mean()), len(known), len(questions))


def evaluate_vectors(kv) -> dict[str, float]:
    """The three benchmarks in one row: two Spearman correlations, analogy accuracy and
    how many test items the vocabulary covers."""
    ws = similarity_spearman(kv, BENCHMARKS["WordSim-353"])
    sl = similarity_spearman(kv, BENCHMARKS["SimLex-999"])
    an = analogy_accuracy(kv, BENCHMARKS["analogies"])
    return {
        "WordSim-353 ρ": ws.spearman, "WordSim-353 pairs": ws.pairs,
        "SimLex-999 ρ": sl.spearman, "SimLex-999 pairs": sl.pairs,
        "analogy accuracy": an.accuracy, "analogy questions": an.questions,
    }


def agreement(kv_a, kv_b, words: list[str]) -> float:
    """Spearman correlation between two models' cosine similarities over all pairs of
    ``words`` (each must be in both vocabularies): do they find the same words close?"""
    sims = []
    for kv in (kv_a, kv_b):
        units = unit_rows(np.stack([kv[w] for w in words]))  # (n, E)
        upper = np.triu_indices(len(words), k=1)
        sims.append((units @ units.T)[upper])  # (n(n-1)/2,)
    return spearman(sims[0], sims[1])


def neighbour_overlap(kv_a, kv_b, words: list[str], k: int = 10) -> float:
    """Mean share of the ``k`` nearest neighbours that two models have in common."""
    shared = []
    for w in words:
        near_a = {n for n, _ in kv_a.most_similar(w, topn=k)}
        near_b = {n for n, _ in kv_b.most_similar(w, topn=k)}
        shared.append(len(near_a & near_b) / k)
    return float(np.mean(shared))
