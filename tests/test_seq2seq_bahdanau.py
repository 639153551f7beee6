"""Bahdanau's decoder against a step-by-step loop written from the paper.

Bahdanau, Cho and Bengio (2015), section 3.1 and appendix A:
    e_tj = v_a^T tanh(W_a s_{t-1} + U_a h_j)   score with the PREVIOUS state
    a_t  = softmax_j(e_tj)                      over the real source tokens
    c_t  = sum_j a_tj h_j
    s_t  = f(s_{t-1}, y_{t-1}, c_t)             a GRU whose input is [y_{t-1}; c_t]
    p(y_t | ...) = g(y_{t-1}, s_t, c_t)        here softmax(W_o [s_t; c_t; y_{t-1}])
(the chapter's eq. (att-bahdanau); the paper's deep-output maxout layer is left out
there, as in the library). Stepping the GRU first and attending with s_t (Luong's
order) gives other weights and other logits.
"""

import pytest
import torch

from lamalib.data.datasets.translation import make_translation_task
from lamalib.models.seq2seq import Seq2Seq


pytestmark = pytest.mark.usefixtures("one_thread")


def gru_step(cell, x, s):
    """PyTorch's GRU equations (``torch.nn.GRUCell`` documentation), written out."""
    W_ir, W_iz, W_in = cell.weight_ih.chunk(3)
    W_hr, W_hz, W_hn = cell.weight_hh.chunk(3)
    b_ir, b_iz, b_in = cell.bias_ih.chunk(3)
    b_hr, b_hz, b_hn = cell.bias_hh.chunk(3)
    r = torch.sigmoid(W_ir @ x + b_ir + W_hr @ s + b_hr)
    z = torch.sigmoid(W_iz @ x + b_iz + W_hz @ s + b_hz)
    n = torch.tanh(W_in @ x + b_in + r * (W_hn @ s + b_hn))
    return (1 - z) * n + z * s


def test_bahdanau_decoder_equals_the_papers_step_by_step_loop():
    torch.manual_seed(5)
    model = Seq2Seq(9, 8, 12, "bahdanau", "additive").eval()
    dec = model.decoder
    task = make_translation_task("reverse", n=3, min_len=2, max_len=6, vocab_size=9,
                                 seed=0)
    batch = task.collate([0, 1, 2])
    assert batch.src_mask.sum(1).unique().numel() > 1  # rows of different lengths
    with torch.no_grad():
        logits, weights = model(batch.src, batch.src_mask, batch.tgt_in)
        memory, s0 = model.encoder(batch.src, batch.src_mask)  # h_j, s_0
        score = dec.attention.score
        U_a, b_a = score.w_k.weight, score.w_k.bias  # acts on the source states h_j
        W_a, v_a = score.w_q.weight, score.v.weight[0]  # acts on the query s_{t-1}
        for b in range(3):
            n = int(batch.src_mask[b].sum())
            h = memory[b, :n]  # (n, D): real source tokens only
            s_prev = s0[b]
            for t in range(batch.tgt_in.shape[1]):
                y_prev = dec.embed.weight[batch.tgt_in[b, t]]  # E y_{t-1}
                e = torch.stack([v_a @ torch.tanh(W_a @ s_prev + U_a @ h[j] + b_a)
                                 for j in range(n)])
                a = torch.softmax(e, 0)
                c = a @ h
                s = gru_step(dec.cell, torch.cat([y_prev, c]), s_prev)
                want = dec.out.weight @ torch.cat([s, c, y_prev]) + dec.out.bias
                torch.testing.assert_close(weights[b, t, :n], a, atol=1e-5, rtol=1e-4)
                assert (weights[b, t, n:] == 0).all()
                torch.testing.assert_close(logits[b, t], want, atol=1e-5, rtol=1e-4)
                s_prev = s
