"""Caches of vocabularies and numericalised texts: equal to computing them, keyed by
content, read without pickle."""

import numpy as np
import pytest

from lamalib.data import TextDataset, Vocab
from lamalib.data import cache as cache_mod
from lamalib.data.cache import cached_ids, cached_vocab


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMALIB_DATA", str(tmp_path))
    texts = [f"a b c word{i} " + "x " * (i % 7) for i in range(50)]
    return TextDataset(texts, [i % 2 for i in range(50)], ["n", "p"], "d", "train")


def test_cached_vocab_and_ids_equal_a_fresh_computation(data, tmp_path, monkeypatch):
    vocab = cached_vocab(data, min_freq=1)
    fresh = Vocab.build(data.texts, min_freq=1)
    assert vocab.itos == fresh.itos
    ids = cached_ids(data, vocab, max_len=6)
    assert ids == [fresh.encode(t)[:6] for t in data.texts]
    # The second call reads the files: computing again would fail.
    monkeypatch.setattr(cache_mod.Vocab, "build", None)
    monkeypatch.setattr(Vocab, "encode", None)
    assert cached_vocab(data, min_freq=1).itos == fresh.itos
    assert cached_ids(data, vocab, max_len=6) == ids
    files = sorted(p.name.split("_")[0] for p in (tmp_path / "cache").iterdir())
    assert files == ["ids", "vocab"]
    npz = next((tmp_path / "cache").glob("ids_*.npz"))
    with np.load(npz, allow_pickle=False) as stored:  # plain arrays, no pickle
        assert stored["flat"].dtype == np.int32


def test_other_content_or_settings_get_other_entries(data, tmp_path):
    vocab = cached_vocab(data)
    cached_ids(data, vocab, max_len=6)
    cached_ids(data, vocab, max_len=None)
    changed = TextDataset([t + " more" for t in data.texts], data.labels, ["n", "p"])
    assert cached_ids(changed, vocab)[0] == vocab.encode(changed.texts[0])
    cached_vocab(data, min_freq=2)
    assert len(list((tmp_path / "cache").glob("ids_*"))) == 3
    assert len(list((tmp_path / "cache").glob("vocab_*"))) == 2


def test_cached_array_computes_once_per_key(data, tmp_path):
    from lamalib.data.cache import cached_array

    calls = []

    def compute():
        calls.append(1)
        return np.arange(6, dtype=np.float32).reshape(2, 3)

    first = cached_array("demo", compute, dim=3, seed=0)
    again = cached_array("demo", compute, dim=3, seed=0)
    other = cached_array("demo", compute, dim=3, seed=1)
    assert len(calls) == 2 and np.array_equal(first, again)
    assert np.array_equal(first, other)
    assert len(list((tmp_path / "cache").glob("demo_*.npy"))) == 2
