"""Our similarity / analogy evaluation against gensim's; the gensim bridge."""

import socket

import numpy as np
import pytest
import torch
from gensim.models import Word2Vec
from scipy.stats import spearmanr

from lamalib.data import DownloadError, Vocab, load_corpus, load_dataset
from lamalib.embeddings import gensim_bridge
from lamalib.embeddings.evaluate import (agreement, analogy_accuracy, neighbour_overlap,
                                         similarity_spearman, spearman)
from lamalib.embeddings.gensim_bridge import gensim_word2vec, pretrain_for
from lamalib.embeddings.keyed_vectors import to_keyed_vectors
from lamalib.embeddings.train import Word2VecConfig


@pytest.fixture(scope="module")
def lee_kv():
    """A small gensim model of the Lee corpus (1 epoch: we test only the evaluation)."""
    model = Word2Vec(load_corpus("lee"), vector_size=16, min_count=3, epochs=1,
                     workers=1, seed=0)
    return model.wv


def test_spearman_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 50).astype(float)  # many ties
    y = x + rng.normal(size=50)
    assert np.isclose(spearman(x, y), spearmanr(x, y).statistic)


@pytest.mark.parametrize("file", ["wordsim353.tsv", "simlex999.txt"])
def test_similarity_matches_gensim_evaluate_word_pairs(lee_kv, file):
    from gensim.test.utils import datapath

    _, gensim_rho, oov_percent = lee_kv.evaluate_word_pairs(datapath(file))
    ours = similarity_spearman(lee_kv, file)
    assert np.isclose(ours.spearman, gensim_rho.statistic, atol=1e-6)
    assert np.isclose(100 * (1 - ours.coverage), oov_percent)


def test_analogy_accuracy_matches_gensim(lee_kv):
    from gensim.test.utils import datapath

    score, sections = lee_kv.evaluate_word_analogies(datapath("questions-words.txt"))
    total = sections[-1]
    ours = analogy_accuracy(lee_kv)
    assert ours.questions == len(total["correct"]) + len(total["incorrect"])
    assert np.isclose(ours.accuracy, score)


def test_agreement_and_overlap_of_a_model_with_itself(lee_kv):
    words = lee_kv.index_to_key[10:40]
    assert np.isclose(agreement(lee_kv, lee_kv, words), 1.0)
    assert neighbour_overlap(lee_kv, lee_kv, words[:5], k=5) == 1.0


def test_to_keyed_vectors_round_trip():
    vectors = np.arange(12, dtype=np.float32).reshape(3, 4)
    kv = to_keyed_vectors(["a", "b", "c"], vectors)
    assert kv.index_to_key == ["a", "b", "c"]
    np.testing.assert_array_equal(kv["b"], vectors[1])


def test_gensim_word2vec_uses_our_settings():
    config = Word2VecConfig(sg=False, dim=8, window=3, negative=4, ns_exponent=0.5,
                            sample=1e-4, min_count=2, epochs=1)
    model, seconds = gensim_word2vec(load_corpus("lee")[:30], config)
    assert (model.sg, model.vector_size, model.window, model.negative) == (0, 8, 3, 4)
    assert (model.ns_exponent, model.sample, model.min_count) == (0.5, 1e-4, 2)
    assert seconds > 0


def test_pretrain_for_aligns_rows_with_the_vocab():
    train = load_dataset("movie_reviews", split="train")
    vocab = Vocab.build(train.texts)
    matrix = pretrain_for(train, vocab, dim=100, min_count=5, epochs=2)
    assert matrix.shape == (len(vocab), 100)
    assert torch.all(matrix[vocab.pad_id] == 0)
    # Rows of words with min_count 5 are gensim's vectors: re-train with the same seed.
    config = Word2VecConfig(dim=100, min_count=5, epochs=2)
    kv = gensim_word2vec(train.tokens(), config)[0].wv
    for word in kv.index_to_key[:20]:
        torch.testing.assert_close(matrix[vocab[word]], torch.tensor(kv[word]))


def test_text8_fails_fast_offline_and_names_the_embedded_corpus(monkeypatch):
    def no_network(*args, **kwargs):
        raise OSError("Network is unreachable")

    def must_not_download(name):
        raise AssertionError("the downloader must not be reached offline")

    import gensim.downloader

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(gensim.downloader, "load", must_not_download)
    with pytest.raises(DownloadError, match=r"load_corpus\('lee'\)"):
        gensim_bridge.load_text8()


def test_quick_profile_corpus_is_lee(monkeypatch):
    monkeypatch.setenv("LAMALIB_PROFILE", "quick")
    name, sentences = gensim_bridge.word2vec_corpus()
    assert name == "lee" and sentences == load_corpus("lee")


def test_gensim_word2vec_seed_is_shifted_by_lamalib_seed(monkeypatch):
    # LAMALIB_SEED=1 with seed 0 trains what seed 1 trains without the shift.
    sentences = load_corpus("lee")[:30]
    config = Word2VecConfig(dim=8, min_count=2, epochs=1, seed=0)
    monkeypatch.setenv("LAMALIB_SEED", "1")
    shifted = gensim_word2vec(sentences, config)[0].wv.vectors
    monkeypatch.delenv("LAMALIB_SEED")
    unshifted = gensim_word2vec(sentences, config)[0].wv.vectors
    seed_1 = gensim_word2vec(sentences, Word2VecConfig(dim=8, min_count=2, epochs=1,
                                                       seed=1))[0].wv.vectors
    np.testing.assert_array_equal(shifted, seed_1)
    assert not np.array_equal(shifted, unshifted)
