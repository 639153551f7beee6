"""The seq2seq without attention: it reads only the encoder's final states, pads do not
change it, and it computes Cho et al.'s decoder step by step."""

import math

import pytest
import torch

from lamalib.data.datasets.translation import make_translation_task
from lamalib.models import build_model
from lamalib.models.seq2seq import Seq2Seq, translation_metrics
from lamalib.models.seq2seq_plain import final_states

V, E, D = 9, 8, 12


pytestmark = pytest.mark.usefixtures("one_thread")


def tiny_batch(n=6):
    task = make_translation_task("reverse", n=n, min_len=2, max_len=6, vocab_size=V,
                                 seed=0)
    return task, task.collate(range(n))


def plain_model(seed=0):
    torch.manual_seed(seed)
    return Seq2Seq(V, E, D, decoder="plain").eval()


@torch.no_grad()
def test_decoder_ignores_every_encoder_state_but_the_two_final_ones():
    model = plain_model()
    _, batch = tiny_batch()
    memory, s0 = model.encoder(batch.src, batch.src_mask)  # (B, S, D), (B, D)
    logits, weights = model.decoder(batch.tgt_in, memory, batch.src_mask, s0)
    assert weights is None
    last = batch.src_mask.sum(1) - 1  # (B,)
    keep = torch.zeros_like(memory, dtype=torch.bool)  # the states c is made of
    keep[torch.arange(len(last)), last, : D // 2] = True  # forward, last real token
    keep[:, 0, D // 2 :] = True  # backward, first token
    noisy = torch.where(keep, memory, memory + torch.randn_like(memory))
    out, _ = model.decoder(batch.tgt_in, noisy, batch.src_mask, s0)
    torch.testing.assert_close(out, logits, rtol=0, atol=0)
    # ...while each of the two final states does reach the output.
    for part in (slice(0, D // 2), slice(D // 2, D)):
        moved = memory.clone()
        rows = torch.arange(len(last))
        cols = last if part.start == 0 else torch.zeros_like(last)
        moved[rows, cols, part] += 1.0
        out, _ = model.decoder(batch.tgt_in, moved, batch.src_mask, s0)
        assert not torch.allclose(out, logits)


@torch.no_grad()
def test_final_states_are_the_bigru_ends_of_each_unpadded_sentence():
    model = plain_model(1)
    task, batch = tiny_batch()
    memory, _ = model.encoder(batch.src, batch.src_mask)
    c = final_states(memory, batch.src_mask)  # (B, D)
    for i in range(len(task)):
        src = torch.tensor([task.src[i]])  # (1, L): no padding at all
        x = model.encoder.embed(src)
        gru = model.encoder.rnn.gru  # the forward and backward directions, run plainly
        fwd = torch.nn.GRU(E, D // 2, batch_first=True)
        bwd = torch.nn.GRU(E, D // 2, batch_first=True)
        for name in ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]:
            getattr(fwd, name + "_l0").copy_(getattr(gru, name + "_l0"))
            getattr(bwd, name + "_l0").copy_(getattr(gru, name + "_l0_reverse"))
        _, h_fwd = fwd(x)  # state after reading left to right
        _, h_bwd = bwd(x.flip(1))  # state after reading right to left
        torch.testing.assert_close(c[i], torch.cat([h_fwd[0, 0], h_bwd[0, 0]]),
                                   atol=1e-5, rtol=1e-4)


@torch.no_grad()
def test_padded_batch_equals_each_example_alone():
    model = plain_model(2)
    task, batch = tiny_batch()
    extra = torch.zeros(len(task), 3, dtype=torch.long)  # 3 more pads on every row
    src = torch.cat([batch.src, extra], 1)
    src_mask = torch.cat([batch.src_mask, extra.bool()], 1)
    logits, _ = model(src, src_mask, batch.tgt_in)
    for i in range(len(task)):
        one = task.collate([i])
        alone, _ = model(one.src, one.src_mask, one.tgt_in)
        torch.testing.assert_close(logits[i, : one.tgt_in.shape[1]], alone[0],
                                   atol=1e-5, rtol=1e-4)


@torch.no_grad()
def test_decoder_is_chos_recurrence_run_one_step_at_a_time():
    # s_t = GRU([y_{t-1}; c], s_{t-1}),  logits_t = W_o [s_t; c; y_{t-1}]
    model = plain_model(3)
    dec = model.decoder
    _, batch = tiny_batch(3)
    logits, _ = model(batch.src, batch.src_mask, batch.tgt_in)
    memory, state = model.encoder(batch.src, batch.src_mask)
    c = final_states(memory, batch.src_mask)
    cell = torch.nn.GRUCell(E + D, D)
    for name in ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]:
        getattr(cell, name).copy_(getattr(dec.rnn, name + "_l0"))
    for t in range(batch.tgt_in.shape[1]):
        y = dec.embed(batch.tgt_in[:, t])  # (B, E)
        state = cell(torch.cat([y, c], -1), state)
        expected = dec.out(torch.cat([state, c, y], -1))  # (B, V)
        torch.testing.assert_close(logits[:, t], expected, atol=1e-5, rtol=1e-4)


@torch.no_grad()
def test_greedy_decoding_and_metrics_without_attention():
    model = build_model("rnn_seq2seq", vocab_size=V, d_emb=E, d_hidden=D,
                        decoder="plain").eval()
    task, batch = tiny_batch(4)
    tokens, weights = model.greedy_decode(batch.src, batch.src_mask, max_len=7)
    assert weights is None
    tgt_in = torch.cat([torch.full((4, 1), 1), tokens[:, :-1]], 1)
    logits, _ = model(batch.src, batch.src_mask, tgt_in)
    for b in range(4):  # each greedy token is the argmax given the tokens before it
        stop = (tokens[b] == 2).nonzero()
        n = int(stop[0]) + 1 if len(stop) else tokens.shape[1]
        assert torch.equal(logits[b, :n].argmax(-1), tokens[b, :n])
    metrics = translation_metrics(model, task.batches(4, shuffle=False))
    assert math.isnan(metrics["alignment_accuracy"])  # nothing to grade
    assert 0 <= metrics["token_accuracy"] <= 1


def test_plain_decoder_refuses_a_score():
    with pytest.raises(ValueError, match="no attention"):
        Seq2Seq(V, E, D, decoder="plain", score="dot")
