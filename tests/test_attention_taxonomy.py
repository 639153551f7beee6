"""Co-attention, hierarchical, multi-dimensional attention and key-value memory,
each against an explicit loop."""

import torch

from lamalib.nn.attention.coattention import CoAttention
from lamalib.nn.attention.hierarchical import HierarchicalAttention
from lamalib.nn.attention.memory import KeyValueMemory
from lamalib.nn.attention.multidim import MultiDimensionalAttention


def softmax_over(values):
    return torch.softmax(torch.stack(values), 0)


def test_coattention_rows_and_columns_of_one_affinity():
    torch.manual_seed(0)
    co = CoAttention(3, 4)
    a, b = torch.randn(2, 5, 3), torch.randn(2, 6, 4)
    mask_a = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    mask_b = torch.tensor([[True] * 4 + [False] * 2, [True] * 6])
    (ca, cb), (ab, ba) = co(a, b, mask_a, mask_b)
    W = co.affinity.w.weight  # (Da, Db)
    for n in range(2):
        na, nb = int(mask_a[n].sum()), int(mask_b[n].sum())
        L = [[a[n, i] @ W @ b[n, j] for j in range(nb)] for i in range(na)]
        for i in range(na):
            w = softmax_over(L[i])
            torch.testing.assert_close(ab[n, i, :nb], w, atol=1e-6, rtol=1e-5)
            torch.testing.assert_close(ca[n, i], w @ b[n, :nb], atol=1e-6, rtol=1e-5)
        for j in range(nb):
            w = softmax_over([L[i][j] for i in range(na)])
            torch.testing.assert_close(ba[n, j, :na], w, atol=1e-6, rtol=1e-5)
            torch.testing.assert_close(cb[n, j], w @ a[n, :na], atol=1e-6, rtol=1e-5)


def test_hierarchical_pools_words_then_sentences():
    torch.manual_seed(1)
    han = HierarchicalAttention(4)
    x = torch.randn(2, 3, 5, 4)
    mask = torch.ones(2, 3, 5, dtype=torch.bool)
    mask[0, 1, 2:] = False
    mask[1, 2] = False  # document 1 has only two sentences
    doc, (word_w, sent_w) = han(x, mask)
    assert (sent_w[1, 2] == 0).all() and (word_w[0, 1, 2:] == 0).all()
    for n in range(2):
        sentences = []
        for s in range(3):
            if mask[n, s].any():
                v, _ = han.words(x[n, s][None, mask[n, s]])  # the sentence alone
                sentences.append(v[0])
        expected, _ = han.sentences(torch.stack(sentences)[None])
        torch.testing.assert_close(doc[n], expected[0], atol=1e-6, rtol=1e-5)


def test_multidimensional_softmax_per_feature():
    torch.manual_seed(2)
    md = MultiDimensionalAttention(3, 5)
    x = torch.randn(2, 4, 3)
    mask = torch.tensor([[True] * 4, [True, True, False, False]])
    pooled, weights = md(x, mask)
    for n in range(2):
        T = int(mask[n].sum())
        for d in range(3):
            scores = [(md.w2.weight[d] @ torch.tanh(md.w1(x[n, t])) + md.w2.bias[d])
                      for t in range(T)]
            w = softmax_over(scores)
            torch.testing.assert_close(weights[n, :T, d], w, atol=1e-6, rtol=1e-5)
            torch.testing.assert_close(pooled[n, d], w @ x[n, :T, d], atol=1e-6,
                                       rtol=1e-5)
    assert (weights[1, 2:] == 0).all()


def test_key_value_memory_hops_match_a_loop():
    torch.manual_seed(3)
    mem = KeyValueMemory(4, hops=2)
    q, keys, values = torch.randn(2, 4), torch.randn(2, 6, 4), torch.randn(2, 6, 4)
    mask = torch.tensor([[True] * 6, [True] * 3 + [False] * 3])
    answer, weights = mem(q, keys, values, mask)
    for n in range(2):
        M, state = int(mask[n].sum()), q[n]
        for h, R in enumerate(mem.update):
            w = softmax_over([state @ keys[n, m] for m in range(M)])  # dot addressing
            torch.testing.assert_close(weights[n, h, :M], w, atol=1e-6, rtol=1e-5)
            state = R.weight @ (state + w @ values[n, :M])
        torch.testing.assert_close(answer[n], state, atol=1e-5, rtol=1e-5)
