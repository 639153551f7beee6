"""Saved models beyond one text on our Vocab (lamalib.models.saved): the sentence-pair
classifier (predict takes (premise, hypothesis) pairs; attention is its shared
encoder's) and a BERT that reads WordPiece ids (its tokenizer's files kept in the
folder, loaded offline)."""

import json

import pytest
import torch

from lamalib.data import Vocab
from lamalib.experiments.cli import main
from lamalib.experiments.options import UsageError
from lamalib.models import build_model
from lamalib.models.saved import (CONFIG, WEIGHTS, NoAttention, load_model,
                                  save_model)
from wordpiece_helpers import BERT, wordpiece_tokens

PREMISES = ["a man sleeps on a bench", "two dogs run in a park", "a woman sings"]
HYPOTHESES = ["a person rests", "no animal moves", "someone makes music"]
LABELS = ["contradiction", "entailment", "neutral"]
ENCODERS = {"san": dict(embed_dim=8, hidden_size=6, d_a=5, hops=3, mlp_size=8),
            "te": dict(d_model=8, n_heads=2, n_layers=2, d_ff=16),
            "avg": dict(embed_dim=8)}


def _pair_saved(tmp_path, encoder):
    vocab = Vocab.build(PREMISES + HYPOTHESES)
    torch.manual_seed(0)
    options = {"encoder": encoder, "encoder_options": ENCODERS[encoder], "hidden": 8}
    model = build_model("pair", vocab_size=len(vocab), num_classes=3, **options).eval()
    return model, save_model(model, vocab, LABELS, tmp_path / encoder, name="pair",
                             options=options)


@pytest.mark.parametrize("encoder", sorted(ENCODERS))
def test_a_pair_model_is_saved_and_predicts_pairs(tmp_path, encoder):
    model, folder = _pair_saved(tmp_path, encoder)
    config = json.loads((folder / CONFIG).read_text())
    assert config["model"] == "pair" and config["kind"] == "pair"
    assert config["options"]["encoder"] == encoder
    saved = load_model(folder)
    assert saved.pairs
    pairs = list(zip(PREMISES, HYPOTHESES))
    with torch.no_grad():
        expected = model(*saved.encode(PREMISES), *saved.encode(HYPOTHESES))
    torch.testing.assert_close(saved.logits(pairs), expected, rtol=0, atol=0)
    assert [p.label for p in saved.predict(pairs)] == [
        LABELS[i] for i in expected.argmax(-1)]
    with pytest.raises(TypeError, match="classifies sentence pairs: give"):
        saved.predict(PREMISES)
    with pytest.raises(ValueError, match=r"hypothesis 2 \('  '\) has no tokens"):
        saved.predict([("a man", "a dog"), ("a man", "  ")])


def test_a_pair_models_attention_is_its_encoders_over_one_sentence(tmp_path):
    san = load_model(_pair_saved(tmp_path, "san")[1]).attention("a man sleeps")
    assert san.kind == "pooling" and san.weights.shape == (3, 3)
    te = load_model(_pair_saved(tmp_path, "te")[1]).attention("a man sleeps")
    assert te.kind == "self" and te.weights.shape == (2, 2, 3, 3)
    for att in (san, te):
        torch.testing.assert_close(att.weights.sum(-1),
                                   torch.ones(att.weights.shape[:-1]))
    with pytest.raises(NoAttention, match="'avg' has no attention"):
        load_model(_pair_saved(tmp_path, "avg")[1]).attention("a man sleeps")


def test_a_one_text_model_refuses_pairs(tmp_path):
    vocab = Vocab.build(PREMISES)
    model = build_model("avg", vocab_size=len(vocab), num_classes=3, embed_dim=8)
    saved = load_model(save_model(model, vocab, LABELS, tmp_path / "avg", name="avg",
                                  options={"embed_dim": 8}))
    with pytest.raises(TypeError, match="text 1 is a tuple, not a text; model 'avg' "
                                        "reads one text"):
        saved.predict([("a man", "a dog")])


# ---- the command line: predict and attention on a pair model ----------------------

def test_predict_takes_pairs_two_by_two_and_a_tab_file(tmp_path, capsys):
    folder = _pair_saved(tmp_path, "san")[1]
    lines = tmp_path / "pairs.tsv"
    lines.write_text(f"{PREMISES[1]}\t{HYPOTHESES[1]}\n\n")
    main(["predict", "--model", str(folder), PREMISES[0], HYPOTHESES[0],
          "--file", str(lines)])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "premise\thypothesis\tlabel\tprobability"
    assert out[3] == "\t\t\t"  # the blank line's row: empty
    rows = [line.split("\t") for line in out[1:3]]
    assert [r[:2] for r in rows] == [[PREMISES[0], HYPOTHESES[0]],
                                     [PREMISES[1], HYPOTHESES[1]]]
    expected = load_model(folder).predict(list(zip(PREMISES, HYPOTHESES))[:2])
    assert [r[2] for r in rows] == [p.label for p in expected]
    with pytest.raises(UsageError, match="3 TEXT arguments: this sentence-pair model "
                                         "takes them two by two"):
        main(["predict", "--model", str(folder), "a", "b", "c"])
    lines.write_text("a man sleeps\n")
    with pytest.raises(UsageError, match=r"pairs.tsv, line 1: 1 tab-separated fields; "
                                         "a sentence-pair model reads one pair"):
        main(["predict", "--model", str(folder), "--file", str(lines)])
    main(["attention", "--model", str(folder), "a man sleeps"])
    assert capsys.readouterr().out.startswith(
        "# the sentence encoder (san) of the pair model: each head's weight")


def test_predict_file_in_another_encoding(tmp_path, capsys):
    vocab = Vocab.build(["café au lait", "tea"])
    model = build_model("avg", vocab_size=len(vocab), num_classes=2, embed_dim=8)
    folder = save_model(model, vocab, ["a", "b"], tmp_path / "m", name="avg",
                        options={"embed_dim": 8})
    texts = tmp_path / "texts.txt"
    texts.write_bytes("tea\ncafé au lait\n".encode("latin-1"))
    with pytest.raises(UsageError, match=r"texts.txt, line 2: the bytes b'\\xe9' are "
                                         r"not valid utf-8 .*--encoding cp1252"):
        main(["predict", "--model", str(folder), "--file", str(texts)])
    main(["predict", "--model", str(folder), "--file", str(texts), "--encoding",
          "latin-1"])
    assert "café au lait\t" in capsys.readouterr().out


def test_run_save_model_keeps_a_sentence_pair_run(tmp_path, capsys):
    main(["run", "--model", "avg", "--dataset", "synthetic_nli", "--set", "epochs=1",
          "--set", "embed_dim=8", "--results", str(tmp_path / "r"),
          "--checkpoints", str(tmp_path / "c"), "--save-model", str(tmp_path / "nli")])
    saved = load_model(tmp_path / "nli")
    assert saved.pairs and saved.config["options"]["encoder"] == "avg"
    assert saved.config["options"]["encoder_options"] == {"embed_dim": 8}
    [result] = (tmp_path / "r").glob("*.json")
    assert saved.config["options"]["hidden"] == json.loads(
        result.read_text())["pair_classifier"]["hidden"]
    [p] = saved.predict([("a man sleeps", "a man is awake")])
    assert p.label in saved.labels


# ---- a BERT on WordPiece ids: the tokenizer's files in the folder -----------------

@pytest.fixture
def wordpiece(tmp_path):
    return wordpiece_tokens(tmp_path, max_length=16)


def test_a_wordpiece_bert_keeps_its_tokenizer_and_loads_offline(
        tmp_path, wordpiece, monkeypatch):
    torch.manual_seed(0)
    model = build_model("bert", vocab_size=len(wordpiece), num_classes=2,
                        **BERT).eval()
    folder = save_model(model, wordpiece, ["neg", "pos"], tmp_path / "bert",
                        name="bert", options={"pretrained_name": "bert-base-uncased"})
    assert (folder / "tokenizer").is_dir() and (folder / WEIGHTS).is_file()
    config = json.loads((folder / CONFIG).read_text())
    assert config["preprocessing"]["tokenizer"] == "wordpiece"
    assert config["options"] == {"pretrained_name": None, "hidden": 8, "layers": 1,
                                 "heads": 2, "intermediate": 16, "max_positions": 32,
                                 "dropout": 0.1, "pad_id": 0}
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    saved = load_model(folder)
    texts = ["A warm, funny film.", "a dull mess"]
    tokens, mask = saved.encode(texts)
    assert saved.vocab.decode(tokens[1, :4].tolist()) == ["[CLS]", "a", "dull", "mess"]
    with torch.no_grad():
        expected = model(tokens, mask)
    torch.testing.assert_close(saved.logits(texts), expected, rtol=0, atol=0)
    att = saved.attention("a funny film")
    assert att.tokens == ["[CLS]", "a", "fun", "##ny", "film", "[SEP]"]
    assert att.kind == "self" and att.weights.shape == (1, 2, 6, 6)


def test_a_wordpiece_folder_without_its_tokenizer_is_a_clear_error(tmp_path,
                                                                   wordpiece):
    import shutil

    from lamalib.models.saved import SavedModelError

    model = build_model("bert", vocab_size=len(wordpiece), num_classes=2, **BERT)
    folder = save_model(model, wordpiece, ["neg", "pos"], tmp_path / "bert",
                        name="bert")
    shutil.rmtree(folder / "tokenizer")
    with pytest.raises(SavedModelError, match="tokenizer: missing: the BERT's "
                                              "tokenizer files; save the model again"):
        load_model(folder)
