"""BERT's pretraining model: the input sum, the heads, the step with and without NSP,
segment batches, and that it learns."""

import pytest
import torch
import torch.nn.functional as F

from lamalib.data import Vocab
from lamalib.data.datasets.mlm import IGNORE_INDEX, chunk, make_nsp_pairs
from lamalib.data.nsp_batching import (SEP, make_nsp_loader, truncate_pair,
                                       with_pair_tokens)
from lamalib.models.bert_pretraining import (BertPretraining, BertPretrainingStep,
                                             pretraining_metrics,
                                             record_pretraining_metrics)
from lamalib.testing import assert_padding_invariant
from lamalib.train import TrainConfig, fit

pytestmark = pytest.mark.usefixtures("one_thread")

V = 40
SIZES = dict(d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=32, dropout=0.0)
MASK, CLS, SEP_ID = 2, 3, 4
SPECIALS = (0, 1, CLS, SEP_ID)


def _docs(n_docs=8, words=40, size=4):
    return [chunk([f"d{d}w{i}" for i in range(words)], size) for d in range(n_docs)]


def _loader(docs, batch_size=8, seed=0, shuffle=True, max_len=32):
    vocab = with_pair_tokens(Vocab.build([w for d in docs for s in d for w in s]))
    pairs = make_nsp_pairs(docs, seed=seed)
    return vocab, pairs, make_nsp_loader(pairs, vocab.encode, vocab["[CLS]"],
                                         vocab[SEP], batch_size, shuffle, seed,
                                         max_len)


def test_input_is_token_plus_position_plus_segment():
    torch.manual_seed(0)
    # No layers and post-LN: the encoder is the identity, so encode() is the input.
    model = BertPretraining(V, **{**SIZES, "n_layers": 0, "residual": "post"}).eval()
    tokens = torch.tensor([[CLS, 7, 8, SEP_ID, 9, SEP_ID]])
    segments = torch.tensor([[0, 0, 0, 0, 1, 1]])
    mask = torch.ones_like(tokens, dtype=torch.bool)
    embed = model.body.embed
    expected = (embed.tokens.weight[tokens] * embed.scale
                + embed.positions.embedding.weight[:6][None]
                + model.segments.weight[segments])
    torch.testing.assert_close(model.encode(tokens, mask, segments), expected)
    # The MLM head is tied: its scores come from the token embedding itself.
    mlm, nsp = model(tokens, mask, segments)
    head = model.head
    expected = expected.detach()
    h = head.norm(F.gelu(head.transform(expected)))
    torch.testing.assert_close(mlm, h @ embed.tokens.weight.T + head.out_bias)
    assert not any(p.shape == (V, 16) for n, p in model.named_parameters()
                   if not n.startswith("body.embed.tokens"))
    # Tied in training too: a word absent from the input gets gradient through the
    # output layer alone.
    mlm[0, 1, 20].backward()
    assert embed.tokens.weight.grad[20].abs().sum() > 0
    # NSP reads [CLS] only (through the pooler): without layers, another token at
    # position 1 leaves it, another first token moves it.
    other = tokens.clone()
    other[0, 1] = 11
    torch.testing.assert_close(model(other, mask, segments)[1], nsp)
    other[0, 0] = 12
    assert (model(other, mask, segments)[1] - nsp).abs().max() > 1e-6
    torch.testing.assert_close(nsp, model.nsp_head(torch.tanh(model.pooler(
        expected[:, 0]))))


def test_segment_ids_change_the_output_of_a_deep_model():
    torch.manual_seed(1)
    model = BertPretraining(V, **SIZES).eval()
    tokens = torch.tensor([[CLS, 7, 8, SEP_ID, 9, 10, SEP_ID]])
    mask = torch.ones_like(tokens, dtype=torch.bool)
    a = model(tokens, mask, torch.tensor([[0, 0, 0, 0, 1, 1, 1]]))
    b = model(tokens, mask, torch.zeros_like(tokens))
    assert (a[0] - b[0]).abs().max() > 1e-4 and (a[1] - b[1]).abs().max() > 1e-4
    torch.testing.assert_close(model(tokens, mask)[0], b[0])  # None means all A
    assert_padding_invariant(model, [[3, 5, 6, 4], [3, 7, 4, 8, 9, 4], [3, 4]],
                             forward=lambda m, t, k: m.encode(t, k))


def test_nsp_batches_pack_cls_a_sep_b_sep_with_segments_and_labels():
    docs = _docs()
    vocab, pairs, loader = _loader(docs, shuffle=False, max_len=32)
    assert vocab.itos[:5] == ["<pad>", "<unk>", "[MASK]", "[CLS]", SEP]
    seen = 0
    for batch in loader:
        for row, i in enumerate(batch.index.tolist()):
            pair = pairs[i]
            n = int(batch.mask[row].sum())
            ids = batch.tokens[row, :n].tolist()
            a, b = vocab.encode(pair.first), vocab.encode(pair.second)
            assert ids == [vocab["[CLS]"], *a, vocab[SEP], *b, vocab[SEP]]
            assert batch.segments[row, :n].tolist() == [0] * (len(a) + 2) + [1] * (
                len(b) + 1)
            assert not batch.segments[row, n:].any()
            assert batch.labels[row] == int(pair.is_next)
            seen += 1
    assert seen == len(pairs)
    # Half the pairs are true successors (make_nsp_pairs; test_mlm checks 50/50 on
    # a large sample): both labels occur here.
    assert 0 < sum(p.is_next for p in pairs) < len(pairs)


def test_truncate_pair_cuts_the_longer_segment_first():
    assert truncate_pair([1, 2, 3, 4, 5], [6, 7], 5) == ([1, 2, 3], [6, 7])
    # Ties cut the first segment: [1 2] [3 4 5] -> [1 2] [3 4] -> [1] [3 4].
    assert truncate_pair([1, 2], [3, 4, 5], 3) == ([1], [3, 4])
    with pytest.raises(ValueError):
        truncate_pair([1], [2], 1)
    _, _, loader = _loader(_docs(words=60, size=20), max_len=16)
    assert max(b.tokens.shape[1] for b in loader) <= 16


def test_step_sums_mlm_and_nsp_and_drops_nsp_when_asked():
    docs = _docs()
    vocab, _, loader = _loader(docs)
    torch.manual_seed(2)
    model = BertPretraining(len(vocab), **SIZES).eval()
    batch = next(iter(loader))
    with_nsp = BertPretrainingStep(MASK, len(vocab), SPECIALS, seed=3)
    without = BertPretrainingStep(MASK, len(vocab), SPECIALS, seed=3, nsp=False)
    parts = with_nsp.parts(model, batch)
    out, out_mlm = with_nsp(model, batch), without(model, batch)
    torch.testing.assert_close(out.loss, parts["mlm_loss"] + parts["nsp_loss"])
    torch.testing.assert_close(out_mlm.loss, parts["mlm_loss"])
    assert out.count == parts["mlm_count"] > 0
    # The parts by hand: the same evaluation masks, the model's two heads.
    g = torch.Generator().manual_seed(with_nsp.seed + 7919 * int(batch.index.min()))
    inputs, labels = with_nsp.corrupt(batch.tokens, batch.mask, g)
    assert not torch.isin(labels[labels != IGNORE_INDEX],
                          torch.tensor([0, 1, 3, 4])).any()  # specials never selected
    mlm, nsp = model(inputs, batch.mask, batch.segments)
    sel = labels != IGNORE_INDEX
    torch.testing.assert_close(parts["mlm_loss"],
                               F.cross_entropy(mlm[sel], labels[sel]))
    torch.testing.assert_close(parts["nsp_loss"], F.cross_entropy(nsp, batch.labels))
    assert parts["nsp_correct"] == int((nsp.argmax(-1) == batch.labels).sum())
    assert parts["nsp_count"] == len(batch.labels)


def test_metrics_and_the_fit_callback_report_nsp_accuracy():
    docs = _docs()
    vocab, _, loader = _loader(docs, batch_size=16)
    torch.manual_seed(3)
    model = BertPretraining(len(vocab), **SIZES)
    step = BertPretrainingStep(MASK, len(vocab), SPECIALS, seed=4)
    scores = pretraining_metrics(model, loader, step)
    parts = [step.parts(model.eval(), b) for b in loader]
    n = sum(p["nsp_count"] for p in parts)
    assert scores["nsp_accuracy"] == sum(p["nsp_correct"] for p in parts) / n
    m = sum(p["mlm_count"] for p in parts)
    assert scores["mlm_accuracy"] == sum(p["mlm_correct"] for p in parts) / m
    history = fit(model, loader, None, TrainConfig(epochs=2, progress=False), step,
                  callbacks=[record_pretraining_metrics(loader, step)])
    assert {"valid_nsp_accuracy", "valid_mlm_loss"} <= set(history[-1])


def test_both_losses_fall_on_a_tiny_corpus():
    # Six documents, each one four-letter segment repeated: the masked letter follows
    # from its neighbours, and a pair is "next" exactly when both segments share
    # their letters, so both tasks are learnable in a few steps.
    letters = "abcdefghijklmnopqrstuvwx"
    docs = [chunk(list(letters[4 * d:4 * d + 4]) * 8, 4) for d in range(6)]
    vocab, _, loader = _loader(docs, batch_size=8)
    torch.manual_seed(0)
    model = BertPretraining(len(vocab), **SIZES)
    step = BertPretrainingStep(MASK, len(vocab), SPECIALS, select_prob=0.3, seed=0)
    before = pretraining_metrics(model, loader, step)
    fit(model, loader, None, TrainConfig(epochs=12, lr=1e-2, patience=99,
                                         progress=False), step)
    after = pretraining_metrics(model, loader, step)
    assert after["mlm_loss"] < 0.8 * before["mlm_loss"]
    assert after["nsp_loss"] < before["nsp_loss"] - 0.05


def test_every_objectives_body_loads_into_a_te_classifier():
    # The chapter fine-tunes each pretrained body: the three objectives and MaskedLM
    # share TokenEncoder's parameter names, so a TE classifier of the same sizes takes
    # any of them as it is.
    from lamalib.models.causal_lm import CausalLM
    from lamalib.models.permutation_lm import PermutationLM
    from lamalib.models.te import TEClassifier

    te = TEClassifier(V, 2, d_model=16, n_heads=2, d_ff=32, n_layers=2, dropout=0.0,
                      residual="pre", positional="learned", max_positions=32)
    for cls in (CausalLM, PermutationLM, BertPretraining):
        torch.manual_seed(5)
        body = cls(V, **SIZES).body.state_dict()
        te.body.load_state_dict(body)  # strict: every name and shape matches
        assert torch.equal(te.body.embed.tokens.weight, body["embed.tokens.weight"])
