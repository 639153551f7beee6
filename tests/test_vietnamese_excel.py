"""A user's Excel workbook read like a CSV file (issue 59), and UIT-VSFC read from a
local copy in its official layout (a fake copy here: the tests never need the real
corpus)."""

import importlib.util
import unicodedata

import pytest

from lamalib.data import load_dataset, load_splits, load_table
from lamalib.data import excel
from lamalib.data.fetch import DownloadError

needs_openpyxl = pytest.mark.skipif(importlib.util.find_spec("openpyxl") is None,
                                    reason="openpyxl not installed (lamalib[vi])")
ROWS = [("label", "text"), ("pos", "giảng viên nhiệt tình"), ("neg", "phòng học nóng"),
        (1, "số 1 là nhãn")]


def _workbook(path, rows, extra_empty_column=False):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(list(row) + ([None] if extra_empty_column else []))
    if extra_empty_column:
        sheet.cell(row=len(rows) + 3, column=5, value=None)  # used range past the data
    book.save(path)
    return path


@needs_openpyxl
def test_a_workbook_reads_as_the_same_rows_as_a_tsv_file(tmp_path):
    rows = [ROWS[0], ROWS[1], (ROWS[2][0], unicodedata.normalize("NFD", ROWS[2][1])),
            (1.0, ROWS[3][1])]  # a label typed as a number, a text typed in NFD
    book = _workbook(tmp_path / "feedback.xlsx", rows, extra_empty_column=True)
    tsv = tmp_path / "feedback.tsv"
    tsv.write_text("\n".join(f"{a}\t{b}" for a, b in ROWS) + "\n", encoding="utf-8")
    from_book, from_tsv = load_table(book), load_table(tsv)
    assert from_book.texts == from_tsv.texts
    assert from_book.labels == from_tsv.labels
    assert from_book.label_names == from_tsv.label_names == ["1", "neg", "pos"]
    assert from_book.name == "feedback"
    splits = load_splits(book, test=tsv)
    assert splits.test.labels == splits.train.labels


@needs_openpyxl
def test_an_empty_text_cell_is_named_by_its_sheet_row(tmp_path):
    book = _workbook(tmp_path / "x.xlsx", [*ROWS[:2], ("neg", None)])
    with pytest.raises(ValueError, match=r"x\.xlsx, line 3: empty text"):
        load_table(book)


def test_an_old_workbook_or_no_openpyxl_is_one_line(tmp_path, monkeypatch):
    (tmp_path / "old.xls").write_bytes(b"\xd0\xcf\x11\xe0")
    with pytest.raises(ValueError, match=r"\.xls\).*save it as \.xlsx or CSV"):
        load_table(tmp_path / "old.xls")
    (tmp_path / "new.xlsx").write_bytes(b"PK")
    monkeypatch.setattr(excel.util, "find_spec", lambda name: None)
    with pytest.raises(ValueError, match=r"needs openpyxl: pip install 'lamalib\[vi\]'"):
        load_table(tmp_path / "new.xlsx")


@needs_openpyxl
def test_a_broken_workbook_is_one_line(tmp_path):
    (tmp_path / "broken.xlsx").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not an Excel workbook") as caught:
        load_table(tmp_path / "broken.xlsx")
    assert "\n" not in str(caught.value)


def test_uit_vsfc_reads_its_official_layout(data_home):
    folder = data_home / "uit-vsfc"
    sentences = {"train": ["giảng viên dạy hay .", "phòng học nóng .", "bình thường ."],
                 "dev": ["thầy dạy tốt ."], "test": ["máy lạnh hư ."]}
    for split, texts in sentences.items():
        (folder / split).mkdir(parents=True)
        (folder / split / "sents.txt").write_text(
            unicodedata.normalize("NFD", "\n".join(texts)) + "\n", encoding="utf-8")
        n = len(texts)
        (folder / split / "sentiments.txt").write_text("2\n0\n1\n"[:2 * n])
        (folder / split / "topics.txt").write_text("0\n2\n3\n"[:2 * n])
    train = load_dataset("uit_vsfc_sentiment", "train")
    assert train.texts == sentences["train"]  # NFC
    assert [train.label_names[y] for y in train.labels] == ["positive", "negative",
                                                            "neutral"]
    topic = load_dataset("uit_vsfc_topic", "valid")
    assert topic.texts == sentences["dev"] and topic.label_names[topic.labels[0]] == (
        "lecturer")
    (folder / "test" / "topics.txt").write_text("0\n3\n")
    with pytest.raises(ValueError, match="line-aligned"):
        load_dataset("uit_vsfc_topic", "test")


def test_uit_vsfc_without_a_copy_says_where_to_put_it(data_home):
    with pytest.raises(DownloadError, match="LAMALIB_DATA"):
        load_dataset("uit_vsfc_sentiment", "train")


@needs_openpyxl
def test_predict_reads_a_workbook_and_evaluate_scores_one(tmp_path, capsys, one_thread):
    from lamalib.experiments.cli import main

    rows = [("label", "text")] + [("pos", f"thầy dạy hay {i}") if i % 2 else
                                  ("neg", f"phòng học nóng {i}") for i in range(30)]
    book = _workbook(tmp_path / "train.xlsx", rows)
    main(["run", "--model", "avg", "--train", str(book), "--test", str(book), "--set",
          "epochs=1", "--results", str(tmp_path / "r"), "--save-model",
          str(tmp_path / "m")])
    texts = _workbook(tmp_path / "texts.xlsx", [("thầy dạy hay",), ("phòng học nóng",)])
    capsys.readouterr()
    main(["predict", "--model", str(tmp_path / "m"), "--file", str(texts)])
    answers = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert any("thầy dạy hay" in a for a in answers)
    assert any("phòng học nóng" in a for a in answers)
    main(["evaluate", "--model", str(tmp_path / "m"), "--test", str(book)])
    out = capsys.readouterr().out
    assert "accuracy" in out and "macro avg" in out and "neg\t" in out
