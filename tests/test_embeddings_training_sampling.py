"""What ``train_word2vec`` really feeds its model: the noise words and the subsample.

The sampling functions are tested alone in ``test_embeddings_sampling.py``; here a
recording model stands in for SkipGram / CBOW inside the training loop, so the tests
see the (targets, negatives) of every step that training takes.
"""

import random

import pytest
import torch

import lamalib.embeddings.train as w2v_train
from lamalib.embeddings.sampling import keep_probabilities, noise_distribution
from lamalib.embeddings.train import Word2VecConfig, build_vocab, train_word2vec
from lamalib.embeddings.word2vec import CBOW, SkipGram


pytestmark = pytest.mark.usefixtures("one_thread")


def zipf_corpus(n_sentences=400, length=10, V=20, seed=0):
    """Sentences of words ``w0..w{V-1}`` with P(w_i) ∝ 1 / (i + 1)."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(V)]
    weights = [1 / (i + 1) for i in range(V)]
    return [rng.choices(words, weights, k=length) for _ in range(n_sentences)]


def recorded_training(monkeypatch, sentences, **overrides):
    """Train with a model that records its inputs; returns (run, [(target, negs)])."""
    calls = []

    def recording(cls):
        class Recording(cls):
            def forward(self, *args):
                # The last two arguments: the target word ids (B,) and negatives (B, K).
                calls.append((args[-2].clone(), args[-1].clone()))
                return super().forward(*args)

        return Recording

    monkeypatch.setattr(w2v_train, "SkipGram", recording(SkipGram))
    monkeypatch.setattr(w2v_train, "CBOW", recording(CBOW))
    monkeypatch.setenv("LAMALIB_PROGRESS", "0")
    settings = dict(dim=4, window=2, negative=5, min_count=1, sample=0, epochs=1,
                    lr=0.01, batch_size=512, sparse=False, device="cpu", seed=0)
    run = train_word2vec(sentences, Word2VecConfig(**{**settings, **overrides}))
    assert calls, "training never called the model"
    return run, calls


@pytest.mark.parametrize("sg", [True, False])
def test_training_never_uses_the_target_as_its_own_noise_word(monkeypatch, sg):
    # The C tool and gensim skip a noise word equal to the word being predicted.
    # With a Zipf vocabulary of 20 words the frequent ones would be drawn as their
    # own noise word thousands of times if nothing prevented it.
    _, calls = recorded_training(monkeypatch, zipf_corpus(), sg=sg)
    for target, negatives in calls:
        assert negatives.shape == (len(target), 5)
        assert (negatives != target[:, None]).all()


def expected_noise_counts(p, targets, K):
    """Expected count of each noise word over all rows: ``K P_n(w) / (1 - P_n(t))``
    for every ``w != t`` of each row's target ``t``."""
    rows = p.double()[None, :].repeat(len(targets), 1)  # (N, V)
    rows[torch.arange(len(targets)), targets] = 0.0
    return K * (rows / rows.sum(1, keepdim=True)).sum(0)  # (V,)


def total_variation(a, b):
    return 0.5 * float((a / a.sum() - b / b.sum()).abs().sum())


def test_training_draws_noise_words_from_the_three_quarter_power(monkeypatch):
    sentences = zipf_corpus()
    run, calls = recorded_training(monkeypatch, sentences, ns_exponent=0.75)
    targets = torch.cat([t for t, _ in calls])  # (N,)
    negatives = torch.cat([n.flatten() for _, n in calls])  # (N K,)
    seen = torch.bincount(negatives, minlength=len(run.words)).double()  # (V,)
    distance = {
        power: total_variation(
            seen, expected_noise_counts(noise_distribution(run.counts, power),
                                        targets, 5))
        for power in (0.0, 0.75, 1.0)
    }
    # ~60k draws: sampling noise is ~0.01; uniform (power 0) and the plain unigram
    # distribution (power 1) are far from what was drawn, unigram^0.75 is close.
    assert distance[0.75] < 0.015, distance
    assert distance[0.0] > 0.15 and distance[1.0] > 0.05, distance


@pytest.mark.parametrize("sg", [True, False])
def test_training_subsamples_frequent_words(monkeypatch, sg):
    # One word is half of the corpus: eq. (5) keeps it ~5 % of the time with
    # sample=1e-3, the others ~40 %, so it is ~10 % of the training targets, not 50 %.
    rng = random.Random(1)
    others = [f"w{i}" for i in range(1, 51)]
    sentences = [[("the" if rng.random() < 0.5 else rng.choice(others))
                  for _ in range(12)] for _ in range(400)]
    words, counts = build_vocab(sentences, 1)
    assert words[0] == "the"
    keep = keep_probabilities(counts, 1e-3).double()
    want = float(counts[0] * keep[0] / (counts * keep).sum())
    assert 0.07 < want < 0.13  # eq. (5) on this corpus, for reference
    for sample, expected in ((1e-3, want), (0.0, float(counts[0] / counts.sum()))):
        _, calls = recorded_training(monkeypatch, sentences, sg=sg, sample=sample,
                                     epochs=2)
        targets = torch.cat([t for t, _ in calls])
        share = float((targets == 0).double().mean())
        assert abs(share - expected) < 0.03, (sample, share, expected)


def test_draw_negatives_with_two_words_always_draws_the_other_one():
    from lamalib.embeddings.sampling import draw_negatives

    cum = torch.tensor([0.9, 1.0])  # word 0 is drawn 90 % of the time
    targets = torch.tensor([0, 1, 0])
    negatives = draw_negatives(cum, targets, 4, torch.Generator().manual_seed(0))
    assert negatives.tolist() == [[1] * 4, [0] * 4, [1] * 4]
    with pytest.raises(ValueError, match="two words"):
        draw_negatives(torch.tensor([1.0]), torch.tensor([0]), 2)
