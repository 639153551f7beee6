"""An embedded sentence-pair task shaped like SNLI, with known ground truth (chapter
"Multi-scale self-attention", section "Sentence pairs: SNLI").

A premise describes two people or animals with adjectives, "the old happy farmer
follows the small dog". Every adjective is one pole of an attribute (size: big or
small; age: old or young; ...), and a premise uses each attribute at most once. The
hypothesis keeps the premise's nouns and verb, keeps each adjective with probability
one half, and then

- entailment: changes nothing more, so every hypothesis word is in the premise;
- contradiction: turns one kept adjective into its antonym (small -> big);
- neutral: adds one adjective of an attribute that the premise does not mention.

The label is a fact about both sentences: which attributes the hypothesis states and
whether the premise states the same pole, the other pole or nothing. The labels are
SNLI's, in SNLI's order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from lamalib import runtime
from lamalib.data.pair_dataset import PairDataset
from lamalib.data.datasets.snli import LABELS
# the same splits as synthetic_sentiment
from lamalib.data.datasets.synthetic import _SEEDS, _SIZES

ENTAILMENT, NEUTRAL, CONTRADICTION = range(3)  # ids of LABELS
ATTRIBUTES = [("big", "small"), ("old", "young"), ("happy", "sad"), ("tall", "short"),
              ("fast", "slow"), ("quiet", "loud"), ("clean", "dirty"),
              ("strong", "weak"), ("rich", "poor"), ("calm", "angry")]
ANTONYM = {**dict(ATTRIBUTES), **{b: a for a, b in ATTRIBUTES}}
NOUNS = ["dog", "cat", "man", "woman", "child", "horse", "farmer", "teacher", "bird",
         "girl"]
VERBS = ["sees", "follows", "helps", "meets", "likes", "watches"]


@dataclass
class NLIPair:
    """One generated pair. ``evidence``: hypothesis positions of the word that decides
    (the antonym, or the added adjective); empty for entailment."""

    premise: list[str]
    hypothesis: list[str]
    label: int
    evidence: list[int]


def nli_pair(rng: random.Random, label: int, max_adjectives: int = 2) -> NLIPair:
    """One premise and a hypothesis with the given ``label`` id (see the module)."""
    # distinct attributes: up to max_adjectives per noun, and one the premise lacks
    attributes = rng.sample(ATTRIBUTES, 2 * max_adjectives + 1)
    sizes = [rng.randint(1, max_adjectives) for _ in range(2)]
    adjectives = [[rng.choice(a) for a in attributes[:sizes[0]]],
                  [rng.choice(a) for a in attributes[sizes[0]:sum(sizes)]]]
    unused = attributes[sum(sizes)]
    nouns, verb = rng.sample(NOUNS, 2), rng.choice(VERBS)
    kept = [[a for a in side if rng.random() < 0.5] for side in adjectives]
    changed = None  # (noun 0 or 1, index in its kept adjectives)
    if label == CONTRADICTION:
        if not kept[0] + kept[1]:  # keep one adjective to contradict
            side = rng.choice([s for s in (0, 1) if adjectives[s]])
            kept[side] = [rng.choice(adjectives[side])]
        side = rng.choice([s for s in (0, 1) if kept[s]])
        i = rng.randrange(len(kept[side]))
        kept[side][i] = ANTONYM[kept[side][i]]
        changed = side, i
    elif label == NEUTRAL:
        side = rng.randint(0, 1)
        i = rng.randint(0, len(kept[side]))
        kept[side].insert(i, rng.choice(unused))
        changed = side, i

    def sentence(adj: list[list[str]]) -> list[str]:
        return ["the", *adj[0], nouns[0], verb, "the", *adj[1], nouns[1]]

    hypothesis = sentence(kept)
    evidence = []
    if changed is not None:  # "the", the first noun's adjectives, noun, verb, "the"
        side, i = changed
        evidence = [1 + i if side == 0 else 4 + len(kept[0]) + i]
    return NLIPair(sentence(adjectives), hypothesis, label, evidence)


def synthetic_nli(split: str = "train", n: int | None = None,
                  max_adjectives: int = 2, seed: int = 0) -> PairDataset:
    """Generate the task; the same arguments always give the same pairs.

    Args:
        split: ``"train"``, ``"valid"`` or ``"test"`` (each has its own random stream).
        n: number of pairs (default 2000 / 500 / 500); labels drawn uniformly.
        max_adjectives: adjectives per noun in the premise, 1 to this many (at most 4).

    ``extras``: ``evidence`` (hypothesis positions of the deciding word, empty for
    entailment).
    """
    if split not in _SEEDS:
        raise ValueError(f"split must be one of {tuple(_SEEDS)}, got {split!r}")
    if not 1 <= max_adjectives <= (len(ATTRIBUTES) - 1) // 2:
        raise ValueError(f"max_adjectives must be 1 to {(len(ATTRIBUTES) - 1) // 2}, "
                         f"got {max_adjectives}")
    rng = random.Random(runtime.seed(seed) * 10 + _SEEDS[split])  # LAMALIB_SEED
    pairs = [nli_pair(rng, rng.randrange(len(LABELS)), max_adjectives)
             for _ in range(_SIZES[split] if n is None else n)]
    return PairDataset([" ".join(p.premise) for p in pairs],
                       [" ".join(p.hypothesis) for p in pairs],
                       [p.label for p in pairs], list(LABELS), "synthetic_nli", split,
                       {"evidence": [p.evidence for p in pairs]})
