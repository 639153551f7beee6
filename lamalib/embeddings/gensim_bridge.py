"""gensim's word2vec as a reference and a tool (chapter "Word vectors").

* :func:`gensim_word2vec` trains gensim's ``Word2Vec`` with the settings of our
  :class:`~lamalib.embeddings.train.Word2VecConfig`, so the two can be compared.
* :func:`pretrain_for` trains 100-d vectors on a dataset's training split and returns an
  embedding matrix aligned with a :class:`~lamalib.data.vocab.Vocab`: the classifiers of
  later chapters start from it, as the LAMA paper does.
* :func:`load_text8` and :func:`word2vec_corpus` pick the corpus of a run profile.
"""

from __future__ import annotations

import socket
import time
from typing import Sequence

import numpy as np
import torch

from lamalib.data import DownloadError
from lamalib import runtime
from lamalib.runtime import by_profile
from lamalib.embeddings.train import Word2VecConfig
from lamalib.embeddings.vectors_file import embedding_matrix

EMBEDDED_CORPUS_HINT = (
    "Without network, train on the embedded Lee corpus instead: "
    "lamalib.data.load_corpus('lee') (what the quick profile uses)."
)


def gensim_word2vec(sentences: Sequence[Sequence[str]], config: Word2VecConfig):
    """Train gensim's ``Word2Vec`` with ``config``'s settings.

    One worker thread: the timing compares with our single training loop, and gensim
    is reproducible from ``seed`` only with one worker. The seed is shifted by
    ``LAMALIB_SEED`` (:func:`lamalib.runtime.seed`), as our own trainer's is.

    Returns:
        ``(model, seconds)``: the gensim model and its wall-clock training time.
    """
    from gensim.models import Word2Vec

    start = time.perf_counter()
    model = Word2Vec(
        sentences=[list(s) for s in sentences], vector_size=config.dim,
        window=config.window, min_count=config.min_count, sg=int(config.sg), hs=0,
        negative=config.negative, ns_exponent=config.ns_exponent, sample=config.sample,
        cbow_mean=1, epochs=config.epochs, seed=runtime.seed(config.seed), workers=1,
    )
    return model, time.perf_counter() - start


def pretrain_for(dataset, vocab, dim: int = 100, min_count: int = 5, epochs: int = 10,
                 seed: int = 0) -> torch.Tensor:
    """word2vec vectors for a classifier's embedding layer, trained with gensim on the
    dataset's own (training) texts.

    Args:
        dataset: a :class:`~lamalib.data.dataset.TextDataset` (its training split).
        vocab: the classifier's :class:`~lamalib.data.vocab.Vocab`; row i is word i.
        dim: E, 100 as in the LAMA paper.
        min_count: words rarer than this get no trained vector.
        epochs: passes over the texts (small datasets need several).

    Returns:
        ``(V, E)`` float tensor: trained vectors where word2vec has the word, small
        random vectors (same scale) for the other words, zeros for ``<pad>``.
    """
    sentences = dataset.tokens()
    counts = {}
    for sentence in sentences:
        for w in sentence:
            counts[w] = counts.get(w, 0) + 1
    if max(counts.values()) < min_count:
        raise ValueError(
            f"No word of {dataset.name!r} occurs {min_count} times: lower min_count."
        )
    config = Word2VecConfig(dim=dim, min_count=min_count, epochs=epochs, seed=seed)
    model, _ = gensim_word2vec(sentences, config)
    kv = model.wv
    # Unknown words get random vectors as wide as the trained ones: no row stands out.
    return embedding_matrix(vocab.itos, kv, dim, vocab.pad_id, seed,
                            scale=float(np.std(kv.vectors)))  # (V, E)


def _check_online(host: str = "github.com", port: int = 443,
                  timeout: float = 3.0) -> None:
    """Raise :class:`DownloadError` at once when ``host`` cannot be reached."""
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as err:
        raise DownloadError(
            f"Cannot reach {host} to download text8 ({err}). {EMBEDDED_CORPUS_HINT}"
        ) from err


def load_text8(sentence_length: int = 1000) -> list[list[str]]:
    """text8 (the first 10^8 bytes of English Wikipedia, 17M tokens) through
    ``gensim.downloader``, cut into sentences of ``sentence_length`` tokens.

    Raises:
        DownloadError: offline (after a 3-second check, not a long hang); the message
            names the embedded Lee corpus.
    """
    _check_online()
    import gensim.downloader

    try:
        stream = gensim.downloader.load("text8")
    except Exception as err:  # network errors surface as many types in the downloader
        raise DownloadError(
            f"Could not load text8 ({err}). {EMBEDDED_CORPUS_HINT}") from err
    tokens = [w for chunk in stream for w in chunk]
    n = sentence_length
    return [tokens[i:i + n] for i in range(0, len(tokens), n)]


def word2vec_corpus() -> tuple[str, list[list[str]]]:
    """``(name, sentences)`` of the run profile: Lee corpus (quick) or text8 (full)."""
    from lamalib.data import load_corpus

    name = by_profile(quick="lee", full="text8")
    return name, (load_corpus("lee") if name == "lee" else load_text8())
