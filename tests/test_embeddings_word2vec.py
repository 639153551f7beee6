"""Skip-gram / CBOW losses against brute-force loops; training lowers the loss."""

import math
import os

import pytest
import torch

from lamalib.embeddings.polysemy import ENGLISH_BANK, sense_corpus
from lamalib.embeddings.train import Word2VecConfig, build_vocab, train_word2vec
from lamalib.embeddings.word2vec import CBOW, SkipGram, negative_sampling_loss


pytestmark = pytest.mark.usefixtures("one_thread")


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def test_negative_sampling_loss_matches_formula():
    gen = torch.Generator().manual_seed(0)
    pos, neg = torch.randn(4, generator=gen), torch.randn(4, 3, generator=gen)
    loss = negative_sampling_loss(pos, neg)
    for b in range(4):
        expected = -math.log(sigmoid(pos[b])) - sum(
            math.log(sigmoid(-neg[b, k])) for k in range(3))
        assert math.isclose(loss[b].item(), expected, rel_tol=1e-5)


def test_skipgram_scores_with_input_and_output_vectors():
    torch.manual_seed(0)
    model = SkipGram(10, 4, sparse=False)
    torch.nn.init.normal_(model.out.weight)  # zeros would make every score 0
    center, context = torch.tensor([1, 2]), torch.tensor([3, 4])
    negatives = torch.tensor([[5, 6], [7, 8]])
    loss = model(center, context, negatives)
    v, u = model.inp.weight.detach(), model.out.weight.detach()
    for b in range(2):
        pos = float(v[center[b]] @ u[context[b]])
        negs = [float(v[center[b]] @ u[k]) for k in negatives[b]]
        expected = -math.log(sigmoid(pos)) - sum(math.log(sigmoid(-s)) for s in negs)
        assert math.isclose(loss[b].item(), expected, rel_tol=1e-5)


def test_fresh_model_loss_is_k_plus_one_log_two():
    model = SkipGram(10, 4)  # zero output vectors: every score is 0
    loss = model(torch.tensor([1]), torch.tensor([2]), torch.tensor([[3, 4, 5]]))
    assert math.isclose(loss.item(), 4 * math.log(2), rel_tol=1e-6)


def test_cbow_with_one_context_word_is_skipgram_reversed():
    torch.manual_seed(0)
    sg, cbow = SkipGram(12, 5, sparse=False), CBOW(12, 5, sparse=False)
    torch.nn.init.normal_(sg.out.weight)
    cbow.load_state_dict(sg.state_dict())
    negatives = torch.tensor([[7, 8, 9]])
    # CBOW: context word 3 predicts center 6; skip-gram: "center" 3 predicts 6.
    got = cbow(torch.tensor([[3, 0]]), torch.tensor([[True, False]]),
               torch.tensor([6]), negatives)
    want = sg(torch.tensor([3]), torch.tensor([6]), negatives)
    torch.testing.assert_close(got, want)


def test_cbow_averages_context_and_ignores_padding():
    torch.manual_seed(1)
    cbow = CBOW(12, 5, sparse=False)
    torch.nn.init.normal_(cbow.out.weight)
    center, negatives = torch.tensor([6]), torch.tensor([[7, 8]])
    both = torch.tensor([[True, True]])
    short = cbow(torch.tensor([[3, 4]]), both, center, negatives)
    padded = cbow(torch.tensor([[3, 9, 4, 11]]),
                  torch.tensor([[True, False, True, False]]), center, negatives)
    torch.testing.assert_close(short, padded)
    # The hidden vector is the mean of the two context vectors.
    h = cbow.inp.weight[[3, 4]].mean(0)
    u = cbow.out.weight
    logsig = torch.nn.functional.logsigmoid
    expected = -logsig(h @ u[6]) - logsig(-(u[[7, 8]] @ h)).sum()
    torch.testing.assert_close(short[0], expected)


def test_build_vocab_orders_by_frequency_and_drops_rare_words():
    words, counts = build_vocab([["b", "a", "a", "c"], ["a", "b", "d"]], min_count=2)
    assert words == ["a", "b"] and counts.tolist() == [3, 2]


def test_training_groups_each_senses_context_words_for_both_architectures():
    # Context words of one sense share their neighbours (the anchor, "bank", each
    # other), the two senses share only fillers: trained vectors must group them.
    os.environ["LAMALIB_PROGRESS"] = "0"
    sentences, _ = sense_corpus(ENGLISH_BANK, 200, seed=0)
    finance = ["money", "loan", "account", "deposit", "cash", "mortgage", "lender"]
    river = ["river", "water", "fishing", "boat", "mud", "reeds", "shore"]
    for sg in (True, False):
        config = Word2VecConfig(sg=sg, dim=10, window=2, min_count=1, sample=0,
                                epochs=20, lr=0.05, batch_size=256, sparse=sg,
                                device="cpu")
        run = train_word2vec(sentences, config)
        assert run.losses[-1] < run.losses[0]
        assert run.model.vectors.shape == (len(run.words), 10)
        kv = run.keyed_vectors()
        within, across = [], []
        for group, other in ((finance, river), (river, finance)):
            for w in group:
                own = [float(kv.similarity(w, o)) for o in group if o != w]
                far = [float(kv.similarity(w, o)) for o in other]
                # every word is nearer (on average) to its own sense's words
                assert sum(own) / len(own) > sum(far) / len(far), (sg, w)
                within += own
                across += far
        gap = sum(within) / len(within) - sum(across) / len(across)
        assert gap > 0.25, (sg, gap)  # cosines; an untrained model gives ~0


def test_one_vector_for_two_senses_sits_between_them():
    sentences, _ = sense_corpus(ENGLISH_BANK, 300, seed=1)
    config = Word2VecConfig(dim=20, window=3, min_count=1, sample=0, epochs=8,
                            lr=0.02, batch_size=512, sparse=False, seed=1, device="cpu")
    kv = train_word2vec(sentences, config).keyed_vectors()
    lender, shore = ENGLISH_BANK.anchors.values()
    # "bank" is closer to each sense's anchor than the two anchors are to each other.
    between = kv.similarity(lender, shore)
    assert kv.similarity("bank", lender) > between
    assert kv.similarity("bank", shore) > between
