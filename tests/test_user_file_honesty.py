"""A user's files are read as they are or refused in one line that says what is wrong
(issue 52): byte-order marks, a mostly-UTF-8 file with a bad line, a training file of
one class, swapped columns, blank lines in ``predict --file``, a subcommand's usage."""

import pytest

from lamalib.data import load_splits
from lamalib.data.textio import read_text
from lamalib.experiments.cli import main

ROWS = "label\ttext\npos\tun film très drôle\nneg\tun film triste\n"


@pytest.mark.parametrize("codec, bom", [("utf-8", b"\xef\xbb\xbf"),
                                        ("utf-16-le", b"\xff\xfe"),
                                        ("utf-16-be", b"\xfe\xff")])
def test_a_byte_order_mark_says_how_the_file_is_read(tmp_path, codec, bom):
    path = tmp_path / "train.tsv"
    path.write_bytes(bom + ROWS.encode(codec))
    assert read_text(path) == ROWS
    assert load_splits(path).train.texts == ["un film très drôle", "un film triste"]


def test_a_utf8_file_with_one_bad_line_is_not_called_latin1(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_bytes(ROWS.encode() + b"pos\tun caf\xe9\n" + "neg\tdéjà vu\n".encode())
    with pytest.raises(ValueError) as caught:
        read_text(path)
    message = str(caught.value)
    assert "line 4 is not UTF-8; the 3 lines before it are" in message
    assert "latin-1" not in message and "cp1252" not in message


def test_a_cp1252_file_is_still_told_its_encoding(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_bytes(b"label\ttext\npos\tun caf\xe9\n")
    with pytest.raises(ValueError, match="cp1252"):
        read_text(path)


def test_a_training_file_of_one_class_is_an_error(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("label\ttext\npos\ta film\npos\tanother film\n")
    with pytest.raises(ValueError, match="one label.*'pos'.*at least two"):
        load_splits(path)


def test_swapped_columns_show_a_few_labels_and_say_so(tmp_path):
    train = tmp_path / "train.tsv"
    train.write_text("text\tlabel\n" + "".join(
        f"a film number {i} with words\t{'pos' if i % 2 else 'neg'}\n"
        for i in range(40)))
    test = tmp_path / "test.tsv"
    test.write_text("text\tlabel\nsomething else entirely\tpos\n")
    with pytest.raises(ValueError) as caught:
        load_splits(train, test=test, text_col="label", label_col="text")
    message = str(caught.value)
    assert "are the label and text columns swapped?" in message
    assert "a film number 39" not in message  # a few labels, not forty
    assert len(message) < 600


def test_predict_file_keeps_a_row_per_line(tmp_path, capsys):
    from lamalib.data import Vocab
    from lamalib.models import build_model
    from lamalib.models.saved import save_model

    vocab = Vocab.build(["a warm film", "a dull film"])
    model = build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=4)
    folder = save_model(model, vocab, ["neg", "pos"], tmp_path / "m", name="avg",
                        options={"embed_dim": 4})
    texts = tmp_path / "texts.txt"
    texts.write_text("a warm film\n\n  \na dull film\n")
    main(["predict", "--model", str(folder), "--file", str(texts)])
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "text\tlabel\tprobability\tknown"
    assert [r.split("\t")[0] for r in rows[1:]] == ["a warm film", "", "",
                                                   "a dull film"]
    assert rows[2] == "\t\t\t" and rows[1].split("\t")[1] in ("neg", "pos")


def test_a_subcommands_usage_comes_with_its_error(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["attention", "--model", "m", "a text", "--nonsense"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "usage: python -m lamalib.experiments attention" in err
    assert "unrecognized arguments: --nonsense" in err


def test_predict_flags_a_text_with_no_word_the_model_knows(tmp_path, capsys):
    from lamalib.data import Vocab
    from lamalib.models import build_model
    from lamalib.models.saved import load_model, save_model

    vocab = Vocab.build(["a warm film", "a dull film"])
    model = build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=4)
    folder = save_model(model, vocab, ["neg", "pos"], tmp_path / "m", name="avg",
                        options={"embed_dim": 4})
    assert load_model(folder).known_share(["a warm film", "a warm 🎬", "🎬 🍿"]) == \
        pytest.approx([1.0, 2 / 3, 0.0])
    main(["predict", "--model", str(folder), "a warm film", "🎬 🍿", "zzz qqq"])
    captured = capsys.readouterr()
    rows = [r.split("\t") for r in captured.out.splitlines()]
    assert rows[0][-1] == "known" and [r[-1] for r in rows[1:]] == ["1.00", "0.00",
                                                                     "0.00"]
    warning = captured.err.strip()
    assert warning.count("\n") == 0  # one line
    assert "2 text(s) (line/argument 2, 3) have no word model 'avg' knows" in warning


def test_a_utf8_file_read_as_latin1_warns_of_garbled_letters(tmp_path):
    import warnings

    from lamalib.data.textio import MojibakeWarning, decode

    raw = "label\ttext\npos\tphim hay\nneg\tdở tệ quá\n".encode("utf-8")
    with pytest.warns(MojibakeWarning) as caught:
        text = decode(raw, "latin-1", "reviews.tsv")
    assert "dá»\x9f" in text  # what latin-1 makes of "dở": garbled, as warned
    (message,) = [str(w.message) for w in caught]
    assert message.startswith("reviews.tsv: read as latin-1, but line 3 is UTF-8")
    assert "'dở' in UTF-8" in message and "\n" not in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning where latin-1 is right
        assert decode("café\n".encode("latin-1"), "latin-1", "f") == "café\n"
        assert decode(raw, "utf-8", "f") == raw.decode("utf-8")
        decode(b"plain ascii\n", "cp1252", "f")
