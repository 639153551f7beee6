"""BPTT by hand (lamalib.analysis.bptt) against autograd, on a tiny RNN language
model (lamalib.models.rnn_lm)."""

import pytest
import torch
import torch.nn.functional as F

from lamalib.analysis.bptt import bptt_gradient, bptt_terms
from lamalib.models.rnn_lm import RNNLanguageModel


def _lm(seed=0, vocab=7, embed=5, hidden=4):
    torch.manual_seed(seed)
    return RNNLanguageModel(vocab, embed, hidden).double()


def _autograd(lm, loss):
    cell = lm.rnn.cells[0]
    params = {"U": cell.h_proj.weight, "W": cell.x_proj.weight, "b": cell.x_proj.bias}
    grads = torch.autograd.grad(loss, list(params.values()))
    return dict(zip(params, grads))


def test_step_losses_are_the_next_token_cross_entropies_summed_over_the_batch():
    lm = _lm()
    tokens = torch.randint(0, 7, (3, 5))
    logits = lm(tokens)  # (B, T, V)
    by_hand = torch.stack([
        sum(-torch.log_softmax(logits[b, t], -1)[tokens[b, t + 1]] for b in range(3))
        for t in range(4)])
    assert torch.allclose(lm.step_losses(tokens), by_hand)
    assert torch.allclose(lm.loss(tokens), by_hand.sum())


@pytest.mark.parametrize("t", [1, 2, 3])
def test_three_step_lm_gradient_of_each_step_loss_matches_autograd(t):
    # The report's setting: four tokens, three steps, E = E_1 + E_2 + E_3.
    lm = _lm()
    tokens = torch.randint(0, 7, (2, 4))
    want = _autograd(lm, lm.step_losses(tokens)[t - 1])
    got = bptt_gradient(lm, tokens, t)
    for name in ("U", "W", "b"):
        assert got[name].shape == want[name].shape
        assert torch.allclose(got[name], want[name], atol=1e-12), name


def test_total_loss_gradient_is_the_sum_over_steps_and_matches_autograd():
    lm = _lm(seed=1, vocab=11, embed=3, hidden=6)
    tokens = torch.randint(0, 11, (4, 9))
    want = _autograd(lm, lm.loss(tokens))
    got = bptt_gradient(lm, tokens)
    for name in ("U", "W", "b"):
        assert torch.allclose(got[name], want[name], atol=1e-11), name


def test_terms_are_one_per_step_and_k1_vanishes_for_U_because_h0_is_zero():
    lm = _lm(seed=2)
    tokens = torch.randint(0, 7, (2, 4))
    terms = bptt_terms(lm, tokens, 3)
    assert terms["U"].shape == (3, 4, 4) and terms["W"].shape == (3, 4, 5)
    assert torch.all(terms["U"][0] == 0)  # delta_1 h_0^T with h_0 = 0
    assert terms["W"][0].abs().sum() > 0  # but x_1 reaches W through step 1
    # Leaving out the nearer steps (the report's single chain) misses the gradient.
    want = _autograd(lm, lm.step_losses(tokens)[2])["U"]
    assert not torch.allclose(terms["U"][0], want)
    assert torch.allclose(terms["U"].sum(0), want, atol=1e-12)


def test_each_term_is_the_explicit_jacobian_chain():
    # Term k = (dE_t/dh_t) (prod_j dh_j/dh_{j-1}) (d+h_k/dU), built from full Jacobian
    # matrices: diag(1 - h_j^2) U for every step, and the immediate derivative of h_k.
    lm = _lm(seed=3, vocab=6, embed=3, hidden=3)
    tokens = torch.randint(0, 6, (1, 5))
    t = 4
    x, h = lm.states(tokens)
    h = torch.cat([torch.zeros(1, 1, 3, dtype=h.dtype), h], 1)[0].detach()  # (T+1, D)
    U = lm.rnn.cells[0].h_proj.weight.detach()
    y_hat = torch.softmax(lm.out(h[t]), -1).detach()
    y = F.one_hot(tokens[0, t], 6).double()
    dE_dh = (y_hat - y) @ lm.out.weight.detach()  # (D,)
    terms = bptt_terms(lm, tokens, t)["U"]
    for k in range(1, t + 1):
        chain = torch.eye(3, dtype=torch.float64)
        for j in range(t, k, -1):
            chain = chain @ (torch.diag(1 - h[j] ** 2) @ U)  # dh_j/dh_{j-1}
        # d+h_k / dU_{il} = (1 - h_{k,i}^2) h_{k-1,l} e_i: a (D, D, D) tensor.
        immediate = torch.einsum("ai,i,l->ail", torch.eye(3, dtype=torch.float64),
                                 1 - h[k] ** 2, h[k - 1])
        term = torch.einsum("a,ab,bil->il", dE_dh, chain, immediate)
        assert torch.allclose(terms[k - 1], term, atol=1e-12), k


def test_refuses_gated_cells_and_steps_out_of_range():
    torch.manual_seed(0)
    with pytest.raises(ValueError, match="plain RNN"):
        bptt_terms(RNNLanguageModel(5, cell="gru"), torch.zeros(1, 3, dtype=torch.long),
                   1)
    with pytest.raises(ValueError, match="t must be in"):
        bptt_terms(RNNLanguageModel(5), torch.zeros(1, 3, dtype=torch.long), 3)


def test_padding_does_not_change_the_loss_of_the_real_tokens():
    lm = _lm(seed=4)
    long = torch.randint(1, 7, (1, 6))
    short = torch.randint(1, 7, (1, 3))
    batch = torch.cat([long, F.pad(short, (0, 3))])  # (2, 6), right-padded with 0
    mask = torch.tensor([[True] * 6, [True] * 3 + [False] * 3])
    both = lm.step_losses(batch, mask)
    alone = lm.step_losses(long) + F.pad(lm.step_losses(short), (0, 3))
    assert torch.allclose(both, alone)
