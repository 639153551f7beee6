"""Beam search against exhaustive search and greedy decoding, both seq2seq models."""

import itertools

import pytest
import torch

from lamalib.data.datasets.translation import BOS_ID, EOS_ID, PAD_ID
from lamalib.models.beam import beam_decode, beam_tokens, sequence_log_prob
from lamalib.models.seq2seq import Seq2Seq
from lamalib.models.transformer_seq2seq import TransformerSeq2Seq

V, L = 5, 4  # PAD, BOS, EOS and two symbols; outputs of at most 4 tokens


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def tiny_model(kind: str, seed: int) -> torch.nn.Module:
    torch.manual_seed(seed)
    if kind == "gru":
        model = Seq2Seq(V, 6, 8, "bahdanau")
        out = model.decoder.out
    else:
        model = TransformerSeq2Seq(V, d_model=8, n_heads=2, d_ff=16, n_layers=1,
                                   dropout=0.0)
        out = model.generator
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(2.0)  # sharper than at init, so outputs depend on the source
        out.bias[EOS_ID] -= 2.0  # else the empty output [EOS] wins nearly always
    return model.eval()


def all_outputs():
    """Every output of at most L tokens: ends in EOS, or L tokens cut without EOS."""
    for n in range(1, L + 1):
        for body in itertools.product(range(V), repeat=n - 1):
            if EOS_ID not in body:
                yield [*body, EOS_ID]
    for body in itertools.product(range(V), repeat=L):
        if EOS_ID not in body:
            yield list(body)


@torch.no_grad()
def log_prob_by_loop(model, src, src_mask, output):
    """sum_t log p(y_t | y_<t), one full forward pass per prefix."""
    total, prefix = 0.0, [BOS_ID]
    for token in output:
        out = model(src, src_mask, torch.tensor([prefix]))
        logits = out[0] if isinstance(out, tuple) else out
        total += float(logits[0, -1].log_softmax(-1)[token])
        prefix.append(token)
    return total


def strip(row):
    """An output row up to its first EOS (included); PAD after it is not output."""
    row = row.tolist()
    return row[: row.index(EOS_ID) + 1] if EOS_ID in row else row


SOURCES = [[3, 4, 3], [4, 4], [3, 3, 4, 4]]


@pytest.mark.parametrize("kind", ["gru", "transformer"])
def test_wide_beam_finds_the_most_probable_output_of_exhaustive_search(kind):
    outputs = list(all_outputs())
    greedy_missed = long_best = 0
    for seed in range(3):
        model = tiny_model(kind, seed)
        for source in SOURCES:
            src = torch.tensor([source])
            src_mask = torch.ones_like(src, dtype=torch.bool)
            with torch.no_grad():
                scores = [log_prob_by_loop(model, src, src_mask, y) for y in outputs]
            # the outputs of length <= L are one distribution: probabilities sum to 1
            assert abs(sum(torch.tensor(scores).exp().tolist()) - 1) < 1e-4
            best = max(range(len(outputs)), key=scores.__getitem__)
            tokens, score = beam_decode(model, src, src_mask, beam_width=V**L,
                                        max_len=L)
            assert tokens[0].tolist() == outputs[best]
            assert abs(float(score[0]) - scores[best]) < 1e-4
            greedy, _ = model.greedy_decode(src, src_mask, max_len=L)
            greedy_missed += strip(greedy[0]) != outputs[best]
            long_best += len(outputs[best]) > 1
    # The cases can tell a beam from greedy decoding and from "always EOS".
    assert greedy_missed >= 1 and long_best >= 3


@pytest.mark.parametrize("kind", ["gru", "transformer"])
def test_beam_width_one_is_greedy_decoding(kind):
    for seed in range(4):
        model = tiny_model(kind, seed)
        src = torch.tensor([[3, 4, 3, 4], [4, 3, PAD_ID, PAD_ID]])
        src_mask = src != PAD_ID
        greedy, _ = model.greedy_decode(src, src_mask, max_len=6)
        beam, _ = beam_decode(model, src, src_mask, beam_width=1, max_len=6)
        width = max(greedy.shape[1], beam.shape[1])
        pad = torch.nn.functional.pad
        assert torch.equal(pad(greedy, (0, width - greedy.shape[1])),
                           pad(beam, (0, width - beam.shape[1])))


@pytest.mark.parametrize("kind", ["gru", "transformer"])
def test_reported_score_is_the_teacher_forced_log_probability(kind):
    model = tiny_model(kind, 5)
    src = torch.tensor([[3, 4, 4], [4, 3, PAD_ID]])
    src_mask = src != PAD_ID
    for width in (1, 2, 3):
        tokens, scores = beam_decode(model, src, src_mask, beam_width=width,
                                     max_len=5)
        for b in range(2):
            n = int(src_mask[b].sum())
            out = strip(tokens[b])
            expected = log_prob_by_loop(model, src[b : b + 1, :n],
                                        src_mask[b : b + 1, :n], out)
            assert abs(float(scores[b]) - expected) < 1e-4
        torch.testing.assert_close(sequence_log_prob(model, src, src_mask, tokens),
                                   scores, atol=1e-4, rtol=1e-4)


def test_padding_does_not_change_the_beam():
    model = tiny_model("transformer", 3)
    alone, s_alone = beam_decode(model, torch.tensor([[4, 3]]),
                                 torch.ones(1, 2, dtype=torch.bool), 3, 5)
    src = torch.tensor([[3, 3, 4, 4], [4, 3, PAD_ID, PAD_ID]])
    both, s_both = beam_decode(model, src, src != PAD_ID, 3, 5)
    n = alone.shape[1]
    assert torch.equal(both[1, :n], alone[0]) and (both[1, n:] == PAD_ID).all()
    assert abs(float(s_both[1]) - float(s_alone[0])) < 1e-5


def test_beam_width_must_be_positive():
    with pytest.raises(ValueError, match="beam_width"):
        beam_tokens(lambda prefix: torch.zeros(len(prefix), 1, V), 0, 3)
