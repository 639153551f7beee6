"""Topic segmentation: Pk and boundary F1 on hand examples, documents built by
concatenation, their batches and the tagger's step."""

import pytest
import torch

from lamalib.analysis.segmentation import boundary_f1, pk
from lamalib.data import Vocab, load_dataset
from lamalib.data.datasets.segmentation import (IGNORE, DocBatches, SegmentedDoc,
                                                collate_docs, make_segmented_docs,
                                                split_sentences)
from lamalib.models.segmenter import BoundaryTagger, boundary_step, predict_gaps

pytestmark = pytest.mark.usefixtures("one_thread")


def test_pk_on_a_hand_example():
    # 6 sentences, segments {0,1,2} {3,4,5}; the hypothesis cuts one sentence early.
    ref, hyp = [0, 0, 1, 0, 0], [0, 1, 0, 0, 0]
    # k = round(6 / 2 / 2) = 2; windows (0,2) (1,3) (2,4) (3,5): ref says same, diff,
    # diff, same; hyp says diff, diff, same, same -> 2 errors of 4.
    assert pk(ref, hyp) == 0.5
    assert pk(ref, ref) == 0.0
    assert pk(ref, hyp, k=1) == pytest.approx(2 / 5)  # k = 1: gaps that differ
    assert pk(ref, [0, 0, 0, 0, 0]) == 0.5  # no boundary at all
    with pytest.raises(ValueError, match="gaps"):
        pk(ref, hyp[:3])


def test_boundary_f1_on_a_hand_example():
    s = boundary_f1([0, 1, 0, 1, 0], [1, 1, 0, 0, 0])
    assert (s["precision"], s["recall"], s["f1"]) == (0.5, 0.5, 0.5)
    assert boundary_f1([0, 1], [0, 0])["f1"] == 0.0


def test_documents_alternate_topics_and_know_their_boundaries():
    data = load_dataset("newsgroups", split="valid")
    docs = make_segmented_docs(data, 20, seed=3)
    assert docs == make_segmented_docs(data, 20, seed=3)  # seeded
    for d in docs:
        assert len(d.gaps) == len(d.sentences) - 1
        assert 1 <= sum(d.gaps) <= 3  # 2 to 4 segments
        assert all(4 <= len(s) <= 12 for s in d.sentences)
    doc = SegmentedDoc([["a"], ["b"], ["c"], ["d"]], [0, 0, 1, 0])
    assert doc.gaps == [0, 1, 1] and doc.segment_ids == [0, 0, 1, 2]
    assert split_sentences("Hi there you all. Ok.\n\nNew para here now!") == [
        ["hi", "there", "you", "all", "."], ["new", "para", "here", "now", "!"]]


def test_batches_step_and_predictions():
    docs = [SegmentedDoc([["a", "b"], ["c"], ["a", "d", "e"]], [0, 1, 1]),
            SegmentedDoc([["e", "e"], ["b", "c"]], [1, 0])]
    vocab = Vocab.build([w for d in docs for s in d.sentences for w in s])
    batch = collate_docs(docs, vocab)
    assert batch.spans[0].tolist() == [0, 0, 1, 2, 2, 2]
    assert batch.spans[1].tolist() == [0, 0, 1, 1, -1, -1]
    assert torch.equal(batch.mask, batch.spans >= 0)
    assert batch.labels.tolist() == [[1, 0], [1, IGNORE]]
    torch.manual_seed(0)
    model = BoundaryTagger(len(vocab), d_model=16, n_heads=4, d_ff=16)
    out = boundary_step(model.eval(), batch)
    assert out.count == 3 and 0 <= out.correct <= 3 and out.loss.ndim == 0
    pairs = predict_gaps(model, DocBatches(docs, vocab, batch_size=1))
    assert [len(r) for r, _ in pairs] == [2, 1] and pairs[0][0] == [1, 0]
    assert len(DocBatches(docs, vocab, batch_size=1)) == 2
