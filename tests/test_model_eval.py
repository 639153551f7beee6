"""``evaluate --model DIR --test FILE`` and ``predict --top-k K`` of the experiments
command on a tiny saved model: the numbers they print, the files they write and their
one-line errors."""

import pytest
import torch

from command_helpers import usage_error
from lamalib.data import Vocab
from lamalib.experiments.cli import main
from lamalib.models import build_model
from lamalib.models.saved import load_model, save_model
from lamalib.train import class_report

TEXTS = ["a warm and funny film", "a dull , tedious mess", "funny", "dull film ."]
LABELS = ["neg", "neu", "pos"]


@pytest.fixture
def folder(tmp_path):
    vocab = Vocab.build(TEXTS)
    torch.manual_seed(0)
    model = build_model("avg", vocab_size=len(vocab), num_classes=3, embed_dim=8)
    return save_model(model.eval(), vocab, LABELS, tmp_path / "avg", name="avg",
                      options={"embed_dim": 8})


def _test_file(tmp_path, rows):
    path = tmp_path / "test.tsv"
    path.write_text("".join(f"{label}\t{text}\n" for label, text in rows))
    return path


ROWS = [("pos", TEXTS[0]), ("neg", TEXTS[1]), ("pos", TEXTS[2]), ("neu", TEXTS[3]),
        ("neg", "dull"), ("pos", "warm film")]


def test_class_report_counts_by_hand():
    report = class_report([0, 0, 1, 1, 2], [0, 1, 1, 1, 1], ["a", "b", "c"])
    assert report.confusion.tolist() == [[1, 1, 0], [0, 2, 0], [0, 1, 0]]
    assert report.accuracy == pytest.approx(3 / 5)
    a, b, c = report.rows
    assert (a["precision"], a["recall"], a["support"]) == (1, 0.5, 2)
    assert a["f1"] == pytest.approx(2 / 3)
    assert (b["precision"], b["recall"]) == (pytest.approx(0.5), 1)
    assert (c["precision"], c["recall"], c["f1"], c["support"]) == (0, 0, 0, 1)


def test_evaluate_prints_and_writes_the_report(tmp_path, capsys, folder):
    test = _test_file(tmp_path, ROWS)
    out, figure = tmp_path / "classes.tsv", tmp_path / "confusion.png"
    main(["evaluate", "--model", str(folder), "--test", str(test),
          "--set", "header=false", "--out", str(out), "--figure", str(figure)])
    printed = capsys.readouterr().out.splitlines()
    saved = load_model(folder)
    gold = [LABELS.index(label) for label, _ in ROWS]
    predicted = saved.logits([t for _, t in ROWS]).argmax(-1).tolist()
    expected = class_report(gold, predicted, LABELS)
    assert printed[1] == f"accuracy\t{expected.accuracy:.4f}"
    table = out.read_text().splitlines()
    assert table[0] == "label\tprecision\trecall\tf1\tsupport"
    assert [r.split("\t")[0] for r in table[1:]] == LABELS
    assert [int(r.split("\t")[4]) for r in table[1:]] == [2, 1, 3]
    assert [float(r.split("\t")[3]) for r in table[1:]] == pytest.approx(
        [r["f1"] for r in expected.rows], abs=1e-4)
    assert all(line in printed for line in table)  # the same table is printed
    at = printed.index("confusion matrix (rows: gold, columns: predicted)")
    assert printed[at + 1] == "gold \\ predicted\tneg\tneu\tpos"
    assert [list(map(int, r.split("\t")[1:])) for r in printed[at + 2:at + 5]] == (
        expected.confusion.tolist())
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_evaluate_errors_are_one_line(tmp_path, folder):
    test = _test_file(tmp_path, [*ROWS, ("happy", "a film")])
    message = usage_error(["evaluate", "--model", str(folder), "--test", str(test),
                           "--set", "header=false"])
    assert message == (f"{test}, line 7: label 'happy' is not among the labels of "
                       f"the model {folder} ['neg', 'neu', 'pos'].")
    assert usage_error(["evaluate", "--model", str(folder), "--test",
                        str(tmp_path / "none.tsv")]).startswith(
        f"--test {tmp_path / 'none.tsv'}: no such file")
    assert usage_error(["evaluate", "--model", str(folder), "--test", str(test),
                        "--set", "epochs=3"]) == (
        "--set epochs: evaluate takes the file options header, text_col, label_col, "
        "format, delimiter, encoding, text_sep")


def test_predict_top_k_gives_the_k_most_probable_labels(tmp_path, capsys, folder):
    lines = tmp_path / "texts.txt"
    lines.write_text("funny\n\ndull film .\n")
    main(["predict", "--model", str(folder), "--file", str(lines), "--top-k", "2"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "text\tlabel1\tprobability1\tlabel2\tprobability2\tknown"
    assert out[2] == "\t\t\t\t\t"  # the blank line's row
    probs = load_model(folder).logits(["funny", "dull film ."]).softmax(-1)
    for row, p in zip([out[1], out[3]], probs):
        cells = row.split("\t")
        order = p.argsort(descending=True)[:2].tolist()
        assert cells[1:5:2] == [LABELS[i] for i in order]
        assert [float(c) for c in cells[2:-1:2]] == pytest.approx(
            p[order].tolist(), abs=1e-4)
    main(["predict", "--model", str(folder), "funny", "--top-k", "3"])
    cells = capsys.readouterr().out.splitlines()[1].split("\t")
    assert sorted(cells[1:-1:2]) == LABELS
    assert sum(float(c) for c in cells[2::2]) == pytest.approx(1, abs=1e-3)


def test_predict_top_k_beyond_the_labels_is_one_line(folder):
    assert usage_error(["predict", "--model", str(folder), "funny", "--top-k",
                        "4"]) == ("--top-k 4: the model has 3 labels (neg, neu, pos); "
                                  "give --top-k 3 or fewer")
    assert usage_error(["predict", "--model", str(folder), "funny", "--top-k",
                        "0"]) == "--top-k 0: --top-k takes a whole number >= 1"
