"""seq2seq on real sentence pairs: separate target vocabularies, Luong's local-p
decoder, BLEU on our tokens, saved seq2seq folders and the seq2seq commands."""

import json
import subprocess
import sys

import pytest
import sacrebleu
import torch

from lamalib.data.datasets.translation import make_translation_task
from lamalib.data.parallel import pairs_from_lines
from lamalib.experiments.cli import main
from lamalib.experiments.seq2seq_run import (Seq2SeqSpec, bleu_by_length, bleu_chrf,
                                             outputs, prepare, train)
from lamalib.models.saved import SavedModelError
from lamalib.models.saved_seq2seq import load_seq2seq, save_seq2seq
from lamalib.models.seq2seq import Seq2Seq

from command_helpers import usage_error

pytestmark = pytest.mark.usefixtures("one_thread")

PAIRS = [("i like tea .", "tôi thích trà ."), ("i like it .", "tôi thích nó ."),
         ("you like tea .", "bạn thích trà ."), ("we run .", "chúng tôi chạy ."),
         ("run !", "chạy !"), ("i run .", "tôi chạy ."), ("you run .", "bạn chạy ."),
         ("we like it .", "chúng tôi thích nó ."), ("help !", "cứu !"),
         ("i help .", "tôi giúp .")] * 3


def test_target_vocabulary_of_its_own_sets_the_output_width():
    torch.manual_seed(0)
    for decoder in ("plain", "bahdanau", "luong", "luong_local"):
        model = Seq2Seq(11, 8, 12, decoder, tgt_vocab_size=17).eval()
        logits, weights = model(torch.randint(3, 11, (2, 5)),
                                torch.ones(2, 5, dtype=torch.bool),
                                torch.randint(3, 17, (2, 4)))
        assert logits.shape == (2, 4, 17)
        assert (weights is None) == (decoder == "plain")


def test_local_p_decoder_attends_only_inside_its_window_and_ignores_padding():
    torch.manual_seed(1)
    model = Seq2Seq(13, 8, 12, "luong_local", window=1).eval()
    task = make_translation_task("copy", n=4, min_len=3, max_len=7, vocab_size=13)
    batch = task.collate(range(4))
    _, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    centres = model.decoder.attention.last_positions  # (B, T)
    S = batch.src.shape[1]
    offset = torch.arange(S)[None, None, :] - centres[..., None]
    assert (weights[offset.abs() > 1] == 0).all()  # eq. (15): only [p - D, p + D]
    assert (weights.masked_fill(batch.src_mask[:, None, :], 0) == 0).all()
    for i in range(4):  # padding never changes a result
        one = task.collate([i])
        _, w = model(one.src, one.src_mask, one.tgt_in)
        T, s = one.tgt_in.shape[1], one.src.shape[1]
        torch.testing.assert_close(weights[i, :T, :s], w[0], atol=1e-6, rtol=1e-4)


def test_bleu_counts_our_tokens_as_they_are():
    ref = [["tôi", "thích", "trà", "."], ["chạy", "!"]]
    assert bleu_chrf(ref, ref) == pytest.approx({"bleu": 100.0, "chrf": 100.0})
    hyp = [["tôi", "thích", "nó", "."], ["chạy", "!"]]
    want = sacrebleu.corpus_bleu(["tôi thích nó .", "chạy !"],
                                 [["tôi thích trà .", "chạy !"]], tokenize="none")
    assert bleu_chrf(hyp, ref)["bleu"] == pytest.approx(want.score)
    # a hyphenated token is one token: 13a would split "sô-cô-la" and score it higher
    assert bleu_chrf([["sô-cô-la"]], [["sô", "-", "cô", "-", "la"]])["bleu"] == 0.0


def test_bleu_by_length_scores_each_bucket_on_its_own_sentences():
    sources = [["a"] * n for n in (2, 3, 6, 8, 13)]
    refs = [["x", "y", "z", "w"]] * 5
    hyps = [refs[0], refs[0], ["q"], refs[0], ["q"]]
    rows = bleu_by_length(hyps, refs, sources, buckets=((1, 5), (6, 7), (8, 99)))
    assert [(r["low"], r["n"]) for r in rows] == [(1, 2), (6, 1), (8, 2)]
    assert rows[0]["bleu"] == pytest.approx(100.0) and rows[1]["bleu"] == 0.0
    assert 0 < rows[2]["bleu"] < 100


@pytest.fixture(scope="module")
def pairs_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("pairs") / "mine.tsv"
    path.write_text("".join(f"{s}\t{t}\tCC-BY\n" for s, t in PAIRS), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def trained(pairs_file):
    spec = Seq2SeqSpec(pairs=str(pairs_file), decoder="bahdanau", d_emb=8, d_hidden=12,
                       epochs=3, beam_width=2, valid_fraction=0.2, test_fraction=0.2)
    data = prepare(spec)
    model, history = train(spec, data)
    return spec, data, model


def test_saved_folder_translates_as_the_model_did(tmp_path, trained):
    spec, data, model = trained
    folder = save_seq2seq(model, data.src_vocab, data.tgt_vocab, tmp_path / "m",
                          spec.model_options())
    saved = load_seq2seq(folder)
    texts = [" ".join(t) for t in data.test.src_tokens]
    want = outputs(model, data.test, data.tgt_vocab, 1)
    assert [t.tokens for t in saved.translate(texts)] == want
    att = saved.attention(texts[0])
    assert att.weights.shape == (len(att.target), len(att.source))
    torch.testing.assert_close(att.weights.sum(-1), torch.ones(len(att.target)))
    assert att.target[-1] == "<eos>"
    (folder / "weights.safetensors").unlink()
    with pytest.raises(SavedModelError, match="weights.safetensors: missing"):
        load_seq2seq(folder)
    (folder / "tgt_vocab.txt").write_text("<pad>\n<bos>\n<eos>\n<unk>\n",
                                          encoding="utf-8")
    with pytest.raises(SavedModelError, match="tgt_vocab.txt: holds 4 tokens"):
        load_seq2seq(folder)


def test_commands_train_keep_translate_and_show_attention(tmp_path, pairs_file,
                                                          capsys):
    model, results = tmp_path / "model", tmp_path / "results"
    main(["seq2seq", "--pairs", str(pairs_file), "--decoders", "luong", "--set",
          "epochs=2", "--set", "d_hidden=12", "--set", "beam_width=2", "--results",
          str(results), "--save-model", str(model)])
    (written,) = results.glob("seq2seq__luong__mine__s0.json")
    result = json.loads(written.read_text())
    assert {"bleu", "chrf", "bleu_beam", "chrf_beam"} <= set(result["metrics"])
    assert result["code"]["sha256"] and result["data"]["split"] == [24, 3, 3]
    capsys.readouterr()
    main(["predict", "--model", str(model), "i like tea .", "we run ."])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "source\toutput" and len(lines) == 3
    html = tmp_path / "a.html"
    main(["attention", "--model", str(model), "i like tea .", "--html", str(html)])
    page = html.read_text(encoding="utf-8")
    assert '"kind":"cross"' in page.replace(" ", "") and "http" not in page.split(
        "<body")[1].split("lv-title")[0]


@pytest.mark.parametrize("content, words", [
    (b"Hi\tChao\nno tab here\n", "line 2: no tab"),
    (b"Hi\tChao\nHello\t\n", "line 2: the target is empty"),
    (b"Hi\tChao\nCaf\xe9\tcafe\n", "line 2"),
])
def test_bad_pairs_files_are_one_line_and_exit_2(tmp_path, content, words):
    path = tmp_path / "bad.tsv"
    path.write_bytes(content)
    done = subprocess.run([sys.executable, "-m", "lamalib.experiments", "seq2seq",
                           "--pairs", str(path), "--results", str(tmp_path / "r")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and words in done.stderr
    assert "Traceback" not in done.stderr


def test_usage_errors_name_the_option(tmp_path, pairs_file):
    assert "--text FILE gives sentences" in usage_error(
        ["seq2seq", "--text", str(pairs_file), "--results", str(tmp_path)])
    assert "unknown option 'hidden'" in usage_error(
        ["seq2seq", "--set", "hidden=3", "--results", str(tmp_path)])
    assert "keeps one model" in usage_error(
        ["seq2seq", "--decoders", "plain", "luong", "--save-model",
         str(tmp_path / "m"), "--results", str(tmp_path)])


def test_a_complete_run_is_skipped_not_run_again(tmp_path, monkeypatch):
    from lamalib.experiments import seq2seq_run

    spec = Seq2SeqSpec(decoder="plain")
    done = {"metrics": {"bleu": 1.0, "chrf": 2.0}, "history": []}
    (tmp_path / spec.result_name()).write_text(json.dumps(done))
    monkeypatch.setattr(seq2seq_run, "prepare", lambda *a: pytest.fail("ran again"))
    assert seq2seq_run.run_seq2seq(spec, tmp_path) == done
