"""Early stopping's rule (lamalib.train.stopping) against histories worked by hand."""

from lamalib.train.stopping import rise_epoch, should_stop


def epochs(*train_accuracy):
    return [{"epoch": i + 1, "train_accuracy": a} for i, a in enumerate(train_accuracy)]


def test_the_rise_is_counted_from_the_first_epoch():
    records = epochs(0.50, 0.55, 0.59, 0.60, 0.75)
    assert rise_epoch(records, 0.1) == 4  # 0.60 >= 0.50 + 0.1
    assert rise_epoch(records, 0.2) == 5
    assert rise_epoch(records, 0.3) is None
    assert rise_epoch([], 0.1) is None
    # measured from the first epoch, not from the lowest one
    assert rise_epoch(epochs(0.6, 0.4, 0.65, 0.7), 0.1) == 4


def test_plain_patience_stops_when_the_bad_epochs_reach_it():
    records = epochs(*[0.5] * 6)
    assert not should_stop(records, 4, 5) and should_stop(records, 5, 5)
    assert should_stop(records, 6, 5)


def test_with_a_rise_patience_also_counts_from_the_epoch_training_rose():
    flat = epochs(*[0.5] * 12)  # never began: never stops, however many bad epochs
    assert not should_stop(flat, 11, 5, rise=0.1)
    began = epochs(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.62, 0.7, 0.8, 0.8, 0.8)  # rose at 7
    assert not should_stop(began, 10, 5, rise=0.1)  # 11 - 7 = 4 < 5
    assert should_stop(began + epochs(*[0.8] * 12)[11:], 11, 5, rise=0.1)  # 12 - 7
    # a run that rose early stops exactly where plain patience stops it
    early = epochs(0.5, 0.7, 0.8, 0.85, 0.9, 0.9, 0.9, 0.9)  # rose at 2, best at 3
    assert not should_stop(early[:7], 4, 5, rise=0.1) and not should_stop(early[:7], 4, 5)
    assert should_stop(early, 5, 5, rise=0.1) and should_stop(early, 5, 5)
    # and still needs the bad epochs: training rose long ago, validation improving
    assert not should_stop(early, 0, 5, rise=0.1)


def test_improved_breaks_an_accuracy_tie_by_the_lower_loss():
    from lamalib.train.stopping import improved
    assert improved(None, None, 0.5, 1.0)
    assert improved(0.8, 0.5, 0.9, 9.0)
    assert not improved(0.8, 0.5, 0.7, 0.1)
    assert improved(0.8, 0.5, 0.8, 0.4)
    assert not improved(0.8, 0.5, 0.8, 0.5)
    assert not improved(0.8, 0.5, 0.8, 0.6)


def test_plain_stop_epoch_replays_the_trainers_tie_break():
    from lamalib.experiments.comparison import plain_stop_epoch
    # epoch 3 ties epoch 1's accuracy with a lower loss: the trainer counts it as the
    # best, so plain patience 2 runs to epoch 5, not epoch 3
    hist = [(1, 0.8, 0.5), (2, 0.7, 0.6), (3, 0.8, 0.4), (4, 0.7, 0.7), (5, 0.7, 0.7)]
    run = {"config": {"train": {"patience": 2}},
           "history": [{"epoch": e, "valid_accuracy": a, "valid_loss": loss,
                        "train_accuracy": 0.5} for e, a, loss in hist]}
    assert plain_stop_epoch(run) == 5
    run["history"][2]["valid_loss"] = 0.55
    assert plain_stop_epoch(run) == 3
