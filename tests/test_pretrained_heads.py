"""The patterns pipeline on a pretrained encoder (lamalib.analysis.pretrained_heads,
chapter 8): document batches, the encoder's patterns, MLM head importance, GR against
uniform attention, findings and the choice of patterns to inject. A tiny random
MaskedLM stands in for the shipped encoder."""

import pytest
import torch

from lamalib.analysis.pretrained_heads import (Finding, document_batches,
                                               encoder_patterns, encoder_relevance,
                                               findings, mlm_importance,
                                               patterns_to_inject, uniform_reference)
from lamalib.data.subword import train_subword_tokenizer
from lamalib.models.mlm import MaskedLM
from lamalib.models.pretrained import encoder_attention

pytestmark = pytest.mark.usefixtures("one_thread")

TEXTS = ["the cat saw the dog and the dog saw the cat",
         "a bird sang in the tree near the river bank",
         "the river ran past the bank of the old town and the bank was closed",
         "", "dogs and cats and birds"]


@pytest.fixture(scope="module")
def encoder():
    tok = train_subword_tokenizer(TEXTS * 3, vocab_size=120, min_frequency=1)
    torch.manual_seed(0)
    model = MaskedLM(len(tok), n_layers=2, d_model=18, n_heads=3, d_ff=32,
                     dropout=0.0, max_len=12).eval()
    return model, tok


def test_document_batches_are_the_encoder_inputs(encoder):
    model, tok = encoder
    batches = document_batches(tok, TEXTS, model.config.max_len, batch_size=2)
    assert [len(b) for b in batches] == [2, 2]  # the empty text is dropped
    rows = [r for b in batches for r, m in zip(b.tokens, b.mask)]
    assert torch.cat([b.index for b in batches]).tolist() == [0, 1, 2, 3]
    texts = [t for t in TEXTS if t]
    for b in batches:
        for row, m, i in zip(b.tokens, b.mask, b.index):
            pieces, _ = encoder_attention(model, tok, texts[int(i)])
            assert tok.decode(row[m].tolist()) == pieces  # [CLS] .. [SEP], cut
    assert len(rows) == 4 and all(len(p) <= 12 for p in rows)


def test_gr_importance_and_findings_on_a_tiny_encoder(encoder):
    model, tok = encoder
    batches = document_batches(tok, TEXTS, model.config.max_len, batch_size=2)
    patterns = encoder_patterns(tok)
    imp = mlm_importance(model, tok, batches)
    assert imp.shape == (2, 3)
    torch.testing.assert_close(imp.norm(dim=-1), torch.ones(2))
    torch.testing.assert_close(mlm_importance(model, tok, batches), imp)  # fixed masks
    gr = encoder_relevance(model, batches, patterns)
    assert list(gr) == ["previous", "next", "matching", "special"]
    assert all(g.shape == (2, 3) and (g >= 0).all() and (g <= 1).all()
               for g in gr.values())
    uniform = uniform_reference(batches, patterns)
    found = findings(gr, uniform)
    for f in found:
        g = gr[f.pattern]
        assert g[f.best] == g.max() and f.gr == pytest.approx(float(g.max()))
        assert f.z <= (g.numel() - 1) ** 0.5 + 1e-9  # Samuelson
        assert f.heads == 6 and f.z_ceiling == pytest.approx(5 ** 0.5)
        assert not f.kept  # 6 heads: the 3-sigma rule cannot fire


def _f(name, gr, uniform, kept=False):
    return Finding(name, (0, 0), gr, uniform, 3.5 if kept else 1.0,
                   ((0, 0),) if kept else ())


def test_patterns_to_inject():
    found = [_f("previous", 0.30, 0.02), _f("matching", 0.10, 0.05, kept=True),
             _f("special", 0.9, 0.03, kept=True)]
    assert patterns_to_inject(found) == (["matching"], "kept")  # special: no injection
    none_kept = [_f("previous", 0.10, 0.02), _f("next", 0.05, 0.02),
                 _f("matching", 0.12, 0.08), _f("special", 0.9, 0.03)]
    assert patterns_to_inject(none_kept) == (["previous"], "highest GR")
    with pytest.raises(ValueError, match="injected"):
        patterns_to_inject([_f("special", 0.9, 0.03)])
