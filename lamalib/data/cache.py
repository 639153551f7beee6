"""On-disk caches of what is slow to recompute for large corpora: the vocabulary of a
training split and the numericalised texts, keyed by content (chapter "Reproductions").

The second run on IMDB does not tokenise 50,000 reviews again. Files are JSON and NumPy
arrays read without pickle (``allow_pickle=False``), written atomically; the key is a
SHA-256 of the texts, labels and settings, so changed data never meets a stale cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Callable

import numpy as np

from lamalib.data.batching import encode_texts
from lamalib.data.dataset import TextDataset
from lamalib.data.fetch import _default_dir
from lamalib.data.pair_dataset import PairDataset
from lamalib.data.vocab import Vocab


def cache_dir() -> Path:
    """``$LAMALIB_CACHE`` if set, else ``cache/`` in the default folder (``data/cache``
    of a source checkout, else ``~/.cache/lamalib/cache``); never under
    ``$LAMALIB_DATA``, which is only read (it may be a shared, read-only copy)."""
    path = (Path(os.environ["LAMALIB_CACHE"]) if os.environ.get("LAMALIB_CACHE")
            else _default_dir() / "cache")
    path.mkdir(parents=True, exist_ok=True)
    return path


def fingerprint(dataset: TextDataset | PairDataset) -> str:
    """SHA-256 of every (label, text) pair in order: the dataset's identity (a sentence
    pair's text is its two sentences joined by a tab)."""
    texts = (dataset.texts if isinstance(dataset, TextDataset) else
             (f"{a}\t{b}" for a, b in zip(dataset.first, dataset.second)))
    digest = hashlib.sha256()
    for text, label in zip(texts, dataset.labels):
        digest.update(f"{label}\t{text}\n".encode())
    return digest.hexdigest()


def _key(**parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def vocab_digest(vocab: Vocab) -> str:
    """SHA-256 of the vocabulary's tokens in id order."""
    return hashlib.sha256("\n".join(vocab.itos).encode()).hexdigest()


def cached_array(name: str, compute: Callable[[], np.ndarray], **key) -> np.ndarray:
    """``compute()``, read from ``<cache>/<name>_<key>.npy`` when it was computed before
    with the same ``key`` (JSON-able settings and digests)."""
    path = cache_dir() / f"{name}_{_key(**key)}.npy"
    if path.exists():
        return np.load(path, allow_pickle=False)
    array = compute()
    tmp = _tmp(path).with_suffix(".npy")  # processes of one job may race here
    np.save(tmp, array, allow_pickle=False)
    os.replace(tmp, path)
    return array


def cached_vocab(train: TextDataset, min_freq: int = 1,
                 cls_token: bool = False) -> Vocab:
    """``Vocab.build(train.texts, ...)``, read from the cache when it was built before."""
    key = _key(data=fingerprint(train), min_freq=min_freq, cls=cls_token)
    path = cache_dir() / f"vocab_{key}.json"
    if path.exists():
        stored = json.loads(path.read_text())
        return Vocab(stored["itos"], stored["counts"])
    vocab = Vocab.build(train.texts, min_freq=min_freq, cls_token=cls_token)
    tmp = _tmp(path)
    tmp.write_text(json.dumps({"itos": vocab.itos, "counts": vocab.counts}))
    os.replace(tmp, path)
    return vocab


def cached_ids(dataset: TextDataset, vocab: Vocab, max_len: int | None = None,
               add_cls: bool = False) -> list[list[int]]:
    """``vocab.encode(text)[:max_len]`` for every text, read from the cache when it was
    computed before with the same data, vocabulary and settings."""
    key = _key(data=fingerprint(dataset), vocab=vocab_digest(vocab), max_len=max_len,
               cls=add_cls)
    path = cache_dir() / f"ids_{key}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as stored:
            flat, offsets = stored["flat"], stored["offsets"]
        return [flat[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])]
    ids = encode_texts(dataset.texts, vocab, add_cls, max_len)
    offsets = np.cumsum([0] + [len(x) for x in ids], dtype=np.int64)
    flat = np.fromiter((i for x in ids for i in x), dtype=np.int32, count=offsets[-1])
    tmp = _tmp(path).with_suffix(".npz")
    with open(tmp, "wb") as f:
        np.savez(f, flat=flat, offsets=offsets)
    os.replace(tmp, path)
    return ids
