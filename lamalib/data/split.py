"""A seeded, stratified train/validation split of a labelled dataset (chapter
"Setup")."""

from __future__ import annotations

import math
import random
from collections import defaultdict

from lamalib import runtime
from lamalib.data.dataset import TextDataset


def stratified_split(
    dataset: TextDataset, valid_fraction: float = 0.1, seed: int = 0,
    split: str = "valid",
) -> tuple[TextDataset, TextDataset]:
    """Split ``dataset`` into ``(train, valid)`` with every class in the same
    proportion in both.

    From each class of ``n`` examples, ``round(n * valid_fraction)`` examples (at
    least 1 and at most ``n - 1`` when ``n >= 2``; none when ``n == 1``) drawn with
    ``random.Random(seed)`` go to ``valid``. Both keep the dataset's order, and the
    same seed always gives the same split. ``split`` names the held-out part
    (``"test"`` where it is a test set).

    Raises:
        ValueError: if ``valid_fraction`` is not strictly between 0 and 1.
    """
    if not 0 < valid_fraction < 1:
        raise ValueError(f"valid_fraction must be in (0, 1), not {valid_fraction}")
    by_class: dict[int, list[int]] = defaultdict(list)
    for i, label in enumerate(dataset.labels):
        by_class[label].append(i)
    rng = random.Random(runtime.seed(seed))  # shifted by LAMALIB_SEED
    valid: list[int] = []
    for label in sorted(by_class):  # a fixed order, so the seed fixes the split
        members = by_class[label]
        n = len(members)
        k = math.floor(n * valid_fraction + 0.5)
        k = min(max(k, 1), n - 1)
        valid.extend(rng.sample(members, k))
    chosen = set(valid)
    train = [i for i in range(len(dataset)) if i not in chosen]
    return dataset.subset(train, "train"), dataset.subset(sorted(chosen), split)
