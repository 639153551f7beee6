"""Word vectors from a file: GloVe's text format or word2vec's (chapter "Word vectors").

The Multi-Scale Transformer paper starts from 300-d GloVe vectors; the LAMA paper from
word2vec trained on the corpus. Both formats are one word per line followed by its
numbers; word2vec's text format adds a first line ``<count> <dim>``. Files may be
plain or compressed (``.gz``, ``.xz``, ``.bz2``). :func:`vectors_for` reads only the
words of a vocabulary, so a 2 GB GloVe file costs no more memory than the vocabulary.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Iterator, Mapping

import numpy as np
import torch

from lamalib import runtime
from lamalib.data.textio import OPEN, open_binary

GLOVE_HINT = (
    "GloVe's vectors are at https://nlp.stanford.edu/projects/glove/ (e.g. "
    "glove.840B.300d.zip, the Multi-Scale Transformer paper's); unzip and pass the "
    ".txt file. Offline, train vectors on a corpus you have: python -m "
    "lamalib.experiments vectors --corpus imdb --dim 300 --save vectors.txt"
)


def _lines(path: Path) -> Iterator[str]:
    with io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace") as f:
        yield from f


def read_vectors(path: str | Path, words: set[str] | None = None
                 ) -> tuple[list[str], np.ndarray]:
    """The words of ``path`` (all, or those in ``words``) and their vectors ``(n, E)``.

    The width E is the header's in word2vec's format, else the first line's number of
    fields minus one. A word may contain spaces (GloVe 840B has some): the last E fields
    of a line are the vector, the rest is the word. The first vector of a word wins.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no vectors file {path}. {GLOVE_HINT}")
    keep, rows, seen, dim = [], [], set(), None
    for number, line in enumerate(_lines(path), 1):
        fields = line.rstrip("\n\r ").split(" ")
        if number == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
            dim = int(fields[1])  # word2vec's header: <count> <dim>
            continue
        if dim is None:
            dim = len(fields) - 1
        if len(fields) < dim + 1:
            if len(fields) <= 1:
                continue  # a blank line
            raise ValueError(f"{path}, line {number}: {len(fields) - 1} numbers, "
                             f"expected {dim}; is it a GloVe or word2vec text file?")
        word = " ".join(fields[:-dim])
        if word in seen or (words is not None and word not in words):
            continue
        try:
            rows.append(np.asarray(fields[-dim:], dtype=np.float32))
        except ValueError as err:
            raise ValueError(f"{path}, line {number}: not a vector ({err})") from err
        keep.append(word)
        seen.add(word)
    if dim is None:
        raise ValueError(f"{path} holds no vectors. {GLOVE_HINT}")
    return keep, (np.stack(rows) if rows else np.zeros((0, dim), np.float32))


def save_vectors(path: str | Path, words: list[str], vectors: np.ndarray) -> Path:
    """Write ``vectors (n, E)`` under ``words`` in word2vec's text format."""
    path = Path(path)
    with OPEN.get(path.suffix.lower(), open)(path, "wt", encoding="utf-8") as f:
        f.write(f"{len(words)} {vectors.shape[1]}\n")
        for word, row in zip(words, vectors):
            f.write(word + " " + " ".join(f"{x:.6g}" for x in row) + "\n")
    return path


def embedding_matrix(itos: list[str], lookup: Mapping[str, np.ndarray], dim: int,
                     pad_id: int = 0, seed: int = 0,
                     scale: float | None = None) -> torch.Tensor:
    """``(V, E)``: row i is ``lookup[itos[i]]`` where it has the word; the other words get
    random vectors with the known vectors' spread ``scale`` (default: their standard
    deviation), so no row stands out; the pad row is zero (it is never trained and
    must not add signal)."""
    if scale is None:
        known = [np.asarray(v) for v in lookup.values()]
        scale = float(np.std(np.stack(known))) if known else 0.1
    gen = torch.Generator().manual_seed(runtime.seed(seed))  # LAMALIB_SEED
    matrix = torch.randn(len(itos), dim, generator=gen) * scale  # (V, E)
    for i, word in enumerate(itos):
        if word in lookup:
            matrix[i] = torch.from_numpy(np.array(lookup[word], dtype=np.float32))
    matrix[pad_id] = 0.0
    return matrix


def vectors_for(vocab, path: str | Path, seed: int = 0) -> tuple[torch.Tensor, dict]:
    """An embedding matrix ``(V, E)`` for ``vocab`` from the vectors file ``path``, and
    ``{"file", "dim", "coverage"}`` (the share of the vocabulary the file has)."""
    words, vectors = read_vectors(path, set(vocab.itos))
    lookup = dict(zip(words, vectors))
    matrix = embedding_matrix(vocab.itos, lookup, vectors.shape[1], vocab.pad_id, seed)
    info = {"file": Path(path).name, "dim": int(vectors.shape[1]),
            "coverage": len(words) / len(vocab)}
    return matrix, info
