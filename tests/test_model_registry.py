"""The model registry a new user meets: kinds, options, clear errors, pretrained
vectors for every classifier (issue "Library: correctness defects", item 8)."""

import pytest
import torch

from lamalib.models import (available_models, build_model, describe_models,
                            model_kind, model_options)


def test_models_are_listed_by_kind():
    classifiers = available_models("classifier")
    seq2seq = available_models("seq2seq")
    pairs = available_models("pair")
    assert {"avg", "bigru_max", "san", "self_attention", "te"} <= set(classifiers)
    assert {"rnn_seq2seq", "transformer_seq2seq"} <= set(seq2seq)
    assert pairs == ["pair"]  # forward(tokens1, mask1, tokens2, mask2)
    assert sorted(classifiers + seq2seq + pairs) == available_models()
    assert model_kind("te") == "classifier" and model_kind("rnn_seq2seq") == "seq2seq"
    with pytest.raises(ValueError, match="kind must be one of"):
        available_models("regressor")


def test_options_list_every_argument_with_its_default():
    assert model_options("avg") == {"vocab_size": "required",
                                    "num_classes": "required", "embed_dim": 100,
                                    "pretrained": None, "dropout": 0.0,
                                    "freeze_embeddings": False}
    te = model_options("te")  # **config is TEConfig: its fields are options too
    assert te["d_model"] == 512 and te["residual"] == "post"
    assert "pad_id" not in model_options("transformer_seq2seq")  # fixed by the model
    rows = {r["name"]: r for r in describe_models()}
    assert "embed_dim=100" in rows["avg"]["options"]


def test_wrong_or_missing_argument_names_the_options():
    with pytest.raises(TypeError, match=r"has no option 'hiden_size'.*hidden_size=64"):
        build_model("bigru_max", vocab_size=10, num_classes=2, hiden_size=8)
    with pytest.raises(TypeError, match=r"has no option 'd_modle'.*d_model=512"):
        build_model("te", vocab_size=10, num_classes=2, d_modle=8)
    with pytest.raises(TypeError, match=r"needs 'num_classes'"):
        build_model("avg", vocab_size=10)
    with pytest.raises(KeyError, match="Available: avg"):
        build_model("lstm_classifier", vocab_size=10, num_classes=2)


@pytest.mark.parametrize("name, width", [("te", "d_model"), ("self_attention", "d_model"),
                                         ("avg", "embed_dim"), ("bigru_max", "embed_dim"),
                                         ("san", "embed_dim")])
def test_every_classifier_takes_pretrained_vectors(name, width):
    extra = {"n_heads": 2, "d_ff": 16} if name == "te" else {}
    vectors = torch.randn(12, 8)
    vectors[0] = 0
    model = build_model(name, vocab_size=12, num_classes=3, pretrained=vectors,
                        **{width: 8}, **extra)
    tables = [m.weight for m in model.modules() if isinstance(m, torch.nn.Embedding)]
    assert len(tables) == 1 and torch.equal(tables[0].detach(), vectors)
    frozen = build_model(name, vocab_size=12, num_classes=3, pretrained=vectors,
                         freeze_embeddings=True, **{width: 8}, **extra)
    table = [m for m in frozen.modules() if isinstance(m, torch.nn.Embedding)][0]
    assert not table.weight.requires_grad and tables[0].requires_grad
    with pytest.raises(ValueError, match="pretrained vectors have shape"):
        build_model(name, vocab_size=12, num_classes=3, pretrained=torch.randn(11, 8),
                    **{width: 8}, **extra)
