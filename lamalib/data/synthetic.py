"""A synthetic sentiment task with planted keywords and negation (chapter "Setup").

Each sentence is neutral filler with exactly one sentiment keyword planted at a random
position; with probability ``p_negate`` a negator ("not", "never") stands right before
it and flips the label. Because we planted them, we know where the evidence is:
``extras["keyword_positions"]`` lets later chapters score how well attention finds it.
"""

from __future__ import annotations

import random

from .dataset import TextDataset

POSITIVE = [
    "good",
    "great",
    "excellent",
    "wonderful",
    "superb",
    "delightful",
    "brilliant",
    "charming",
    "moving",
    "enjoyable",
]
NEGATIVE = [
    "bad",
    "awful",
    "boring",
    "dull",
    "terrible",
    "tedious",
    "weak",
    "clumsy",
    "bland",
    "painful",
]
NEGATORS = ["not", "never"]
FILLER = [
    "the",
    "a",
    "film",
    "movie",
    "story",
    "plot",
    "actor",
    "scene",
    "was",
    "is",
    "and",
    "with",
    "this",
    "that",
    "of",
    "in",
    "its",
    "director",
    "script",
    "music",
    "ending",
    "cast",
    "really",
    "quite",
    "very",
    "some",
    "long",
    "first",
    "show",
    "it",
    "his",
    "her",
    "their",
    "camera",
    "dialogue",
    "we",
    "saw",
    "felt",
    "seemed",
]
_SEEDS = {"train": 0, "valid": 1, "test": 2}
_SIZES = {"train": 2000, "valid": 500, "test": 500}


def synthetic_sentiment(
    split: str = "train",
    n: int | None = None,
    min_len: int = 6,
    max_len: int = 20,
    p_negate: float = 0.3,
    seed: int = 0,
) -> TextDataset:
    """Generate the task; the same arguments always give the same sentences.

    ``extras``: ``keyword_positions`` (list of token positions of the evidence: the
    keyword and, if present, its negator), ``negated`` (bool).
    """
    if split not in _SEEDS:
        raise ValueError(f"split must be one of {tuple(_SEEDS)}, got {split!r}")
    if not 2 <= min_len <= max_len:
        raise ValueError("need 2 <= min_len <= max_len")
    rng = random.Random(seed * 10 + _SEEDS[split])
    texts, labels, positions, negated = [], [], [], []
    for _ in range(_SIZES[split] if n is None else n):
        length = rng.randint(min_len, max_len)
        words = [rng.choice(FILLER) for _ in range(length)]
        label = rng.randint(0, 1)
        keyword = rng.choice(POSITIVE if label else NEGATIVE)
        negate = rng.random() < p_negate
        pos = rng.randint(1 if negate else 0, length - 1)
        words[pos] = keyword
        evidence = [pos]
        if negate:
            words[pos - 1] = rng.choice(NEGATORS)
            evidence = [pos - 1, pos]
            label = 1 - label
        texts.append(" ".join(words))
        labels.append(label)
        positions.append(evidence)
        negated.append(negate)
    return TextDataset(
        texts,
        labels,
        ["negative", "positive"],
        "synthetic_sentiment",
        split,
        {"keyword_positions": positions, "negated": negated},
    )
