"""The SNLI loader on small files in the official format, built here: the unpacked
jsonl files, the zip, a compressed copy, Hugging Face datasets (a stand-in module),
the download with its checksum, and the offline error."""

import gzip
import json
import sys
import time
import types
import urllib.error
import zipfile

import pytest

from lamalib.data import PairDataset, load_dataset
from lamalib.data import fetch as download_mod
from lamalib.data.datasets import snli as snli_mod
from lamalib.data.fetch import DownloadError

# (gold_label, sentence1, sentence2) as in snli_1.0_*.jsonl; "-": no consensus
ROWS = [("neutral", "A man plays a guitar.", "A man plays a song he wrote."),
        ("contradiction", "A dog runs on the beach.", "A cat sleeps indoors."),
        ("-", "Two kids smile.", "The kids are happy."),
        ("entailment", "A woman reads a book in a park.", "A woman is reading."),
        ("entailment", "People wait for a bus.", "People are outside."),
        ("neutral", "A boy jumps.", " ")]  # an empty hypothesis: nothing to learn


def _jsonl(rows) -> str:
    # the real files carry more fields (annotator_labels, parses, pairID, ...)
    return "".join(json.dumps({"annotator_labels": [g], "captionID": "1.jpg#0",
                               "gold_label": g, "pairID": f"{i}", "sentence1": a,
                               "sentence1_binary_parse": "( x )", "sentence2": b,
                               "sentence2_parse": "(ROOT (S x))"}) + "\n"
                   for i, (g, a, b) in enumerate(rows))


def _zip(path, rows_by_split):
    with zipfile.ZipFile(path, "w") as zf:
        for split, rows in rows_by_split.items():
            zf.writestr(f"snli_1.0/snli_1.0_{split}.jsonl", _jsonl(rows))
        zf.writestr("__MACOSX/snli_1.0/._snli_1.0_dev.jsonl", "resource fork")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMALIB_DATA", str(tmp_path / "cache"))
    monkeypatch.setitem(sys.modules, "datasets", None)  # as here: not installed
    (tmp_path / "cache").mkdir()
    return tmp_path / "cache"


def _check(d: PairDataset, rows):
    kept = [r for r in rows if r[0] != "-" and r[2].strip()]
    assert d.label_names == ["entailment", "neutral", "contradiction"]
    assert d.first == [a for _, a, _ in kept] and d.second == [b for _, _, b in kept]
    assert d.labels == [d.label_names.index(g) for g, _, _ in kept]


def test_unpacked_jsonl_files_drop_no_consensus_pairs(cache):
    (cache / "snli_1.0").mkdir()
    for split in ("train", "dev", "test"):
        (cache / "snli_1.0" / f"snli_1.0_{split}.jsonl").write_text(_jsonl(ROWS))
    train = load_dataset("snli", "train")
    assert isinstance(train, PairDataset) and (train.name, train.split) == (
        "snli", "train")
    assert len(train) == 4 and "Two kids smile." not in train.first  # "-" dropped
    assert train.labels == [1, 2, 0, 0]  # neutral, contradiction, entailment x2
    _check(train, ROWS)
    assert load_dataset("snli", "valid")[0] == ("A man plays a guitar.",
                                                "A man plays a song he wrote.", 1)


def test_the_official_zip_and_a_compressed_file_are_read(cache):
    _zip(cache / "snli_1.0.zip", {"train": ROWS, "dev": ROWS[:2], "test": ROWS[2:]})
    _check(load_dataset("snli", "valid"), ROWS[:2])
    _check(load_dataset("snli", "test"), ROWS[2:])
    (cache / "snli_1.0").mkdir()  # an unpacked file comes before the zip
    (cache / "snli_1.0" / "snli_1.0_test.jsonl.gz").write_bytes(
        gzip.compress(_jsonl(ROWS[:1]).encode()))
    _check(load_dataset("snli", "test"), ROWS[:1])


def test_bad_files_get_errors_that_say_where(cache):
    (cache / "snli_1.0").mkdir()
    bad = _jsonl(ROWS[:1]) + json.dumps({"gold_label": "maybe", "sentence1": "a",
                                         "sentence2": "b"}) + "\n"
    (cache / "snli_1.0" / "snli_1.0_train.jsonl").write_text(bad)
    with pytest.raises(ValueError, match=r"snli_1.0_train.jsonl, line 2: .*'maybe'"):
        load_dataset("snli", "train")
    (cache / "snli_1.0" / "snli_1.0_dev.jsonl").write_text("sentence1\tsentence2\n")
    with pytest.raises(ValueError, match=r"line 1: expected a JSON object"):
        load_dataset("snli", "valid")
    null = json.dumps({"gold_label": "neutral", "sentence1": "a", "sentence2": None})
    (cache / "snli_1.0" / "snli_1.0_dev.jsonl").write_text(_jsonl(ROWS[:2]) + null)
    with pytest.raises(ValueError, match=r"dev.jsonl, line 3: expected a JSON object"):
        load_dataset("snli", "valid")
    (cache / "snli_1.0.zip").write_bytes(b"PK half a download")
    with pytest.raises(ValueError, match="not a readable zip"):
        load_dataset("snli", "test")
    with pytest.raises(ValueError, match="split must be one of"):
        load_dataset("snli", "dev")


def test_offline_without_a_copy_fails_fast_and_says_where_to_put_one(cache,
                                                                     monkeypatch):
    def offline(*args, **kwargs):
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(download_mod.urllib.request, "urlopen", offline)
    start = time.perf_counter()
    with pytest.raises(DownloadError) as err:
        load_dataset("snli", "train")
    assert time.perf_counter() - start < 5
    message = str(err.value)
    assert "snli_1.0.zip" in message and "LAMALIB_DATA" in message
    assert str(cache) in message and "synthetic_nli" in message  # the offline pairs
    assert list(cache.iterdir()) == []  # nothing half-written


def test_the_zip_is_downloaded_checked_and_kept(cache, tmp_path, monkeypatch):
    mirror = tmp_path / "mirror" / "snli_1.0.zip"
    mirror.parent.mkdir()
    _zip(mirror, {"train": ROWS, "dev": ROWS, "test": ROWS})
    monkeypatch.setattr(snli_mod, "URL", mirror.as_uri())
    monkeypatch.setattr(snli_mod, "SHA256", download_mod.sha256sum(mirror))
    _check(load_dataset("snli", "test"), ROWS)
    kept = download_mod.download_dir() / "snli_1.0.zip"  # in $LAMALIB_CACHE
    assert kept.read_bytes() == mirror.read_bytes()
    monkeypatch.setattr(snli_mod, "SHA256", "0" * 64)  # the source changed
    kept.unlink()
    with pytest.raises(DownloadError, match="Checksum mismatch"):
        load_dataset("snli", "test")
    assert list(kept.parent.iterdir()) == []
    assert not cache.exists() or list(cache.iterdir()) == []  # data: only read


class _Split(dict):
    """What ``datasets.load_dataset`` returns, as far as the loader reads it."""

    def __init__(self, rows, names):
        super().__init__(premise=[r[0] for r in rows], hypothesis=[r[1] for r in rows],
                         label=[r[2] for r in rows])
        self.features = {"label": types.SimpleNamespace(names=names)}


def test_hugging_face_datasets_when_installed(cache, monkeypatch):
    names = ["entailment", "neutral", "contradiction"]  # stanfordnlp/snli's ClassLabel
    rows = [("A man sleeps.", "A person rests.", 0), ("A man sleeps.", "He runs.", 2),
            ("A man sleeps.", "He dreams.", -1), ("A man sleeps.", "He is old.", 1)]
    asked = []

    def load(name, split):
        asked.append((name, split))
        return _Split(rows, names)

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(
        load_dataset=load))
    valid = load_dataset("snli", "valid")
    assert asked == [("stanfordnlp/snli", "validation")]
    assert valid.second == ["A person rests.", "He runs.", "He is old."]  # -1 dropped
    assert valid.labels == [0, 2, 1]

    def unreachable(name, split):
        raise ConnectionError("Couldn't reach 'stanfordnlp/snli' on the Hub")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(
        load_dataset=unreachable))
    with pytest.raises(DownloadError, match=r"Couldn't reach.*snli_1.0.zip"):
        load_dataset("snli", "test")
