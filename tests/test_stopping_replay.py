"""Every committed run's stopping, replayed from its history with the trainer's own
rule (lamalib.experiments.comparison.replay_stopping, which uses the trainer's
improvement and stopping tests): the epoch it stopped at and its best epoch match what
its results file records, so a page that replays stopping (the plain-patience reading
of chapter 10's grid) replays what the trainer did."""

import json
from pathlib import Path

import pytest

from lamalib.experiments.comparison import replay_stopping

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _runs():
    for path in sorted(RESULTS.glob("**/*.json")):
        try:
            run = json.loads(path.read_text())
        except ValueError:
            continue
        train = (run.get("config") or {}).get("train") if isinstance(run, dict) else None
        history = run.get("history") if isinstance(run, dict) else None
        if (isinstance(train, dict) and train.get("patience") is not None
                and isinstance(history, list) and history
                and "best_epoch" in run.get("metrics", {})):
            yield path.relative_to(RESULTS).as_posix(), run


RUNS = dict(_runs())


def test_there_are_committed_runs_to_replay():
    assert len(RUNS) > 200


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_committed_run_stopped_where_the_trainers_rule_stops_it(name):
    run = RUNS[name]
    train, history = run["config"]["train"], run["history"]
    last, best, stopped = replay_stopping(history, train["patience"],
                                          train.get("stop_after_rise"))
    assert best == run["metrics"]["best_epoch"], name
    # the rule fires at the file's last epoch, not before; or it never fires and the
    # run ended at its epoch cap
    assert last == history[-1]["epoch"], name
    assert stopped or len(history) == train["epochs"], name


def test_the_replay_counts_an_accuracy_tie_with_a_lower_loss_as_better():
    hist = [{"epoch": e, "valid_accuracy": a, "valid_loss": loss, "train_accuracy": 0.5}
            for e, a, loss in [(1, 0.8, 0.5), (2, 0.7, 0.6), (3, 0.8, 0.4),
                               (4, 0.7, 0.7), (5, 0.7, 0.7)]]
    assert replay_stopping(hist, 2) == (5, 3, True)
    assert replay_stopping(hist[:4], 2) == (4, 3, False)


def test_the_replay_counts_an_accuracy_tie_with_a_higher_loss_as_worse():
    # epoch 1 is best; 2 ties with a higher loss and 3 with the same loss: two bad
    # epochs, so patience 2 stops the run at 3 with its best at 1 (counting a tie as
    # better, as ">=" would, keeps it going to 4 with its best at 3)
    hist = [{"epoch": e, "valid_accuracy": a, "valid_loss": loss, "train_accuracy": 0.5}
            for e, a, loss in [(1, 0.8, 0.5), (2, 0.8, 0.6), (3, 0.8, 0.5),
                               (4, 0.7, 0.4)]]
    assert replay_stopping(hist, 2) == (3, 1, True)
