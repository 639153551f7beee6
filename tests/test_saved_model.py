"""A trained classifier kept as a folder (lamalib.models.saved): save -> load gives
the same logits for every registered classifier; predict, attention, tampering."""

import json
import pickle
import random

import pytest
import torch

from labelled_files import write_tsv
from lamalib.data import Vocab
from lamalib.models import available_models, build_model
from lamalib.models.saved import (CONFIG, VOCAB, WEIGHTS, NoAttention, SavedModelError,
                                  load_model, save_model)
from lamalib.models.saved_seq2seq import load_seq2seq

TEXTS = ["a warm and funny film", "a dull , tedious mess", "funny", "dull film ."]
LABELS = ["neg", "neu", "pos"]
# tiny sizes so every model builds and runs in a moment
TINY = {
    "avg": dict(embed_dim=8),
    "bow_mlp": dict(embed_dim=8, hidden_size=8),
    "bigru_max": dict(embed_dim=8, hidden_size=6),
    "cnn": dict(embed_dim=8, kernel_sizes=(1, 2), filters=4),
    "san": dict(embed_dim=8, hidden_size=6, d_a=5, hops=3, mlp_size=8),
    "self_attention": dict(d_model=8, n_heads=2, n_layers=2),
    "te": dict(d_model=8, n_heads=2, n_layers=2, d_ff=16),
    "ms_transformer": dict(embed_dim=8, d_model=8, n_layers=2, n_heads=4,
                           scales="1,3,N/2,N/1", mlp_hidden=8),
    "transformer": dict(embed_dim=8, d_model=8, n_layers=2, n_heads=4, mlp_hidden=8),
    # offline: a tiny random BERT reading our Vocab (pretrained_name=None)
    "bert": dict(pretrained_name=None, hidden=8, layers=1, heads=2, intermediate=16,
                 max_positions=32),
    **{m: dict(embed_dim=8, hidden_size=4, heads=3, mlp_size=8, max_positions=32)
       for m in ("lama", "lama_ctx", "lama_ctx_de", "lama_ctx_dp")},
    "le": dict(embed_dim=8, hidden_size=4, heads=3, mlp_size=8, max_positions=32),
}
SELF = {"te", "self_attention", "ms_transformer", "transformer", "bert"}
POOLING = {"san", "lama", "lama_ctx", "lama_ctx_de", "lama_ctx_dp", "le"}
NONE = {"avg", "bow_mlp", "bigru_max", "cnn"}


def _saved(tmp_path, name, max_len=None):
    if name == "bert":
        pytest.importorskip("transformers", reason="bert needs transformers")
    vocab = Vocab.build(TEXTS)
    torch.manual_seed(0)
    model = build_model(name, vocab_size=len(vocab), num_classes=len(LABELS),
                        **TINY.get(name, {}))
    model.eval()
    folder = save_model(model, vocab, LABELS, tmp_path / name, name=name,
                        options=TINY.get(name, {}), max_len=max_len)
    return model, vocab, folder


def test_every_classifier_is_listed_here():
    # a new classifier must say here which attention family it belongs to
    assert set(available_models(kind="classifier")) == SELF | POOLING | NONE


@pytest.mark.parametrize("name", available_models(kind="classifier"))
def test_save_then_load_gives_the_same_logits(tmp_path, name):
    model, vocab, folder = _saved(tmp_path, name)
    assert sorted(p.name for p in folder.iterdir()) == [CONFIG, VOCAB, WEIGHTS]
    config = json.loads((folder / CONFIG).read_text())
    assert config["model"] == name and config["labels"] == LABELS
    assert config["format_version"] == 1 and config["lamalib"]
    assert config["preprocessing"] == {"tokenizer": "lamalib.data.tokenize",
                                       "lowercase": True, "max_len": None}
    saved = load_model(folder)
    assert saved.vocab.itos == vocab.itos
    tokens, mask = saved.encode(TEXTS)
    with torch.no_grad():
        expected = model(tokens, mask)
    torch.testing.assert_close(saved.logits(TEXTS), expected, rtol=0, atol=0)
    predictions = saved.predict(TEXTS)
    assert [p.label for p in predictions] == [LABELS[i] for i in expected.argmax(-1)]
    probs = expected.softmax(-1).max(-1).values
    assert [p.probability for p in predictions] == pytest.approx(probs.tolist())


@pytest.mark.parametrize("name", sorted(SELF | POOLING))
def test_attention_has_one_shape_per_family_and_rows_sum_to_one(tmp_path, name):
    saved = load_model(_saved(tmp_path, name)[2])
    att = saved.attention("a warm , funny film")
    with_cls = name in ("ms_transformer", "transformer")  # they show their [CLS]
    n = 5 + with_cls
    assert len(att.tokens) == n
    if with_cls:
        assert att.tokens[0] == "[CLS]"
    if name in SELF:
        assert att.kind == "self" and att.weights.dim() == 4
        assert att.weights.shape[-2:] == (n, n)
    else:
        assert att.kind == "pooling" and att.weights.shape == (
            TINY[name].get("heads", TINY[name].get("hops")), n)
    torch.testing.assert_close(att.weights.sum(-1), torch.ones(att.weights.shape[:-1]))
    assert (att.weights >= 0).all()


@pytest.mark.parametrize("name", sorted(NONE))
def test_a_model_without_attention_says_so(tmp_path, name):
    saved = load_model(_saved(tmp_path, name)[2])
    with pytest.raises(NoAttention, match=f"'{name}' has no attention"):
        saved.attention("a warm film")


def test_max_len_truncates_as_the_run_did(tmp_path):
    saved = load_model(_saved(tmp_path, "san", max_len=2)[2])
    assert saved.encode(["a warm and funny film"])[0].shape == (1, 2)
    assert len(saved.attention("a warm and funny film").tokens) == 2


def test_empty_text_is_a_clear_error(tmp_path):
    saved = load_model(_saved(tmp_path, "avg")[2])
    with pytest.raises(ValueError, match=r"text 2 \('  '\) has no tokens"):
        saved.predict(["fine", "  "])


def _edit_config(folder, **changes):
    config = json.loads((folder / CONFIG).read_text())
    config.update(changes)
    (folder / CONFIG).write_text(json.dumps(config))


@pytest.mark.parametrize("damage, file, words", [
    (lambda f: (f / WEIGHTS).unlink(), WEIGHTS, "missing"),
    (lambda f: (f / VOCAB).unlink(), VOCAB, "missing"),
    (lambda f: (f / CONFIG).unlink(), CONFIG, "missing"),
    (lambda f: _edit_config(f, format_version=99), CONFIG, "format version 99"),
    (lambda f: _edit_config(f, model="lstm"), CONFIG, "unknown model 'lstm'"),
    (lambda f: _edit_config(f, options={"embed_dim": 16}), WEIGHTS, "does not fit"),
    (lambda f: (f / CONFIG).write_text("{"), CONFIG, "not valid JSON"),
    (lambda f: (f / VOCAB).write_text("<pad>\n<unk>\n"), VOCAB, "holds 2 tokens"),
])
def test_a_tampered_folder_is_a_one_line_error_naming_the_file(tmp_path, damage,
                                                               file, words):
    folder = _saved(tmp_path, "avg")[2]
    damage(folder)
    with pytest.raises(SavedModelError) as error:
        load_model(folder)
    message = str(error.value)
    assert "\n" not in message and words in message
    assert str(folder / file) in message and "save" in message


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_a_weights_file_with_a_pickled_object_is_refused(tmp_path):
    from safetensors.torch import load_file

    from lamalib.models.saved import LEGACY_WEIGHTS

    folder = _saved(tmp_path, "avg")[2]
    state = load_file(str(folder / WEIGHTS))
    (folder / WEIGHTS).unlink()  # a folder saved before safetensors: weights.pt
    torch.save(state, folder / LEGACY_WEIGHTS)
    assert load_model(folder).labels  # read as before

    class Sneaky:
        def __reduce__(self):  # would run code if unpickled
            return (print, ("pickled code ran",))

    torch.save({**state, "extra": Sneaky()}, folder / LEGACY_WEIGHTS)
    with pytest.raises(SavedModelError, match="refused: not a file of plain tensors"):
        load_model(folder)
    # and a plain pickle (not torch's format) is refused too
    (folder / LEGACY_WEIGHTS).write_bytes(pickle.dumps(Sneaky()))
    with pytest.raises(SavedModelError, match=LEGACY_WEIGHTS):
        load_model(folder)


@pytest.mark.parametrize("name", ["weights.safetensors", "weights.pt"])
@pytest.mark.parametrize("content", [b"", b"101\n", b"just some text\n"]
                         + [bytes(random.Random(seed).randrange(256)
                                  for _ in range(64 * (seed + 1))) for seed in range(30)])
def test_a_broken_weights_file_is_one_line(tmp_path, name, content):
    folder = _saved(tmp_path, "avg")[2]
    (folder / WEIGHTS).unlink()
    (folder / name).write_bytes(content)
    with pytest.raises(SavedModelError) as caught:
        load_model(folder)
    message = str(caught.value)
    assert "\n" not in message and str(folder / name) in message
    assert "save the model again" in message
    assert "weights_only" not in message  # torch's advice to load it unsafely: never


def test_a_folder_that_is_not_there(tmp_path):
    with pytest.raises(SavedModelError, match="no such folder"):
        load_model(tmp_path / "nowhere")


def test_a_file_given_as_the_model_folder_is_called_a_file(tmp_path):
    (tmp_path / "train.tsv").write_text("pos\ta warm film\n")
    for load in (load_model, load_seq2seq):
        with pytest.raises(SavedModelError) as caught:
            load(tmp_path / "train.tsv")
        assert str(caught.value) == (f"{tmp_path / 'train.tsv'}: a file, not a folder; "
                                     "give the folder a model was saved to (the one "
                                     "--save-model wrote)")


# ---- the experiments command: run --save-model DIR --------------------------------

_tsv = write_tsv


def _run_saving(tmp_path, *extra, model="san"):
    from lamalib.experiments.cli import main

    train, test = _tsv(tmp_path / "train.tsv", 40), _tsv(tmp_path / "test.tsv", 10, 100)
    main(["run", "--model", model, "--train", str(train), "--test", str(test),
          "--set", "header=false", "--set", "epochs=2", "--set", "embed_dim=8",
          "--set", "hidden_size=4", "--set", "max_len=6",
          "--results", str(tmp_path / "results"),
          "--checkpoints", str(tmp_path / "ckpt"), *extra])


def test_run_save_model_keeps_the_trained_model(tmp_path, capsys):
    _run_saving(tmp_path, "--save-model", str(tmp_path / "kept"))
    # a message names an absolute folder without the machine's folders above it (no
    # path of the machine that ran it on a page); a relative one as the user gave it
    assert "model saved to kept\n" in capsys.readouterr().out
    saved = load_model(tmp_path / "kept")
    assert saved.name == "san" and saved.labels == ["neg", "pos"]
    assert saved.max_len == 6
    assert saved.config["options"] == {"embed_dim": 8, "hidden_size": 4}
    [result] = (tmp_path / "results").glob("*.json")
    record = json.loads(result.read_text())
    assert record["vocab_size"] == len(saved.vocab)
    assert "--save-model" not in record["command"]  # a local folder, not provenance
    [p] = saved.predict(["the film was great number 3"])
    assert p.label in ("neg", "pos") and 0.5 <= p.probability <= 1
    assert saved.attention("the film was great number 3 and more").weights.shape == (
        4, 6)  # san's 4 hops over the 6 tokens max_len keeps


def test_run_save_model_refuses_what_it_cannot_keep(tmp_path):
    with pytest.raises(ValueError, match="--save-model keeps one model: run it with "
                                         "--seeds 1"):
        _run_saving(tmp_path, "--save-model", str(tmp_path / "kept"), "--seeds", "2")
    _run_saving(tmp_path)  # a complete results file: nothing would be trained
    with pytest.raises(ValueError, match="is complete, so this run trains nothing"):
        _run_saving(tmp_path, "--save-model", str(tmp_path / "kept"))
    assert not (tmp_path / "kept").exists()
    _run_saving(tmp_path, "--save-model", str(tmp_path / "kept"), "--force")
    assert load_model(tmp_path / "kept").name == "san"


# ---- the experiments command: predict and attention -------------------------------

def test_predict_prints_tsv_for_texts_and_a_file(tmp_path, capsys):
    from lamalib.experiments.cli import main

    model, _, folder = _saved(tmp_path, "san")
    lines = tmp_path / "texts.txt"
    lines.write_text("dull film .\n\nfunny\n")
    main(["predict", "--model", str(folder), "a warm\tfilm", "--file", str(lines)])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "text\tlabel\tprobability\tknown"
    assert out[3] == "\t\t\t"  # the blank line's row: empty, and in its place
    rows = [line.split("\t") for line in out[1:3] + out[4:]]
    assert [r[0] for r in rows] == ["a warm film", "dull film .", "funny"]
    expected = load_model(folder).predict(["a warm film", "dull film .", "funny"])
    assert [r[1] for r in rows] == [p.label for p in expected]
    assert [float(r[2]) for r in rows] == pytest.approx(
        [p.probability for p in expected], abs=1e-4)


@pytest.mark.parametrize("name, columns", [("san", ["token", "mean", "head1", "head2",
                                                    "head3"]),
                                           ("te", ["token", "mean"])])
def test_attention_prints_a_table_per_token(tmp_path, capsys, name, columns):
    from lamalib.experiments.cli import main

    folder = _saved(tmp_path, name)[2]
    main(["attention", "--model", str(folder), "A warm film"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"# {name}: ") and out[1].split("\t") == columns
    assert [r.split("\t")[0] for r in out[2:]] == ["a", "warm", "film"]
    assert sum(float(r.split("\t")[1]) for r in out[2:]) == pytest.approx(1, abs=1e-3)


def test_model_commands_give_one_line_errors_and_exit_2(tmp_path):
    import subprocess
    import sys

    from lamalib.experiments.cli import main

    folder = _saved(tmp_path, "avg")[2]
    with pytest.raises(NoAttention, match="'avg' has no attention"):
        main(["attention", "--model", str(folder), "a film"])
    with pytest.raises(ValueError, match="give texts to classify"):
        main(["predict", "--model", str(folder)])
    done = subprocess.run([sys.executable, "-m", "lamalib.experiments", "predict",
                           "--model", str(tmp_path / "nowhere"), "a film"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"error: {tmp_path / 'nowhere'}: no such folder; give the folder a model was "
        "saved to"]
