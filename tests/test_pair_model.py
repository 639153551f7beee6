"""The sentence-pair classifier: each encoder's sentence vector is what its own
classifier reads, r1 and r2 come from one shared encoder, the MLP reads
[r1, r2, |r1 - r2|, r1 - r2], padding never changes the logits, and ``fit`` trains
it on the synthetic NLI task through ``pair_classification_step``."""

import time

import pytest
import torch

from lamalib.data import Vocab, load_dataset, make_pair_loader, pad_sequences
from lamalib.models import available_models, build_model, model_kind, model_options
from lamalib.models.pair import PairClassifier, pair_features, sentence_encoders
from lamalib.nn.pooling import masked_max, masked_mean
from lamalib.nn.self_attention.san import attention_penalty
from lamalib.train import TrainConfig, evaluate, fit, pair_classification_step

pytestmark = pytest.mark.usefixtures("one_thread")

SMALL = {  # per encoder: small options, and r computed from its parts by hand
    "avg": ({"embed_dim": 6},
            lambda m, t, k: masked_mean(m.embed(t), k)),
    "bigru_max": ({"embed_dim": 6, "hidden_size": 5},
                  lambda m, t, k: masked_max(m.encoder(m.embed(t), k), k)),
    "te": ({"d_model": 8, "n_heads": 2, "d_ff": 16, "n_layers": 2},
           lambda m, t, k: masked_mean(m.body(t, k), k)),
    "san": ({"embed_dim": 6, "hidden_size": 5, "d_a": 4, "hops": 2, "mlp_size": 7},
            lambda m, t, k: m.attention(m.encoder(m.embed(t), k), k)[0].flatten(1)),
    "ms_transformer": (
        {"embed_dim": 6, "d_model": 8, "n_layers": 2, "n_heads": 4,
         "scales": "1,3,N/4,N/2", "mlp_hidden": 7},
        lambda m, t, k: torch.cat([m.encode(t, k)[0][:, 0],
                                   masked_max(*m.encode(t, k))], -1)),
}
WIDTH = {"avg": 6, "bigru_max": 10, "te": 8, "san": 20, "ms_transformer": 16}  # R
TOKENS = torch.tensor([[3, 4, 5, 6, 0], [7, 8, 0, 0, 0], [9, 10, 11, 12, 13]])
MASK = TOKENS != 0


@pytest.mark.parametrize("name", sorted(SMALL))
def test_represent_is_the_vector_each_classifier_reads(name):
    torch.manual_seed(0)
    options, by_hand = SMALL[name]
    model = build_model(name, vocab_size=20, num_classes=3, **options).eval()
    with torch.no_grad():
        r = model.represent(TOKENS, MASK)  # (B, R)
        assert r.shape == (3, WIDTH[name])
        torch.testing.assert_close(r, by_hand(model, TOKENS, MASK))
        # forward is still the same function: its head on the same r
        head = getattr(model, model.head)
        torch.testing.assert_close(model(TOKENS, MASK), head(r))


def test_the_pair_model_is_registered_as_its_own_kind():
    assert "pair" in available_models("pair") and model_kind("pair") == "pair"
    assert "pair" not in available_models("classifier")  # forward takes two sentences
    assert set(SMALL) <= set(sentence_encoders())
    assert "cnn" not in sentence_encoders()
    options = model_options("pair")
    assert options["encoder"] == "ms_transformer" and options["encoder_options"] is None
    with pytest.raises(ValueError, match=r"'cnn' cannot encode.*ms_transformer"):
        build_model("pair", vocab_size=20, num_classes=3, encoder="cnn")
    with pytest.raises(TypeError, match="model 'te' has no option 'embed_dim'"):
        build_model("pair", vocab_size=20, num_classes=3, encoder="te",
                    encoder_options={"embed_dim": 4})  # the encoder's own check


@pytest.mark.parametrize("name", sorted(SMALL))
def test_one_shared_encoder_and_the_mlp_on_the_four_features(name):
    torch.manual_seed(0)
    model = build_model("pair", vocab_size=20, num_classes=3, encoder=name,
                        encoder_options=SMALL[name][0], hidden=9).eval()
    R = WIDTH[name]
    assert model.representation_size == R
    assert model.classifier[1].in_features == 4 * R
    assert getattr(model.encoder, model.encoder.head) is None  # one sentence's head
    n_encoder = sum(p.numel() for p in model.encoder.parameters())
    n_mlp = (4 * R + 1) * 9 + (9 + 1) * 3
    assert sum(p.numel() for p in model.parameters()) == n_encoder + n_mlp
    t2 = torch.tensor([[5, 6, 0], [14, 15, 16], [3, 0, 0]])
    with torch.no_grad():
        logits = model(TOKENS, MASK, t2, t2 != 0)
        r1 = model.encoder.represent(TOKENS, MASK)  # (B, R): each side alone
        r2 = model.encoder.represent(t2, t2 != 0)
        features = torch.cat([r1, r2, (r1 - r2).abs(), r1 - r2], -1)  # (B, 4 R)
        torch.testing.assert_close(logits, model.classifier(features))
        torch.testing.assert_close(pair_features(r1, r2), features)
        # the same sentence on both sides: |r1 - r2| = r1 - r2 = 0
        same = model.represent_pair(TOKENS, MASK, TOKENS, MASK)
        torch.testing.assert_close(same[0], same[1])


def _alone_vs_padded(model, pairs, extra1, extra2):
    """Largest logit difference between each pair alone and in a padded batch."""
    t1, m1 = pad_sequences([p for p, _ in pairs])
    t2, m2 = pad_sequences([h for _, h in pairs])
    t1 = torch.nn.functional.pad(t1, (0, extra1))
    m1 = torch.nn.functional.pad(m1, (0, extra1))
    t2 = torch.nn.functional.pad(t2, (0, extra2))
    m2 = torch.nn.functional.pad(m2, (0, extra2))
    batched = model(t1, m1, t2, m2)  # (B, C)
    worst = 0.0
    for b, (p, h) in enumerate(pairs):
        alone = model(*pad_sequences([p]), *pad_sequences([h]))[0]
        worst = max(worst, (batched[b] - alone).abs().max().item())
    return worst


@pytest.mark.parametrize("name", sorted(SMALL))
def test_padding_either_sentence_more_never_changes_the_logits(name):
    torch.manual_seed(0)
    model = build_model("pair", vocab_size=20, num_classes=3, encoder=name,
                        encoder_options=SMALL[name][0], hidden=9).eval()
    pairs = [([3, 4, 5, 6, 7, 8], [9, 10]), ([11], [12, 13, 14, 15, 16, 17, 18]),
             ([5, 6, 7], [5, 6, 7])]
    with torch.no_grad():
        for extra1, extra2 in [(0, 0), (3, 0), (0, 4), (2, 5)]:
            assert _alone_vs_padded(model, pairs, extra1, extra2) <= 1e-5


def test_san_penalty_covers_both_sentences():
    torch.manual_seed(0)
    model = build_model("pair", vocab_size=20, num_classes=3, encoder="san",
                        encoder_options={**SMALL["san"][0], "penalty": 0.5}).eval()
    t2 = torch.tensor([[5, 6, 0], [14, 15, 16], [3, 0, 0]])
    with torch.no_grad():
        model(TOKENS, MASK, t2, t2 != 0)
        got = model.regularization()
        model.encoder.represent(TOKENS, MASK)
        a1 = model.encoder._weights  # (B, r, T1)
        model.encoder.represent(t2, t2 != 0)
        a2 = model.encoder._weights
    want = 0.5 * (attention_penalty(a1) + attention_penalty(a2)) / 2  # mean over 2 B
    torch.testing.assert_close(got, want)
    plain = build_model("pair", vocab_size=20, num_classes=3, encoder="avg",
                        encoder_options=SMALL["avg"][0])
    assert plain.regularization() == 0


def test_fit_trains_it_on_the_synthetic_pairs_well_above_chance():
    train = load_dataset("synthetic_nli", "train", n=1000)
    valid = load_dataset("synthetic_nli", "valid", n=300)
    vocab = Vocab.build(train.sentences().texts)
    torch.manual_seed(0)
    model = build_model("pair", vocab_size=len(vocab), num_classes=3, encoder="avg",
                        encoder_options={"embed_dim": 32}, hidden=64, dropout=0.0)
    start = time.perf_counter()
    history = fit(model, make_pair_loader(train, vocab, 32, shuffle=True),
                  make_pair_loader(valid, vocab, 100),
                  TrainConfig(epochs=8, lr=3e-3, patience=8, progress=False,
                              device="cpu"), step=pair_classification_step)
    seconds = time.perf_counter() - start
    majority = max(valid.labels.count(c) for c in range(3)) / len(valid)
    scores = evaluate(model, make_pair_loader(valid, vocab, 100),
                      pair_classification_step)
    assert majority < 0.4  # three balanced labels: chance is about 1/3
    assert scores["accuracy"] == history.best_score >= 0.7, history.column(
        "valid_accuracy")
    assert history.column("train_loss")[-1] < history.column("train_loss")[0]
    assert seconds < 30
