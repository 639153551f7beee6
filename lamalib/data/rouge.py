"""ROUGE-n on token lists (Lin 2004) and the greedy extractive oracle it defines
(chapter "Finding and injecting attention patterns": CNN/DailyMail as sentence
labelling).

ROUGE-n counts the n-grams a candidate shares with a reference, each shared n-gram
at most as often as it occurs in either (clipped counts): precision divides by the
candidate's n-grams, recall by the reference's, F1 is their harmonic mean. The oracle
is the usual one of extractive summarisation (Nallapati et al. 2017; Liu and Lapata
2019): add, one at a time, the sentence that most increases ROUGE-1 F1 + ROUGE-2 F1
of the selection against the reference summary; stop when no sentence increases it
or the selection is full.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence


def ngram_counts(sentences: Sequence[Sequence[str]], n: int) -> Counter:
    """The n-grams of each sentence (none spans two sentences), counted over all."""
    counts: Counter = Counter()
    for s in sentences:
        counts.update(tuple(s[i:i + n]) for i in range(len(s) - n + 1))
    return counts


def overlap_scores(candidate: Counter, reference: Counter) -> dict:
    """Precision, recall and F1 of two n-gram counts (clipped matches)."""
    matched = sum((candidate & reference).values())  # min of the two counts
    n_cand, n_ref = sum(candidate.values()), sum(reference.values())
    p = matched / n_cand if n_cand else 0.0
    r = matched / n_ref if n_ref else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def rouge_n(candidate: Sequence[str], reference: Sequence[str], n: int = 1) -> dict:
    """ROUGE-n of a candidate token list against a reference token list:
    ``{"precision", "recall", "f1"}``."""
    return overlap_scores(ngram_counts([candidate], n), ngram_counts([reference], n))


def _words(tokens: Sequence[str]) -> list[str]:
    # punctuation does not count, as in the oracles of the papers
    return [t for t in tokens if any(c.isalnum() for c in t)]


def greedy_oracle(sentences: Sequence[Sequence[str]],
                  summary: Sequence[Sequence[str]],
                  max_sentences: int = 3) -> list[int]:
    """Indices (ascending) of the sentences the greedy ROUGE-1 + ROUGE-2 oracle picks.

    Args:
        sentences: the article's sentences, token lists.
        summary: the reference summary's sentences (e.g. CNN/DailyMail highlights).
        max_sentences: the most it picks (3 for CNN/DailyMail).

    Tokens without a letter or digit are ignored; ties go to the earlier sentence.
    """
    sents = [_words(s) for s in sentences]
    ref = {n: ngram_counts([_words(s) for s in summary], n) for n in (1, 2)}
    own = [{n: ngram_counts([s], n) for n in (1, 2)} for s in sents]
    chosen: list[int] = []
    total = {1: Counter(), 2: Counter()}  # n-gram counts of the selection
    best = 0.0
    while len(chosen) < max_sentences:
        pick, pick_score = None, best
        for i in range(len(sents)):
            if i in chosen:
                continue
            score = sum(overlap_scores(total[n] + own[i][n], ref[n])["f1"]
                        for n in (1, 2))
            if score > pick_score:
                pick, pick_score = i, score
        if pick is None:  # no sentence increases the score
            break
        chosen.append(pick)
        total = {n: total[n] + own[pick][n] for n in (1, 2)}
        best = pick_score
    return sorted(chosen)
