"""Saved models (lamalib.models.saved), cases that mutation testing found unguarded:
a WordPiece BERT keeps its maximum length, and the weights must fit the model exactly
(no tensor missing, none extra)."""

import pytest
import torch

from lamalib.data import Vocab
from lamalib.models import build_model
from safetensors.torch import load_file, save_file

from lamalib.models.saved import WEIGHTS, SavedModelError, load_model, save_model
from wordpiece_helpers import BERT, wordpiece_tokens

@pytest.mark.parametrize("tokens_max, run_max_len, kept", [(8, None, 8), (16, 6, 6)])
def test_a_wordpiece_bert_keeps_its_max_len(tmp_path, monkeypatch, tokens_max,
                                            run_max_len, kept):
    wordpiece = wordpiece_tokens(tmp_path, tokens_max)
    torch.manual_seed(0)
    model = build_model("bert", vocab_size=len(wordpiece), num_classes=2, **BERT)
    folder = save_model(model, wordpiece, ["neg", "pos"], tmp_path / "bert",
                        name="bert", max_len=run_max_len)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    saved = load_model(folder)
    assert saved.vocab.max_length == kept and saved.limit == kept
    long = " ".join(["a warm funny film"] * 5)  # 21 wordpieces with [CLS], [SEP]
    tokens, _ = saved.encode([long])
    # cut by the tokenizer as the run did: kept ids in all, [SEP] still last
    assert tokens.shape == (1, kept)
    shown = saved.vocab.decode(tokens[0].tolist())
    assert shown[0] == "[CLS]" and shown[-1] == "[SEP]"


def _bow_folder(tmp_path):
    vocab = Vocab.build(["a warm film", "a dull mess"])
    torch.manual_seed(0)
    model = build_model("bow_mlp", vocab_size=len(vocab), num_classes=2,
                        embed_dim=8, hidden_size=8)
    return save_model(model, vocab, ["neg", "pos"], tmp_path / "m", name="bow_mlp",
                      options=dict(embed_dim=8, hidden_size=8))


@pytest.mark.parametrize("change", ["missing", "extra"])
def test_weights_with_a_tensor_missing_or_extra_are_refused(tmp_path, change):
    folder = _bow_folder(tmp_path)
    load_model(folder)  # as saved: fits
    state = load_file(str(folder / WEIGHTS))
    if change == "missing":
        state.pop(sorted(state)[-1])
    else:
        state["stray.weight"] = torch.zeros(2, 2)
    save_file(state, str(folder / WEIGHTS))
    with pytest.raises(SavedModelError) as error:
        load_model(folder)
    message = str(error.value)
    assert str(folder / WEIGHTS) in message and "does not fit" in message
