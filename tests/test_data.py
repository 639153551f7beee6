import csv
import random
import urllib.error

import pytest
import torch

from lamalib.data import (DownloadError, Vocab, available_datasets, download,
                          load_dataset, load_table, pad_sequences, tokenize)
from lamalib.data import fetch as download_mod
from lamalib.data.datasets import remote
from lamalib.data.batching import BucketBatches
from lamalib.data.datasets.synthetic import NEGATIVE, NEGATORS, POSITIVE


def test_tokenize_splits_punctuation_and_lowercases():
    assert tokenize("Have a GOOD day, isn't it?") == [
        "have",
        "a",
        "good",
        "day",
        ",",
        "isn't",
        "it",
        "?",
    ]
    assert tokenize("đá lạnh") == ["đá", "lạnh"]


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty_text_is_a_clear_error(text):
    with pytest.raises(ValueError, match="empty text"):
        tokenize(text)
    vocab = Vocab.build(["a b"])
    with pytest.raises(ValueError, match="empty"):
        vocab.encode(text)


def test_vocab_specials_min_freq_and_unknowns():
    vocab = Vocab.build(
        ["the cat", "the dog", "the cat sat"], min_freq=2, cls_token=True
    )
    assert vocab.itos[:3] == ["<pad>", "<unk>", "[CLS]"]
    assert (vocab.pad_id, vocab.unk_id, vocab.cls_id) == (0, 1, 2)
    assert vocab.itos[3:] == ["the", "cat"]  # by frequency; dog and sat are too rare
    assert vocab.encode("the dog", add_cls=True) == [2, 3, 1]
    assert vocab.decode([3, 4, 0]) == ["the", "cat", "<pad>"]
    with pytest.raises(ValueError, match="no \\[CLS\\]"):
        Vocab.build(["a"]).encode("a", add_cls=True)
    with pytest.raises(ValueError, match="empty"):
        Vocab.build([])


def test_pad_sequences_matches_brute_force():
    seqs = [[5, 6, 7], [8], [9, 10]]
    tokens, mask = pad_sequences(seqs, pad_id=0)
    assert tokens.shape == mask.shape == (3, 3)
    for b, s in enumerate(seqs):
        for t in range(3):
            assert bool(mask[b, t]) == (t < len(s))
            assert int(tokens[b, t]) == (s[t] if t < len(s) else 0)
    with pytest.raises(ValueError, match="empty sequence"):
        pad_sequences([[1], []])


def test_bucket_batches_cover_every_example_once_and_repeat_by_epoch():
    rng = random.Random(0)
    ids = [[1] * rng.randint(1, 30) for _ in range(103)]
    loader = BucketBatches(ids, list(range(103)), batch_size=8, shuffle=True, seed=1)
    loader.set_epoch(1)
    first = [b.index.tolist() for b in loader]
    assert sorted(i for rows in first for i in rows) == list(range(103))
    assert len(first) == len(loader) == 13
    assert [b.index.tolist() for b in loader] == first  # same epoch: same batches
    loader.set_epoch(2)
    assert [b.index.tolist() for b in loader] != first
    # Bucketing: a batch's lengths are close together, far less spread than at random.
    spread = sum(
        max(len(ids[i]) for i in r) - min(len(ids[i]) for i in r) for r in first
    )
    assert spread < 0.5 * 13 * 29
    for batch in loader:
        assert torch.equal(batch.labels, batch.index)  # labels follow their rows


def test_unknown_dataset_lists_available_names():
    with pytest.raises(KeyError) as err:
        load_dataset("sst-3")
    for name in ("movie_reviews", "synthetic_sentiment", "sst2", "imdb"):
        assert name in str(err.value)
    assert set(available_datasets()) >= {"movie_reviews", "newsgroups", "mr", "subj"}


@pytest.mark.parametrize("name", ["movie_reviews", "newsgroups"])
def test_embedded_splits_are_disjoint_and_cover_the_corpus(name):
    parts = {s: load_dataset(name, split=s) for s in ("train", "valid", "test")}
    texts = [t for d in parts.values() for t in d.texts]
    assert len(texts) == 200 and len(set(texts)) == len(texts)
    assert parts["train"].num_classes == 2
    for d in parts.values():  # stratified: both classes in every split
        assert set(d.labels) == {0, 1}


def test_newsgroup_headers_that_name_the_label_are_removed():
    d = load_dataset("newsgroups")
    assert not any("Newsgroups:" in t for t in d.texts)


def test_synthetic_keywords_are_where_the_extras_say():
    d = load_dataset("synthetic_sentiment", split="valid", n=300)
    assert d.texts == load_dataset("synthetic_sentiment", split="valid", n=300).texts
    for text, label, pos, neg in zip(
        d.texts, d.labels, d.extras["keyword_positions"], d.extras["negated"]
    ):
        words = tokenize(text)
        keyword = words[pos[-1]]
        polarity = 1 if keyword in POSITIVE else 0
        assert keyword in POSITIVE + NEGATIVE
        assert (words[pos[0]] in NEGATORS) == neg == (len(pos) == 2)
        assert label == (1 - polarity if neg else polarity)
        # exactly one sentiment word: the evidence is all in the planted positions
        assert sum(w in POSITIVE + NEGATIVE for w in words) == 1


def test_load_table_csv_and_tsv(tmp_path):
    rows = [("pos", "a fine film"), ("neg", "a dull film"), ("pos", "superb")]
    for name, delim in [("reviews.csv", ","), ("reviews.tsv", "\t")]:
        path = tmp_path / name
        with open(path, "w", newline="") as f:
            w = csv.writer(f, delimiter=delim)
            w.writerow(["sentiment", "review"])
            w.writerows(rows)
        d = load_table(path, text_col="review", label_col="sentiment")
        assert d.label_names == ["neg", "pos"] and d.labels == [1, 0, 1]
        assert d.texts[1] == "a dull film"
    with pytest.raises(ValueError, match="no column 'text'"):
        load_table(tmp_path / "reviews.csv")
    (tmp_path / "empty.csv").write_text("label,text\n")
    with pytest.raises(ValueError, match="no data rows"):
        load_table(tmp_path / "empty.csv")
    (tmp_path / "blank.csv").write_text("label,text\n1,\n")
    with pytest.raises(ValueError, match="empty text"):
        load_table(tmp_path / "blank.csv")


def _kim_file(path):
    # The real format: "<label> <text>", Windows-1252 bytes, an in-line 0x85 byte, and a
    # label-only line as in the CR original.
    path.write_bytes(
        b"1 a stirring , funny film \x85 truly\n0 dull and tedious .\n0 \n"
        b"1 \x93great\x94 fun\n"
    )
    return path


def test_kim_format_parser_keeps_lines_together(tmp_path):
    texts, labels = remote.read_label_text_file(_kim_file(tmp_path / "x.all"))
    assert labels == [1, 0, 1]
    assert (
        texts[0] == "a stirring , funny film \u2026 truly"
        and texts[2] == "\u201cgreat\u201d fun"
    )


def test_download_verifies_checksum_and_leaves_nothing_half_done(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMALIB_CACHE", str(tmp_path / "cache"))
    src = _kim_file(tmp_path / "mr.all")
    good = download_mod.sha256sum(src)
    path = download(src.as_uri(), "mr.all", good)
    assert path.read_bytes() == src.read_bytes()
    with pytest.raises(DownloadError, match="Checksum mismatch"):
        download(src.as_uri(), "other.all", "0" * 64)
    assert sorted(p.name for p in (tmp_path / "cache" / "downloads").iterdir()) == [
        "mr.all"]  # downloads go to $LAMALIB_CACHE, never to $LAMALIB_DATA


def test_sentence_set_loads_from_a_mirror(tmp_path, monkeypatch):
    monkeypatch.setenv("LAMALIB_DATA", str(tmp_path / "cache"))
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    lines = [f"{i % 2} sentence number {i}" for i in range(50)]
    (mirror / "subj.all").write_text("\n".join(lines) + "\n")
    monkeypatch.setitem(
        remote.SHA256, "subj.all", download_mod.sha256sum(mirror / "subj.all")
    )
    parts = [
        remote.sentence_set("subj", s, base_url=mirror.as_uri() + "/")
        for s in ("train", "valid", "test")
    ]
    texts = [t for p in parts for t in p.texts]
    assert len(parts[0]) == 40 and sorted(texts) == sorted(
        t.split(" ", 1)[1] for t in lines
    )
    assert parts[0].label_names == ["subjective", "objective"]


def test_sentence_set_found_in_the_data_folders_sentences_subfolder(tmp_path, monkeypatch):
    # a data folder laid out like the course's: imdb/, r8/, mtl16/ and sentences/
    monkeypatch.setenv("LAMALIB_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("LAMALIB_CACHE", str(tmp_path / "cache"))
    (tmp_path / "data" / "sentences").mkdir(parents=True)
    lines = [f"{i % 2} sentence number {i}" for i in range(50)]
    copy = tmp_path / "data" / "sentences" / "subj.all"
    copy.write_text("\n".join(lines) + "\n")

    def offline(*args, **kwargs):
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(download_mod.urllib.request, "urlopen", offline)
    monkeypatch.setitem(remote.SHA256, "subj.all", download_mod.sha256sum(copy))
    assert len(remote.sentence_set("subj", "train")) == 40  # read there, offline
    # a copy whose checksum is not the original's is not used: the download is tried,
    # and offline that fails with a message naming the folder
    monkeypatch.setitem(remote.SHA256, "subj.all", "0" * 64)
    with pytest.raises(DownloadError, match="sentences/ folder"):
        remote.sentence_set("subj", "train")


def test_offline_download_fails_fast_and_names_the_embedded_alternative(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("LAMALIB_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("LAMALIB_CACHE", str(tmp_path / "cache"))

    def offline(*args, **kwargs):
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(download_mod.urllib.request, "urlopen", offline)
    with pytest.raises(DownloadError, match="movie_reviews") as err:
        load_dataset("sst2")
    assert "stsa.binary.train" in str(err.value) and "LAMALIB_DATA" in str(err.value)
    assert list((tmp_path / "cache" / "downloads").iterdir()) == []  # nothing half-done
    assert not (tmp_path / "data").exists()  # the data folder is only read
