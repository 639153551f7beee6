"""The `bert` classifier (Hugging Face transformers) on a tiny random config, offline:
it trains with fit, pads never change its logits, the pretrained path fails fast and
names the offline alternative, and BertTokens feeds the data pipeline."""

import socket
import subprocess
import sys
import time

import pytest
import torch
import transformers

from lamalib.data import Vocab, load_dataset, make_loader
from lamalib.data.batching import BucketBatches
from lamalib.models import build_model, model_options
from lamalib.models import bert as bert_module
from lamalib.models.bert import (BERT_RECIPE, BertClassifier, BertTokens,
                                 PretrainedUnavailable, bert_vocab, load_pretrained)
from lamalib.testing import assert_padding_invariant
from lamalib.train import TrainConfig, evaluate, fit

pytestmark = pytest.mark.usefixtures("one_thread")
TINY = dict(pretrained_name=None, hidden=32, layers=2, heads=4, intermediate=64,
            max_positions=64)


def test_importing_lamalib_and_listing_models_does_not_import_transformers():
    code = ("import sys, lamalib, lamalib.nn.patterns.pal\n"
            "from lamalib.models import available_models, model_options\n"
            "assert 'bert' in available_models('classifier')\n"
            "model_options('bert')\n"
            "print('transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False"


def test_options_and_the_papers_recipe():
    options = model_options("bert")
    assert options["pretrained_name"] == "bert-base-uncased"
    assert options["hidden"] is None  # None: BERT-base's sizes for a random model
    # LAMA paper, section 4.2: 2 epochs, Adam, lr 5e-6.
    assert BERT_RECIPE["train"]["epochs"] == 2
    assert BERT_RECIPE["train"]["optimizer"] == "adam"
    assert BERT_RECIPE["train"]["lr"] == 5e-6
    with pytest.raises(ValueError, match="pretrained_name=None"):
        build_model("bert", vocab_size=30, num_classes=2, hidden=32)


def test_random_config_has_the_sizes_asked_and_bert_base_by_default():
    model = build_model("bert", vocab_size=30, num_classes=3, **TINY)
    c = model.net.config
    assert (c.vocab_size, c.hidden_size, c.num_hidden_layers, c.num_attention_heads,
            c.intermediate_size, c.max_position_embeddings, c.num_labels) == (
        30, 32, 2, 4, 64, 64, 3)
    # BERT-base (Devlin et al.): 12 layers of width 768 with 12 heads, FFN 3072.
    assert {k: v for k, v in bert_module.BASE_SIZES.items()} == {
        "hidden": 768, "layers": 12, "heads": 12, "intermediate": 3072,
        "max_positions": 512}
    logits = model(torch.tensor([[3, 4, 0]]), torch.tensor([[True, True, False]]))
    assert logits.shape == (1, 3)
    with pytest.raises(ValueError, match="64 positions"):
        model(torch.ones(1, 65, dtype=torch.long), torch.ones(1, 65, dtype=torch.bool))


def test_padding_never_changes_the_logits():
    torch.manual_seed(0)
    model = BertClassifier(20, 3, **TINY)
    assert_padding_invariant(model, [[3, 4, 5], [6, 7, 8, 9, 10, 11], [12], [4] * 4])


def test_tiny_random_bert_learns_the_planted_keywords_with_fit():
    # The label is the polarity of one planted word; chance is 1/2.
    train = load_dataset("synthetic_sentiment", "train", n=400, p_negate=0.0,
                         max_len=12)
    valid = load_dataset("synthetic_sentiment", "valid", n=200, p_negate=0.0,
                         max_len=12)
    vocab = bert_vocab(train.texts, pretrained_name=None)  # offline: our Vocab
    assert isinstance(vocab, Vocab)
    valid_loader = make_loader(valid, vocab, 100)
    torch.manual_seed(0)
    model = build_model("bert", vocab_size=len(vocab), num_classes=2, dropout=0.0,
                        **TINY)
    before = evaluate(model, valid_loader)
    history = fit(model, make_loader(train, vocab, 32, shuffle=True), valid_loader,
                  TrainConfig(epochs=6, optimizer="adam", lr=3e-3, patience=6,
                              progress=False, device="cpu"))
    after = evaluate(model, valid_loader)
    losses = history.column("train_loss")
    # measured: train loss 0.69 -> 0.004, valid accuracy 0.49 -> 1.0
    assert losses[-1] < 0.1 * losses[0], losses
    assert before["accuracy"] < 0.65 and after["accuracy"] > 0.95, (before, after)


class FakeHub:
    """Stands in for a ``from_pretrained``: nothing is cached; a call that may go
    online is recorded (and would return ``online``)."""

    def __init__(self, online=None):
        self.calls, self.online = [], online

    def __call__(self, name, **kwargs):
        self.calls.append(kwargs.get("local_files_only", False))
        if kwargs.get("local_files_only"):
            raise OSError(f"{name} is not in the cache")  # what transformers raises
        return self.online


@pytest.fixture
def no_network(monkeypatch):
    """Every TCP connection fails at once, as a machine without network does."""
    tried = []

    def refuse(address, timeout=None, *args, **kwargs):
        tried.append((address, timeout))
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    return tried


def test_offline_load_fails_fast_and_names_the_random_config(no_network):
    hub = FakeHub()
    start = time.perf_counter()
    with pytest.raises(PretrainedUnavailable, match=r"pretrained_name=None") as err:
        load_pretrained(hub, "bert-base-uncased", timeout=2.0)
    assert time.perf_counter() - start < 1.0
    assert "cannot be reached" in str(err.value)
    assert hub.calls == [True]  # the cache was looked at; the download never began
    assert len(no_network) == 1 and no_network[0][1] == 2.0  # one bounded attempt


def test_offline_setting_skips_the_network_entirely(no_network, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub = FakeHub()
    with pytest.raises(PretrainedUnavailable, match="HF_HUB_OFFLINE"):
        load_pretrained(hub, "bert-base-uncased")
    assert hub.calls == [True] and no_network == []


def test_build_model_and_tokens_fail_fast_offline(no_network, monkeypatch):
    model_hub, tokenizer_hub = FakeHub(), FakeHub()
    monkeypatch.setattr(transformers.BertForSequenceClassification,
                        "from_pretrained", staticmethod(model_hub))
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained",
                        staticmethod(tokenizer_hub))
    start = time.perf_counter()
    with pytest.raises(PretrainedUnavailable, match="pretrained_name=None"):
        build_model("bert", vocab_size=30522, num_classes=2)
    with pytest.raises(PretrainedUnavailable, match="pretrained_name=None"):
        bert_vocab(["a text"], "bert-base-uncased")
    assert time.perf_counter() - start < 2.0
    assert model_hub.calls == [True] and tokenizer_hub.calls == [True]


def test_a_reachable_hub_loads_and_checks_the_vocabulary(monkeypatch):
    # A "hub" that serves a tiny random BERT: the pretrained path end to end.
    config = transformers.BertConfig(vocab_size=40, hidden_size=16,
                                     num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, num_labels=2)
    served = transformers.BertForSequenceClassification(config)
    hub = FakeHub(online=served)
    monkeypatch.setattr(bert_module, "hub_reachable", lambda timeout: True)
    for flag in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # a user's offline setting
        monkeypatch.delenv(flag, raising=False)
    monkeypatch.setattr(transformers.BertForSequenceClassification,
                        "from_pretrained", staticmethod(hub))
    model = build_model("bert", vocab_size=40, num_classes=2)
    assert model.net is served and hub.calls == [True, False]
    assert model(torch.tensor([[2, 7, 3]]), torch.ones(1, 3, dtype=torch.bool)
                 ).shape == (1, 2)
    with pytest.raises(ValueError, match=r"bert_vocab\(texts"):
        build_model("bert", vocab_size=25, num_classes=2)  # our Vocab's ids


def test_bert_tokens_make_wordpiece_ids_for_the_data_pipeline(tmp_path):
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "movie", "##s",
             "good", "bad", "!"]
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    tokens = BertTokens(transformers.BertTokenizer(str(tmp_path / "vocab.txt")),
                        max_length=6)
    assert len(tokens) == len(words) and tokens.pad_id == 0
    ids = tokens.encode("The movies were good!")
    assert tokens.decode(ids) == ["[CLS]", "the", "movie", "##s", "[UNK]", "[SEP]"]
    with pytest.raises(ValueError, match="empty text"):
        tokens.encode("  ")
    batch = next(iter(BucketBatches([tokens.encode("bad movie"), ids], [0, 1], 2,
                                    shuffle=False, pad_id=tokens.pad_id)))
    assert batch.tokens[0].tolist() == [2, 9, 6, 3, 0, 0]
    assert batch.mask.sum(1).tolist() == [4, 6]
