"""Tests that kill the mutants of issue 61's item 8 (an outside audit found none of
these caught): checkpoint identity, output paths, the attention command's bounds,
evaluate, known shares, encodings, a sharded encoder's index and its tokenizer's
limit. Each test names the mutant it kills."""

import os
import types
import warnings

import pytest
import torch

from command_helpers import usage_error
from lamalib.data import Vocab
from lamalib.data.batching import LONG_TEXT_LIMIT, LongTextWarning
from lamalib.data.textio import decode
from lamalib.experiments import cli, model_eval, options, runner
from lamalib.experiments.cli import main
from lamalib.experiments.run_checkpoint import run_folder, run_key
from lamalib.models import build_model
from lamalib.models.saved import load_model, save_model
from lamalib.train.checkpoint import save_checkpoint


def _saved(tmp_path, name="san", **options_):
    texts = ["a warm and funny film", "a dull , tedious mess", "funny", "dull film ."]
    vocab = Vocab.build(texts + [" ".join(f"w{i}" for i in range(700))])
    torch.manual_seed(0)
    opts = {"embed_dim": 8, **options_}
    model = build_model(name, vocab_size=len(vocab), num_classes=3, **opts)
    return save_model(model.eval(), vocab, ["neg", "neu", "pos"], tmp_path / name,
                      name=name, options=opts)


# ---- checkpoint identity -----------------------------------------------------------

def test_the_data_is_part_of_a_runs_hash():  # mutant: data left out of the hash
    spec = runner.RunSpec(model="avg", dataset="file", train_file="t.tsv",
                          test_file="u.tsv")
    model = build_model("avg", vocab_size=5, num_classes=2)
    step = runner.classification_step
    keys = {run_key(runner.run_determines(spec, model, step, {"sha256": sha}, None,
                                          False)) for sha in ("aaa", "bbb")}
    assert len(keys) == 2


def test_run_keys_do_not_depend_on_the_order_of_options():  # mutant: unsorted
    assert run_key({"a": 1, "b": {"x": 1, "y": 2}}) == run_key(
        {"b": {"y": 2, "x": 1}, "a": 1})


def test_a_checkpoint_at_the_same_cap_is_the_runs_own(tmp_path):  # mutant: >= cap
    home = tmp_path / "run__avg__x__s0__0123456789abcdef"
    determines = {"k": 1}
    home = run_folder(tmp_path, "run__avg__x__s0", determines, 3)
    save_checkpoint(home / "last.pt", {"epoch": 3})
    assert run_folder(tmp_path, "run__avg__x__s0", determines, 3) == home
    assert run_folder(tmp_path, "run__avg__x__s0", determines, 2).name.endswith(
        "__e2")
    assert run_folder(tmp_path, "run__avg__x__s0", determines, 4) == home


# ---- output paths ------------------------------------------------------------------

def test_write_permission_is_checked_as_write(tmp_path, monkeypatch):
    # mutant: os.R_OK for os.W_OK (tests run as root, so access is emulated)
    monkeypatch.setattr(options.os, "access",
                        lambda path, mode: not mode & os.W_OK)
    with pytest.raises(options.UsageError, match="is not writable"):
        options.check_output_folder("--results", str(tmp_path / "r"))


def test_vectors_save_is_checked_before_training(tmp_path, monkeypatch):
    # mutant: vectors --save not checked first
    import lamalib.experiments.vectors as vectors

    def no_training(*args, **kwargs):
        raise AssertionError("word2vec trained before --save was checked")

    monkeypatch.setattr(vectors, "run_vectors", no_training)
    assert usage_error(["vectors", "--corpus", "lee", "--results",
                        str(tmp_path / "r"), "--save",
                        str(tmp_path / "no" / "such" / "v.txt")]).startswith(
        f"--save {tmp_path / 'no' / 'such' / 'v.txt'}: the folder")


# ---- the attention command's bounds ------------------------------------------------

def test_attention_reads_512_tokens_by_default(tmp_path, capsys):
    # mutant: the default --max-len ten times larger
    folder = _saved(tmp_path)
    text = " ".join(f"w{i}" for i in range(600))
    with pytest.warns(LongTextWarning, match="cut to 512"):
        main(["attention", "--model", str(folder), text])
    rows = capsys.readouterr().out.splitlines()[2:]
    assert len(rows) == 512


def test_attention_html_keeps_to_max_len(tmp_path, monkeypatch):
    # mutant: --html ignoring --max-len
    import importlib

    view = importlib.import_module("lamalib.viz.attention_view")

    seen = []
    real = view.model_view

    def model_view(saved, text, title, max_len=None, **view_options):
        out = real(saved, text, title, max_len, **view_options)
        seen.append(saved.attention(text, max_len=max_len).tokens)
        return out

    monkeypatch.setattr(view, "model_view", model_view)
    folder = _saved(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LongTextWarning)
        main(["attention", "--model", str(folder), "w1 w2 w3 w4 w5 w6", "--max-len",
              "3", "--html", str(tmp_path / "v.html")])
    assert [len(t) for t in seen] == [3]


def test_attention_max_len_0_is_refused(tmp_path):  # mutant: --max-len 0 accepted
    assert usage_error(["attention", "--model", str(tmp_path), "a", "--max-len",
                        "0"]) == "--max-len 0: --max-len takes a whole number >= 1"


def test_a_model_without_max_len_reads_10000_tokens(tmp_path):
    # mutant: the long-text limit ten times larger
    saved = load_model(_saved(tmp_path, "avg"))
    text = " ".join(["funny"] * (LONG_TEXT_LIMIT + 1))
    with pytest.warns(LongTextWarning, match=f"cut to {LONG_TEXT_LIMIT}"):
        tokens, _ = saved.encode([text])
    assert tokens.shape == (1, 10_000) and LONG_TEXT_LIMIT == 10_000


# ---- evaluate ----------------------------------------------------------------------

def test_evaluate_macro_average_is_over_classes(tmp_path, capsys, monkeypatch):
    # mutant: the macro average weighted by examples
    folder = _saved(tmp_path, "avg")
    saved = load_model(folder)
    texts = ["a warm and funny film", "a dull , tedious mess", "funny", "dull film .",
             "funny film", "dull"]
    gold = ["pos", "pos", "pos", "pos", "neg", "neu"]
    test = tmp_path / "t.tsv"
    test.write_text("".join(f"{y}\t{x}\n" for y, x in zip(gold, texts)))
    main(["evaluate", "--model", str(folder), "--test", str(test), "--set",
          "header=false"])
    out = capsys.readouterr().out.splitlines()
    predicted = saved.logits(texts).argmax(-1).tolist()
    rows = {}
    for c, label in enumerate(saved.labels):
        g = [i for i, y in enumerate(gold) if y == label]
        p = [i for i, x in enumerate(predicted) if x == c]
        right = len(set(g) & set(p))
        prec = right / len(p) if p else 0.0
        rec = right / len(g) if g else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        if g or p:
            rows[label] = (prec, rec, f1)
    macro = [sum(r[k] for r in rows.values()) / len(rows) for k in range(3)]
    [line] = [x for x in out if x.startswith("macro avg")]
    assert [float(v) for v in line.split("\t")[1:4]] == pytest.approx(macro, abs=1e-4)


def test_evaluate_scores_every_text_of_every_batch(tmp_path, monkeypatch):
    # mutant: one text per batch dropped
    monkeypatch.setattr(model_eval, "BATCH", 2)
    saved = load_model(_saved(tmp_path, "avg"))
    texts = ["funny", "dull", "a warm film", "dull film .", "funny film"]
    assert model_eval.predicted_ids(saved, texts) == saved.logits(texts).argmax(
        -1).tolist()


def test_the_test_fraction_split_is_the_same_for_every_seed(tmp_path):
    # mutant: the test split drawn with the run's seed
    rows = [("pos", f"a warm film {i}") for i in range(15)] + [
        ("neg", f"a dull film {i}") for i in range(15)]
    train = tmp_path / "all.tsv"
    train.write_text("".join(f"{y}\t{x}\n" for y, x in rows))
    splits = [runner.load_data(runner.RunSpec(
        model="avg", dataset="file", train_file=str(train), test_fraction=0.2,
        seed=seed, file_options={"header": False})) for seed in (0, 1)]
    assert splits[0][2].texts == splits[1][2].texts


# ---- known shares --------------------------------------------------------------------

def test_a_text_without_tokens_is_not_known(tmp_path):
    # mutant: a text with no tokens counted as known
    saved = load_model(_saved(tmp_path, "avg"))
    assert saved.known_share(["", "funny", "zzz"]) == [0.0, 1.0, 0.0]


def test_blank_lines_are_not_flagged_as_unknown(tmp_path, capsys):
    # mutant: blank lines counted in the no-known-word warning
    folder = _saved(tmp_path, "avg")
    lines = tmp_path / "x.txt"
    lines.write_text("funny\n\n\ndull film .\n")
    main(["predict", "--model", str(folder), "--file", str(lines)])
    assert "have no word" not in capsys.readouterr().err


def test_a_berts_unk_is_not_a_special_token(tmp_path):
    # mutant: [UNK] counted as special (so an unknown word would look known)
    pytest.importorskip("transformers")
    from lamalib.models.bert import BertTokens
    from lamalib.models.saved import SavedModel
    from tiny_bert import saved_tiny_bert

    folder = saved_tiny_bert(tmp_path / "tiny", words=["warm", "film"])
    tokens = BertTokens.from_pretrained(str(folder), 64)
    fake = types.SimpleNamespace(vocab=tokens)
    shares = SavedModel.known_share(fake, ["warm film", "warm zzzq"])
    assert shares == [1.0, 0.5]


# ---- encodings -----------------------------------------------------------------------

def test_a_utf32_le_bom_is_read_as_utf32():  # mutant: UTF-32 LE read as UTF-16
    assert decode("dở\n".encode("utf-32"), "utf-8", "f") == "dở\n"
    assert decode(b"\xff\xfe\x00\x00" + "ab".encode("utf-32-le"), "utf-8",
                  "f") == "ab"


def test_another_codecs_error_is_not_the_mixed_utf8_message():
    # mutant: the mixed-encoding message for other codecs
    with pytest.raises(ValueError) as caught:
        decode("déjà\n".encode() + b"\xff\n", "ascii", "f")
    assert "are not valid ascii" in str(caught.value)
    assert "is not UTF-8" not in str(caught.value)


def test_a_first_line_that_is_not_utf8_says_which_line_is():
    # mutant: "the 0 lines before it"
    with pytest.raises(ValueError) as caught:
        decode(b"\xe9t\xe9\nd\xc3\xa9j\xc3\xa0\n", "utf-8", "f")
    message = str(caught.value)
    assert message.startswith("f: line 1 is not UTF-8; line 2 is.")
    assert "0 lines" not in message


def test_the_utf8_line_search_goes_past_a_bad_line():
    # mutant: the search for a UTF-8 line stopping at the first non-ASCII line
    with pytest.raises(ValueError) as caught:
        decode(b"ok\n\xe9t\xe9\nd\xc3\xa9j\xc3\xa0\n", "utf-8", "f")
    assert str(caught.value).startswith("f: line 2 is not UTF-8; the line before "
                                        "it is.")


# ---- a pretrained encoder's folder -------------------------------------------------

def test_a_shard_its_index_names_must_be_there(tmp_path):
    # mutant: a missing shard allowed
    import json

    from safetensors.torch import save_file

    from lamalib.models.hf_copies import EncoderFolderError, check_weights

    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(
        {"weight_map": {"a": "model-1.safetensors", "b": "model-2.safetensors"}}))
    save_file({"a": torch.zeros(2)}, str(tmp_path / "model-1.safetensors"))
    with pytest.raises(EncoderFolderError, match="model-2.safetensors: missing"):
        check_weights(tmp_path)


def test_the_tokenizers_smaller_limit_is_kept():
    # mutant: the tokenizer's smaller position limit ignored
    from lamalib.models.hf_encoder import max_positions

    model = types.SimpleNamespace(config=types.SimpleNamespace(
        max_position_embeddings=514))
    assert max_positions(model, types.SimpleNamespace(model_max_length=512)) == 512
    assert max_positions(model, types.SimpleNamespace(model_max_length=10**30)) == 514
