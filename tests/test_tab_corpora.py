"""R8, MTL-16 and IMDB loaders on small files in the originals' formats, built here:
download from a mirror with a checksum, local copies (original name, compressed TSV,
the official IMDB tarball), the paper's splits, offline errors."""

import io
import lzma
import tarfile
import time
import urllib.error

import pytest

from lamalib.data import fetch as download_mod
from lamalib.data import load_dataset
from lamalib.data.datasets import tab_corpora
from lamalib.data.fetch import DownloadError

R8 = tab_corpora.R8_LABELS


def _r8_lines(n):
    return [f"{R8[i % 8]}\tstory {i} about {R8[i % 8]} markets" for i in range(n)]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMALIB_DATA", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_r8_downloads_from_its_source_with_a_checksum(cache, tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for split, n in (("train", 80), ("test", 16)):
        name = tab_corpora.R8_FILES[split]
        (mirror / name).write_text("\n".join(_r8_lines(n)) + "\n")
        monkeypatch.setitem(tab_corpora.SHA256, name,
                            download_mod.sha256sum(mirror / name))
    monkeypatch.setattr(tab_corpora, "R8_URL", mirror.as_uri() + "/")
    parts = {s: load_dataset("r8", s) for s in ("train", "valid", "test")}
    assert {s: len(d) for s, d in parts.items()} == {"train": 72, "valid": 8,
                                                     "test": 16}
    assert parts["train"].label_names == R8  # sorted topic names, ids 0..7
    assert sorted(parts["valid"].labels) == list(range(8))  # stratified 10%
    assert parts["test"].texts[3] == "story 3 about grain markets"
    assert parts["test"].labels[3] == R8.index("grain")


def test_r8_reads_a_local_compressed_copy(cache):
    (cache / "r8").mkdir(parents=True)
    (cache / "r8" / "test.tsv.xz").write_bytes(
        lzma.compress(("\n".join(_r8_lines(24)) + "\n").encode()))
    test = load_dataset("r8", "test")
    assert len(test) == 24 and test.labels[:8] == list(range(8))


def _mtl_lines(n, offset=0):
    return [f"{i % 2}\treview {i + offset} it was {'good' if i % 2 else 'bad'}"
            for i in range(n)]


def test_mtl16_split_is_1400_200_400_from_the_end_of_train(cache):
    (cache / "mtl16").mkdir(parents=True)
    lines = _mtl_lines(1600)
    lines[5] = "1\t"  # an empty text (as in sports_outdoors): skipped
    raw = ("\n".join(lines) + "\n").encode()
    raw = raw.replace(b"review 7 ", "review 7 caf\u00e9 ".encode("cp1252"))  # a cp1252 line
    (cache / "mtl16" / "books.task.train.xz").write_bytes(lzma.compress(raw))
    (cache / "mtl16" / "books.task.test").write_text("\n".join(_mtl_lines(400)) + "\n")
    train, valid, test = (load_dataset("mtl16_books", s) for s in
                          ("train", "valid", "test"))
    assert (len(train), len(valid), len(test)) == (1399, 200, 400)
    assert valid.texts[0] == "review 1400 it was bad" and valid.texts[-1].startswith(
        "review 1599")
    assert "review 7 caf\u00e9 it was good" in train.texts
    assert train.label_names == ["negative", "positive"] and test.labels[:2] == [0, 1]


def _imdb_tarball(path):
    with tarfile.open(path, "w:gz") as tar:
        for split in ("train", "test"):
            for label in ("neg", "pos"):
                for i in range(10):
                    data = f"{label} review {i}<br />second line".encode()
                    info = tarfile.TarInfo(f"aclImdb/{split}/{label}/{i}_1.txt")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))


def test_imdb_reads_the_official_tarball_offline(cache, monkeypatch):
    cache.mkdir(parents=True)
    _imdb_tarball(cache / tab_corpora.IMDB_TAR)
    test = load_dataset("imdb", "test")
    assert len(test) == 20 and test.label_names == ["negative", "positive"]
    assert sorted(test.labels) == [0] * 10 + [1] * 10
    assert "pos review 3 second line" in test.texts  # <br /> removed
    train, valid = load_dataset("imdb", "train"), load_dataset("imdb", "valid")
    assert len(train) + len(valid) == 20 and sorted(valid.labels) == [0, 1]


def test_imdb_reads_a_local_tsv(cache):
    (cache / "imdb").mkdir(parents=True)
    rows = [f"{'pos' if i % 2 else 'neg'}\treview {i}" for i in range(30)]
    (cache / "imdb" / "test.tsv").write_text("\n".join(rows) + "\n")
    test = load_dataset("imdb", "test")
    assert len(test) == 30 and test.labels[:2] == [0, 1]


def test_offline_without_a_copy_fails_fast_and_says_where_to_put_one(cache, monkeypatch):
    def offline(*args, **kwargs):
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(download_mod.urllib.request, "urlopen", offline)
    start = time.perf_counter()
    with pytest.raises(DownloadError, match=r"r8/test\.tsv.*LAMALIB_DATA.*path=FILE"):
        load_dataset("r8", "test")
    with pytest.raises(DownloadError, match=r"mtl16/dvd\.task\.train"):
        load_dataset("mtl16_dvd", "train")
    assert time.perf_counter() - start < 5
    downloads = download_mod.download_dir()  # $LAMALIB_CACHE/downloads, not the data
    assert [p for p in downloads.iterdir() if p.is_file()] == []  # nothing half-written
    assert not cache.exists()  # the data folder was only read


def test_a_given_file_path_is_read_instead(tmp_path, cache):
    own = tmp_path / "my_r8_test.txt"
    own.write_text("\n".join(_r8_lines(9)) + "\n")
    assert len(load_dataset("r8", "test", path=own)) == 9
