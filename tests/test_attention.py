"""Every score function against a brute-force loop; Attention against PyTorch's SDPA."""

import math

import pytest
import torch
import torch.nn.functional as F

from lamalib.nn.attention import Attention
from lamalib.nn.attention.pool import AttentionPool
from lamalib.nn.attention.scores import SCORES, build_score

B, TQ, TK, D = 2, 3, 4, 5


def brute_score(score, q, k):
    """The textbook formula of ``score`` on every (b, i, j) pair, one at a time."""
    out = torch.empty(q.shape[0], q.shape[1], k.shape[1])
    for b in range(q.shape[0]):
        for i in range(q.shape[1]):
            for j in range(k.shape[1]):
                qi, kj = q[b, i], k[b, j]
                name = score.name
                if name == "additive":  # v^T tanh(W1 k + W2 q + b)
                    h = torch.tanh(score.w_k.weight @ kj + score.w_k.bias
                                   + score.w_q.weight @ qi)
                    s = score.v.weight[0] @ h
                elif name == "concat":  # v^T tanh(W [k; q] + b)
                    h = torch.tanh(score.w.weight @ torch.cat([kj, qi]) + score.w.bias)
                    s = score.v.weight[0] @ h
                elif name == "dot":
                    s = torch.dot(qi, kj)
                elif name == "scaled_dot":
                    s = torch.dot(qi, kj) / math.sqrt(kj.numel())
                elif name == "general":  # q^T W k
                    s = qi @ score.w.weight @ kj
                elif name == "location":  # f(q): row j of W q + b
                    s = score.w.weight[j] @ qi + score.w.bias[j]
                elif name == "cosine":
                    s = score.scale * torch.dot(qi, kj) / (qi.norm() * kj.norm())
                else:
                    raise AssertionError(f"no brute-force reference for {name}")
                out[b, i, j] = s
    return out


def test_registry_holds_every_score_of_the_survey():
    assert set(SCORES) == {"additive", "concat", "dot", "scaled_dot", "general",
                           "location", "cosine"}
    with pytest.raises(ValueError, match="choose one of"):
        build_score("bilinear-ish", 4, 4)


@pytest.mark.parametrize("name", sorted(SCORES))
def test_score_matches_brute_force(name):
    torch.manual_seed(0)
    score = build_score(name, D, D)
    q, k = torch.randn(B, TQ, D), torch.randn(B, TK, D)
    got = score(q, k)
    assert got.shape == (B, TQ, TK)
    torch.testing.assert_close(got, brute_score(score, q, k), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", ["additive", "concat", "general", "location"])
def test_projecting_scores_accept_different_widths(name):
    torch.manual_seed(1)
    score = build_score(name, 3, 6)
    q, k = torch.randn(B, TQ, 3), torch.randn(B, TK, 6)
    expected = brute_score(score, q, k)
    torch.testing.assert_close(score(q, k), expected, atol=1e-5, rtol=1e-5)


def test_direct_scores_refuse_different_widths_with_advice():
    with pytest.raises(ValueError, match="general"):
        build_score("dot", 3, 6)


def test_scaled_dot_attention_equals_pytorch_sdpa():
    torch.manual_seed(2)
    q, k, v = torch.randn(B, TQ, D), torch.randn(B, TK, D), torch.randn(B, TK, 7)
    mask = torch.tensor([[True, True, True, False], [True, False, False, False]])
    context, weights = Attention("scaled_dot", D)(q, k, v, mask)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, :])
    torch.testing.assert_close(context, expected, atol=1e-6, rtol=1e-5)
    assert (weights[~mask[:, None, :].expand_as(weights)] == 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(B, TQ))


@pytest.mark.parametrize("name", sorted(set(SCORES) - {"location"}))
def test_padding_keys_never_change_the_context(name):
    # Location scores read positions, not content; padding at the end still never
    # moves weight, which the masked-out zeros check below covers for every score.
    torch.manual_seed(3)
    attention = Attention(name, D)
    q, k, v = torch.randn(1, TQ, D), torch.randn(1, TK, D), torch.randn(1, TK, D)
    alone, _ = attention(q, k, v)
    pad_k = torch.cat([k, 100 * torch.randn(1, 2, D)], dim=1)
    pad_v = torch.cat([v, 100 * torch.randn(1, 2, D)], dim=1)
    mask = torch.tensor([[True] * TK + [False, False]])
    padded, weights = attention(q, pad_k, pad_v, mask)
    torch.testing.assert_close(padded, alone, atol=1e-5, rtol=1e-5)
    assert (weights[..., TK:] == 0).all()


def test_single_query_and_pool_match_explicit_loop():
    torch.manual_seed(4)
    pool = AttentionPool(D)
    x = torch.randn(B, TK, D)
    mask = torch.tensor([[True] * TK, [True, True, False, False]])
    pooled, weights = pool(x, mask)
    assert pooled.shape == (B, D) and weights.shape == (B, TK)
    for b in range(B):
        n = int(mask[b].sum())
        s = brute_score(pool.attention.score, pool.query[None, None], x[b : b + 1, :n])
        a = torch.softmax(s[0, 0], dim=0)
        torch.testing.assert_close(weights[b, :n], a, atol=1e-6, rtol=1e-5)
        torch.testing.assert_close(pooled[b], a @ x[b, :n], atol=1e-6, rtol=1e-5)
    assert torch.equal(pool.last_weights, weights.detach())
