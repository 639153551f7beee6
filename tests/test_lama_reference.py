"""LAMA's attention (``lamalib.nn.lama``) against a reference written out from the
paper (Mehta et al., arXiv 1912.00835, section 3.3), and the cases a forward check
alone does not see: training through it, a document with no real token, an all-zero
score vector, half precision.

Each test names the mutation of ``lamalib/nn/lama.py`` (or of what it calls) that it
fails under; every one was tried by hand and the test failed, then restored.
"""

import pytest
import torch
from torch.func import functional_call

from lamalib.nn.lama import LowRankMultiHeadAttention

D, M, T = 6, 3, 5  # annotation width, heads, tokens


def reference_lama(states, mask, w, b, p, q, context, embedded=None, on_u=True):
    """Paper eqs. 7, 10, 13 and 15, one document and one head at a time, float64.

    Args:
        states: H ``(B, T, D)``; mask ``(B, T)`` bool, True on real tokens.
        w, b: W_w ``(D, D)`` and b_w ``(D,)`` of eq. 7; p, q: P, Q ``(D, k, m)``.
        context: ``"mean"`` (mean of H), ``"embedding_mean"`` (mean of
            ``embedded``) or a tensor ``(D,)``, one learned c for every document.
        on_u: score ``u_t = tanh(W_w h_t + b_w)`` (eqs. 7, 11, Figure 1: lamalib's
            documented reading); False scores ``h_t`` as eq. 13 is printed.

    Pads are dropped before anything is computed, so no mask is used; a document
    with no real token gets no weight at all: A = 0, S = 0.
    Returns ``S (B, m, D), A (B, m, T)``.
    """
    batch, length, width = states.shape
    heads = p.shape[2]
    A = torch.zeros(batch, heads, length, dtype=torch.float64)
    S = torch.zeros(batch, heads, width, dtype=torch.float64)
    for n in range(batch):
        real = mask[n].nonzero().flatten()  # indices of the real tokens
        if len(real) == 0:
            continue
        H = states[n, real].double()  # (L, D)
        if isinstance(context, torch.Tensor):
            c = context.double()
        elif context == "mean":
            c = H.mean(0)
        else:
            c = embedded[n, real].double().mean(0)
        U = torch.tanh(H @ w.double().T + b.double()) if on_u else H  # eq. 7
        f = torch.empty(len(real), heads, dtype=torch.float64)
        for i in range(heads):
            W_i = p[:, :, i].double() @ q[:, :, i].double().T  # P_i Q_i^T (D, D)
            for t in range(len(real)):
                f[t, i] = c @ W_i @ U[t]  # eq. 8 / 10: c^T W_i u_t
        g = torch.tanh(f)  # (L, m), eq. 13
        norm = g.pow(2).sum(1, keepdim=True).sqrt()  # ||.|| over the m heads
        g = torch.where(norm > 0, g / torch.where(norm > 0, norm, 1.0), 0.0)  # l2
        e = torch.exp(g - g.max(0).values)  # softmax along the words of each head
        alpha = (e / e.sum(0)).T  # (m, L)
        A[n, :, real] = alpha
        S[n] = alpha @ H  # eq. 15: S = A H
    return S, A


def weights_of(att):
    """The module's parameters, detached: the copy the reference computes with."""
    return (att.proj.weight.detach(), att.proj.bias.detach(), att.p.detach(),
            att.q.detach())


def padded_batch(dtype=torch.float64, seed=0):
    """States ``(4, T, D)``, embeddings of the same width and a mask with padding:
    one full document, two padded ones (one of them not at the end) and, last, one
    with no real token."""
    gen = torch.Generator().manual_seed(seed)
    states = torch.randn(4, T, D, generator=gen, dtype=torch.float64)
    embedded = torch.randn(4, T, D, generator=gen, dtype=torch.float64)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [0, 1, 1, 0, 1],
                         [0, 0, 0, 0, 0]], dtype=torch.bool)
    return states.to(dtype), embedded.to(dtype), mask


def lama(context, rank=1, dtype=torch.float64, seed=0):
    torch.manual_seed(seed)
    att = LowRankMultiHeadAttention(D, heads=M, rank=rank, context=context)
    with torch.no_grad():  # the default bias init is fine; a larger c, larger scores
        if context == "learned":
            att.context.c.mul_(10.0)
    return att.to(dtype)


# Catches: dropping the mask (pads get weight, and the mean c counts them), l2 over
# the words instead of the heads, scoring h_t where u_t is documented, a wrong P/Q
# contraction. It does not catch an in-place l2 or a missing eps: see below.
@pytest.mark.parametrize("rank", [1, 2])
@pytest.mark.parametrize("context", ["learned", "mean", "embedding_mean"])
def test_equals_the_reference_after_the_documented_reading(context, rank):
    att = lama(context, rank)
    states, embedded, mask = padded_batch()
    S, A = att(states, mask, embedded)
    c = att.context.c.detach() if context == "learned" else context
    S_ref, A_ref = reference_lama(states, mask, *weights_of(att), c, embedded)
    torch.testing.assert_close(A, A_ref, rtol=0, atol=1e-12)
    torch.testing.assert_close(S, S_ref, rtol=0, atol=1e-12)
    # The reading is a real choice: eq. 13 as printed (score H) gives other weights.
    _, A_printed = reference_lama(states, mask, *weights_of(att), c, embedded,
                                  on_u=False)
    assert (A - A_printed).abs().max() > 1e-3


# Catches: an in-place l2 (``scores.div_(norm)``, the peer's form: it overwrites a
# tensor that the backward of tanh and of the norm needs, so backward raises),
# anything that cuts a parameter off the graph (a detached c, an unused W_w when h_t
# is scored), and dropping the mask (pads then feed the output).
@pytest.mark.parametrize("context", ["learned", "mean"])
def test_backward_gives_finite_nonzero_gradients_to_every_parameter(context):
    att = lama(context, rank=2)
    states, _, mask = padded_batch()
    states.requires_grad_(True)
    S, A = att(states, mask)
    (S.pow(2).sum() + (A * torch.arange(T)).sum()).backward()
    grads = {name: p.grad for name, p in att.named_parameters()}
    assert set(grads) >= {"proj.weight", "proj.bias", "p", "q"}
    for name, grad in grads.items():
        assert grad is not None, name
        assert torch.isfinite(grad).all() and grad.abs().sum() > 0, name
    assert torch.isfinite(states.grad).all()
    assert (states.grad[~mask] == 0).all()  # pads do not feed the output


# Catches: the in-place l2 too, and any wrong hand-written gradient; the states of
# the mean-context case reach the output through c as well as through the words.
@pytest.mark.parametrize("context", ["learned", "mean"])
def test_gradcheck_float64(context):
    att = LowRankMultiHeadAttention(3, heads=2, rank=2, context=context).double()
    gen = torch.Generator().manual_seed(4)
    states = torch.randn(2, 3, 3, generator=gen, dtype=torch.float64,
                         requires_grad=True)
    mask = torch.tensor([[True, True, True], [True, True, False]])
    names = [name for name, _ in att.named_parameters()]
    params = [p.detach().clone().requires_grad_(True) for p in att.parameters()]

    def run(states, *params):
        return functional_call(att, dict(zip(names, params)), (states, mask))

    assert torch.autograd.gradcheck(run, (states, *params))


# Catches: dropping the mask (the empty document then gets uniform weights over its
# pads), a masked softmax that fills -inf (0/0: NaN in that row, and in every
# gradient after backward), a mean c that divides by the zero count of real tokens.
def test_a_document_with_no_real_token_gives_zeros_and_leaves_the_others_alone():
    att = lama("mean", rank=2)
    states, _, mask = padded_batch()
    states.requires_grad_(True)
    S, A = att(states, mask)
    assert (A[3] == 0).all() and (S[3] == 0).all()  # documented: A = 0, S = 0
    S_alone, A_alone = att(states[:3], mask[:3])  # the others, without it
    torch.testing.assert_close(S[:3], S_alone)
    torch.testing.assert_close(A[:3], A_alone)
    S.sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in att.parameters())
    assert torch.isfinite(states.grad).all() and (states.grad[3] == 0).all()


# Catches: l2 without its safeguard (``x / ||x||``: 0/0 is NaN for a word whose m
# scores are all 0, and the softmax spreads it over its heads).
def test_an_all_zero_score_vector_keeps_the_l2_finite():
    att = lama("learned", rank=1)
    with torch.no_grad():
        att.proj.bias.zero_()  # h_t = 0 -> u_t = 0 -> f_t = 0 for all m heads
    states, _, mask = padded_batch()
    states = states.detach().clone()
    states[0, 2] = 0.0
    states.requires_grad_(True)
    S, A = att(states, mask)
    c = att.context.c.detach()
    S_ref, A_ref = reference_lama(states.detach(), mask, *weights_of(att), c)
    torch.testing.assert_close(A, A_ref, rtol=0, atol=1e-12)
    torch.testing.assert_close(S, S_ref, rtol=0, atol=1e-12)
    S.sum().backward()
    assert torch.isfinite(states.grad).all()
    assert all(torch.isfinite(p.grad).all() for p in att.parameters())
    # Every word scores 0 when c = 0: each head is then uniform over the real words.
    with torch.no_grad():
        att.context.c.zero_()
        _, A = att(states, mask)
    want = mask[:, None, :].double() / mask.sum(1).clamp_min(1)[:, None, None]
    torch.testing.assert_close(A, want.expand_as(A))


# Catches: masking with a literal -1e9 (float16 cannot hold it: masked_fill raises;
# bfloat16 can, and an empty document then gets uniform weights on its pads), and
# dropping the mask (pads get weight).
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_masks_to_exact_zeros_without_inf_or_nan(dtype):
    att = lama("mean", rank=2)
    states, _, mask = padded_batch()
    S_64, A_64 = att(states, mask)
    S, A = att.to(dtype)(states.to(dtype), mask)
    assert A.dtype == dtype and S.dtype == dtype
    assert torch.isfinite(A).all() and torch.isfinite(S).all()
    assert (A.transpose(1, 2)[~mask] == 0).all()  # masked positions: weight 0
    assert (A[3] == 0).all() and (S[3] == 0).all()
    # Rounding aside, the weights are the float64 ones.
    torch.testing.assert_close(A.double(), A_64, rtol=0, atol=0.05)
