"""``run --train FILE --set test_fraction=F``: one labelled file split into a
stratified, seeded test set and the training data (validation split off the rest),
recorded in the results file."""

import json
from collections import Counter

import pytest

from command_helpers import usage_error
from labelled_files import write_tsv
from lamalib.experiments.cli import main
from lamalib.experiments.runner import load_data
from lamalib.experiments.spec import RunSpec


def _argv(tmp_path, *extra):
    train = write_tsv(tmp_path / "reviews.tsv", 40)
    return ["run", "--model", "avg", "--train", str(train), "--set", "header=false",
            "--set", "epochs=1", "--set", "embed_dim=8",
            "--results", str(tmp_path / "results"),
            "--checkpoints", str(tmp_path / "ckpt"), *extra]


def test_test_fraction_splits_the_one_file_and_is_recorded(tmp_path, capsys):
    main(_argv(tmp_path, "--set", "test_fraction=0.2"))
    record = json.loads(
        (tmp_path / "results" / "run__avg__reviews__s0.json").read_text())
    assert record["config"]["test_fraction"] == 0.2
    assert record["config"]["test_file"] is None
    sizes = record["dataset_identity"]["sizes"]
    assert sizes["test"] == 8 and sum(sizes.values()) == 40
    spec = RunSpec(dataset="file", train_file=str(tmp_path / "reviews.tsv"),
                   test_fraction=0.2, file_options={"header": False})
    train, valid, test = load_data(spec)
    assert Counter(test.labels) == {0: 4, 1: 4}  # stratified: 20 % of each class
    assert test.split == "test"
    seen = set(train.texts) | set(valid.texts)
    assert not seen & set(test.texts) and len(seen | set(test.texts)) == 40
    assert load_data(spec)[2].texts == test.texts  # seeded: the same split again


def test_test_fraction_errors_are_one_line(tmp_path):
    test = write_tsv(tmp_path / "test.tsv", 6)
    assert usage_error(_argv(tmp_path, "--test", str(test), "--set",
                             "test_fraction=0.1")) == (
        f"--set test_fraction=0.1 and --test {test}: give one (the test split is "
        "either your file or a share of --train)")
    assert usage_error(_argv(tmp_path)) == (
        "--train FILE needs --test FILE (the file the run is tested on), or --set "
        "test_fraction=0.1 to test on a stratified tenth of it")
    assert usage_error(_argv(tmp_path, "--set", "test_fraction=1")) == (
        "--set test_fraction=1: test_fraction takes a number in (0, 1) or none")
    assert usage_error(["run", "--model", "avg", "--dataset", "movie_reviews",
                        "--set", "test_fraction=0.1"]).startswith(
        "--set test_fraction=0.1 splits a test set off your --train FILE")
    with pytest.raises(ValueError, match="has its own"):
        load_data(RunSpec(test_fraction=0.1))
