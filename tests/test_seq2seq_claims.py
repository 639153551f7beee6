"""The seq2seq page's table and calls: seeds paired, the bottleneck's difference of
differences, 95 % intervals and Holm over the page."""

import dataclasses
import json
import math

import pytest
from scipy import stats

from lamalib.experiments.claims import REPRODUCED
from lamalib.experiments.seq2seq_claims import (bottleneck_call, calls_table,
                                                length_curve, load_seq2seq_runs,
                                                page_calls, paired_call, score_table)


def fake_run(model, seed, bleu, beam, short, long, dataset="d"):
    return {"experiment": "seq2seq", "model": model, "dataset": dataset,
            "config": {"seed": seed},
            "metrics": {"bleu": bleu, "chrf": bleu + 10, "bleu_beam": beam},
            "bleu_by_length": [{"low": 1, "high": 5, "n": 3, "bleu": short},
                               {"low": 6, "high": 99, "n": 2, "bleu": long}],
            "history": [{}] * (5 + seed), "stopped_early": True}


RUNS = ([fake_run("plain", s, 10 + s, 10.5 + s, 20 + s, 4 + s) for s in range(3)]
        + [fake_run("bahdanau", s, 14 + 2 * s, 15 + 2 * s, 21 + s, 15 + 2 * s)
           for s in range(3)])


def test_calls_pair_the_same_seeds():
    a = {0: 5.0, 1: 7.0, 2: 6.0, 3: 100.0}  # seed 3 has no partner: left out
    b = {0: 4.0, 1: 5.0, 2: 3.0}
    call = paired_call("a beats b", "d", "BLEU", a, b)
    assert call.diffs == {0: 1.0, 1: 2.0, 2: 3.0}
    half = stats.t.ppf(0.975, 2) * 1.0 / math.sqrt(3)  # sd of 1, 2, 3 is 1
    assert call.verdict.low == pytest.approx(2.0 - half)
    assert call.verdict.high == pytest.approx(2.0 + half)


def test_bottleneck_is_the_long_gap_minus_the_short_gap():
    call = bottleneck_call(RUNS, "d", "bahdanau")
    # seed s: (15 + 2s - (4 + s)) - (21 + s - (20 + s)) = 11 + s - 1 = 10 + s
    assert call.diffs == {0: 10.0, 1: 11.0, 2: 12.0}
    assert call.verdict.outcome == REPRODUCED


def test_page_calls_and_holm():
    calls = page_calls(RUNS)
    names = [c.name for c in calls]
    assert names == ["bahdanau beats plain", "beam beats greedy (bahdanau)",
                     "beam beats greedy (plain)", "bahdanau gains more on long sources"]
    p = {c.name: c.verdict.p for c in calls}
    # beam - greedy is the constant 1.0 (bahdanau) and 0.5 (plain): no spread, p = 0
    assert p["beam beats greedy (bahdanau)"] == p["beam beats greedy (plain)"] == 0.0
    # Holm over the four calls: the smallest p against 0.05 / 4, the next 0.05 / 3, ...
    ranked = sorted(calls, key=lambda c: c.verdict.p)
    expected, going = [], True
    for k, c in enumerate(ranked):
        going = going and c.verdict.p <= 0.05 / (4 - k)
        expected.append(going)
    assert [c.survives_holm for c in ranked] == expected
    # 4, 5, 6 over 3 seeds: p = 0.013, above Bonferroni's 0.05 / 4 but it is the
    # largest p, so Holm compares it with 0.05 / 1 and it survives
    assert 0.05 / 4 < p["bahdanau beats plain"] < 0.05
    assert all(c.survives_holm for c in calls)


def test_calls_table_says_yes_or_no_for_holm():
    calls = page_calls(RUNS)
    calls[1] = dataclasses.replace(calls[1], survives_holm=False)
    table = calls_table(calls)
    assert table["survives Holm"].tolist() == ["yes", "no", "yes", "yes"]
    assert table["difference [95 % CI], p"][0].startswith("+")


def test_table_means_intervals_and_epochs():
    table = score_table(RUNS).set_index("model")
    assert table.loc["plain", "bleu"] == pytest.approx(11.0)
    assert table.loc["plain", "bleu_pm"] == pytest.approx(stats.t.ppf(0.975, 2)
                                                          / math.sqrt(3))
    assert table.loc["bahdanau", "epochs"] == pytest.approx(6.0)
    curve = length_curve(RUNS)
    assert set(curve["source length"]) == {"1-5", "6+"} and len(curve) == 12


def test_loader_reads_complete_files_only(tmp_path):
    (tmp_path / "seq2seq__plain__d__s0.json").write_text(json.dumps(RUNS[0]))
    (tmp_path / "seq2seq__plain__d__s1.json").write_text(json.dumps({"metrics": {}}))
    (tmp_path / "run__avg__d__s0.json").write_text(json.dumps(RUNS[1]))
    runs = load_seq2seq_runs(tmp_path)
    assert [r["file"] for r in runs] == ["seq2seq__plain__d__s0.json"]
