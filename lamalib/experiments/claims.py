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
  says how many seeds would decide it (exclude 0, or the paper's figure where it gives
  one) with 80 % power at the observed mean and spread.

Fewer than 3 seeds (or no spread to measure) is a *probe*, never a verdict; no run
at all is *not run*. Where the same comparison is read a second way (under plain
patience, with other tuning) and the two readings differ, the verdict is *depends on
the stopping rule* / *depends on tuning* (:func:`sensitivity`). A page that makes many
calls says how many, and which survive Holm's correction over that page's calls, every
judged reading counted (:func:`calls`, :func:`holm_calls`).

With 3 seeds t(0.975, 2) = 4.30: an interval of two standard errors (the course's
old rule) is an ~82 % interval, not a 95 % one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from lamalib.experiments.comparison import Estimate, estimate

MIN_SEEDS = 3  # DESIGN: at least 3 seeds for a verdict
LEVEL = 0.95  # the confidence of every interval the course states
MAX_SEEDS = 1000  # past this, "more seeds" would not decide it in practice
POWER = 0.80  # "seeds that would decide it": this likely, at the observed spread

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
    readings: tuple = ()


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
        return (f"{INCONCLUSIVE} (about {self.seeds_needed} seeds would decide it at "
                f"{100 * POWER:.0f} % power)")

    @property
    def judged(self) -> bool:
        """True when the rule gave one of its four outcomes (not a probe, not run)."""
        return self.outcome not in (PROBE, NOT_RUN)

    def interval(self, digits: int = 1) -> str:
        """``"+2.1 [+0.8, +3.4], p = 0.023"``; a probe shows its mean alone."""
        if not self.judged:
            return self.diff.signed(digits) if self.diff.n else NOT_RUN
        mean = round(self.diff.mean, digits) + 0.0  # -0.0 + 0.0 is +0.0
        ends = digits  # a bound that rounds to 0 gets the digits that show its sign
        while ends < digits + 2 and any(x != 0 and round(x, ends) == 0
                                        for x in (self.low, self.high)):
            ends += 1
        low, high = (round(x, ends) + 0.0 for x in (self.low, self.high))
        p = p_text(self.p)
        return (f"{mean:+.{digits}f} [{low:+.{ends}f}, {high:+.{ends}f}]"
                f", p {p if p.startswith('<') else '= ' + p}")  # "p < 0.001"


def p_text(p: float) -> str:
    """A p-value for a page: two significant figures (three where two would round it
    to 0.05), ``< 0.001`` below 0.001."""
    if p < 0.001:
        return "< 0.001"
    text = f"{p:.2g}"  # one more figure where two would print the 5 % line itself
    return f"{p:.3g}" if math.isclose(float(text), 1 - LEVEL) else text


def power(mean: float, sd: float, n: int, value: float = 0.0) -> float:
    """The probability that the 95 % t-interval over ``n`` values drawn with this
    ``mean`` and standard deviation ``sd`` excludes ``value``: the two tails of the
    noncentral t with n - 1 degrees of freedom beyond the interval's quantile."""
    crit = t_quantile(n)
    nc = (mean - value) * math.sqrt(n) / sd
    tails = float(stats.nct.sf(crit, n - 1, nc) + stats.nct.cdf(-crit, n - 1, nc))
    if math.isnan(tails):  # scipy's noncentral t fails far out: t is normal there
        tails = float(stats.norm.sf(crit - nc) + stats.norm.cdf(-crit - nc))
    return tails


def _seeds_to_decide(mean: float, sd: float, paper: float | None) -> int | None:
    """The fewest values whose 95 % interval, at this ``mean`` and standard deviation,
    would with :data:`POWER` probability exclude 0 or (where the paper gives a figure)
    the paper's figure: the fewer of the two counts. A paper that states only a
    direction is decided by excluding 0 alone. None: more than :data:`MAX_SEEDS`."""
    if sd == 0:
        return MIN_SEEDS
    targets = [0.0] if paper is None else [0.0, paper]

    def enough(n):
        return any(power(mean, sd, n, x) >= POWER for x in targets)

    if not enough(MAX_SEEDS):
        return None
    low, high = MIN_SEEDS, MAX_SEEDS  # power grows with n: the first n that is enough
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if enough(mid) else (mid + 1, high)
    return low


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
    return Verdict(INCONCLUSIVE, **common,
                   seeds_needed=_seeds_to_decide(diff.mean, sd, paper))


BOTH_EXCLUDE = "; the paper's size excluded under both"


def sensitivity(main: Verdict, other: Verdict, what: str) -> str:
    """The verdict's words, or ``"depends on <what>"`` when the same comparison made
    another way (``other``: under plain patience, with other tuning) gives another
    outcome (the outcomes compared, not their printed words), with
    :data:`BOTH_EXCLUDE` added where both intervals exclude the paper's figure. The one
    function every verdict column, Holm table, text and figure colour reads."""
    if other.judged and other.outcome != main.outcome:
        both = (main.judged and main.paper is not None
                and not main.low <= main.paper <= main.high
                and not other.low <= main.paper <= other.high)
        return f"depends on {what}" + (BOTH_EXCLUDE if both else "")
    return str(main)


def depends(verdict: str) -> bool:
    """Whether a verdict's words say it changes with how the comparison was made."""
    return verdict.startswith("depends on ")


@dataclass(frozen=True)
class Call:
    """One judged reading on a page: the claim's ``text``, which ``reading`` (as run,
    under plain patience, with the recipe's tuning, a domain...), its ``outcome`` and
    ``p``. A directional call states a direction (reproduced or reversed)."""

    text: str
    reading: str
    outcome: str
    p: float

    @property
    def directional(self) -> bool:
        return self.outcome in DIRECTIONAL


def calls(claims, extra=()) -> list[Call]:
    """Every judged reading of ``claims`` (:class:`Claim` rows: each of its
    ``readings``, or its main one) and ``extra`` (more :class:`Call`), in order: the
    family a page's Holm correction runs over."""
    out = []
    for c in claims:
        if c.readings:
            out += [Call(c.text, name, outcome, p) for name, outcome, p in c.readings]
        elif not math.isnan(c.p):
            out.append(Call(c.text, "as run", c.verdict, c.p))
    return out + list(extra)


def holm_calls(family: list[Call], alpha: float = 1 - LEVEL) -> list[tuple[Call, bool]]:
    """``family`` with Holm's verdict on each over the whole family (:func:`holm`),
    smallest p first."""
    survives = holm({i: c.p for i, c in enumerate(family)}, alpha)
    order = sorted(range(len(family)), key=lambda i: family[i].p)
    return [(family[i], survives[i]) for i in order]


def call_colour(outcome: str, survives: bool, ahead: str = "tab:blue",
                behind: str = "tab:red") -> str:
    """A figure's colour for a call: ``ahead`` or ``behind`` for a directional call
    that survives Holm over its page, grey for any other (one that does not survive is
    one of many tests, not a finding)."""
    if survives and outcome in DIRECTIONAL:
        return ahead if outcome == REPRODUCED else behind
    return "tab:grey"


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



# The seed-extension rule (DESIGN, "How a comparison is run"): which calls get more
# seeds and how the stages combine, fixed before the seeds are run. Stage 1 is the
# first STAGE1 seeds (0, 1, 2). A judged call whose stage-1 p lies in EXTEND_P gets
# STAGE2 fresh seeds (3, 4), all such calls at once; the two stages combine by the
# inverse-normal method with weights fixed by the stage sizes, so that looking at
# stage 1 before choosing to extend keeps the 5 % error.
STAGE1, STAGE2 = 3, 2
EXTEND_P = (0.01, 0.2)
NAMED, EXTENDED, NOT_NAMED = ("named, not yet extended", "extended: stages combined",
                              "not named: stage 1 alone")


def stage_p(values: list[float]) -> float:
    """The one-sided p of "A - B <= 0" from paired differences (points): Student's t
    with n - 1 degrees of freedom (0 or 1 where they have no spread)."""
    e = estimate(values)
    if e.se == 0:
        return 0.0 if e.mean > 0 else 1.0
    return float(stats.t.sf(e.mean / e.se, e.n - 1))


def combined_p(first: list[float], second: list[float]) -> tuple[float, float]:
    """The inverse-normal combination of two stages' one-sided p
    (:func:`stage_p`) with weights sqrt(n1 / N) and sqrt(n2 / N) from the stage sizes
    fixed in advance (:data:`STAGE1`, :data:`STAGE2`): ``(z, two-sided p)``, z > 0 for
    A ahead."""
    w1 = math.sqrt(STAGE1 / (STAGE1 + STAGE2))
    w2 = math.sqrt(STAGE2 / (STAGE1 + STAGE2))
    z = w1 * stats.norm.isf(stage_p(first)) + w2 * stats.norm.isf(stage_p(second))
    return float(z), float(2 * stats.norm.sf(abs(z)))


def extension(diffs: dict[int, float], paper: float | None = None
              ) -> tuple[str, Verdict]:
    """A call judged by the seed-extension rule from its paired differences by seed
    (``{seed: A - B}``, points): ``(what the rule did, verdict)``. Stage 1 (the
    lowest :data:`STAGE1` seeds) is judged alone unless its p lies in
    :data:`EXTEND_P`; a named call with its :data:`STAGE2` more seeds gets the
    combined p (:func:`combined_p`), its direction where that p is under 5 %, and
    otherwise the pooled interval's reading of the paper's size; a named call not yet
    extended keeps stage 1's verdict until it is."""
    seeds = sorted(diffs)
    first = [diffs[s] for s in seeds[:STAGE1]]
    second = [diffs[s] for s in seeds[STAGE1:STAGE1 + STAGE2]]
    v1 = judge(estimate(first), paper)
    if not v1.judged or not EXTEND_P[0] <= v1.p <= EXTEND_P[1]:
        return NOT_NAMED, v1
    if len(second) < STAGE2:
        return NAMED, v1
    z, p = combined_p(first, second)
    pooled = judge(estimate(first + second), paper)
    side = 1.0 if paper is None or paper >= 0 else -1.0
    if p < 1 - LEVEL:
        outcome = REPRODUCED if z * side > 0 else REVERSED
    elif paper is not None and not pooled.low <= paper <= pooled.high:
        outcome = SIZE_EXCLUDED
    else:
        outcome = INCONCLUSIVE
    needed = (_seeds_to_decide(pooled.diff.mean, pooled.diff.se * math.sqrt(
        pooled.diff.n), paper) if outcome == INCONCLUSIVE else None)
    return EXTENDED, Verdict(outcome, pooled.diff, pooled.low, pooled.high, p, paper,
                             needed)
