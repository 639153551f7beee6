"""A user's own labelled files (issue 7, item 3): the shapes real TSV/CSV files have.

Every file is written byte for byte here, as Excel, pandas, a text editor or a
corpus distribution writes it. A malformed row must be an error naming the file and
its 1-based line, never a silently shifted, cut or merged row.
"""

import bz2
import csv
import gzip
import lzma
from collections import Counter

import pytest

import lamalib.data as data
from lamalib.data import load_table


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


# --- CSV ---------------------------------------------------------------------------


def test_csv_quoted_commas_quotes_and_newlines(tmp_path):
    rows = [
        ["pos", 'a fine, "funny" film'],
        ["neg", "dull.\nTwo lines, one review."],
        ["pos", "superb"],
    ]
    path = tmp_path / "reviews.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["label", "text"], *rows])  # Excel-style "\r\n"
    d = load_table(path)
    assert d.texts == [text for _, text in rows]  # quotes and newline kept, no "\r"
    assert d.labels == [1, 0, 1] and d.label_names == ["neg", "pos"]
    # The review with a line break spans lines 3-4: the next row is line 5.
    with open(path, "a", newline="", encoding="utf-8") as f:
        f.write("neg\r\n")
    with pytest.raises(ValueError, match=r"reviews\.csv, line 6: 1 field,"):
        load_table(path)


def test_csv_unquoted_comma_is_an_error_not_a_shifted_row(tmp_path):
    path = write(tmp_path / "r.csv", "label,text\npos,superb\nneg,dull, slow film\n")
    # before: the text was cut at the comma, "slow film" dropped, no error
    with pytest.raises(ValueError, match=r"r\.csv, line 3: 3 fields.*header.*2") as e:
        load_table(path)
    assert "Quote" in str(e.value)


def test_csv_missing_field_is_an_error_with_its_line(tmp_path):
    path = write(tmp_path / "r.csv", "label,text\npos,superb\n\nneg\n")
    # before: AttributeError: 'NoneType' object has no attribute 'strip'
    with pytest.raises(ValueError, match=r"r\.csv, line 4: 1 field,.*missing"):
        load_table(path)


def test_csv_unclosed_quote_is_an_error(tmp_path):
    text = 'label,text\npos,"superb\nneg,dull\npos,fine\n'
    path = write(tmp_path / "r.csv", text)
    # before: one row whose text swallowed the rest of the file
    with pytest.raises(ValueError, match=r"r\.csv, line 2: not valid CSV"):
        load_table(path)


def test_excel_csv_utf8_with_bom_and_crlf(tmp_path):
    path = write(tmp_path / "excel.csv", "\ufefflabel,text\r\npos,café\r\nneg,bad\r\n")
    d = load_table(path)  # before: "no column 'label'" (it was read as "\ufefflabel")
    assert d.texts == ["café", "bad"] and d.label_names == ["neg", "pos"]


def test_semicolon_csv_by_delimiter(tmp_path):
    path = write(tmp_path / "eu.csv", 'label;text\npos;"a; b"\nneg;c, d\n')
    assert load_table(path, delimiter=";").texts == ["a; b", "c, d"]


def test_long_field_is_read(tmp_path):
    long_text = "word " * 40_000  # 200,000 characters, over csv's default limit
    limit = csv.field_size_limit()
    for name in ("long.csv", "long.tsv"):
        sep = "," if name.endswith("csv") else "\t"
        path = write(tmp_path / name, f"label{sep}text\npos{sep}{long_text}\n")
        # before: _csv.Error: field larger than field limit (131072), no file or line
        assert load_table(path).texts == [long_text]
    assert csv.field_size_limit() == limit  # the global limit is left as it was


# --- TSV ---------------------------------------------------------------------------


def test_headerless_tsv_label_tab_text(tmp_path):
    text = "pos\tsuperb film\r\nneg\tdull\r\npos\tfun\r\n"
    path = write(tmp_path / "train.tsv", text)
    d = load_table(path, header=False)  # before: no header= option at all
    assert d.texts == ["superb film", "dull", "fun"]  # CRLF: no "\r" left
    assert d.labels == [1, 0, 1] and d.name == "train"
    # columns by number, e.g. text first
    swapped = write(tmp_path / "s.tsv", "superb film\tpos\ndull\tneg\n")
    d2 = load_table(swapped, text_col=0, label_col=1, header=False)
    assert d2.texts == ["superb film", "dull"] and d2.labels == [1, 0]
    with pytest.raises(ValueError, match="column number"):
        load_table(path, text_col="text", header=False)


def test_headerless_file_read_with_header_says_what_to_do(tmp_path):
    path = write(tmp_path / "train.tsv", "pos\tsuperb\nneg\tdull\n")
    with pytest.raises(ValueError, match="header=False"):
        load_table(path)


def test_tsv_has_no_quoting(tmp_path):
    text = 'pos\t"Superb, said the critic\nneg\tdull\npos\tThe "best" cut\n'
    d = load_table(write(tmp_path / "q.tsv", "label\ttext\n" + text))
    # before: the lone quote swallowed the next rows (3 rows loaded as 1) and the
    # balanced pair of quotes was removed
    assert d.texts == [
        '"Superb, said the critic',
        "dull",
        'The "best" cut',
    ]


def test_tsv_extra_tab_is_an_error_not_a_cut_text(tmp_path):
    path = write(tmp_path / "t.tsv", "label\ttext\npos\tgood\nneg\tdull\tand slow\n")
    # before: "and slow" was silently dropped
    with pytest.raises(ValueError, match=r"t\.tsv, line 3: 3 fields.*tab inside"):
        load_table(path)


def test_bare_carriage_return_and_nel_stay_inside_a_tsv_text(tmp_path):
    path = write(tmp_path / "t.tsv", "label\ttext\npos\tone\rtwo\x85three\nneg\tdull\n")
    assert load_table(path).texts == ["one\rtwo\x85three", "dull"]


# --- rows that are wrong -----------------------------------------------------------


@pytest.mark.parametrize("name", ["e.tsv", "e.csv"])
def test_empty_label_is_an_error(tmp_path, name):
    sep = "\t" if name.endswith("tsv") else ","
    path = write(tmp_path / name, f"label{sep}text\npos{sep}good\n {sep}dull\n")
    # before: a class named ''
    with pytest.raises(ValueError, match=rf"{name}, line 3: the label is empty"):
        load_table(path)


def test_empty_text_is_an_error_with_its_line(tmp_path):
    path = write(tmp_path / "e.tsv", "label\ttext\npos\tgood\n\nneg\t  \n")
    # before: "at row 1", a count of data rows from 0
    with pytest.raises(ValueError, match=r"e\.tsv, line 4: empty text"):
        load_table(path)


def test_latin1_bytes_name_the_line_and_the_encoding_option(tmp_path):
    text = "label\ttext\npos\tgood\nneg\tcafé froid\n"
    path = write(tmp_path / "w.tsv", text, "latin-1")
    # before: a bare UnicodeDecodeError, no file, no line, no encoding= option
    with pytest.raises(ValueError, match=r"w\.tsv, line 3: .*encoding='cp1252'"):
        load_table(path)
    assert load_table(path, encoding="latin-1").texts[1] == "café froid"


def test_unknown_suffix_asks_for_the_format(tmp_path):
    path = write(tmp_path / "books.task.train", "1\tgood\n0\tbad\n")
    with pytest.raises(ValueError, match="format='tsv'"):
        load_table(path, header=False)
    d = load_table(path, header=False, format="tsv")
    assert d.texts == ["good", "bad"] and d.name == "books.task.train"


def test_no_data_rows(tmp_path):
    for text in ("", "\n\n", "label\ttext\n"):
        with pytest.raises(ValueError, match="no data rows"):
            load_table(write(tmp_path / "n.tsv", text))


# --- labels ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels, order",
    [
        (["1", "-1", "1"], ["-1", "1"]),  # before: ["1", "-1"]: 1 was class 0
        (["10", "2", "0", "-1"], ["-1", "0", "2", "10"]),
        (["0.5", "1", "0"], ["0", "0.5", "1"]),
        (["pos", "neg", "Neutral"], ["neg", "Neutral", "pos"]),
        (["b", "10", "2"], ["10", "2", "b"]),  # mixed: alphabetical
    ],
)
def test_label_order(tmp_path, labels, order):
    lines = "".join(f"{y}\ttext {i}\n" for i, y in enumerate(labels))
    d = load_table(write(tmp_path / "l.tsv", "label\ttext\n" + lines))
    assert d.label_names == order
    assert [d.label_names[i] for i in d.labels] == labels


def test_explicit_label_names(tmp_path):
    path = write(tmp_path / "l.tsv", "label\ttext\npos\tgood\nneg\tbad\nneu\tso\n")
    d = load_table(path, label_names=["pos", "neu", "neg"])
    assert d.labels == [0, 2, 1]
    with pytest.raises(ValueError, match=r"l\.tsv, line 4: label 'neu' is not among"):
        load_table(path, label_names=["pos", "neg"])


# --- train / valid / test files ----------------------------------------------------


def _splits(tmp_path):
    train = write(tmp_path / "train.tsv", "a\tx\nb\ty\nc\tz\na\tw\n")
    test = write(tmp_path / "test.tsv", "c\tz z\nb\ty y\n")  # no class "a"
    return train, test


def test_load_splits_share_the_training_label_map(tmp_path):
    train_path, test_path = _splits(tmp_path)
    train, valid, test = data.load_splits(train_path, test=test_path, header=False)
    assert valid is None
    assert train.label_names == test.label_names == ["a", "b", "c"]
    assert [test.label_names[i] for i in test.labels] == ["c", "b"]
    assert (train.split, test.split) == ("train", "test")
    # the trap load_splits avoids: on its own the test file numbers b, c as 0, 1
    assert load_table(test_path, header=False).labels == [1, 0] != test.labels


def test_load_splits_refuses_a_test_label_unseen_in_training(tmp_path):
    train_path, _ = _splits(tmp_path)
    test_path = write(tmp_path / "test.tsv", "b\tfine\nd\tnew class\n")
    with pytest.raises(ValueError, match=r"test\.tsv, line 2: label 'd'.*training"):
        data.load_splits(train_path, test=test_path, header=False)
    with pytest.raises(ValueError, match=r"test\.tsv, line 2: label 'd'"):
        data.load_splits(train_path, valid=test_path, header=False)


@pytest.mark.parametrize(
    "suffix, compress",
    [(".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress)],
)
def test_compressed_files(tmp_path, suffix, compress):
    text = "label\ttext\npos\tcafé\r\nneg\tdull\n"
    path = tmp_path / f"train.tsv{suffix}"
    path.write_bytes(compress(text.encode()))
    d = load_table(path)  # format from the suffix before the .gz
    assert d.texts == ["café", "dull"] and d.name == "train"
    train, _, test = data.load_splits(path, test=path)
    assert test.labels == train.labels


def test_broken_compressed_file_names_it(tmp_path):
    path = tmp_path / "train.tsv.gz"
    path.write_bytes(gzip.compress(b"label\ttext\npos\tgood\n")[:-9])
    with pytest.raises(ValueError, match=r"train\.tsv\.gz: cannot decompress"):
        load_table(path)


# --- stratified split --------------------------------------------------------------


def _dataset(counts):
    labels = [y for y, n in enumerate(counts) for _ in range(n)]
    texts = [f"text {i}" for i in range(len(labels))]
    return data.TextDataset(texts, labels, [str(y) for y in range(len(counts))])


def test_stratified_split_keeps_class_proportions():
    full = _dataset([500, 300, 200, 7, 1])
    train, valid = data.stratified_split(full, valid_fraction=0.2, seed=3)
    # brute force: per class, round(n * 0.2), at least one, never the whole class
    assert Counter(valid.labels) == {0: 100, 1: 60, 2: 40, 3: 1}
    assert Counter(train.labels) == {0: 400, 1: 240, 2: 160, 3: 6, 4: 1}
    # disjoint, covering, each in the dataset's order, labels follow their texts
    assert sorted(train.texts + valid.texts) == sorted(full.texts)
    for part in (train, valid):
        positions = [full.texts.index(t) for t in part.texts]
        assert positions == sorted(positions)
        assert all(full.labels[i] == y for i, y in zip(positions, part.labels))
    assert (train.split, valid.split) == ("train", "valid")


def test_stratified_split_is_seeded():
    full = _dataset([50, 30])
    a = data.stratified_split(full, 0.3, seed=0)[1].texts
    assert a == data.stratified_split(full, 0.3, seed=0)[1].texts
    assert a != data.stratified_split(full, 0.3, seed=1)[1].texts
    for fraction in (0, 1, 1.5):
        with pytest.raises(ValueError, match="valid_fraction"):
            data.stratified_split(full, fraction)
