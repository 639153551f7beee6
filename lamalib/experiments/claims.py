"""A paper's claim beside our controlled result, and the verdict the rule of the
course gives it (chapter "Reproductions"; DESIGN, "How a comparison is run").

A claim "A beats B" is *reproduced* when our paired difference A - B, over at least
3 seeds, is above zero by more than two standard errors; *not reproduced* when zero
lies within two standard errors (no difference measured) or the difference is below
zero by more than two (reversed); *probe only* when the only runs are fewer than 3
seeds or confounded; *not run* when there is nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lamalib.experiments.comparison import Estimate

MIN_SEEDS = 3  # DESIGN: at least 3 seeds for a verdict


@dataclass(frozen=True)
class Claim:
    """One statement of a paper: ``text`` as the paper states it, where it does
    (``source``), our result as a string, the verdict and one line on why they may
    differ."""

    paper: str
    text: str
    source: str
    ours: str
    verdict: str
    why: str


def difference_verdict(diff: Estimate, seeds: int) -> str:
    """The verdict on "A beats B" from our paired difference A - B (points) and the
    number of seeds behind it (the fewest of any cell)."""
    if diff.n == 0:
        return "not run"
    if seeds < MIN_SEEDS or math.isnan(diff.se):
        return "probe only"
    low, high = diff.mean - 2 * diff.se, diff.mean + 2 * diff.se
    if low > 0:
        return "reproduced"
    if high < 0:
        return "not reproduced: reversed"
    return "not reproduced: no difference measured"
