"""SAN (Lin et al. 2017): attention hops and penalty against the paper's formulas."""

import torch
import torch.nn.functional as F

from lamalib.data import Batch
from lamalib.models import build_model
from lamalib.nn.self_attention.san import StructuredSelfAttention, attention_penalty
from lamalib.testing import assert_padding_invariant
from lamalib.train.steps import classification_step


def test_hops_match_the_paper_formula_per_sentence():
    torch.manual_seed(0)
    san = StructuredSelfAttention(d_in=6, d_a=5, hops=3)
    states = torch.randn(2, 4, 6)
    mask = torch.tensor([[True] * 4, [True, True, False, False]])
    M, A = san(states, mask)
    W1, W2 = san.w1.weight, san.w2.weight  # (d_a, D), (r, d_a) as in the paper
    for b, length in enumerate(mask.sum(1).tolist()):
        H = states[b, :length]  # (n, 2u) in the paper's notation
        want_A = torch.softmax(W2 @ torch.tanh(W1 @ H.T), dim=1)  # eq. (san-a)
        torch.testing.assert_close(A[b, :, :length], want_A)
        torch.testing.assert_close(M[b], want_A @ H)  # eq. (san-m)
    assert (A[1, :, 2:] == 0).all()  # pads get no weight
    torch.testing.assert_close(san.last_weights, A.detach())


def test_penalty_matches_a_loop_and_its_extremes():
    torch.manual_seed(1)
    A = torch.softmax(torch.randn(3, 4, 5), dim=-1)
    want = 0.0
    for b in range(3):
        for i in range(4):
            for j in range(4):
                dot = sum(float(A[b, i, t] * A[b, j, t]) for t in range(5))
                want += (dot - (1.0 if i == j else 0.0)) ** 2
    torch.testing.assert_close(attention_penalty(A), torch.tensor(want / 3))
    distinct = torch.eye(4, 5)[None]  # each hop on its own token: A A^T = I
    assert attention_penalty(distinct) == 0
    same = torch.zeros(1, 4, 5)
    same[..., 2] = 1  # every hop on one token: A A^T = all ones
    assert attention_penalty(same) == 4 * 4 - 4


def test_san_model_is_padding_invariant_and_registered():
    torch.manual_seed(2)
    model = build_model("san", vocab_size=30, num_classes=3, embed_dim=8,
                        hidden_size=6, d_a=5, hops=2, mlp_size=7)
    assert_padding_invariant(model, [[3, 4, 5], [7, 8, 9, 10, 11], [12]])


def test_regularization_is_added_to_the_loss_and_trains_the_attention():
    torch.manual_seed(3)
    model = build_model("san", vocab_size=30, num_classes=2, embed_dim=8,
                        hidden_size=6, d_a=5, hops=3, mlp_size=7, penalty=0.5)
    tokens = torch.tensor([[3, 4, 5, 6], [7, 8, 0, 0]])
    mask = tokens != 0
    batch = Batch(tokens, mask, labels=torch.tensor([0, 1]), index=torch.arange(2))
    out = classification_step(model, batch)
    ce = F.cross_entropy(model(tokens, mask), batch.labels)
    reg = model.regularization()
    torch.testing.assert_close(reg, 0.5 * attention_penalty(model.last_weights))
    torch.testing.assert_close(out.loss, ce + reg)
    model.zero_grad()
    reg.backward()
    assert model.attention.w1.weight.grad.abs().sum() > 0
    model.penalty = 0.0
    assert model.regularization() == 0
