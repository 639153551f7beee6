"""Corpora that installed packages ship, so the quick profile needs no network.

gensim's test data carries 200 labelled movie-review sentences (Pang & Lee), a 200-post
two-newsgroup sample, the Lee news corpus, the word-analogy questions, WordSim-353 and
SimLex-999 (chapter "Setup and a first model").
"""

from __future__ import annotations

import io
import pickle
import random
import zlib
from pathlib import Path

import numpy as np

from lamalib import runtime
from lamalib.data.dataset import TextDataset
from lamalib.data.textio import read_lines
from lamalib.data.tokenize import tokenize

SPLITS = ("train", "valid", "test")


def gensim_datapath(filename: str) -> Path:
    """Path of a file in gensim's bundled test data (e.g. ``"wordsim353.tsv"``)."""
    from gensim.test.utils import datapath

    path = Path(datapath(filename))
    if not path.exists():
        raise FileNotFoundError(
            f"gensim ships no test file {filename!r} (looked in {path})"
        )
    return path


def split_indices(
    labels: list[int],
    split: str,
    seed: int = 0,
    fractions: tuple[float, float] = (0.7, 0.15),
) -> list[int]:
    """Indices of a stratified, seeded train/valid/test split (the rest is test)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    rng = random.Random(runtime.seed(seed))  # shifted by LAMALIB_SEED
    chosen: list[int] = []
    for label in sorted(set(labels)):
        idx = [i for i, y in enumerate(labels) if y == label]
        rng.shuffle(idx)
        n_train = round(fractions[0] * len(idx))
        n_valid = round(fractions[1] * len(idx))
        bounds = {
            "train": (0, n_train),
            "valid": (n_train, n_train + n_valid),
            "test": (n_train + n_valid, len(idx)),
        }[split]
        chosen += idx[bounds[0] : bounds[1]]
    return sorted(chosen)


def movie_reviews(split: str = "train", seed: int = 0) -> TextDataset:
    """200 sentence-level movie reviews (100 negative, 100 positive), split 70/15/15."""
    texts, labels = [], []
    for line in read_lines(gensim_datapath("pang_lee_polarity.cor")):
        tag, text = line.split(" ", 1)
        texts.append(text.strip())
        labels.append(0 if tag == "__label__neg" else 1)
    full = TextDataset(texts, labels, ["negative", "positive"], "movie_reviews", "all")
    return full.subset(split_indices(labels, split, seed), split)


class _Bunch(dict):
    """Stands in for ``sklearn.utils.Bunch`` so the newsgroup pickle loads without
    sklearn."""


class _SafeUnpickler(pickle.Unpickler):
    # Only the handful of classes the shipped file needs: nothing else may be
    # constructed.
    def find_class(self, module: str, name: str):  # noqa: ANN201
        import copyreg

        from numpy._core.multiarray import _reconstruct

        allowed = {
            ("sklearn.datasets.base", "Bunch"): _Bunch,
            ("copy_reg", "_reconstructor"): copyreg._reconstructor,
            ("__builtin__", "dict"): dict,
            ("__builtin__", "object"): object,
            ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
            ("numpy", "ndarray"): np.ndarray,
            ("numpy", "dtype"): np.dtype,
        }
        if (module, name) not in allowed:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}")
        return allowed[(module, name)]


def newsgroups(split: str = "train", seed: int = 0) -> TextDataset:
    """200 posts from alt.atheism vs sci.space, headers removed (they name the
    group)."""
    raw = zlib.decompress(gensim_datapath("mini_newsgroup").read_bytes())
    bunch = _SafeUnpickler(io.BytesIO(raw), encoding="latin1").load()
    # The header block ends at the first blank line; its "Newsgroups:" line is the
    # label.
    texts = [post.split("\n\n", 1)[-1].strip() or post for post in bunch["data"]]
    labels = [int(y) for y in bunch["target"]]
    full = TextDataset(texts, labels, list(bunch["target_names"]), "newsgroups", "all")
    return full.subset(split_indices(labels, split, seed), split)


def lee_texts(which: str = "background") -> list[str]:
    """The Lee news corpus as raw texts, one per document (``background``: 300 docs,
    ``test``: 50 other docs)."""
    name = {"background": "lee_background.cor", "test": "lee.cor"}[which]
    return read_lines(gensim_datapath(name))


def lee_corpus(which: str = "background") -> list[list[str]]:
    """The Lee news corpus as token lists, one per document (``background``: 300 docs,
    ``test``: 50 docs)."""
    return [tokenize(line) for line in lee_texts(which)]
