"""WikiSection (lamalib.data.datasets.wikisection) on a 2-article JSON file in the real
format, built here: sentences split within each annotation span, a boundary at the first
sentence of every span after the first, section labels, the file plain, compressed and
inside the distributed archive, and the fast offline error."""

import gzip
import json
import tarfile
import time

import pytest

from lamalib.data import load_documents
from lamalib.data.fetch import DownloadError
from lamalib.data.datasets.wikisection import parse_wikisection, wikisection

# (heading, label, text) per section; the second article has an empty section and
# its annotations out of order.
ARTICLES = [
    ("Flu", [("Symptoms", "disease.symptom",
              "Fever is common. Patients cough a lot.\n"),
             ("Treatment | Drugs", "disease.treatment",
              "Rest helps most patients.\n\nDrugs can shorten it!\n")]),
    ("Cold", [("Cause", "disease.cause", "A virus causes it."),
              ("Other", "disease.other", "   \n"),
              ("Prevention", "disease.prevention", " Wash your hands often.")]),
]


def _article(title, sections, reverse=False):
    text, spans = "", []
    for heading, label, body in sections:
        spans.append({"class": "SectionAnnotation", "begin": len(text),
                      "length": len(body), "sectionHeading": heading,
                      "sectionLabel": label})
        text += body
    return {"id": f"https://en.wikipedia.org/wiki/{title}", "type": "disease",
            "title": title, "abstract": f"{title} is a disease.", "text": text,
            "annotations": spans[::-1] if reverse else spans}


def _json():
    return json.dumps([_article(*ARTICLES[0]), _article(*ARTICLES[1], reverse=True)])



EXPECTED = [
    ([["fever", "is", "common", "."], ["patients", "cough", "a", "lot", "."],
      ["rest", "helps", "most", "patients", "."],
      ["drugs", "can", "shorten", "it", "!"]],
     [0, 1, 0], ["disease.symptom", "disease.treatment"]),
    ([["a", "virus", "causes", "it", "."], ["wash", "your", "hands", "often", "."]],
     [1], ["disease.cause", "disease.prevention"]),
]


def _seen(docs):
    return [(d.sentences, d.gaps, d.headings) for d in docs]


def test_spans_become_sentences_and_segments(tmp_path):
    doc = parse_wikisection(_article(*ARTICLES[0]))
    assert doc.topics == [0, 0, 1, 1] and doc.name.endswith("/Flu")
    path = tmp_path / "wikisection_en_disease_test.json"
    path.write_text(_json(), encoding="utf-8")
    assert _seen(wikisection("en_disease", "test", path=path)) == EXPECTED
    cut = wikisection("en_disease", "test", path=path, max_tokens=3, limit=1)
    assert len(cut) == 1 and cut[0].sentences[0] == ["fever", "is", "common"]
    with pytest.raises(ValueError, match="dataset must be one of"):
        wikisection("fr_disease")
    with pytest.raises(ValueError, match="'text' and 'annotations'"):
        parse_wikisection({"title": "no text"})


def test_the_data_directory_file_compressed_and_the_archive(data_home):
    (data_home / "wikisection_en_city_validation.json.gz").write_bytes(
        gzip.compress(_json().encode()))
    assert _seen(load_documents("wikisection_en_city", "valid")) == EXPECTED
    src = data_home / "src"
    src.mkdir()
    (src / "wikisection_de_city_test.json").write_text(_json())
    (src / "wikisection_de_city_train.json").write_text("[]")
    with tarfile.open(data_home / "wikisection_dataset_json.tar.gz", "w:gz") as tar:
        tar.add(src, arcname="wikisection_dataset_json")
    assert _seen(load_documents("wikisection_de_city", "test")) == EXPECTED
    with pytest.raises(ValueError, match="no article with a sentence"):
        load_documents("wikisection_de_city", "train")  # an empty list in the file
    with pytest.raises(ValueError, match="holds no wikisection_de_disease_test"):
        load_documents("wikisection_de_disease", "test")


def test_offline_without_a_copy_fails_fast_and_says_where_to_put_one(data_home,
                                                                     offline):
    start = time.perf_counter()
    with pytest.raises(DownloadError, match=r"(?s)WikiSection/raw.*'movie_reviews'"
                                            r".*wikisection_en_disease_train\.json"):
        load_documents("wikisection_en_disease", "train")
    assert time.perf_counter() - start < 0.5
    assert not [p for p in data_home.rglob("*") if p.is_file()]  # none half-written
