"""Scores of a topic segmentation: boundary F1 and Pk (chapter "Finding and
injecting attention patterns").

A segmentation of S sentences is given by its S - 1 gap labels: 1 where a new segment
starts after sentence s.
"""

from __future__ import annotations

from typing import Sequence


def pk(reference: Sequence[int], hypothesis: Sequence[int],
       k: int | None = None) -> float:
    """Pk of Beeferman et al. (1999): the share of sentence pairs ``(i, i + k)`` that
    the hypothesis puts wrongly in the same or in different segments. Lower is better.

    ``k`` defaults to half the mean reference segment length (rounded, at least 1).
    Two sentences ``k`` apart share a segment iff no gap between them is a boundary.
    """
    ref, hyp = list(reference), list(hypothesis)
    if len(ref) != len(hyp):
        raise ValueError(f"{len(ref)} reference gaps but {len(hyp)} hypothesis gaps")
    n = len(ref) + 1  # sentences
    if k is None:
        k = max(1, round(n / (sum(ref) + 1) / 2))
    if k >= n:
        raise ValueError(f"k = {k} needs more than {n} sentences")
    windows = range(n - k)
    errors = sum((sum(ref[i:i + k]) == 0) != (sum(hyp[i:i + k]) == 0) for i in windows)
    return errors / len(windows)


def boundary_f1(reference: Sequence[int], hypothesis: Sequence[int]) -> dict:
    """Precision, recall and F1 of the predicted boundaries (exact gap matches)."""
    tp = sum(r and h for r, h in zip(reference, hypothesis))
    n_hyp, n_ref = sum(hypothesis), sum(reference)
    p = tp / n_hyp if n_hyp else 0.0
    r = tp / n_ref if n_ref else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}
