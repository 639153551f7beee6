"""``predict --file`` streams: the file is read, classified and written a batch at a
time (memory bounded whatever its length), each batch's rows written before the next
is read; Ctrl-C says how many rows were written; a labelled file gets a note pointing
to ``evaluate``."""

import io

import pytest
import torch

from lamalib.data import Vocab
from lamalib.data.textio import stream_lines
from lamalib.experiments import cli
from lamalib.experiments.cli import PredictInterrupted, labelled_note, main
from lamalib.models import build_model
from lamalib.models.saved import SavedModel, save_model


@pytest.fixture
def folder(tmp_path):
    vocab = Vocab.build(["a warm film", "a dull film"])
    torch.manual_seed(0)
    model = build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=4)
    return save_model(model, vocab, ["neg", "pos"], tmp_path / "m", name="avg",
                      options={"embed_dim": 4})


def _lines(tmp_path, n, labelled=False):
    path = tmp_path / "texts.txt"
    path.write_text("".join(("pos\t" if labelled else "") + f"a warm film {i}\n"
                            for i in range(n)))
    return path


def test_predict_reads_and_classifies_a_batch_at_a_time(tmp_path, folder, capsys,
                                                        monkeypatch):
    monkeypatch.setattr(cli, "PREDICT_BATCH", 4)
    sizes = []
    real = SavedModel.logits

    def logits(self, texts, max_len=None):
        sizes.append(len(texts))
        return real(self, texts, max_len)

    monkeypatch.setattr(SavedModel, "logits", logits)
    main(["predict", "--model", str(folder), "--file", str(_lines(tmp_path, 10))])
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 11 and sizes == [4, 4, 2]  # never the whole file at once
    assert [r.split("\t")[0] for r in rows[1:]] == [f"a warm film {i}"
                                                    for i in range(10)]


def test_rows_are_written_as_they_are_done_and_ctrl_c_says_how_many(
        tmp_path, folder, capsys, monkeypatch):
    monkeypatch.setattr(cli, "PREDICT_BATCH", 3)
    calls = []
    real = SavedModel.top_k

    def top_k(self, texts, k, max_len=None):
        calls.append(len(texts))
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C in the third batch
        return real(self, texts, k, max_len)

    monkeypatch.setattr(SavedModel, "top_k", top_k)
    with pytest.raises(PredictInterrupted) as caught:
        main(["predict", "--model", str(folder), "--file", str(_lines(tmp_path, 10))])
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 1 + 6  # the header and the two batches done
    message = str(caught.value)
    assert "the first 6 rows were written" in message
    assert "the same command goes on" not in message  # run's words, not predict's


def test_ctrl_c_in_predict_has_its_own_words_on_the_command_line(tmp_path, folder):
    import subprocess
    import sys

    code = ("import sys; from lamalib.models.saved import SavedModel\n"
            "def stop(*a, **k): raise KeyboardInterrupt\n"
            "SavedModel.top_k = stop\n"
            "sys.argv = ['x', 'predict', '--model', sys.argv[1], 'a film']\n"
            "import runpy; runpy.run_module('lamalib.experiments', "
            "run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code, str(folder)],
                          capture_output=True, text=True)
    assert done.returncode == 130
    assert done.stderr.strip().startswith("interrupted: the first 0 rows were written")


def test_a_labelled_file_gets_one_note_pointing_to_evaluate(tmp_path, folder, capsys):
    main(["predict", "--model", str(folder), "--file",
          str(_lines(tmp_path, 5, labelled=True))])
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "looks labelled" in err[0] and "evaluate" in err[0]
    main(["predict", "--model", str(folder), "--file", str(_lines(tmp_path, 5))])
    assert "looks labelled" not in capsys.readouterr().err


def test_labelled_note_rule():
    labels = ["neg", "pos"]
    assert labelled_note(["pos\ta", "neg\tb", "pos,c"], labels, "f") is not None
    assert labelled_note(["label\ttext", "x\ty"], labels, "f") is not None
    assert labelled_note(["pos\ta", "a film", "a dull one", "neg b"], labels,
                         "f") is None  # 1 of 4 starts with a label and a tab
    assert labelled_note(["positive\ta"], labels, "f") is None


def test_stream_lines_numbers_lines_and_reads_boms():
    assert list(stream_lines(io.BytesIO(b"a\nb\r\nc\rd\n\ne"), "utf-8", "f")) == [
        (1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, ""), (6, "e")]
    assert list(stream_lines(io.BytesIO("x\ny\n".encode("utf-16")), "utf-8",
                             "f")) == [(1, "x"), (2, "y")]
    assert list(stream_lines(io.BytesIO(b"\xef\xbb\xbfh\xc3\xa9\nz"), "utf-8",
                             "f")) == [(1, "hé"), (2, "z")]
    with pytest.raises(ValueError, match=r"line 3 is not UTF-8; the 2 lines before"):
        list(stream_lines(io.BytesIO("é\nok\n".encode() + b"\xe9t\xe9\n"), "utf-8",
                          "f"))
