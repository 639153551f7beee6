"""Caches of vocabularies and numericalised texts: equal to computing them, keyed by
content, read without pickle."""

import numpy as np
import pytest

from lamalib.data import TextDataset, Vocab
from lamalib.data import cache as cache_mod
from lamalib.data.cache import cached_ids, cached_vocab


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMALIB_CACHE", str(tmp_path / "cache"))
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


def _snapshot(folder):
    return {p.relative_to(folder): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in sorted(folder.rglob("*"))}


def test_a_read_only_data_folder_is_never_written_to(tmp_path, monkeypatch):
    """$LAMALIB_DATA (a shared copy, maybe read-only) is only read: loading R8 from a
    local copy there and caching its vocabulary and ids write into $LAMALIB_CACHE."""
    import stat

    from lamalib.data import load_dataset
    from lamalib.data.datasets.tab_corpora import R8_LABELS

    data, cache = tmp_path / "shared", tmp_path / "my-cache"
    (data / "r8").mkdir(parents=True)
    lines = [f"{R8_LABELS[i % 8]}\tstory {i} about {R8_LABELS[i % 8]}"
             for i in range(40)]
    (data / "r8" / "train.tsv").write_text("\n".join(lines) + "\n")
    (data / "r8" / "test.tsv").write_text("\n".join(lines[:16]) + "\n")
    before = _snapshot(data)
    for folder in (data, data / "r8"):
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    monkeypatch.setenv("LAMALIB_DATA", str(data))
    monkeypatch.setenv("LAMALIB_CACHE", str(cache))
    try:
        train = load_dataset("r8", "train")
        vocab = cached_vocab(train)
        cached_ids(train, vocab, max_len=4)
        assert len(load_dataset("r8", "test")) == 16
    finally:
        for folder in (data, data / "r8"):
            folder.chmod(stat.S_IRWXU)
    assert _snapshot(data) == before  # nothing created or changed (tests run as root)
    assert sorted(p.name.split("_")[0] for p in cache.iterdir()) == ["ids", "vocab"]
