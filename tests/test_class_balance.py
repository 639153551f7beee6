"""Class imbalance made visible and treatable: macro-F1 and per-class recall in every
results file, in ``report`` and in a run's last line; ``--set class_weights=balanced``
and ``--set select=macro_f1``, on an imbalanced file (85 % one class); a NaN loss stops
the run with one line and no results file."""

import json
import random

import pytest
import torch
import torch.nn.functional as F

from command_helpers import usage_error
from lamalib.experiments.cli import main
from lamalib.models.saved import load_model
from lamalib.train import class_report
from lamalib.train.loop import NonFiniteLoss
from lamalib.train.steps import balanced_weights, scored


def test_macro_f1_weighs_each_class_the_same_and_skips_absent_ones():
    report = class_report([0, 0, 0, 0, 1], [0, 0, 0, 0, 0], ["a", "b", "c"])
    f1_a = 2 * 0.8 * 1 / 1.8  # precision 4/5, recall 1
    assert report.macro_f1 == pytest.approx((f1_a + 0) / 2)  # c: no gold, never said
    assert report.macro("recall") == pytest.approx(0.5)
    assert report.recalls() == {"a": 1.0, "b": 0.0}
    assert report.lowest_recall() == ("b", 0.0)
    said_c = class_report([0, 1], [0, 2], ["a", "b", "c"])  # c predicted: counted
    assert said_c.macro_f1 == pytest.approx(1 / 3)


def test_balanced_weights_by_hand_and_only_in_training():
    w = balanced_weights([0, 0, 0, 1], 3)
    assert w.tolist() == pytest.approx([4 / 9, 4 / 3, 0.0])
    logits = torch.tensor([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    labels = torch.tensor([0, 1, 1])
    model = torch.nn.Linear(1, 1)
    per = F.cross_entropy(logits, labels, reduction="none")
    expected = (per * w[labels]).sum() / w[labels].sum()
    assert float(scored(model.train(), logits, labels, class_weight=w).loss) == \
        pytest.approx(float(expected))
    assert float(scored(model.eval(), logits, labels, class_weight=w).loss) == \
        pytest.approx(float(per.mean()))


def _imbalanced(tmp_path):
    rng = random.Random(0)

    def row():
        if rng.random() < 0.15:
            return "rare\t" + " ".join(rng.choices(["zz", "aa", "bb", "cc", "dd"], k=6))
        return "maj\t" + " ".join(rng.choices(["aa", "bb", "cc", "dd", "ee"], k=6))

    for name, n in (("train.tsv", 600), ("test.tsv", 200)):
        (tmp_path / name).write_text("".join(row() + "\n" for _ in range(n)))
    return tmp_path / "train.tsv", tmp_path / "test.tsv"


def _run(tmp_path, capsys, name, *settings):
    train, test = _imbalanced(tmp_path)
    main(["run", "--model", "avg", "--train", str(train), "--test", str(test),
          "--set", "header=false", "--set", "epochs=8", "--name", name,
          "--results", str(tmp_path / "r"), "--save-model", str(tmp_path / name),
          *[x for s in settings for x in ("--set", s)]])
    out = capsys.readouterr().out
    result = json.loads((tmp_path / "r" / f"run__avg__{name}__s0.json").read_text())
    return result, out


def test_results_file_and_last_line_carry_macro_f1_and_per_class_recall(
        tmp_path, capsys):
    result, out = _run(tmp_path, capsys, "plain")
    m = result["metrics"]
    saved = load_model(tmp_path / "plain")
    gold, texts = [], []
    for line in (tmp_path / "test.tsv").read_text().splitlines():
        label, text = line.split("\t")
        gold.append(saved.labels.index(label))
        texts.append(text)
    expected = class_report(gold, saved.logits(texts).argmax(-1).tolist(),
                            saved.labels)
    assert m["test_accuracy"] == pytest.approx(expected.accuracy)
    assert m["test_macro_f1"] == pytest.approx(expected.macro_f1)
    assert {k: v["recall"] for k, v in m["test_per_class"].items()} == \
        pytest.approx(expected.recalls())
    assert [v["support"] for v in m["test_per_class"].values()] == [
        r["support"] for r in expected.rows]
    low, value = expected.lowest_recall()
    last = [line for line in out.splitlines() if line.startswith("test accuracy")]
    assert len(last) == 1 and last[0].startswith(
        f"test accuracy {expected.accuracy:.4f}, macro-F1 {expected.macro_f1:.4f}, "
        f"lowest recall {value:.2f} ({low}) -> ")
    main(["report", "--results", str(tmp_path / "r"), "--no-course"])
    report = capsys.readouterr().out.splitlines()
    header = report[0].split()
    row = report[1].split()
    assert row[header.index("macro_f1")] == f"{100 * expected.macro_f1:.1f}"
    assert row[header.index("min_recall"):header.index("min_recall") + 2] == [
        low, f"{100 * value:.0f}"]


def test_balanced_weights_raise_the_rare_class_and_select_on_macro_f1(
        tmp_path, capsys):
    plain, _ = _run(tmp_path, capsys, "plain")
    weighted, _ = _run(tmp_path, capsys, "weighted", "class_weights=balanced")
    rare = [r["test_per_class"]["rare"]["recall"] for r in
            (plain["metrics"], weighted["metrics"])]
    assert rare[1] > rare[0] + 0.2  # the rare class is found far more often
    assert weighted["config"]["class_weights"] == "balanced"
    chosen, _ = _run(tmp_path, capsys, "chosen", "select=macro_f1")
    history = chosen["history"]
    assert all("valid_macro_f1" in r for r in history)
    best = max(history, key=lambda r: (r["valid_macro_f1"], -r["valid_loss"]))
    assert chosen["metrics"]["best_epoch"] == best["epoch"]
    assert chosen["metrics"]["selected_by"] == "macro_f1"
    assert chosen["metrics"]["best_valid_macro_f1"] == best["valid_macro_f1"]


def test_bad_choices_are_one_line(tmp_path):
    train, test = _imbalanced(tmp_path)
    base = ["run", "--model", "avg", "--train", str(train), "--test", str(test),
            "--results", str(tmp_path / "r")]
    assert usage_error([*base, "--set", "class_weights=yes"]) == (
        "--set class_weights=yes: class_weights takes one of balanced or none")
    assert usage_error([*base, "--set", "select=f1"]) == (
        "--set select=f1: select takes one of accuracy, macro_f1")
    assert "lr takes a finite number > 0" in usage_error([*base, "--set", "lr=inf"])


def test_a_nan_loss_stops_the_run_with_one_line_and_no_results_file(tmp_path):
    train, test = _imbalanced(tmp_path)
    with pytest.raises(NonFiniteLoss) as caught:
        main(["run", "--model", "avg", "--train", str(train), "--test", str(test),
              "--set", "header=false", "--set", "lr=1e30",
              "--results", str(tmp_path / "r"), "--save-model", str(tmp_path / "m")])
    message = str(caught.value)
    assert "\n" not in message and "not a finite number" in message
    assert message.startswith("epoch 1, batch ")
    assert not list((tmp_path / "r").glob("*.json"))
    assert not (tmp_path / "m").exists()


def test_weights_that_diverge_in_one_step_stop_the_run_at_validation(tmp_path):
    # one batch an epoch: the loss of the only update is finite, the weights after it
    # are not, and the validation loss says so
    rows = [("pos", "a warm funny film"), ("neg", "a dull tedious mess")] * 9
    for name in ("train.tsv", "test.tsv"):
        (tmp_path / name).write_text("".join(f"{y}\t{x}\n" for y, x in rows))
    with pytest.raises(NonFiniteLoss) as caught:
        main(["run", "--model", "avg", "--train", str(tmp_path / "train.tsv"),
              "--test", str(tmp_path / "test.tsv"), "--set", "header=false",
              "--set", "lr=1e30", "--results", str(tmp_path / "r")])
    assert str(caught.value).startswith("epoch 1: the validation loss is nan")
    assert not list((tmp_path / "r").glob("*.json"))
