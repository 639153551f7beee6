"""The verdict rule (lamalib.experiments.claims): Student's t quantiles against a
printed table, each of the four outcomes on a constructed case, p-values against a
hand computation, and Holm's correction on the textbook example."""

import math

import numpy as np
import pytest

from lamalib.experiments.claims import (INCONCLUSIVE, NOT_RUN, PROBE, REPRODUCED,
                                        REVERSED, SIZE_EXCLUDED, holm, judge, p_text, power,
                                        sensitivity,
                                        t_quantile)
from lamalib.experiments.comparison import Estimate, estimate


@pytest.mark.parametrize("n,want", [(2, 12.706), (3, 4.303), (4, 3.182), (5, 2.776),
                                    (10, 2.262), (16, 2.131), (31, 2.042)])
def test_t_quantiles_match_the_printed_table(n, want):
    # two-sided 95 % critical values of Student's t, df = n - 1 (any statistics table)
    assert t_quantile(n) == pytest.approx(want, abs=5e-4)


def test_three_seeds_need_four_point_three_standard_errors_not_two():
    assert judge(Estimate(3.0, 1.0, 3)).outcome == INCONCLUSIVE  # 2 s.e. rule: a call
    assert judge(Estimate(4.4, 1.0, 3)).outcome == REPRODUCED
    assert judge(Estimate(4.2, 1.0, 3)).outcome == INCONCLUSIVE


def test_each_outcome_on_a_constructed_case():
    # seeds 1, 2, 3 points: mean 2, se 1/sqrt(3), interval 2 ± 2.48 -> holds 0
    holds_zero = estimate([1.0, 2.0, 3.0])
    v = judge(holds_zero, paper=3.0)
    assert v.outcome == INCONCLUSIVE and v.low < 0 < 3.0 < v.high
    assert judge(holds_zero, paper=5.0).outcome == SIZE_EXCLUDED  # 5 > 4.48
    assert judge(holds_zero, paper=-0.3).outcome == INCONCLUSIVE  # in [-0.48, 4.48]
    tight = estimate([2.0, 2.1, 1.9])  # 2 ± 0.25
    assert judge(tight, paper=3.56).outcome == REPRODUCED
    assert judge(tight).outcome == REPRODUCED  # no figure: the paper says A beats B
    assert judge(estimate([-2.0, -2.1, -1.9]), paper=3.56).outcome == REVERSED
    # a paper that claims B beats A (a negative figure): our negative is reproduced
    assert judge(estimate([-2.0, -2.1, -1.9]), paper=-1.0).outcome == REPRODUCED
    assert judge(tight, paper=-1.0).outcome == REVERSED


def test_probes_and_nothing_run_are_never_verdicts():
    assert judge(Estimate(5.0, 0.1, 2)).outcome == PROBE
    assert judge(Estimate(5.0, math.nan, 3)).outcome == PROBE
    assert judge(Estimate(5.0, 0.1, 16), seeds=2).outcome == PROBE  # a cell of 2 seeds
    assert judge(Estimate(math.nan, math.nan, 0)).outcome == NOT_RUN
    assert not judge(Estimate(5.0, 0.1, 2)).judged


def test_interval_and_p_value_by_hand():
    v = judge(estimate([1.0, 2.0, 6.0]), paper=1.0)  # mean 3, sd sqrt 7
    se = math.sqrt(7) / math.sqrt(3)
    assert v.low == pytest.approx(3 - 4.302653 * se, abs=1e-5)
    assert v.high == pytest.approx(3 + 4.302653 * se, abs=1e-5)
    # t = 3 / se = 1.964 on 2 df: p = 2 (1 - F(t)), F(t) = 1/2 + t / (2 sqrt(2 + t^2))
    t = 3 / se
    assert v.p == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-9)
    assert v.interval() == f"+3.0 [{v.low:+.1f}, {v.high:+.1f}], p = {v.p:.2g}"
    assert p_text(0.0004) == "< 0.001"
    # in an interval: "p < 0.001", never "p = < 0.001"
    tiny = judge(Estimate(mean=30.0, se=0.5, n=3))
    assert tiny.interval().endswith(", p < 0.001") and "= <" not in tiny.interval()


def _decided(mean, sd, n, targets, reps=20000, seed=0):
    """The share of simulated experiments of ``n`` normal values whose 95 % t-interval
    excludes one of ``targets``."""
    rng = np.random.default_rng(seed)
    x = rng.normal(mean, sd, size=(reps, n))
    m, se = x.mean(1), x.std(1, ddof=1) / math.sqrt(n)
    half = t_quantile(n) * se
    return float(np.mean(np.any([np.abs(m - t) > half for t in targets], axis=0)))


@pytest.mark.parametrize("mean,sd,paper", [(1.0, 1.0, None), (-1.8, 2.5, None),
                                           (2.0, 1.0, 3.0), (1.1, 3.0, None)])
def test_seeds_to_decide_give_80_percent_power_in_a_simulation(mean, sd, paper):
    # n values drawn at the observed mean and spread: with seeds_needed of them the
    # interval decides the call (excludes 0; or the paper's figure, where it gives one)
    # in about 80 % of experiments, with one fewer in fewer than 80 %
    v = judge(Estimate(mean, sd / math.sqrt(3), 3), paper=paper)
    assert v.outcome == INCONCLUSIVE
    n = v.seeds_needed
    targets = [0.0] if paper is None else [0.0, paper]
    assert _decided(mean, sd, n, targets) >= 0.79
    assert _decided(mean, sd, n - 1, targets) < 0.81 or n == 3
    assert f"about {n} seeds would decide it at 80 % power" in str(v)


def test_a_direction_only_claim_is_decided_by_excluding_0_not_1():
    # the paper says only "A beats B": +0.2 ± sd 1 needs ~200 seeds to exclude 0; the
    # old count, which also stopped at excluding +1 point, said ~20
    v = judge(Estimate(0.2, 1.0 / math.sqrt(3), 3))
    assert v.seeds_needed > 150
    assert power(0.2, 1.0, v.seeds_needed) >= 0.8 > power(0.2, 1.0, v.seeds_needed - 1)
    assert judge(estimate([-1.0, 0.0, 1.0]), paper=0.0).seeds_needed is None


def test_zero_spread_is_decided_without_dividing_by_zero():
    v = judge(Estimate(1.0, 0.0, 3), paper=1.0)
    assert v.outcome == REPRODUCED and v.p == 0.0
    assert judge(Estimate(0.0, 0.0, 3), paper=1.0).outcome == SIZE_EXCLUDED


def test_holm_on_the_textbook_example():
    # Holm (1979)-style example: m = 4 at 0.05 -> thresholds 0.0125, 0.0167, 0.025, 0.05
    p = {"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.005}
    assert holm(p) == {"d": True, "a": True, "c": False, "b": False}
    # a step-down: once one fails, larger ones fail too even below 0.05 / 1
    assert holm({"x": 0.02, "y": 0.03}) == {"x": True, "y": True}
    assert holm({"x": 0.03, "y": 0.04}) == {"x": False, "y": False}
    assert holm({}) == {}


def test_a_verdict_that_changes_with_the_stopping_rule_says_so():
    rule, plain = judge(estimate([2.0, 2.1, 1.9])), judge(estimate([1.0, 2.0, 3.0]))
    assert sensitivity(rule, plain, "the stopping rule") == "depends on the stopping rule"
    assert sensitivity(rule, rule, "the stopping rule") == REPRODUCED
    # a probe on the other side does not overturn a verdict
    assert sensitivity(rule, judge(Estimate(1.0, 0.1, 2)), "tuning") == REPRODUCED


def test_depends_says_when_both_readings_exclude_the_papers_size():
    # MTL-16's shape: reversed as run, size excluded under plain patience, the paper's
    # +3.56 outside both intervals
    run, plain = judge(Estimate(-1.8, 0.6, 16), 3.56), judge(Estimate(0.9, 1.1, 15), 3.56)
    assert (run.outcome, plain.outcome) == (REVERSED, SIZE_EXCLUDED)
    assert (sensitivity(run, plain, "the stopping rule")
            == "depends on the stopping rule; the paper's size excluded under both")
    # one interval holds the paper's figure: no such clause
    wide = judge(Estimate(0.9, 1.5, 15), 3.56)
    assert wide.outcome == INCONCLUSIVE
    assert sensitivity(run, wide, "the stopping rule") == "depends on the stopping rule"


def test_sensitivity_compares_outcomes_not_their_printed_words():
    # two inconclusive readings whose seed counts differ are the same outcome
    a, b = judge(estimate([1.0, 2.0, 3.0]), 3.0), judge(estimate([0.0, 2.0, 4.0]), 3.0)
    assert a.outcome == b.outcome == INCONCLUSIVE and str(a) != str(b)
    assert sensitivity(a, b, "tuning") == str(a)


def test_two_stages_combine_by_the_inverse_normal_method_by_hand():
    from scipy import stats

    from lamalib.experiments.claims import combined_p, stage_p

    first, second = [1.0, 2.0, 6.0], [2.0, 3.0]
    # stage 1: t = 3 / (sqrt 7 / sqrt 3) on 2 df; stage 2: t = 2.5 / 0.5 on 1 df
    p1 = stats.t.sf(3 / (math.sqrt(7) / math.sqrt(3)), 2)
    p2 = stats.t.sf(2.5 / 0.5, 1)
    assert stage_p(first) == pytest.approx(p1) and stage_p(second) == pytest.approx(p2)
    z = (math.sqrt(3 / 5) * stats.norm.isf(p1) + math.sqrt(2 / 5) * stats.norm.isf(p2))
    got_z, got_p = combined_p(first, second)
    assert got_z == pytest.approx(z) and got_p == pytest.approx(2 * stats.norm.sf(z))


def test_the_extension_rule_names_calls_by_their_first_three_seeds():
    from lamalib.experiments.claims import (EXTENDED, NAMED, NOT_NAMED, combined_p,
                                            extension)

    # stage 1 clear (p < 0.01): later seeds do not change its verdict
    clear = {0: 2.0, 1: 2.1, 2: 1.9, 3: -5.0, 4: -6.0}
    action, v = extension(clear, 1.5)
    assert action == NOT_NAMED and v.outcome == REPRODUCED and v.diff.n == 3
    # stage 1 in [0.01, 0.2] and no more seeds: named, keeps its stage-1 verdict
    close = {0: 1.0, 1: 2.0, 2: 6.0}  # p = 0.19
    action, v = extension(close, 1.0)
    assert action == NAMED and v.outcome == INCONCLUSIVE and v.diff.n == 3
    # with two fresh seeds: the combined p decides the direction
    action, v = extension({**close, 3: 2.0, 4: 3.0})
    assert action == EXTENDED and v.diff.n == 5 and v.outcome == REPRODUCED
    assert v.p == pytest.approx(combined_p([1.0, 2.0, 6.0], [2.0, 3.0])[1])
    # the same five seeds whose second stage goes the other way: not a call
    action, v = extension({**close, 3: -2.0, 4: -1.0}, 1.0)
    assert action == EXTENDED and v.outcome == INCONCLUSIVE


def test_the_extension_rule_keeps_its_error_at_five_percent_in_a_simulation():
    from lamalib.experiments.claims import extension

    # no difference at all: stage 1, extension where named, combined p. A rule that
    # pooled the five seeds after looking at p would call more than 5 % of them
    rng = np.random.default_rng(1)
    calls = sum(extension(dict(enumerate(rng.normal(0.0, 1.0, 5))))[1].outcome
                in (REPRODUCED, REVERSED) for _ in range(3000))
    assert calls / 3000 < 0.06
