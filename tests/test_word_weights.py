"""lamalib.analysis.word_weights against brute-force loops, one document at a time."""

import pytest
import torch

from lamalib.analysis.word_weights import (token_weights, top_attended_words,
                                           top_relative_weight_words,
                                           word_occurrence_weights)
from lamalib.data.batching import BucketBatches
from lamalib.models import build_model

V, C = 12, 3
DOCS = [[1, 2, 3, 4], [5, 1, 1], [2, 6, 7, 8, 9, 1], [3, 3], [10, 11, 2, 4, 5],
        [1], [4, 7, 1, 2, 2, 6, 9]]
LABELS = [0, 1, 2, 0, 1, 2, 0]


@pytest.fixture(params=["lama_ctx", "lama"])
def model(request):
    torch.manual_seed(0)
    return build_model(request.param, vocab_size=V, num_classes=C, embed_dim=6,
                       hidden_size=4, heads=3, mlp_size=5, dropout=0.5)


def batches():  # padded, bucketed, shuffled: the order must not matter
    return BucketBatches(DOCS, LABELS, batch_size=3, shuffle=True, seed=1)


def alone(model, ids):
    """Each head's weights of one document run alone (no padding), as lists."""
    model.eval()
    with torch.no_grad():
        x = torch.tensor([ids])
        model(x, torch.ones_like(x, dtype=torch.bool))
    A = model.last_weights[0].tolist()  # (m, T)
    return [sum(A[h][t] for h in range(len(A))) / len(A) for t in range(len(ids))]


def test_token_weights_average_heads_and_drop_pads(model):
    seen = sorted(token_weights(model, batches()), key=lambda r: DOCS.index(r[0]))
    assert [ids for ids, _, _ in seen] == DOCS
    for (ids, weights, label), doc, y in zip(seen, DOCS, LABELS):
        assert label == y
        assert weights == pytest.approx(alone(model, doc), abs=1e-6)
        assert sum(weights) == pytest.approx(1.0, abs=1e-5)  # a softmax per head


def test_word_occurrence_weights_brute_force(model):
    words = {"a": 1, "b": 2, "z": 11}
    rows = word_occurrence_weights(model, batches(), words)
    expected = []
    for doc, y in zip(DOCS, LABELS):
        w = alone(model, doc)
        for t, token in enumerate(doc):
            for word, i in words.items():
                if token == i:
                    expected.append((word, y, w[t], len(doc)))
    got = [(r["word"], r["label"], r["weight"], r["length"]) for r in rows]
    key = lambda r: (r[0], r[1], r[3], round(r[2], 5))  # noqa: E731
    assert len(got) == len(expected) == 12  # six 1s, five 2s, one 11
    for g, e in zip(sorted(got, key=key), sorted(expected, key=key)):
        assert g[:2] == e[:2] and g[3] == e[3]
        assert g[2] == pytest.approx(e[2], abs=1e-6)


def test_top_attended_words_brute_force(model):
    itos = [f"w{i}" for i in range(V)]
    top = top_attended_words(model, batches(), itos, k=3, per_document=2, skip=[9])
    votes = {}
    for doc, y in zip(DOCS, LABELS):
        w = alone(model, doc)
        ranked = sorted(range(len(doc)), key=lambda t: -w[t])
        chosen = []
        for t in ranked:
            if doc[t] != 9 and doc[t] not in chosen and len(chosen) < 2:
                chosen.append(doc[t])
        for i in chosen:
            votes.setdefault(y, {}).setdefault(itos[i], 0)
            votes[y][itos[i]] += 1
    assert set(top) == {0, 1, 2}
    for y, pairs in top.items():
        counts = sorted(votes[y].values(), reverse=True)
        assert [n for _, n in pairs] == counts[:3]  # the k largest vote counts
        assert all(votes[y][word] == n for word, n in pairs)
    assert all("w9" not in dict(p) for p in top.values())  # skipped ids never count


def test_top_relative_weight_words_brute_force(model):
    itos = [f"w{i}" for i in range(V)]
    top = top_relative_weight_words(model, batches(), itos, k=2, min_count=2, skip=[4])
    per = {}
    for doc, y in zip(DOCS, LABELS):
        w = alone(model, doc)
        for t, token in enumerate(doc):
            if token != 4:
                per.setdefault(y, {}).setdefault(itos[token], []).append(
                    w[t] * len(doc))
    for y, pairs in top.items():
        means = sorted((sum(v) / len(v) for v in per[y].values() if len(v) >= 2),
                       reverse=True)
        assert [m for _, m, _ in pairs] == pytest.approx(means[:2], abs=1e-5)
        for word, m, n in pairs:
            assert n == len(per[y][word]) >= 2
            assert m == pytest.approx(sum(per[y][word]) / n, abs=1e-5)
    # class 0: w1 (x2), w2 (x3), w3 (x3) reach min_count; w4 (x2) is skipped
    assert {w for w, _, _ in top[0]} < {"w1", "w2", "w3"} and len(top[0]) == 2
