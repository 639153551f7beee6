"""ROUGE-n and the greedy oracle (lamalib.data.rouge) against hand-computed
examples."""

import pytest

from lamalib.data.rouge import greedy_oracle, ngram_counts, rouge_n


def test_rouge_n_by_hand():
    cand = "the cat sat on the mat".split()
    ref = "the cat is on the mat".split()
    # unigrams: the x2, cat, on, mat shared = 5 of 6 on each side
    assert rouge_n(cand, ref, 1) == pytest.approx(
        {"precision": 5 / 6, "recall": 5 / 6, "f1": 5 / 6})
    # bigrams: "the cat", "on the", "the mat" shared = 3 of 5 on each side
    assert rouge_n(cand, ref, 2) == pytest.approx(
        {"precision": 3 / 5, "recall": 3 / 5, "f1": 3 / 5})
    # clipping: "the cat the cat" matches "the" and "cat" once each: P 2/4, R 2/3,
    # F1 = 2 (1/2)(2/3) / (1/2 + 2/3) = 4/7
    got = rouge_n("the cat the cat".split(), "the cat sat".split(), 1)
    assert got == pytest.approx({"precision": 0.5, "recall": 2 / 3, "f1": 4 / 7})
    assert rouge_n(["a"], ["b", "c"], 2) == {"precision": 0.0, "recall": 0.0,
                                             "f1": 0.0}  # no bigram in "a"


def test_ngrams_stay_inside_sentences():
    counts = ngram_counts([["a", "b"], ["b", "a"]], 2)
    assert counts == {("a", "b"): 1, ("b", "a"): 1}  # no ("b", "b") across the cut


def test_greedy_oracle_by_hand():
    s = [w.split() for w in ["the cat sat on the mat .", "dogs bark loudly .",
                             "the dog sat on a log .", "birds sing ."]]
    summary = [w.split() for w in ["the cat sat on the log", "birds sing"]]
    # step 1, ROUGE-1 + ROUGE-2 F1 alone (punctuation ignored; the summary has 8
    # words and 6 bigrams): s0 shares 5 words (P 5/6, R 5/8) and 4 bigrams (P 4/5,
    # R 4/6): 0.714 + 0.727 = 1.44; s3 shares 2 words and 1 bigram: 0.4 + 0.286;
    # s2 shares 4 words, 1 bigram: 0.571 + 0.182; s1 nothing. s0 is picked.
    # step 2, with s0: s3 adds 2 words and 1 bigram (P 7/8, R 7/8; 5/6 and 5/6):
    # 0.875 + 0.833 = 1.71 > 1.44; s2 raises recall less than it lowers precision.
    # step 3: with s2, 8 of 14 words match (P 8/14, R 1: F1 0.727), + 0.588 for
    # bigrams = 1.32; with s1,
    # 0.737 + 0.714 = 1.45: both below 1.71, so nothing increases it: stop.
    assert greedy_oracle(s, summary) == [0, 3]
    assert greedy_oracle(s, summary, max_sentences=1) == [0]
    assert greedy_oracle(s, [["zebras"]]) == []  # nothing ever increases it
