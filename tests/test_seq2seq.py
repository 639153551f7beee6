"""RNN seq2seq with attention: padding, decoders against step-by-step loops, metrics."""

import pytest
import torch
import torch.nn.functional as F

from lamalib.data.translation import make_translation_task
from lamalib.models import build_model
from lamalib.models.seq2seq import (
    Seq2Seq, alignment_accuracy, seq2seq_step, translation_metrics,
)
from lamalib.train import TrainConfig, fit

V = 9


@pytest.fixture(autouse=True)
def one_thread():
    # Tiny matmuls: on a busy machine, syncing two threads costs more than it saves.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def tiny_task(n=6):
    return make_translation_task("reverse", n=n, min_len=2, max_len=6, vocab_size=V,
                                 seed=0)


@pytest.mark.parametrize("decoder,score", [("bahdanau", "additive"), ("luong", "dot"),
                                           ("luong", "concat")])
def test_padded_batch_equals_each_example_alone(decoder, score):
    torch.manual_seed(0)
    model = Seq2Seq(V, 8, 12, decoder, score).eval()
    task = tiny_task()
    batch = task.collate(range(len(task)))
    logits, weights = model(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask)
    for i in range(len(task)):
        one = task.collate([i])
        lg, w = model(one.src, one.src_mask, one.tgt_in, one.tgt_mask)
        S, T = one.src.shape[1], one.tgt_in.shape[1]
        torch.testing.assert_close(logits[i, :T], lg[0], atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(weights[i, :T, :S], w[0], atol=1e-6, rtol=1e-4)
        assert (weights[i, :, S:] == 0).all()  # no weight ever lands on padding


def test_luong_all_steps_at_once_equals_one_step_at_a_time():
    torch.manual_seed(1)
    model = Seq2Seq(V, 8, 12, "luong", "general").eval()
    dec = model.decoder
    batch = tiny_task(3).collate([0, 1, 2])
    logits, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    memory, state = model.encoder(batch.src, batch.src_mask)
    cell = torch.nn.GRUCell(8, 12)  # the same weights, run as an explicit loop
    for name in ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]:
        getattr(cell, name).data.copy_(getattr(dec.rnn, name + "_l0"))
    W = dec.attention.score.w.weight
    for t in range(batch.tgt_in.shape[1]):
        state = cell(dec.embed(batch.tgt_in[:, t]), state)
        for b in range(3):
            n = int(batch.src_mask[b].sum())
            scores = torch.stack([state[b] @ W @ memory[b, j] for j in range(n)])
            a = torch.softmax(scores, 0)
            context = a @ memory[b, :n]
            h = torch.tanh(dec.combine(torch.cat([context, state[b]])))
            torch.testing.assert_close(weights[b, t, :n], a, atol=1e-5, rtol=1e-4)
            torch.testing.assert_close(logits[b, t], dec.out(h), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("decoder", ["bahdanau", "luong"])
def test_greedy_tokens_are_argmax_of_teacher_forcing_on_themselves(decoder):
    torch.manual_seed(2)
    model = Seq2Seq(V, 8, 12, decoder).eval()
    batch = tiny_task(4).collate(range(4))
    tokens, weights = model.greedy_decode(batch.src, batch.src_mask, max_len=7)
    tgt_in = torch.cat([torch.full((4, 1), 1), tokens[:, :-1]], 1)
    logits, tf_weights = model(batch.src, batch.src_mask, tgt_in)
    for b in range(4):
        stop = (tokens[b] == 2).nonzero()
        n = int(stop[0]) + 1 if len(stop) else tokens.shape[1]
        assert torch.equal(logits[b, :n].argmax(-1), tokens[b, :n])
        torch.testing.assert_close(weights[b, :n], tf_weights[b, :n])


def test_step_loss_and_alignment_accuracy_match_loops():
    torch.manual_seed(3)
    model = build_model("rnn_seq2seq", vocab_size=V, d_emb=8, d_hidden=12)
    batch = tiny_task().collate(range(6))
    out = seq2seq_step(model, batch)
    logits, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    losses, hits, scored = [], 0, 0
    for b in range(6):
        for t in range(batch.tgt_out.shape[1]):
            if batch.tgt_mask[b, t]:
                target = batch.tgt_out[b, t][None]
                losses.append(F.cross_entropy(logits[b, t][None], target))
            if batch.alignment[b, t] >= 0:
                scored += 1
                hits += int(weights[b, t].argmax() == batch.alignment[b, t])
    torch.testing.assert_close(out.loss, torch.stack(losses).mean())
    assert out.count == len(losses)
    assert alignment_accuracy(weights, batch.alignment) == hits / scored


def test_training_with_fit_learns_to_copy():
    torch.manual_seed(4)
    task = make_translation_task("copy", n=160, min_len=2, max_len=4, vocab_size=7)
    model = Seq2Seq(7, 8, 16, "luong", "dot")
    loader = task.batches(32, seed=0)
    before = translation_metrics(model, task.batches(80, shuffle=False))
    history = fit(model, loader, None, TrainConfig(epochs=8, lr=2e-2, progress=False),
                  step=seq2seq_step)
    after = translation_metrics(model, task.batches(80, shuffle=False))
    assert history.column("train_loss")[-1] < history.column("train_loss")[0]
    assert after["token_accuracy"] > before["token_accuracy"]
