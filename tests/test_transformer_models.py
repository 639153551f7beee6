"""TE classifier (and that it learns with fit), seq2seq step and greedy decoding,
tiny masked LM."""

import pytest
import torch
import torch.nn.functional as F

from lamalib.data import Vocab, load_dataset, make_loader
from lamalib.data.datasets.mlm import IGNORE_INDEX
from lamalib.data.datasets.translation import make_translation_task
from lamalib.models import available_models, build_model
from lamalib.models.mlm import MaskedLM, MaskedLMStep
from lamalib.models.te import TEClassifier, TEConfig
from lamalib.models.seq2seq import seq2seq_step
from lamalib.models.transformer_seq2seq import TransformerSeq2Seq
from lamalib.testing import assert_padding_invariant
from lamalib.train import TrainConfig, evaluate, fit

SEQS = [[3, 4, 5], [6, 7, 8, 9, 10, 11], [12], [4, 4, 4, 4]]


pytestmark = pytest.mark.usefixtures("one_thread")


def test_te_is_registered_with_the_papers_full_size_defaults():
    assert "te" in available_models()
    cfg = TEConfig()
    assert (cfg.n_layers, cfg.n_heads, cfg.d_model) == (1, 8, 512)
    model = build_model("te", vocab_size=20, num_classes=3, d_model=16, n_heads=4,
                        d_ff=32)
    assert isinstance(model, TEClassifier)
    logits = model(torch.tensor([[3, 4, 0]]), torch.tensor([[True, True, False]]))
    assert logits.shape == (1, 3)


def test_te_padding_invariant_both_residuals():
    for residual in ("post", "pre"):
        torch.manual_seed(0)
        model = TEClassifier(20, 2, d_model=16, n_heads=4, d_ff=32, n_layers=2,
                             residual=residual)
        assert_padding_invariant(model, SEQS)


def test_te_keeps_attention_weights_that_ignore_padding():
    model = TEClassifier(20, 2, d_model=16, n_heads=4, d_ff=32).eval()
    model.keep_weights(True)
    model(torch.tensor([[3, 4, 5, 0, 0]]), torch.tensor([[1, 1, 1, 0, 0]]).bool())
    w = model.attention_weights()  # (L, B, H, T, T)
    assert w.shape == (1, 1, 4, 5, 5)
    assert torch.all(w[..., 3:] == 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(1, 1, 4, 5))


def _seq2seq():
    torch.manual_seed(0)
    task = make_translation_task("reverse", n=16, vocab_size=9, seed=1)
    model = build_model("transformer_seq2seq", vocab_size=task.vocab_size, d_model=16,
                        n_heads=4, d_ff=32, n_layers=1, dropout=0.0).eval()
    return task, model, task.collate(range(16))


def test_seq2seq_returns_head_averaged_cross_attention_of_last_layer():
    task, model, batch = _seq2seq()
    assert isinstance(model, TransformerSeq2Seq)
    logits, weights = model(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask)
    cross = model.decoder.layers[-1].last_cross_weights  # (B, H, T, S)
    torch.testing.assert_close(weights, cross.mean(1))
    assert logits.shape == (16, batch.tgt_in.shape[1], task.vocab_size)
    assert torch.all(weights[~batch.src_mask[:, None, :].expand_as(weights)] == 0)
    out = seq2seq_step(model, batch)  # the GRU chapter's step trains it unchanged
    assert out.count == int(batch.tgt_mask.sum())


def test_greedy_decode_agrees_with_teacher_forcing_on_its_own_output():
    task, model, batch = _seq2seq()
    gen, _ = model.greedy_decode(batch.src, batch.src_mask, max_len=6)
    assert gen.shape[0] == 16 and gen.shape[1] <= 6
    # Feeding BOS + the generation back in, each argmax must be the generated token.
    tgt_in = torch.cat([torch.full((16, 1), task.bos_id), gen[:, :-1]], 1)
    logits, _ = model(batch.src, batch.src_mask, tgt_in)
    for b in range(16):
        row = gen[b].tolist()
        stop = row.index(task.eos_id) + 1 if task.eos_id in row else len(row)
        assert logits[b, :stop].argmax(-1).tolist() == row[:stop]
        assert all(tok == task.pad_id for tok in row[stop:])
    # translation_metrics on a trained Transformer: test_seq2seq.py's copy test.


def test_masked_lm_is_padding_invariant_and_ties_embeddings():
    torch.manual_seed(0)
    model = MaskedLM(30, d_model=16, n_heads=4, d_ff=32, max_len=16)
    assert_padding_invariant(model, SEQS)
    names = [n for n, _ in model.named_parameters()]
    assert not any("decoder" in n or n.startswith("out.") for n in names)
    logits = model(torch.tensor([[3, 4]]), torch.ones(1, 2, dtype=torch.bool))
    assert logits.shape == (1, 2, 30)


def test_masked_lm_step_scores_only_selected_positions():
    from lamalib.data import Batch

    torch.manual_seed(0)
    model = MaskedLM(30, d_model=16, n_heads=4, d_ff=32, max_len=16).eval()
    tokens = torch.randint(3, 30, (8, 12))
    batch = Batch(tokens, torch.ones_like(tokens, dtype=torch.bool),
                  torch.zeros(8, dtype=torch.long), torch.arange(8))
    step = MaskedLMStep(mask_id=2, vocab_size=30, special_ids=(0, 1), seed=3)
    out = step(model, batch)
    # The evaluation masks depend only on the rows: recompute them and the loss.
    g = torch.Generator().manual_seed(3 + 7919 * 0)
    inputs, labels = step.corrupt(tokens, batch.mask, g)
    logits = model(inputs, batch.mask)
    sel = labels != IGNORE_INDEX
    torch.testing.assert_close(out.loss, F.cross_entropy(logits[sel], labels[sel]))
    assert out.count == int(sel.sum()) > 0
    assert torch.equal(step(model, batch).loss, out.loss)  # repeatable in eval


def test_te_learns_the_planted_keywords_with_fit():
    # The label is the polarity of one planted word; chance is 1/2.
    train = load_dataset("synthetic_sentiment", "train", n=400, p_negate=0.0,
                         max_len=12)
    valid = load_dataset("synthetic_sentiment", "valid", n=200, p_negate=0.0,
                         max_len=12)
    vocab = Vocab.build(train.texts)
    valid_loader = make_loader(valid, vocab, 100)
    torch.manual_seed(0)
    model = TEClassifier(len(vocab), 2, d_model=32, n_heads=4, d_ff=64, dropout=0.0)
    before = evaluate(model, valid_loader)["accuracy"]
    fit(model, make_loader(train, vocab, 32, shuffle=True), valid_loader,
        TrainConfig(epochs=4, lr=3e-3, patience=4, progress=False))
    after = evaluate(model, valid_loader)["accuracy"]
    assert before < 0.6 and after > 0.95, (before, after)  # measured: 0.49 -> 0.995
