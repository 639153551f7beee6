"""CNN/DailyMail (lamalib.data.datasets.cnn_dailymail) on a 2-article copy in the hub's
field layout, built here: article sentences, highlights, greedy-oracle labels, the
.jsonl and .csv copies, the Hugging Face path (a stand-in module), the fast offline
error, and batches with one label per sentence."""

import csv
import json
import sys
import time
import types

import pytest

from lamalib.data import Vocab, load_documents
from lamalib.data.datasets.cnn_dailymail import cnn_dailymail
from lamalib.data.datasets.extractive import ExtractiveDoc
from lamalib.data.fetch import DownloadError
from lamalib.data.datasets.segmentation import IGNORE, DocBatches

ROWS = [
    {"id": "a1", "article": "The cat sat on the mat. Dogs bark loudly at night. "
                            "The dog sat on a log. Birds sing.",
     "highlights": "the cat sat on the mat\nbirds sing"},
    {"id": "b2", "article": "(CNN) -- Rain fell in the city on Monday. Roads were "
                            "closed for hours!",
     "highlights": "Roads were closed after rain"},
]



def _jsonl(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def _check(docs):
    a, b = docs
    assert a.name == "a1" and a.sentences == [
        ["the", "cat", "sat", "on", "the", "mat", "."],
        ["dogs", "bark", "loudly", "at", "night", "."],
        ["the", "dog", "sat", "on", "a", "log", "."], ["birds", "sing", "."]]
    assert a.summary == [["the", "cat", "sat", "on", "the", "mat"], ["birds", "sing"]]
    # the oracle: sentence 0 alone matches the first highlight; adding sentence 3
    # makes the selection equal the summary (ROUGE-1 = ROUGE-2 = 1): nothing more
    assert a.labels == [1, 0, 0, 1]
    # "roads were closed ..." (3 words, 2 bigrams shared) beats the first sentence
    # (1 word: rain); with both, precision falls more than recall rises
    assert b.sentences[1] == ["roads", "were", "closed", "for", "hours", "!"]
    assert b.labels == [0, 1]


def test_a_jsonl_copy_gives_oracle_labelled_articles(tmp_path, data_home):
    _check(cnn_dailymail("test", path=_jsonl(tmp_path / "mine.jsonl")))
    _jsonl(data_home / "cnn_dailymail" / "validation.jsonl")
    _check(load_documents("cnn_dailymail", "valid"))
    short = cnn_dailymail("valid", limit=1, max_tokens=2)
    assert len(short) == 1 and short[0].sentences[0] == ["the", "cat"]
    assert short[0].labels == [1, 0, 0, 1]  # the oracle reads whole sentences


def test_a_csv_copy_reads_the_same(tmp_path):
    path = tmp_path / "test.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["id", "article", "highlights"])
        writer.writeheader()
        writer.writerows(ROWS)
    _check(cnn_dailymail("test", path=path))
    (tmp_path / "bad.csv").write_text("text,label\nhello,1\n")
    (tmp_path / "empty.jsonl").write_text(json.dumps({"article": "", "highlights":
                                                       "x"}) + "\n")
    with pytest.raises(ValueError, match="no article with a sentence"):
        cnn_dailymail("test", path=tmp_path / "empty.jsonl")
    with pytest.raises(ValueError, match="'article', 'highlights'"):
        cnn_dailymail("test", path=tmp_path / "bad.csv")


def test_the_hub_is_asked_for_the_3_0_0_config(data_home, monkeypatch):
    asked = []

    def load_dataset(name, config, split):
        asked.append((name, config, split))
        return list(ROWS)

    monkeypatch.setitem(sys.modules, "datasets",
                        types.SimpleNamespace(load_dataset=load_dataset))
    _check(cnn_dailymail("train"))
    assert asked == [("abisee/cnn_dailymail", "3.0.0", "train")]


def test_offline_fails_fast_and_says_what_to_do(data_home, monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # not installed
    start = time.perf_counter()
    with pytest.raises(DownloadError, match=r"(?s)pip install datasets.*"
                                            r"cnn_dailymail/test\.jsonl.*'movie_"):
        load_documents("cnn_dailymail", "test")

    def unreachable(*args, **kwargs):
        raise ConnectionError("Couldn't reach the Hugging Face Hub")

    monkeypatch.setitem(sys.modules, "datasets",
                        types.SimpleNamespace(load_dataset=unreachable))
    with pytest.raises(DownloadError, match=r"(?s)Couldn't reach.*Offline, put"):
        load_documents("cnn_dailymail", "test")
    assert time.perf_counter() - start < 0.5
    assert [p for p in data_home.rglob("*") if p.is_file()] == []


def test_batches_carry_one_label_per_sentence(tmp_path):
    docs = cnn_dailymail("test", path=_jsonl(tmp_path / "t.jsonl"))
    vocab = Vocab.build([w for d in docs for s in d.sentences for w in s])
    batch = next(iter(DocBatches(docs, vocab, batch_size=2)))
    assert batch.labels.tolist() == [[1, 0, 0, 1], [0, 1, IGNORE, IGNORE]]  # (B, S)
    assert batch.spans.max().item() == 3 and batch.tokens.shape[0] == 2
    with pytest.raises(ValueError, match="2 sentences but 1 labels"):
        ExtractiveDoc([["a"], ["b"]], [1])
