"""The pipeline on a fine-tuned Hugging Face BERT (lamalib.analysis.finetuned_heads,
chapter 9): the tagger's inputs and outputs; head importance on the task loss against
brute force (ablating a head, scaling a head's parameters, gating its output); GR of
every pattern; which patterns are found among the important heads."""

import pytest
import torch

from lamalib.analysis.finetuned_heads import (BertBoundaryTagger, ImportantPattern,
                                              doc_pieces, finetune_segmenter,
                                              finetuned_patterns, gap_batches,
                                              important_findings, injectable_found,
                                              task_importance)
from lamalib.analysis.heads import (HFHeads, attention_modules, disable_head,
                                    mask_gradient, taylor_terms)
from lamalib.analysis.pretrained_heads import Finding
from lamalib.data.datasets.segmentation import IGNORE, SegmentedDoc
from lamalib.models.segmenter import boundary_step
from tests.segmented_docs import WORDS, random_docs as _docs
from tests.tiny_bert import saved_tiny_bert

pytestmark = pytest.mark.usefixtures("one_thread")



@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = saved_tiny_bert(tmp_path_factory.mktemp("bert") / "tiny", WORDS)
    return folder


def _load(folder):
    from lamalib.models.hf_encoder import load_encoder

    model, tokenizer = load_encoder(folder)
    return model, tokenizer


def test_doc_pieces_and_batches(tiny):
    _, tok = _load(tiny)
    doc = SegmentedDoc([["the", "cat"], ["saw", "a", "dog", "."]], [0, 1])
    ids, spans = doc_pieces(tok, doc)
    assert tok.convert_ids_to_tokens(ids) == ["[CLS]", "the", "cat", "[SEP]", "saw",
                                              "a", "dog", ".", "[SEP]"]
    assert spans == [0, 0, 0, 0, 1, 1, 1, 1, 1]
    ids2, _ = doc_pieces(tok, doc, max_pieces=2)
    assert tok.convert_ids_to_tokens(ids2)[4:] == ["saw", "a", "[SEP]"]
    docs = _docs(5)
    (b,) = gap_batches(tok, docs, batch_size=8)
    assert b.tokens.shape == b.spans.shape == b.mask.shape
    assert (b.spans[~b.mask] == -1).all()
    for r, d in enumerate(docs):
        assert b.labels[r, :len(d.gaps)].tolist() == d.gaps
        assert (b.labels[r, len(d.gaps):] == IGNORE).all()
        assert int(((b.tokens[r] == tok.sep_token_id) & b.mask[r]).sum()) == \
            len(d.sentences)


def test_tagger_reads_each_closing_sep_and_padding_changes_nothing(tiny):
    model, tok = _load(tiny)
    torch.manual_seed(0)
    tagger = BertBoundaryTagger(model, tok.sep_token_id).eval()
    docs = _docs(4)
    (b,) = gap_batches(tok, docs, batch_size=4)
    logits = tagger(b.tokens, b.mask, b.spans)  # (B, S - 1, 2)
    assert logits.shape == (4, b.labels.shape[1], 2)
    h = model(input_ids=b.tokens, attention_mask=b.mask.long()).last_hidden_state
    for r, d in enumerate(docs):
        seps = ((b.tokens[r] == tok.sep_token_id) & b.mask[r]).nonzero().flatten()
        expect = tagger.classify(h[r, seps[:-1]])  # the closing [SEP] of each gap
        torch.testing.assert_close(logits[r, :len(d.gaps)], expect)
        (alone,) = gap_batches(tok, [d])
        torch.testing.assert_close(tagger(alone.tokens, alone.mask)[0],
                                   logits[r, :len(d.gaps)], atol=1e-5, rtol=1e-5)


def test_hf_layers_are_found_with_their_head_slices(tiny):
    model, _ = _load(tiny)
    layers = attention_modules(model)
    assert len(layers) == 2 and all(isinstance(a, HFHeads) for a in layers)
    assert (layers[0].n_heads, layers[0].d_head) == (2, 8)
    assert layers[0].out_proj is model.encoder.layer[0].attention.output.dense


def _task_loss(tagger, batches):
    with torch.no_grad():
        return sum(float(boundary_step(tagger, b).loss) for b in batches) / len(batches)


def test_task_importance_against_brute_force(tiny):
    """Eq. (8) is dL/dxi_h: a central difference of the task loss with head h's output
    scaled by 1 +- eps. Eq. (7) is d/dt L(theta_h t) at t = 1: a central difference
    with the head's Q, K, V rows and output columns scaled. Ablating a head (its
    output columns zeroed) changes the task loss; a zeroed head then scores 0."""
    model, tok = _load(tiny)
    torch.manual_seed(0)
    tagger = BertBoundaryTagger(model, tok.sep_token_id, dropout=0.0).eval()
    batches = gap_batches(tok, _docs(6, seed=1), batch_size=3)
    b = batches[0]
    grad = mask_gradient(tagger, b, boundary_step)  # (L, H)
    taylor = sum(taylor_terms(tagger, b, boundary_step).values())  # (L, H)
    eps = 1e-3
    layers = attention_modules(tagger)
    for l, a in enumerate(layers):
        for h in range(a.n_heads):
            cols = slice(h * a.d_head, (h + 1) * a.d_head)

            def scaled(t, parts):
                saved = [(p, p.detach().clone()) for p in tagger.parameters()]
                with torch.no_grad():
                    for lin, axis in parts:
                        if axis == "rows":
                            lin.weight[cols] *= t
                            lin.bias[cols] *= t
                        else:
                            lin.weight[:, cols] *= t
                    loss = float(boundary_step(tagger, b).loss)
                    for p, v in saved:
                        p.copy_(v)
                return loss

            gate = [(a.out_proj, "cols")]
            fd = (scaled(1 + eps, gate) - scaled(1 - eps, gate)) / (2 * eps)
            assert abs(fd - float(grad[l, h])) < 1e-3 * max(1.0, abs(fd))
            every = [(a.q_proj, "rows"), (a.k_proj, "rows"), (a.v_proj, "rows"),
                     (a.out_proj, "cols")]
            fd = (scaled(1 + eps, every) - scaled(1 - eps, every)) / (2 * eps)
            assert abs(fd - float(taylor[l, h])) < 1e-3 * max(1.0, abs(fd))
    # the averaged, normalised scores; an ablated head changes the loss and scores 0
    scores = task_importance(tagger, batches)
    torch.testing.assert_close(scores.norm(dim=-1), torch.ones(len(layers)))
    before = _task_loss(tagger, batches)
    disable_head(layers[1], 0)
    assert _task_loss(tagger, batches) != pytest.approx(before, abs=1e-6)
    for method in ("taylor", "mask"):
        raw = task_importance(tagger, batches, method=method).tolist()
        assert raw[1][0] == pytest.approx(0.0, abs=1e-7)


def test_finetune_and_patterns_on_a_tiny_bert(tiny):
    model, tok = _load(tiny)
    docs = {"train": _docs(8, 2), "valid": _docs(4, 3), "test": _docs(4, 4)}
    tuned = finetune_segmenter(model, tok, docs, epochs=2, patience=1, lr=1e-3,
                               batch_size=4)
    assert 0.0 <= tuned.scores["F1"] <= 1.0 and tuned.scores["epochs"] <= 2
    assert tuned.scores["steps"] == tuned.scores["epochs"] * 2
    valid = gap_batches(tok, docs["valid"], 4)
    out = finetuned_patterns(tuned.model, tok, valid, k=1)
    assert set(out["gr"]) == {"matching", "same_span", "previous", "next", "[CLS]",
                              "[SEP]"}
    assert out["importance"].shape == (2, 2)
    assert len(out["top"]) == 2  # one per layer
    # every attention row sums to 1: previous and next (disjoint cells) add up to <= 1
    total = out["gr"]["previous"] + out["gr"]["next"]
    assert (total <= 1 + 1e-5).all()
    for f in out["findings"]:
        assert out["uniform"][f.pattern] >= 0


def test_important_findings_and_what_to_inject():
    imp = torch.tensor([[0.9, 0.1, 0.3], [0.2, 0.8, 0.5]])  # (L, H)
    f = [Finding("previous", (0, 1), 0.5, 0.1, 4.0, ((0, 1), (1, 1))),
         Finding("matching", (1, 2), 0.3, 0.1, 3.5, ((1, 2),)),
         Finding("[SEP]", (0, 0), 0.9, 0.2, 3.2, ((0, 0),)),
         Finding("next", (0, 2), 0.2, 0.1, 1.0, ())]
    found = important_findings(f, imp, k=1)  # top heads: (0, 0), (1, 1)
    assert [i.heads for i in found] == [((1, 1),), (), ((0, 0),), ()]
    assert injectable_found(found, f) == (["previous"], "kept, important")
    none_important = [ImportantPattern(i.pattern, (), i.kept) for i in found]
    assert injectable_found(none_important, f) == (["previous", "matching"], "kept")
    bare = [Finding(x.pattern, x.best, x.gr, x.uniform, 1.0, ()) for x in f]
    nothing = [ImportantPattern(x.pattern, (), ()) for x in bare]
    assert injectable_found(nothing, bare) == (["previous"], "highest GR")
