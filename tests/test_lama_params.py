"""The Table 5 count (lamalib.analysis.lama_params) against a count by hand of every
layer of a tiny LAMA and TE, and the script that writes results/table5_params.json."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lamalib.analysis.lama_params import (BIGRU_READINGS, PAPER_HEADS, table5,
                                          table5_counts)

ROOT = Path(__file__).resolve().parents[1]
V, C, E, H, M, MLP = 10, 3, 4, 3, 2, 5  # vocabulary, classes, LAMA's sizes
DM, FF, POS = 8, 12, 7  # TE's d_model, feed-forward width, positions


def lama_by_hand(learned_context: bool) -> int:
    D = 2 * H  # BiGRU annotations
    embed = V * E
    gru = 2 * (3 * H * E + 3 * H * H + 2 * 3 * H)  # 2 directions; W_ih, W_hh, b_ih, b_hh
    attention = D * D + D + 2 * D * M  # W_w, b_w (eq. 7), P~ and Q~ (rank 1)
    context = D if learned_context else 0  # LAMA learns c; LAMA+ctx averages H
    mlp = M * D * MLP + MLP + MLP * C + C  # flattened S (m x D) -> MLP -> C
    return embed + gru + attention + context + mlp


def te_by_hand() -> int:
    embed = V * DM + POS * DM  # tokens and learned positions
    attention = 4 * (DM * DM + DM)  # Q, K, V, output projections
    ff = DM * FF + FF + FF * DM + DM
    norms = 2 * 2 * DM  # two LayerNorms (post-norm), weight and bias
    head = DM * MLP + MLP + MLP * C + C  # the same hidden layer as LAMA's classifier
    return embed + attention + ff + norms + head


def test_counts_equal_a_count_by_hand_of_every_layer():
    counts = table5_counts(V, C, M, H, embed_dim=E, d_model=DM, mlp_size=MLP, d_ff=FF,
                           max_positions=POS)
    assert counts["lama"] == lama_by_hand(True) == 357
    assert counts["lama_ctx"] == lama_by_hand(False)
    assert counts["te"] == te_by_hand() == 731
    assert counts["lama_attention"] == (2 * H) ** 2 + 2 * H + 2 * 2 * H * M + 2 * H
    assert counts["te_attention"] == 4 * (DM * DM + DM)
    assert counts["te_over_lama"] == pytest.approx(731 / 357)


def test_te_does_not_grow_with_heads_and_lama_grows_by_its_pq_and_classifier():
    rows = table5(V, C, heads=(2, 4), readings={"tiny": H})
    assert [(r["reading"], r["heads"]) for r in rows] == [("tiny", 2), ("tiny", 4)]
    # the full table at the paper's sizes: TE depends on neither m nor the GRU
    full = table5(1000, 2)
    assert len(full) == len(BIGRU_READINGS) * len(PAPER_HEADS)
    assert len({r["te"] for r in full}) == 1
    for reading, h in BIGRU_READINGS.items():
        mine = [r for r in full if r["reading"] == reading]
        D = 2 * h
        for a, b in zip(mine, mine[1:]):  # per head: P~, Q~ and D * 1024 MLP inputs
            assert b["lama"] - a["lama"] == (2 * D + D * 1024) * (b["heads"] - a["heads"])


def test_the_script_writes_vocab_sizes_counts_and_ratios(tmp_path):
    out = tmp_path / "table5_params.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "table5_params.py"), "--datasets",
         "movie_reviews", "--min-freq", "2", "--out", str(out)],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    mr = record["metrics"]["datasets"]["movie_reviews"]
    assert 2 < mr["vocab_size"] < mr["vocab_size_min_freq_1"]
    row = mr["rows"][0]
    assert row["te_over_lama"] == row["te"] / row["lama"]
    assert row == {**table5(mr["vocab_size"], mr["num_classes"])[0]}
    assert str(tmp_path) not in out.read_text()  # no folder of this machine


def test_the_script_rejects_an_unknown_dataset_in_one_line():
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "table5_params.py"), "--datasets",
         "nope"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "'nope'" in done.stderr
