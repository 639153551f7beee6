"""word2vec sampling against gensim's own tables and brute-force loops."""

import numpy as np
import pytest
import torch
from gensim.models import Word2Vec

from lamalib.data import load_corpus
from lamalib.embeddings.sampling import (context_pairs, context_windows,
                                         keep_probabilities, noise_distribution,
                                         subsample)


@pytest.fixture(scope="module")
def gensim_vocab():
    """gensim's vocabulary of the Lee corpus (no training: build_vocab only)."""
    model = Word2Vec(vector_size=10, min_count=5, sample=1e-3, ns_exponent=0.75,
                     workers=1)
    model.build_vocab(load_corpus("lee"))
    counts = torch.tensor([model.wv.get_vecattr(w, "count")
                           for w in model.wv.index_to_key])
    return model, counts


def test_noise_distribution_matches_gensim_cum_table(gensim_vocab):
    model, counts = gensim_vocab
    table = model.cum_table.astype(np.float64)
    gensim_p = np.diff(np.concatenate([[0.0], table])) / table[-1]
    ours = noise_distribution(counts, 0.75).numpy()
    np.testing.assert_allclose(ours, gensim_p, atol=1e-7)


def test_noise_distribution_limits_are_unigram_and_uniform():
    counts = torch.tensor([50, 30, 15, 5])
    unigram = counts / counts.sum()
    torch.testing.assert_close(noise_distribution(counts, 1.0), unigram.float())
    torch.testing.assert_close(noise_distribution(counts, 0.0), torch.full((4,), 0.25))
    # The 0.75 power moves mass from frequent to rare words.
    flat = noise_distribution(counts, 0.75)
    assert flat[0] < unigram[0] and flat[-1] > unigram[-1]


def test_keep_probabilities_match_gensim_sample_int(gensim_vocab):
    model, counts = gensim_vocab
    gensim_keep = np.array([model.wv.get_vecattr(w, "sample_int")
                            for w in model.wv.index_to_key]) / 2**32
    ours = keep_probabilities(counts, 1e-3).numpy()
    np.testing.assert_allclose(ours, gensim_keep, atol=1e-6)
    assert keep_probabilities(counts, 0).eq(1).all()


def test_subsample_keeps_each_word_at_its_rate():
    keep = torch.tensor([0.1, 0.5, 1.0])
    ids = torch.arange(3).repeat(20_000)
    kept = subsample(ids, keep, torch.Generator().manual_seed(0))
    rates = torch.stack([kept[ids == i].float().mean() for i in range(3)])
    torch.testing.assert_close(rates, keep, atol=0.02, rtol=0)


def brute_force_pairs(sentence_of, reduced):
    pairs = []
    n = len(sentence_of)
    for i in range(n):
        for j in range(n):
            if i != j and abs(i - j) <= reduced[i] and sentence_of[i] == sentence_of[j]:
                pairs.append((i, j))
    return sorted(pairs)


def test_context_pairs_match_brute_force_loop():
    gen = torch.Generator().manual_seed(1)
    sentence_of = torch.sort(torch.randint(0, 6, (40,), generator=gen)).values
    reduced = torch.randint(1, 4, (40,), generator=gen)
    pairs = context_pairs(sentence_of, 3, reduced)
    expected = brute_force_pairs(sentence_of.tolist(), reduced.tolist())
    assert [tuple(p) for p in pairs.tolist()] == expected


def test_reduced_windows_favour_near_words():
    sentence_of = torch.zeros(5000, dtype=torch.long)
    pairs = context_pairs(sentence_of, 4, generator=torch.Generator().manual_seed(0))
    dist = (pairs[:, 0] - pairs[:, 1]).abs()
    share = torch.stack([(dist == d).float().mean() for d in range(1, 5)])
    # Distance d is kept with probability (W - d + 1) / W: 4:3:2:1.
    expected = torch.tensor([0.4, 0.3, 0.2, 0.1])
    torch.testing.assert_close(share, expected, atol=0.02, rtol=0)


def test_context_windows_hold_the_same_pairs():
    gen = torch.Generator().manual_seed(2)
    sentence_of = torch.sort(torch.randint(0, 5, (30,), generator=gen)).values
    reduced = torch.randint(1, 3, (30,), generator=gen)
    context, mask = context_windows(sentence_of, 2, reduced)
    assert context.shape == mask.shape == (30, 4)
    from_windows = sorted((i, int(c)) for i in range(30)
                          for c, m in zip(context[i], mask[i]) if m)
    assert from_windows == brute_force_pairs(sentence_of.tolist(), reduced.tolist())
