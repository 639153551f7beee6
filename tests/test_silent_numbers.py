"""Numbers that were silently wrong (issue 61, item 3): a TSV with classic Mac line
ends, numeric labels written three ways, a missing-value label, columns left unread,
and a saved model evaluated without its training files' format."""

import warnings

import pytest

from lamalib.data.table import (UnusedColumnsWarning, canonical_label, label_order,
                                load_splits, load_table)
from lamalib.experiments.cli import main


def test_a_tsv_with_cr_line_ends_is_read_line_by_line(tmp_path):
    path = tmp_path / "cr.tsv"
    path.write_bytes(b"label\ttext\rpos\ta warm film\rneg\ta dull film\rpos\tfun\r")
    data = load_table(path)
    assert len(data) == 3 and data.texts == ["a warm film", "a dull film", "fun"]
    crlf = tmp_path / "crlf.tsv"
    crlf.write_bytes(b"label\ttext\r\npos\ta\r\nneg\tb\r\n")
    assert load_table(crlf).texts == ["a", "b"]
    inside = tmp_path / "inside.tsv"  # a lone CR inside a text of an LF file stays
    inside.write_bytes(b"label\ttext\npos\ta\rb\nneg\tc\n")
    assert load_table(inside).texts == ["a\rb", "c"]


def test_numeric_labels_are_compared_as_numbers():
    assert [canonical_label(x) for x in ["1", "1.0", "01", "+1", " 1 ", "2.50",
                                         "-0", "pos", "Pos"]] == [
        "1", "1", "1", "1", "1", "2.5", "0", "pos", "Pos"]
    assert label_order(["10", "2", "-1"]) == ["-1", "2", "10"]


def test_one_class_written_three_ways_is_one_class(tmp_path):
    path = tmp_path / "num.tsv"
    path.write_text("label\ttext\n1\ta\n1.0\tb\n01\tc\n2\td\n")
    data = load_table(path)
    assert data.label_names == ["1", "2"] and data.labels == [0, 0, 0, 1]
    test = tmp_path / "test.tsv"
    test.write_text("label\ttext\n2.0\te\n001\tf\n")
    assert load_splits(path, test=test).test.labels == [1, 0]


@pytest.mark.parametrize("missing", ["NaN", "None", "null", "nan"])
def test_a_missing_value_label_is_refused_naming_its_line(tmp_path, missing):
    path = tmp_path / "nan.tsv"
    path.write_text(f"label\ttext\npos\ta\n{missing}\tb\nneg\tc\n")
    with pytest.raises(ValueError) as caught:
        load_table(path)
    message = str(caught.value)
    assert message.startswith(f"{path}, line 3: the label is {missing!r}, a missing "
                              "value") and "\n" not in message


def test_columns_not_read_are_named_once(tmp_path):
    path = tmp_path / "news.csv"
    path.write_text("id,label,title,date\n1,pos,a b,x\n2,neg,c d,y\n")
    with pytest.warns(UnusedColumnsWarning) as caught:
        load_table(path, text_col="title")
    assert len(caught) == 1
    assert str(caught[0].message) == (
        f"{path}: 2 columns not read: 'id', 'date' (the label is column 'label', the "
        "text 'title'); to join several text columns into one text, name them all "
        "in text_col")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnusedColumnsWarning)
        load_table(path, text_col=["title", "date", "id"])  # every column read


def _three_columns(path, rows):
    path.write_text("".join(f"{i}\t{label}\t{text}\n"
                            for i, (label, text) in enumerate(rows)))
    return path


ROWS = [("pos", "a warm funny film"), ("neg", "a dull tedious mess")] * 12


def test_a_saved_model_keeps_how_its_files_were_read(tmp_path, capsys):
    train = _three_columns(tmp_path / "train.tsv", ROWS)
    test = _three_columns(tmp_path / "test.tsv", ROWS[:6])
    main(["run", "--model", "avg", "--train", str(train), "--test", str(test),
          "--set", "header=false", "--set", "label_col=1", "--set", "text_col=2",
          "--set", "epochs=1", "--results", str(tmp_path / "r"), "--save-model",
          str(tmp_path / "m")])
    capsys.readouterr()
    main(["evaluate", "--model", str(tmp_path / "m"), "--test", str(test)])
    plain = capsys.readouterr()
    assert plain.err == ""  # nothing differs from the training format
    main(["evaluate", "--model", str(tmp_path / "m"), "--test", str(test),
          "--set", "header=false", "--set", "label_col=1", "--set", "text_col=2"])
    same = capsys.readouterr()
    assert plain.out == same.out and same.err == ""
    main(["evaluate", "--model", str(tmp_path / "m"), "--test", str(test),
          "--set", "text_col=0"])
    other = capsys.readouterr()
    assert other.err.strip() == (
        "note: --set text_col=0 differs from how the model's training files were "
        "read (text_col=2); the file is read with text_col=0")
