"""Attention distance (lamalib.analysis.attention_distance): each distance against a
brute-force loop over sentences, heads and queries; constructed heads (always the
previous token, always the last token, uniform) give the distances one computes by
hand; a trained-model run reads the model's own weights and ignores padding."""

import pytest
import torch

from lamalib.analysis.attention_distance import (AttentionDistances, argmax_distance,
                                                 attention_distances,
                                                 chance_distance, expected_distance)
from lamalib.models.te import TEClassifier
from lamalib.nn.masking import lengths_to_mask, masked_softmax

pytestmark = pytest.mark.usefixtures("one_thread")


def _random_weights(L=2, B=3, H=4, T=7, lengths=(7, 4, 1), seed=0):
    g = torch.Generator().manual_seed(seed)
    mask = lengths_to_mask(torch.tensor(lengths), T)  # (B, T)
    scores = torch.randn(L, B, H, T, T, generator=g)
    return masked_softmax(scores, mask[None, :, None, None, :]), mask


def _brute_force(weights, mask):
    L, B, H, T, _ = weights.shape
    arg = [[[] for _ in range(H)] for _ in range(L)]
    exp = [[[] for _ in range(H)] for _ in range(L)]
    chance = []
    for b in range(B):
        n = int(mask[b].sum())
        for i in range(n):
            chance.append(sum(abs(i - j) for j in range(n)) / n)
            for l in range(L):
                for h in range(H):
                    row = weights[l, b, h, i].tolist()
                    best = max(range(T), key=lambda j: (row[j], -j))  # leftmost max
                    arg[l][h].append(abs(i - best))
                    exp[l][h].append(sum(row[j] * abs(i - j) for j in range(T)))
    return torch.tensor(arg), torch.tensor(exp), torch.tensor(chance)


def test_distances_equal_a_brute_force_loop():
    weights, mask = _random_weights()
    arg, exp, chance = _brute_force(weights, mask)
    assert argmax_distance(weights, mask).shape == (2, 4, 12)  # 7 + 4 + 1 queries
    assert torch.equal(argmax_distance(weights, mask), arg)
    assert torch.allclose(expected_distance(weights, mask), exp, atol=1e-5)
    assert torch.allclose(chance_distance(mask), chance)


def _constructed(T=6, lengths=(6, 4)):
    """Head 0: always the previous token (the first token itself); head 1: always
    the sentence's last real token; head 2: uniform over the real tokens."""
    mask = lengths_to_mask(torch.tensor(lengths), T)  # (B, T)
    w = torch.zeros(1, len(lengths), 3, T, T)
    for b, n in enumerate(lengths):
        for i in range(T):
            w[0, b, 0, i, max(i - 1, 0)] = 1.0
            w[0, b, 1, i, n - 1] = 1.0
            w[0, b, 2, i, :n] = 1.0 / n
    return w, mask


def test_constructed_heads_give_the_distances_by_hand():
    w, mask = _constructed()
    arg = argmax_distance(w, mask)[0]  # (H, Q): queries 0..5 of sentence 1, 0..3 of 2
    assert arg[0].tolist() == [0, 1, 1, 1, 1, 1] + [0, 1, 1, 1]  # previous token
    assert arg[1].tolist() == [5, 4, 3, 2, 1, 0] + [3, 2, 1, 0]  # last real token
    assert arg[2].tolist() == [0, 1, 2, 3, 4, 5] + [0, 1, 2, 3]  # tie: leftmost key
    exp = expected_distance(w, mask)[0]
    assert torch.allclose(exp[:2], arg[:2].float())  # one-hot: expected = argmax
    assert torch.allclose(exp[2], chance_distance(mask))  # uniform = chance
    # i = 0 of a 6-token sentence: (0 + 1 + ... + 5) / 6
    assert chance_distance(mask)[0] == pytest.approx(15 / 6)


def test_histogram_counts_every_query_and_clips_the_tail():
    w, mask = _constructed()
    d = AttentionDistances(argmax_distance(w, mask), expected_distance(w, mask),
                           torch.tensor([6] * 6 + [4] * 4), chance_distance(mask))
    per_head = d.histogram(3, per_head=True)  # (L, H, 4)
    assert per_head[0, 0].tolist() == [2, 8, 0, 0]
    assert per_head[0, 1].tolist() == [2, 2, 2, 4]  # 3, 4 and 5 share the last bin
    assert torch.equal(d.histogram(3), per_head.sum(1))
    assert int(d.histogram(3).sum()) == 3 * 10
    row = d.summary(local=1)[0]
    assert row["share_local"] == pytest.approx((10 + 4 + 4) / 30)
    assert row["per_head_mean_argmax"][0] == pytest.approx(8 / 10)


def test_model_run_reads_its_own_weights_and_ignores_padding():
    torch.manual_seed(0)
    model = TEClassifier(20, 2, d_model=16, n_heads=2, d_ff=16, n_layers=3)
    sentences = [[3, 4, 5, 6, 7], [8, 9], [10, 11, 12]]
    T = 5
    tokens = torch.zeros(3, T, dtype=torch.long)
    for b, s in enumerate(sentences):
        tokens[b, :len(s)] = torch.tensor(s)
    mask = tokens != 0
    together = attention_distances(model, [(tokens, mask)])
    assert together.argmax.shape == (3, 2, 10) and model.training  # mode restored
    model.eval()
    model.keep_weights(True)
    with torch.no_grad():
        model(tokens, mask)
    want = _brute_force(model.attention_weights(), mask)
    model.keep_weights(False)
    assert torch.equal(together.argmax, want[0])
    assert torch.allclose(together.expected, want[1], atol=1e-5)
    # each sentence alone, without pads, gives the same distances
    alone = [attention_distances(model, [(torch.tensor([s]),
                                          torch.ones(1, len(s), dtype=torch.bool))])
             for s in sentences]
    assert torch.equal(together.argmax, torch.cat([a.argmax for a in alone], -1))
    assert torch.allclose(together.expected,
                          torch.cat([a.expected for a in alone], -1), atol=1e-5)
    assert together.lengths.tolist() == [5] * 5 + [2] * 2 + [3] * 3


def test_no_batches_is_a_clear_error():
    model = TEClassifier(20, 2, d_model=16, n_heads=2, d_ff=16, n_layers=1)
    with pytest.raises(ValueError, match="at least one batch"):
        attention_distances(model, [])


def test_record_is_json_ready_and_matches_the_histogram():
    import json

    w, mask = _constructed()
    d = AttentionDistances(argmax_distance(w, mask), expected_distance(w, mask),
                           torch.tensor([6] * 6 + [4] * 4), chance_distance(mask))
    record = json.loads(json.dumps(d.record(3)))
    assert record["histogram"] == d.histogram(3, per_head=True).tolist()
    assert record["queries"] == 10 and record["mean_length"] == pytest.approx(5.2)
    assert record["summary"] == d.summary(local=1)


def test_the_full_profile_tool_writes_what_the_chapter_reads(tmp_path):
    # tools/msa_attention_distance.py on the embedded task, tiny and for one epoch
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "msa_attention_distance.py"
    spec = importlib.util.spec_from_file_location("msa_attention_distance", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    tool.main(["--dataset", "synthetic_sentiment", "--epochs", "1", "--d-model", "8",
               "--heads", "2", "--layers", "2", "--out", str(tmp_path)])
    record = json.loads((tmp_path / "synthetic_sentiment.json").read_text())
    assert "--out" not in record["command"] and "--layers 2" in record["command"]
    for kind in ("trained", "untrained"):
        d = record["distances"][kind]
        assert len(d["histogram"]) == 2 and len(d["histogram"][0]) == 2
        assert all(sum(map(sum, layer)) == 2 * d["queries"] for layer in d["histogram"])
        assert [r["layer"] for r in d["summary"]] == [1, 2]
    assert record["metrics"]["test_accuracy"] >= 0 and record["git_commit"]
