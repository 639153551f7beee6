"""Hard attention (argmax, REINFORCE, straight-through) and Luong's local attention,
each against a brute-force computation."""

import math

import torch

from lamalib.nn.attention import Attention
from lamalib.nn.attention.hard import HardAttention, reinforce_loss
from lamalib.nn.attention.local import LocalAttention
from lamalib.nn.attention.scores import build_score


def test_eval_mode_picks_the_argmax_value():
    torch.manual_seed(0)
    hard = HardAttention("general", 4).eval()
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    mask = torch.tensor([[True] * 5, [True, True, False, False, False]])
    context, weights = hard(q, k, v, mask)
    soft = Attention(hard.score)(q, k, v, mask)[1]
    for b in range(2):
        for i in range(3):
            j = int(soft[b, i].argmax())
            assert torch.equal(context[b, i], v[b, j])
            assert weights[b, i].tolist() == [float(x == j) for x in range(5)]


def test_samples_follow_the_soft_weights_and_skip_padding():
    torch.manual_seed(1)
    hard = HardAttention("dot", 3).train()
    q = torch.randn(1, 1, 3).expand(4000, 1, 3)
    k = torch.randn(1, 4, 3).expand(4000, 4, 3)
    mask = torch.tensor([True, True, True, False]).expand(4000, 4)
    _, weights = hard(q, k, k, mask)
    frequency = weights.mean(0)[0]  # (Tk,) how often each key was picked
    assert frequency[3] == 0
    torch.testing.assert_close(frequency, hard.last_soft[0, 0], atol=0.03, rtol=0)


def test_reinforce_is_an_unbiased_estimate_of_the_exact_gradient():
    torch.manual_seed(2)
    hard = HardAttention("general", 3).train()
    q, k = torch.randn(1, 1, 3), torch.randn(1, 4, 3)
    reward_per_key = torch.tensor([1.0, -2.0, 0.5, 3.0])
    # exact: the gradient of the expected reward sum_j a_j r_j through the soft weights
    soft = Attention(hard.score)(q, k, k)[1][0, 0]
    (exact,) = torch.autograd.grad(-(soft * reward_per_key).sum(), hard.score.w.weight)
    n = 40000
    _, weights = hard(q.expand(n, 1, 3), k.expand(n, 4, 3), k.expand(n, 4, 3))
    reward = weights[:, 0] @ reward_per_key  # (n,)
    loss = reinforce_loss(hard.last_log_prob, reward[:, None], baseline=0.0)
    (estimate,) = torch.autograd.grad(loss, hard.score.w.weight)
    tolerance = 0.05 * float(exact.abs().max())
    torch.testing.assert_close(estimate, exact, atol=tolerance, rtol=0.05)


def test_straight_through_value_is_hard_and_gradient_is_soft():
    torch.manual_seed(3)
    hard = HardAttention("general", 4, estimator="straight_through").eval()
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 4)
    context, weights = hard(q, k, v)
    picks = torch.nn.functional.one_hot(weights.argmax(-1), 5).float()
    torch.testing.assert_close(weights.detach(), picks)  # one-hot up to rounding
    (g_hard,) = torch.autograd.grad(context.sum(), hard.score.w.weight)
    soft_context, _ = Attention(hard.score)(q, k, v)
    (g_soft,) = torch.autograd.grad(soft_context.sum(), hard.score.w.weight)
    torch.testing.assert_close(g_hard, g_soft)


def test_plain_hard_attention_gives_the_score_no_gradient():
    hard = HardAttention("general", 4, estimator="reinforce").eval()
    q, k = torch.randn(1, 2, 4), torch.randn(1, 5, 4)
    context, _ = hard(q, k, k.clone().requires_grad_())
    (grads,) = torch.autograd.grad(context.sum(), [hard.score.w.weight],
                                   allow_unused=True)
    assert grads is None  # the cost of non-differentiability


@torch.no_grad()
def brute_local(local, q, k, v, mask):
    """Luong local attention, one (b, t) at a time, following the paper's formulas."""
    B, Tq, _ = q.shape
    out_w = torch.zeros(B, Tq, k.shape[1])
    for b in range(B):
        S = int(mask[b].sum())
        for t in range(Tq):
            if local.predictive:
                h = torch.tanh(local.w_p.weight @ q[b, t])
                p = (S - 1) / (1 + math.exp(-(local.v_p.weight[0] @ h).item()))
            else:
                p = min(t, S - 1)
            window = [s for s in range(S) if abs(s - p) <= local.window]
            W = local.score.w.weight
            scores = torch.stack([q[b, t] @ W @ k[b, s] for s in window])
            align = torch.softmax(scores, 0)
            sigma = local.window / 2
            for a, s in zip(align, window):
                out_w[b, t, s] = a * math.exp(-((s - p) ** 2) / (2 * sigma**2))
    return out_w


def test_local_p_and_local_m_match_brute_force():
    torch.manual_seed(4)
    q, k, v = torch.randn(2, 4, 5), torch.randn(2, 7, 5), torch.randn(2, 7, 3)
    mask = torch.tensor([[True] * 7, [True] * 4 + [False] * 3])
    for predictive in (True, False):
        local = LocalAttention(5, 5, window=1, score=build_score("general", 5, 5),
                               predictive=predictive)
        context, weights = local(q, k, v, mask)
        expected = brute_local(local, q, k, v, mask)
        torch.testing.assert_close(weights, expected, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(context, expected @ v, atol=1e-5, rtol=1e-4)
        assert (weights[1, :, 4:] == 0).all()
