"""The controlled comparison (lamalib.experiments.comparison) against hand-computed
means, standard errors and paired differences."""

import math

import pytest

from lamalib.experiments.comparison import (Estimate, choice_text, choose_on_validation,
                                            compare, estimate, median_epoch_seconds,
                                            overall, plain_stop_epoch, stalled,
                                            stopped_at_cap, under_plain_patience,
                                            stops_alike,
                                            was_cut)


def run(model, dataset, seed, acc, epochs=40, ran=10, best=5, patience=5, train=None):
    train = train or [0.5 + 0.04 * i for i in range(ran)]  # learning, by default
    return {"model": model, "dataset": dataset,
            "config": {"seed": seed, "train": {"epochs": epochs, "patience": patience}},
            "metrics": {"test_accuracy": acc, "best_epoch": best},
            "history": [{"epoch": i + 1, "train_accuracy": t} for i, t in enumerate(train)]}


def test_estimate_is_mean_and_sample_sd_over_sqrt_n():
    e = estimate([1.0, 2.0, 6.0])
    assert e.mean == 3.0 and e.n == 3
    assert e.se == pytest.approx(math.sqrt(7.0) / math.sqrt(3))  # sd = sqrt(7)
    assert math.isnan(estimate([4.0]).se) and str(estimate([4.0])) == "4.0 (1 seed)"
    assert str(estimate([])) == "not run"


def test_differences_are_paired_by_seed():
    runs = [run("a", "d", 0, 0.80), run("a", "d", 1, 0.70), run("a", "d", 2, 0.90),
            run("b", "d", 0, 0.75), run("b", "d", 1, 0.69),  # no seed 2 for b
            run("a", "e", 0, 0.5)]
    table = compare(runs, "a", "b", ["d", "e", "f"])
    d = table.iloc[0]
    # a's column is over the seeds b ran too, so a - b is the columns' difference
    assert d["a"].mean == pytest.approx(75.0) and d["a"].n == 2
    assert d["b"].mean == pytest.approx(72.0) and d["b"].n == 2
    diff = d["a - b"]  # seeds 0 and 1 only: 5 and 1 points
    assert diff.n == 2 and diff.mean == pytest.approx(3.0)
    assert diff.mean == pytest.approx(d["a"].mean - d["b"].mean)
    # an arm the other never shares seeds with keeps all of its own; so do others
    alone = compare(runs + [run("c", "d", s, 0.6) for s in range(3)], "a", "z", ["d"],
                    others=("c",)).iloc[0]
    assert alone["a"].n == 3 and alone["a"].mean == pytest.approx(80.0)
    assert alone["c"].n == 3 and alone["a - z"].n == 0
    assert diff.se == pytest.approx(2.0)  # sd of (5, 1) = 2 sqrt 2, / sqrt 2
    assert table.iloc[1]["a - b"].n == 0 and table.iloc[2]["a"].n == 0
    over = overall(table, "a - b")  # only d has a difference
    assert over.n == 1 and over.mean == pytest.approx(3.0)


def test_overall_is_across_datasets():
    table = compare([run("a", d, 0, acc) for d, acc in (("x", .6), ("y", .7))]
                    + [run("b", d, 0, .5) for d in ("x", "y")], "a", "b", ["x", "y"])
    e = overall(table, "a - b")  # 10 and 20 points
    assert e == Estimate(15.0, pytest.approx(5.0), 2)


def test_a_run_at_its_cap_still_improving_was_cut():
    assert not was_cut(run("a", "d", 0, .5, epochs=40, ran=12, best=7))  # patience
    assert was_cut(run("a", "d", 0, .5, epochs=15, ran=15, best=13))
    assert not was_cut(run("a", "d", 0, .5, epochs=15, ran=15, best=10))  # waited 5
    runs = [run("a", "d", 0, .5, epochs=15, ran=15, best=15), run("b", "d", 0, .5)]
    assert compare(runs, "a", "b", ["d"]).iloc[0]["cut"] == 1


def test_a_run_stopped_before_its_training_accuracy_rose_stalled():
    # the matched Transformer on MTL-16 MR, seed 1: 8 epochs on the plateau
    assert stalled(run("a", "d", 0, .58, train=[.52, .50, .52, .51, .51, .52, .55, .56]))
    assert not stalled(run("a", "d", 0, .64, train=[.52, .51, .52, .52, .53, .53, .57, .62]))
    assert not stalled(run("a", "d", 0, .8))  # rose 0.36
    assert not stalled(run("a", "d", 0, .8, train=[.3, .35, .41]))  # 0.11 on 5 classes
    assert stalled(run("a", "d", 0, .8, train=[.3, .35, .39]))
    runs = [run("a", "d", 0, .8), run("b", "d", 0, .5, train=[.5, .52, .5]),
            run("b", "d", 1, .5, train=[.5, .5, .55]), run("b", "e", 0, .5, train=[.5] * 3)]
    assert compare(runs, "a", "b", ["d", "e"])["stalled"].tolist() == [2, 1]


def test_a_plain_patience_run_stops_alike_under_the_rise_rule_only_if_it_had_begun():
    # rose at epoch 2 (0.54 >= 0.5 + 0.04 * ...): 10 - 3 >= 5, the rule stops it at 10 too
    assert stops_alike(run("a", "d", 0, .8, ran=10, best=5), 0.1)
    # rose at epoch 8 of 10: the rule would have gone on to epoch 13 at least
    late = [.5] * 7 + [.62, .7, .75]
    assert not stops_alike(run("a", "d", 0, .6, ran=10, best=5, train=late), 0.1)
    assert stops_alike(run("a", "d", 0, .6, ran=13, best=5, train=late + [.8] * 3), 0.1)
    # never rose: a stalled run is never alike
    flat = run("a", "d", 0, .58, train=[.52, .50, .52, .51, .51, .52, .55, .56])
    assert stalled(flat) and not stops_alike(flat, 0.1)
    # at its cap, either rule ends it there
    assert stops_alike(run("a", "d", 0, .6, epochs=10, ran=10, train=late), 0.1)
    # made under the rule: alike if it is the same rise
    made = run("a", "d", 0, .6, train=late)
    made["config"]["train"]["stop_after_rise"] = 0.1
    assert stops_alike(made, 0.1) and not stops_alike(made, 0.2)


def test_a_setting_is_chosen_on_validation_among_those_with_enough_seeds():
    def valid_run(dataset, seed, valid, test):
        r = run("san", dataset, seed, test)
        r["metrics"]["best_valid_accuracy"] = valid
        return r

    settings = {
        1.0: [valid_run("d", s, v, .99) for s, v in enumerate((.80, .81, .79))],
        0.1: [valid_run("d", s, v, .50) for s, v in enumerate((.85, .84, .86))],
        # the best validation score, but two seeds on d: not a candidate there
        0.0: [valid_run("d", s, .95, .60) for s in (0, 1)] + [valid_run("e", 0, .9, .9)],
    }
    chosen, runs, among = choose_on_validation(settings, "d")
    assert chosen == 0.1 and among == [1.0, 0.1]  # test accuracy plays no part
    assert [r["config"]["seed"] for r in runs] == [0, 1, 2]
    assert all(r["dataset"] == "d" for r in runs)
    assert choose_on_validation(settings, "d", min_seeds=2)[0] == 0.0
    assert choose_on_validation(settings, "e") == (None, [], [])
    # seeds added to one setting later (to judge a close comparison) do not enter the
    # choice: the settings are compared on the seeds all of them ran
    more = {**settings, 1.0: settings[1.0] + [valid_run("d", s, .99, .99) for s in (3, 4)]}
    assert choose_on_validation(more, "d")[0] == 0.1
    more = {**settings, 0.1: settings[0.1] + [valid_run("d", s, .50, .50) for s in (3, 4)]}
    chosen, runs, _ = choose_on_validation(more, "d")
    assert chosen == 0.1 and [r["config"]["seed"] for r in runs] == [0, 1, 2, 3, 4]
    # once both ran them, the added seeds count for both
    more[1.0] = settings[1.0] + [valid_run("d", s, .99, .99) for s in (3, 4)]
    assert choose_on_validation(more, "d")[0] == 1.0
    # settings that share fewer seeds than that: each on its three lowest
    late = {1.0: [valid_run("d", s, .9, .9) for s in (0, 1, 2, 9)],
            0.5: [valid_run("d", s, .8 if s < 8 else .1, .9) for s in (5, 6, 7, 8)]}
    assert choose_on_validation(late, "d")[0] == 1.0
    late[0.5][0]["metrics"]["best_valid_accuracy"] = 1.0  # seed 5: 0.87 on average
    late[1.0][-1]["metrics"]["best_valid_accuracy"] = 0.0  # seed 9: not among the three
    assert choose_on_validation(late, "d")[0] == 1.0


def test_choice_text_names_the_setting_and_how_it_was_chosen():
    assert choice_text(0.1, [1.0, 0.1, 0.0]) == (
        "0.1, the best on validation of 1, 0.1 and 0 (those run with three seeds)")
    assert choice_text(0.0, [0.0]) == "0, the only one run with three seeds"
    assert choice_text(0.0, [0.0], picked_elsewhere="R8") == (
        "0, the only one run with three seeds, the one R8's validation picked")
    assert choice_text(1.0, [1.0, 0.0], min_seeds=5).endswith("run with 5 seeds)")


def test_median_epoch_seconds_pools_the_epochs_of_the_named_models_on_one_dataset():
    def timed(model, dataset, seconds):
        return {"model": model, "dataset": dataset,
                "history": [{"seconds": s} for s in seconds]}
    runs = [timed("lama", "r8", [10, 30]), timed("lama_ctx", "r8", [20]),
            timed("lama", "imdb", [500]), timed("te", "r8", [1000, 1000, 1000])]
    assert median_epoch_seconds(runs, ("lama", "lama_ctx"), "r8") == 20  # of 10, 20, 30
    assert median_epoch_seconds(runs, ("lama",), "imdb") == 500
    assert median_epoch_seconds(runs, ("te",), "r8") == 1000
    assert median_epoch_seconds(runs, ("te",), "imdb") is None


def test_signed_prints_a_difference_with_its_sign_and_no_negative_zero():
    assert estimate([1.0, 3.0]).signed() == "+2.0 ± 1.0"
    assert estimate([-1.0, -3.0]).signed(2) == "-2.00 ± 1.00"
    assert Estimate(-1e-12, 0.3, 2).signed() == "+0.0 ± 0.3"  # rounds to zero: not -0.0
    assert Estimate(-0.012, 0.67, 14).signed() == "+0.0 ± 0.7"  # -0.0 at one digit
    assert Estimate(-0.012, 0.67, 14).signed(2) == "-0.01 ± 0.67"
    assert Estimate(-0.06, 0.2, 3).signed() == "-0.1 ± 0.2"
    assert estimate([-0.5]).signed() == "-0.5"  # one value: no standard error


def test_median_epoch_seconds_is_the_median_not_the_mean():
    runs = [{"model": "m", "dataset": "d", "history": [{"seconds": s} for s in
                                                       (1, 2, 100)]}]
    assert median_epoch_seconds(runs, ("m",), "d") == 2  # the mean would be 34.3


def test_a_run_with_no_patience_at_its_cap_was_cut():
    assert stopped_at_cap(10, 10, 10, None)
    assert not stopped_at_cap(9, 9, 10, None)
    # a record without best_epoch at its cap: its best is taken as its last epoch
    record = run("a", "d", 0, .5, epochs=10, ran=10)
    del record["metrics"]["best_epoch"]
    assert was_cut(record)


def test_a_run_without_training_accuracy_records_never_stalled():
    record = run("a", "d", 0, .5)
    record["history"] = [{"epoch": 1}, {"epoch": 2}]
    assert not stalled(record)


def test_one_seed_shows_no_spread():
    assert "±" not in str(estimate([4.0])) and "±" not in estimate([4.0]).signed()
    assert estimate([4.0, 6.0]).signed() == "+5.0 ± 1.0"


def _valid(run, accs):
    run["history"] = [{"epoch": i + 1, "valid_accuracy": a} for i, a in enumerate(accs)]
    return run


def test_plain_stop_epoch_is_patience_after_the_best():
    r = _valid(run("a", "d", 0, .5, patience=2), [.5, .6, .55, .58, .7, .71])
    assert plain_stop_epoch(r) == 4  # best at 2, two bad epochs: 3 and 4
    assert plain_stop_epoch(_valid(run("a", "d", 0, .5, patience=2), [.5, .6])) == 2


def test_under_plain_patience_swaps_in_the_plain_run_or_says_it_is_missing():
    rule = _valid(run("t", "d", 0, .8, patience=2), [.5, .4, .4, .6, .7, .6, .6])
    same = _valid(run("m", "d", 0, .7, patience=2), [.5, .6, .5, .5])
    other = _valid(run("t", "e", 1, .9, patience=2), [.5, .4, .4, .9])
    plain = _valid(run("t", "d", 0, .55, patience=2), [.5, .4, .4])
    kept, missing = under_plain_patience([rule, same, other], [plain])
    assert kept == [plain, same] and missing == [other]
