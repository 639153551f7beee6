"""A small synthetic Vietnamese feedback task whose ground truth is known (chapter
"Attention for Vietnamese"; the quick profile, with no corpus to read).

Sentences are generated from word lists the course wrote itself (no corpus text): a
subject ("giảng viên", "môn học"...), an optional degree word ("rất", "khá") and one
opinion word, positive or negative, negated by "không" in some sentences ("không ...
lắm": not very ...); the label is the opinion's polarity, flipped by the negation.
Most words have two
syllables, and the two polarities share syllables ("dễ hiểu" / "khó hiểu", "nhiệt
tình" / "thiếu nhiệt tình"), so a model of syllables must combine them where a model
of words reads one token. ``extras["opinion_position"]`` is the index of the opinion
word's first syllable, ``extras["negated"]`` whether "không" precedes it.
"""

from __future__ import annotations

import random

from lamalib.data.dataset import TextDataset

SUBJECTS = ["giảng viên", "thầy", "cô", "môn học", "giáo trình", "bài giảng",
            "phòng học", "chương trình"]
POSITIVE = ["nhiệt tình", "dễ hiểu", "tận tâm", "thú vị", "hữu ích", "vui vẻ"]
NEGATIVE = ["khó hiểu", "nhàm chán", "thiếu nhiệt tình", "qua loa", "vô ích",
            "khó chịu"]
DEGREES = ["", "rất", "khá", "hơi"]
TAILS = ["", "ạ", "quá", "lắm"]
LABELS = ["negative", "positive"]
SIZES = {"train": 400, "valid": 100, "test": 200}


def vi_feedback(split: str = "train", n: int | None = None, seed: int = 0,
                negation: float = 0.3) -> TextDataset:
    """``n`` generated sentences (default :data:`SIZES`), label 1 positive, 0
    negative; each split drawn from its own seed, ``negation``: the share with
    "không"."""
    if split not in SIZES:
        raise ValueError(f"split must be one of {', '.join(SIZES)}, not {split!r}")
    rng = random.Random(f"vi_feedback/{split}/{seed}")
    texts, labels, positions, negated = [], [], [], []
    for _ in range(SIZES[split] if n is None else n):
        positive = rng.random() < 0.5
        neg = rng.random() < negation
        opinion = rng.choice(POSITIVE if positive else NEGATIVE)
        # "không ... lắm" (not very ...), never "không rất"
        before = [rng.choice(SUBJECTS), "không" if neg else rng.choice(DEGREES)]
        before = " ".join(w for w in before if w).split()
        tail = rng.choice(["", "lắm"] if neg else TAILS)
        words = [*before, opinion, tail, "."]
        texts.append(" ".join(w for w in words if w))
        labels.append(int(positive != neg))
        positions.append(len(before))
        negated.append(neg)
    return TextDataset(texts, labels, list(LABELS), "vi_feedback", split,
                       {"opinion_position": positions, "negated": negated})
