"""Label smoothing in the step functions: torch's reference, a hand formula, eval."""

import pytest
import torch
import torch.nn.functional as F

from lamalib.data import Vocab, load_dataset, make_loader
from lamalib.data.datasets.mlm import IGNORE_INDEX
from lamalib.data.datasets.translation import make_translation_task
from lamalib.models import build_model
from lamalib.models.mlm import MaskedLM, MaskedLMStep
from lamalib.models.seq2seq import seq2seq_step
from lamalib.train.steps import classification_step, smoothing


def by_hand(logits, target, eps):
    """(1 - eps) * NLL of the target + eps * mean over all C classes of -log p."""
    log_p = logits.float().log_softmax(-1)  # (N, C)
    nll = -log_p.gather(1, target[:, None])[:, 0]  # (N,)
    return ((1 - eps) * nll - eps * log_p.mean(-1)).mean()


def test_hand_formula_is_torchs_label_smoothing():
    torch.manual_seed(0)
    logits, target = torch.randn(7, 5), torch.randint(0, 5, (7,))
    for eps in (0.0, 0.1, 0.4):
        torch.testing.assert_close(
            by_hand(logits, target, eps),
            F.cross_entropy(logits, target, label_smoothing=eps))


def test_classification_step_smooths_in_training_only():
    data = load_dataset("synthetic_sentiment", "train", n=40)
    vocab = Vocab.build(data.texts)
    batch = next(iter(make_loader(data, vocab, 40)))
    torch.manual_seed(0)
    model = build_model("te", vocab_size=len(vocab), num_classes=2, d_model=16,
                        n_heads=2, d_ff=32, dropout=0.0)
    logits = model(batch.tokens, batch.mask)
    out = classification_step(model.train(), batch, label_smoothing=0.2)
    torch.testing.assert_close(out.loss, by_hand(logits, batch.labels, 0.2))
    plain = classification_step(model.eval(), batch, label_smoothing=0.2)
    torch.testing.assert_close(plain.loss, F.cross_entropy(logits, batch.labels))
    assert out.loss > plain.loss  # the smoothed target is never reached exactly


def test_seq2seq_step_smooths_every_real_target_token():
    task = make_translation_task("reverse", n=6, min_len=2, max_len=5, vocab_size=9)
    batch = task.collate(range(6))
    torch.manual_seed(1)
    model = build_model("transformer_seq2seq", vocab_size=9, d_model=16, n_heads=2,
                        d_ff=32, n_layers=1, dropout=0.0)
    logits, _ = model(batch.src, batch.src_mask, batch.tgt_in, batch.tgt_mask)
    losses = []  # a loop over the real target tokens, one at a time
    for b in range(6):
        for t in range(batch.tgt_out.shape[1]):
            if batch.tgt_mask[b, t]:
                losses.append(by_hand(logits[b, t][None], batch.tgt_out[b, t][None],
                                      0.1))
    out = seq2seq_step(model.train(), batch, label_smoothing=0.1)
    torch.testing.assert_close(out.loss, torch.stack(losses).mean())
    assert out.count == len(losses)
    out_eval = seq2seq_step(model.eval(), batch, label_smoothing=0.1)
    keep = batch.tgt_mask
    torch.testing.assert_close(out_eval.loss,
                               F.cross_entropy(logits[keep], batch.tgt_out[keep]))


def test_smoothing_outside_zero_one_is_refused():
    with pytest.raises(ValueError, match="label_smoothing"):
        smoothing(torch.nn.Linear(1, 1), 1.0)


def test_masked_lm_step_smooths_the_selected_tokens_in_training_only():
    class Rows:  # the fields MaskedLMStep reads
        tokens = torch.randint(3, 20, (4, 12),
                               generator=torch.Generator().manual_seed(0))
        mask = torch.ones(4, 12, dtype=torch.bool)
        index = torch.arange(4)

    torch.manual_seed(2)
    model = MaskedLM(20, d_model=16, n_heads=2, d_ff=32, n_layers=1, dropout=0.0,
                     max_len=16)
    for training in (True, False):
        model.train(training)
        step = MaskedLMStep(mask_id=2, vocab_size=20, select_prob=0.5, seed=1,
                            label_smoothing=0.2)
        reference = MaskedLMStep(mask_id=2, vocab_size=20, select_prob=0.5, seed=1)
        # the step's own masks: its generator in training, seed + 7919 * row in eval
        g = torch.Generator().manual_seed(1)
        inputs, labels = step.corrupt(Rows.tokens, Rows.mask, g)
        chosen = labels != IGNORE_INDEX
        logits = model(inputs, Rows.mask)
        eps = 0.2 if training else 0.0
        torch.testing.assert_close(step(model, Rows).loss,
                                   by_hand(logits[chosen], labels[chosen], eps))
        if not training:
            torch.testing.assert_close(step(model, Rows).loss,
                                       reference(model, Rows).loss)
