"""Wiki-727K / wiki_50 (lamalib.data.datasets.wiki727k) on a 3-article corpus in the
real format, built here: sentences, sections as segments, gap labels, the folder and its
archives (.tar.bz2, a zip holding it), the data directory, the fast offline error, and
the chapter's segmenter and scores running on the result unchanged."""

import io
import tarfile
import time
import zipfile

import pytest
import torch

from lamalib.analysis.segmentation import boundary_f1, pk
from lamalib.data import Vocab, load_dataset, load_documents
from lamalib.data.fetch import DownloadError
from lamalib.data.datasets.segmentation import DocBatches
from lamalib.data.datasets.wiki727k import parse_wiki_document, wiki50, wiki727k
from lamalib.models.segmenter import BoundaryTagger, boundary_step, predict_gaps

pytestmark = pytest.mark.usefixtures("one_thread")

ALPHA = """========,1,preface.
Alpha is a city in the north.
It has a river.
========,2,History.
The city was founded in 1900.
========,3,Early years.
Farmers came first.
========,2,Geography.
***LIST***.
The river is long ***formula*** and wide.
"""
BETA = """========,1,preface.
Beta is a small town.
========,2,Empty section.
========,2,Economy.
Beta grows wheat.
Beta sells wheat.
"""
GAMMA = """========,1,preface.
Gamma is a village.
It is quiet.
"""
FILES = {"train/00/01/alpha": ALPHA, "train/00/02/beta": BETA,
         "dev/00/03/gamma": GAMMA, "paths_cache": "train/00/01/alpha\n"}



def _folder(root):
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _tar_bz2(folder, target):
    with tarfile.open(target, "w:bz2") as tar:
        tar.add(folder, arcname="wiki_727")
    return target


def test_an_article_becomes_sentences_and_sections():
    doc = parse_wiki_document(ALPHA, "alpha")
    assert doc.sentences == [
        ["alpha", "is", "a", "city", "in", "the", "north", "."],
        ["it", "has", "a", "river", "."],
        ["the", "city", "was", "founded", "in", "1900", "."],
        ["farmers", "came", "first", "."],
        ["the", "river", "is", "long", "and", "wide", "."]]  # list line dropped
    assert doc.topics == [0, 0, 1, 2, 3]
    assert doc.gaps == [0, 1, 1, 1]  # a boundary before each section's 1st sentence
    assert doc.headings == ["preface", "History", "Early years", "Geography"]
    two = parse_wiki_document(ALPHA, max_level=2)  # the subsection folds in
    assert two.gaps == [0, 1, 0, 1] and two.headings == ["preface", "History",
                                                         "Geography"]
    beta = parse_wiki_document(BETA)  # a section without sentences starts nothing
    assert beta.gaps == [1, 0] and beta.headings == ["preface", "Economy"]
    assert parse_wiki_document("========,1,preface.\n***LIST***.\n") is None


def test_splits_from_a_folder_and_from_its_archives(tmp_path, data_home):
    folder = _folder(tmp_path / "wiki_727K")
    train = wiki727k("train", path=folder)
    assert [d.name for d in train] == ["train/00/01/alpha", "train/00/02/beta"]
    assert [d.gaps for d in train] == [[0, 1, 1, 1], [1, 0]]
    assert [d.sentences for d in wiki727k("valid", path=folder)] == [
        [["gamma", "is", "a", "village", "."], ["it", "is", "quiet", "."]]]
    with pytest.raises(ValueError, match="no article under a test/"):
        wiki727k("test", path=folder)
    # the same corpus as the .tar.bz2 in the data directory, found by its name
    _tar_bz2(folder, data_home / "wiki_727K.tar.bz2")
    from_tar = load_documents("wiki727k", "train")
    assert [(d.sentences, d.gaps, d.headings) for d in from_tar] == [
        (d.sentences, d.gaps, d.headings) for d in train]
    assert from_tar[0].name == "wiki_727/train/00/01/alpha"
    assert len(wiki727k("train", limit=1)) == 1
    # the download's form: a zip holding the .tar.bz2 (and wiki_test_50 beside it)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.write(data_home / "wiki_727K.tar.bz2", "wiki_727K.tar.bz2")
        z.writestr("wiki_test_50/gamma_50", GAMMA)
    (tmp_path / "dropbox.zip").write_bytes(buffer.getvalue())
    from_zip = wiki727k("train", path=tmp_path / "dropbox.zip")
    assert [d.gaps for d in from_zip] == [[0, 1, 1, 1], [1, 0]]
    assert from_zip[1].name == "wiki_727K.tar.bz2/wiki_727/train/00/02/beta"


def test_wiki50_reads_its_folder(tmp_path, data_home):
    (data_home / "wiki_test_50").mkdir()
    for name, text in [("a", ALPHA), ("b", GAMMA)]:
        (data_home / "wiki_test_50" / name).write_text(text)
    docs = load_documents("wiki50", "test")
    assert [d.gaps for d in docs] == [[0, 1, 1, 1], [0]]
    with pytest.raises(ValueError, match="test set"):
        wiki50("train")
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "x").write_text("no heading here\n")
    with pytest.raises(ValueError, match="Wiki-727K's format"):
        wiki50(path=tmp_path / "odd")


def test_offline_without_a_copy_fails_fast_and_says_where_to_get_one(data_home,
                                                                     offline):
    start = time.perf_counter()
    for name in ["wiki727k", "wiki50"]:
        with pytest.raises(DownloadError, match=r"(?s)dropbox\.com.*load_dataset\("
                                                r"'movie_reviews'\).*wiki_727K"):
            load_documents(name, "test")
    assert time.perf_counter() - start < 0.5
    assert not [p for p in data_home.rglob("*") if p.is_file()]  # none half-written
    with pytest.raises(KeyError, match="load_documents"):
        load_dataset("wiki727k")


def test_the_chapter_segmenter_and_scores_run_on_it_unchanged(tmp_path):
    docs = wiki727k("train", path=_folder(tmp_path / "w"))
    vocab = Vocab.build([w for d in docs for s in d.sentences for w in s])
    batches = DocBatches(docs, vocab, batch_size=2)
    batch = next(iter(batches))
    assert batch.labels.tolist() == [[0, 1, 1, 1], [1, 0, -100, -100]]
    torch.manual_seed(0)
    model = BoundaryTagger(len(vocab), d_model=16, n_heads=2, d_ff=16)
    out = boundary_step(model, batch)
    assert torch.isfinite(out.loss) and out.count == 6  # the 6 real gaps
    pairs = predict_gaps(model, batches)
    assert [ref for ref, _ in pairs] == [d.gaps for d in docs]
    for ref, hyp in pairs:
        assert 0.0 <= pk(ref, hyp, k=1) <= 1.0
        assert set(boundary_f1(ref, hyp)) == {"precision", "recall", "f1"}
