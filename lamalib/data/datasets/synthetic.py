"""Synthetic sentiment tasks with planted evidence (chapter "Setup").

Two grammars, chosen by name (``grammar=``):

- ``"keyword"``: neutral filler with exactly one sentiment keyword at a random position;
  with probability ``p_negate`` a negator ("not", "never") stands right before it and
  flips the label. The label is the keyword's polarity XOR "a negator is present", so
  the *bag* of words decides it: a non-linear classifier of word counts solves it.
- ``"order"``: two opinion words of opposite polarity in one sentence, and one operator
  that decides between them. With probability ``p_negate`` a negator stands right before
  one of them and scopes over that word only ("not good ... bad" is negative, "good ...
  not bad" is positive); otherwise a contrastive "but" stands between them and the
  clause after it decides ("good ... but ... bad" is negative). Moving the negator to
  the other opinion word, or swapping the two opinion words, keeps the bag of words and
  flips the label, and the generator draws both arrangements with the same probability:
  given its bag, every sentence is a coin toss, so only word order can decide.

Because we planted the evidence we know where it is: ``extras["keyword_positions"]``
(the operator and the word it governs) lets later chapters score how well attention
finds it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from lamalib import runtime
from lamalib.data.dataset import TextDataset

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
CONTRAST = "but"
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


@dataclass
class Sentence:
    """One generated sentence and the facts we planted in it.

    ``evidence``: positions that decide the label (the operator, if any, and the word
    it governs). ``opinions``: positions of every opinion word. ``construction``:
    ``"plain"``, ``"negation"`` or ``"contrast"``.
    """

    words: list[str]
    label: int
    evidence: list[int]
    opinions: list[int]
    construction: str


def _opinion(rng: random.Random, polarity: int) -> str:
    return rng.choice(POSITIVE if polarity else NEGATIVE)


def keyword_sentence(rng: random.Random, length: int, p_negate: float) -> Sentence:
    """One keyword, negated with probability ``p_negate``: a bag of words decides."""
    words = [rng.choice(FILLER) for _ in range(length)]
    label = rng.randint(0, 1)
    keyword = _opinion(rng, label)
    negate = rng.random() < p_negate
    pos = rng.randint(1 if negate else 0, length - 1)
    words[pos] = keyword
    evidence = [pos]
    if negate:
        words[pos - 1] = rng.choice(NEGATORS)
        evidence = [pos - 1, pos]
        label = 1 - label
    return Sentence(words, label, evidence, [pos], "negation" if negate else "plain")


def order_sentence(rng: random.Random, length: int, p_negate: float) -> Sentence:
    """Two opinion words of opposite polarity; a negator before one of them or a "but"
    between them decides: only word order does."""
    words = [rng.choice(FILLER) for _ in range(length)]
    label = rng.randint(0, 1)
    if rng.random() < p_negate:
        # "not" + the word of the other polarity, which it flips to agree with the rest.
        at = rng.randint(0, length - 2)  # the negator; the negated word follows it
        other = rng.choice([i for i in range(length) if i not in (at, at + 1)])
        words[at] = rng.choice(NEGATORS)
        words[at + 1] = _opinion(rng, 1 - label)
        words[other] = _opinion(rng, label)
        return Sentence(words, label, [at, at + 1], sorted([at + 1, other]), "negation")
    # "... first ... but ... second ...": the clause after "but" decides.
    but = rng.randint(1, length - 2)
    first, second = rng.randint(0, but - 1), rng.randint(but + 1, length - 1)
    words[but] = CONTRAST
    words[first] = _opinion(rng, 1 - label)
    words[second] = _opinion(rng, label)
    return Sentence(words, label, [but, second], [first, second], "contrast")


def bag_twin(words: list[str], evidence: list[int], opinions: list[int]) -> list[str]:
    """The same words rearranged so that the ``"order"`` grammar gives the other label.

    A negation sentence gets its negator moved to the other opinion word; a contrast
    sentence gets its two opinion words swapped. ``evidence`` and ``opinions`` are the
    sentence's ``extras`` entries. The twin has the same bag of words, so any
    bag-of-words model gives both the same output.
    """
    if len(evidence) != 2 or len(opinions) != 2:
        raise ValueError("bag_twin needs a sentence of the 'order' grammar")
    operator, governed = evidence
    other = next(i for i in opinions if i != governed)
    twin = list(words)
    if words[operator] in NEGATORS:
        negator = twin.pop(operator)
        twin.insert(other if other < operator else other - 1, negator)
    elif words[operator] == CONTRAST:
        twin[governed], twin[other] = words[other], words[governed]
    else:
        raise ValueError("bag_twin needs a sentence of the 'order' grammar")
    return twin


ROLES = ("operator", "governed", "other opinion", "filler")


def token_roles(n_tokens: int, evidence: list[int], opinions: list[int]) -> list[str]:
    """The planted role of every token of a sentence, from its ``extras`` entries.

    ``"operator"``: the negator or "but"; ``"governed"``: the word it decides (the
    keyword itself when nothing governs it); ``"other opinion"``: the opinion word
    that does not; ``"filler"``: the rest. Chapter "Self-attention" sums attention
    weights by role with :func:`lamalib.analysis.roles.weight_by_role`.
    """
    roles = ["filler"] * n_tokens
    for i in opinions:
        roles[i] = "other opinion"
    roles[evidence[-1]] = "governed"
    if len(evidence) == 2:
        roles[evidence[0]] = "operator"
    return roles


# name -> (sentence(rng, length, p_negate), default p_negate, shortest sentence)
GRAMMARS: dict[str, tuple[Callable[..., Sentence], float, int]] = {
    "keyword": (keyword_sentence, 0.3, 2),
    "order": (order_sentence, 0.5, 3),
}


def synthetic_sentiment(
    split: str = "train",
    n: int | None = None,
    min_len: int = 6,
    max_len: int = 20,
    p_negate: float | None = None,
    seed: int = 0,
    grammar: str = "keyword",
) -> TextDataset:
    """Generate the task; the same arguments always give the same sentences.

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"`` (each has its own random stream).
        n: number of sentences (default 2000 / 500 / 500).
        min_len, max_len: sentence length in tokens, drawn uniformly.
        p_negate: share of sentences whose label turns on a negator (default 0.3 for
            ``"keyword"``, 0.5 for ``"order"``, where the others use "but").
        grammar: a name from :data:`GRAMMARS` (see the module docstring).

    ``extras``: ``keyword_positions`` (token positions of the evidence: the operator,
    if any, and the word it governs), ``opinion_positions`` (every opinion word),
    ``negated`` (bool: a negator decides), ``construction`` (``"plain"``,
    ``"negation"`` or ``"contrast"``).
    """
    if split not in _SEEDS:
        raise ValueError(f"split must be one of {tuple(_SEEDS)}, got {split!r}")
    if grammar not in GRAMMARS:
        raise ValueError(f"grammar must be one of {tuple(GRAMMARS)}, got {grammar!r}")
    make, default_p, shortest = GRAMMARS[grammar]
    if not shortest <= min_len <= max_len:
        raise ValueError(f"need {shortest} <= min_len <= max_len for {grammar!r}")
    p = default_p if p_negate is None else p_negate
    rng = random.Random(runtime.seed(seed) * 10 + _SEEDS[split])  # LAMALIB_SEED
    sentences = [
        make(rng, rng.randint(min_len, max_len), p)
        for _ in range(_SIZES[split] if n is None else n)
    ]
    return TextDataset(
        [" ".join(s.words) for s in sentences],
        [s.label for s in sentences],
        ["negative", "positive"],
        "synthetic_sentiment",
        split,
        {
            "keyword_positions": [s.evidence for s in sentences],
            "opinion_positions": [s.opinions for s in sentences],
            "negated": [s.construction == "negation" for s in sentences],
            "construction": [s.construction for s in sentences],
        },
    )
