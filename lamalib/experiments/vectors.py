"""Word vectors trained on a real corpus, judged and recorded: the results file that
chapter "Word vectors" shows beside its quick-profile run (``python -m
lamalib.experiments vectors``)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from lamalib.data import load_corpus, load_dataset
from lamalib.data.tokenize import tokenize
from lamalib.data.fetch import sha256sum
from lamalib.embeddings import (Word2VecConfig, evaluate_vectors, gensim_word2vec,
                                save_vectors, train_word2vec)
from lamalib.provenance import (code_identity, command_line, git_commit, hardware,
                                lamalib_version)
from lamalib.runtime import profile
from lamalib.experiments.results import run_lock, user_results_dir
from lamalib.provenance import write_json_atomic

# Words whose neighbours the chapter prints: frequent in reviews and in news.
PROBES = ("good", "bad", "movie", "actor", "funny", "boring", "music", "police",
          "money", "king")


def corpus_sentences(name: str) -> list[list[str]]:
    """Token lists of a registered corpus (``lee``) or of a dataset's training split
    (``imdb``, ``r8``, ...)."""
    try:
        return load_corpus(name)
    except KeyError:
        return [tokenize(t) for t in load_dataset(name, "train").sentences().texts]


def _identity(sentences: list[list[str]]) -> dict:
    digest = hashlib.sha256()
    for s in sentences:
        digest.update((" ".join(s) + "\n").encode())
    return {"sentences": len(sentences), "tokens": sum(map(len, sentences)),
            "sha256": digest.hexdigest()}


def neighbours(kv, words=PROBES, k: int = 8) -> dict[str, list[list]]:
    """The ``k`` nearest words of each probe in the vocabulary, with cosines."""
    return {w: [[n, round(float(c), 4)] for n, c in kv.most_similar(w, topn=k)]
            for w in words if w in kv.key_to_index}


def run_vectors(corpus: str, impl: str = "gensim", arch: str = "skipgram",
                config: Word2VecConfig | None = None,
                results_dir: Path | None = None, argv: list[str] | None = None,
                save: str | Path | None = None) -> dict:
    """Train ``impl`` ("gensim" or "lamalib") word2vec with ``arch`` on ``corpus``;
    write ``word2vec__<impl>_<arch>__<corpus>.json`` with the benchmarks' scores, and
    the vectors themselves to ``save`` (word2vec text format) if given: a run's
    ``--set embeddings=<that file>`` starts a classifier from them."""
    if impl not in ("gensim", "lamalib") or arch not in ("skipgram", "cbow"):
        raise ValueError("impl must be gensim or lamalib, arch skipgram or cbow")
    config = config or Word2VecConfig()
    config.sg = arch == "skipgram"
    results_dir = user_results_dir() if results_dir is None else results_dir
    out = Path(results_dir) / f"word2vec__{impl}_{arch}__{corpus}.json"
    with run_lock(out):
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        commit, code = git_commit(), code_identity()  # the code this run uses
        sentences = corpus_sentences(corpus)
        if impl == "gensim":
            model, seconds = gensim_word2vec(sentences, config)
            kv = model.wv
        else:
            run = train_word2vec(sentences, config)
            kv, seconds = run.keyed_vectors(), run.seconds
        scores = {k: (None if isinstance(v, float) and np.isnan(v) else v)
                  for k, v in evaluate_vectors(kv).items()}
        result = {
            "experiment": "word2vec", "model": f"{impl}_{arch}", "dataset": corpus,
            "profile": profile(), "config": vars(config).copy(),
            "corpus_identity": _identity(sentences), "vocab_size": len(kv),
            "metrics": scores, "neighbours": neighbours(kv),
            "train_seconds": seconds, "hardware": hardware(), "started": started,
            "git_commit": commit, "code": code,
            "lamalib": lamalib_version(),
            "command": command_line(argv),
        }
        if save is not None:
            save_vectors(save, list(kv.index_to_key), kv.vectors)
            result["saved_to"] = {"file": Path(save).name, "sha256": sha256sum(save)}
        write_json_atomic(out, result)
    print(f"{impl} {arch} on {corpus}: {len(kv)} words, {seconds:.0f} s, {scores}")
    return result
