"""A paper's claim beside our controlled result, and the verdict the rule of the
course gives it (chapter "Reproductions"; DESIGN, "How a comparison is run").

The rule. A claim "A beats B by ``paper`` points" is judged on our paired difference
A - B over n >= 3 seeds (or over n domains, for a mean over domains): its 95 %
confidence interval ``mean ± t(0.975, n - 1) · s.e.`` from Student's t distribution
with n - 1 degrees of freedom, and the two-sided p-value of "no difference". Four
outcomes:

* *reproduced*: the interval excludes 0 on the paper's side;
* *reversed*: the interval excludes 0 on the other side;
* *not reproduced: the paper's size excluded*: the interval holds 0 but not the
  paper's figure (we can rule out a difference as large as the paper's);
* *inconclusive*: the interval holds both 0 and the paper's figure; the verdict then
  says how many seeds would decide it at the observed mean and spread.

Fewer than 3 seeds (or no spread to measure) is a *probe*, never a verdict; no run
at all is *not run*. A page that makes many calls says how many, and which survive
Holm's correction for that many (:func:`holm`).

With 3 seeds t(0.975, 2) = 4.30: an interval of two standard errors (the course's
old rule) is an ~82 % interval, not a 95 % one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from lamalib.experiments.comparison import Estimate

MIN_SEEDS = 3  # DESIGN: at least 3 seeds for a verdict
LEVEL = 0.95  # the confidence of every interval the course states
MAX_SEEDS = 1000  # past this, "more seeds" would not decide it in practice

REPRODUCED = "reproduced"
REVERSED = "reversed"
SIZE_EXCLUDED = "not reproduced: the paper's size excluded"
INCONCLUSIVE = "inconclusive"
PROBE = "probe only"
NOT_RUN = "not run"
DIRECTIONAL = (REPRODUCED, REVERSED)  # the calls that state a direction


@dataclass(frozen=True)
class Claim:
    """One row of a claims table: a paper's statement (``text``, where it says it:
    ``source``), the paper's figure, ours (the paired difference with its interval and
    p), the verdict, the verdict under plain patience where the grid stopped its runs
    by another rule (``plain``), and the readings and differences that remain
    (``why``). ``p`` is the judged call's p-value (NaN for a probe), which Holm's
    correction reads."""

    paper: str
    text: str
    source: str
    figure: str
    ours: str
    verdict: str
    why: str
    plain: str = ""
    p: float = math.nan


def t_quantile(n: int, level: float = LEVEL) -> float:
    """The two-sided ``level`` quantile of Student's t with ``n - 1`` degrees of
    freedom: the half-width of the interval, in standard errors, for ``n`` values."""
    return float(stats.t.ppf(0.5 + level / 2, n - 1))


@dataclass(frozen=True)
class Verdict:
    """The rule's reading of one paired difference (points): ``outcome`` (one of the
    module's six strings), the interval ``low``-``high``, the p-value of "no
    difference", the paper's figure it was judged against (None when the paper gives
    only a direction, taken as positive) and, for an inconclusive one, ``seeds_needed``
    at the observed spread (None: more than :data:`MAX_SEEDS`)."""

    outcome: str
    diff: Estimate
    low: float = math.nan
    high: float = math.nan
    p: float = math.nan
    paper: float | None = None
    seeds_needed: int | None = None

    def __str__(self) -> str:
        if self.outcome != INCONCLUSIVE:
            return self.outcome
        if self.seeds_needed is None:
            return f"{INCONCLUSIVE} (more than {MAX_SEEDS} seeds would be needed)"
        return f"{INCONCLUSIVE} (about {self.seeds_needed} seeds would decide it)"

    @property
    def judged(self) -> bool:
        """True when the rule gave one of its four outcomes (not a probe, not run)."""
        return self.outcome not in (PROBE, NOT_RUN)

    def interval(self, digits: int = 1) -> str:
        """``"+2.1 [+0.8, +3.4], p = 0.023"``; a probe shows its mean alone."""
        if not self.judged:
            return self.diff.signed(digits) if self.diff.n else NOT_RUN
        mean = round(self.diff.mean, digits) + 0.0
        return (f"{mean:+.{digits}f} [{self.low:+.{digits}f}, {self.high:+.{digits}f}]"
                f", p = {p_text(self.p)}")


def p_text(p: float) -> str:
    """A p-value for a page: two significant figures, ``< 0.001`` below that."""
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def _seeds_to_decide(mean: float, sd: float, paper: float) -> int | None:
    """The fewest values whose 95 % interval, at this ``mean`` and standard deviation,
    would exclude 0 or the paper's figure, whichever comes first."""
    gap = max(abs(mean), abs(mean - paper))
    if sd == 0:
        return MIN_SEEDS
    for n in range(MIN_SEEDS, MAX_SEEDS + 1):
        if t_quantile(n) * sd / math.sqrt(n) < gap:
            return n
    return None


def judge(diff: Estimate, paper: float | None = None, seeds: int | None = None
          ) -> Verdict:
    """The verdict on "A beats B" from our paired difference A - B (points, an
    :class:`Estimate` over ``diff.n`` seeds or domains) and the paper's figure for it
    (points; None when the paper states only that A beats B). ``seeds``: the fewest
    seeds behind any cell of a mean over domains (default ``diff.n``); fewer than 3
    makes a probe."""
    if diff.n == 0:
        return Verdict(NOT_RUN, diff, paper=paper)
    fewest = diff.n if seeds is None else min(diff.n, seeds)
    if fewest < MIN_SEEDS or math.isnan(diff.se):
        return Verdict(PROBE, diff, paper=paper)
    half = t_quantile(diff.n) * diff.se
    low, high = diff.mean - half, diff.mean + half
    if diff.se == 0:
        p = 1.0 if diff.mean == 0 else 0.0
    else:
        p = float(2 * stats.t.sf(abs(diff.mean) / diff.se, diff.n - 1))
    side = 1.0 if paper is None or paper >= 0 else -1.0  # the paper's direction
    common = dict(diff=diff, low=low, high=high, p=p, paper=paper)
    if low > 0 or high < 0:
        return Verdict(REPRODUCED if diff.mean * side > 0 else REVERSED, **common)
    if paper is not None and not low <= paper <= high:
        return Verdict(SIZE_EXCLUDED, **common)
    sd = diff.se * math.sqrt(diff.n)
    return Verdict(INCONCLUSIVE, **common, seeds_needed=_seeds_to_decide(
        diff.mean, sd, side if paper is None else paper))


def sensitivity(main: Verdict, other: Verdict, what: str) -> str:
    """The verdict's words, or ``"depends on <what>"`` when the same comparison made
    another way (``other``: under plain patience, with other tuning) gives another
    outcome."""
    if other.judged and other.outcome != main.outcome:
        return f"depends on {what}"
    return str(main)


def holm(p_values: dict, alpha: float = 1 - LEVEL) -> dict:
    """Holm's step-down correction: ``{key: p}`` -> ``{key: True if the call
    survives}`` at family-wise error ``alpha``. The k-th smallest p (from 0) is
    compared with ``alpha / (m - k)``; the first that fails, and every larger one,
    does not survive."""
    m = len(p_values)
    survives = {key: False for key in p_values}
    for k, (key, p) in enumerate(sorted(p_values.items(), key=lambda kv: kv[1])):
        if p > alpha / (m - k):
            break
        survives[key] = True
    return survives

