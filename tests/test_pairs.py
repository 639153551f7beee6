"""Sentence pairs: the dataset, its batches (two padded tensors, bucketed like single
sentences), and the embedded synthetic NLI task whose labels we check against an
independent reading of its sentences."""

import pytest
import torch

from lamalib.data import PairBatches, PairDataset, Vocab, load_dataset, make_pair_loader
from lamalib.data.batching import BucketBatches
from lamalib.data.cache import fingerprint
from lamalib.data.datasets.synthetic_nli import ANTONYM, ATTRIBUTES, synthetic_nli

PAIRS = PairDataset(["a b c", "d e", "f", "g h i j"], ["x", "y z", "w v u", "t"],
                    [0, 1, 2, 1], ["entailment", "neutral", "contradiction"], "toy")


def test_pair_dataset_checks_both_sides_and_subsets_with_extras():
    with pytest.raises(ValueError, match="3 first sentences but 2 second"):
        PairDataset(["a", "b", "c"], ["x", "y"], [0, 0, 0], ["e"])
    with pytest.raises(ValueError, match=r"second sentences.*empty text at row 1"):
        PairDataset(["a", "b"], ["x", "  "], [0, 0], ["e"])
    with pytest.raises(ValueError, match=r"labels \[3\] outside"):
        PairDataset(["a"], ["x"], [3], ["e", "n", "c"])
    d = PairDataset(PAIRS.first, PAIRS.second, PAIRS.labels, PAIRS.label_names, "toy",
                    extras={"tag": ["p", "q", "r", "s"]})
    sub = d.subset([3, 0], "valid")
    assert (sub.first, sub.second, sub.labels) == (["g h i j", "a b c"], ["t", "x"],
                                                   [1, 0])
    assert sub.extras == {"tag": ["s", "p"]} and sub.split == "valid"
    assert d[1] == ("d e", "y z", 1) and len(d) == 4 and d.num_classes == 3
    both = d.sentences()  # for the vocabulary: every sentence once
    assert both.texts == d.first + d.second and len(both.labels) == 8


def test_fingerprint_tells_which_sentence_is_on_which_side():
    swapped = PairDataset(PAIRS.second, PAIRS.first, PAIRS.labels, PAIRS.label_names)
    assert fingerprint(PAIRS) != fingerprint(swapped)
    assert fingerprint(PAIRS) == fingerprint(PairDataset(
        list(PAIRS.first), list(PAIRS.second), list(PAIRS.labels), ["a", "b", "c"]))


def test_pair_batches_pad_each_side_and_follow_the_single_sentence_order():
    vocab = Vocab.build(PAIRS.sentences().texts)
    loader = make_pair_loader(PAIRS, vocab, batch_size=2, shuffle=True, seed=3)
    first = [vocab.encode(t) for t in PAIRS.first]
    for epoch in (1, 2):
        loader.set_epoch(epoch)
        batches = list(loader)
        assert sorted(i for b in batches for i in b.index.tolist()) == [0, 1, 2, 3]
        for b in batches:
            for row, i in enumerate(b.index.tolist()):
                n1, n2 = len(PAIRS.first[i].split()), len(PAIRS.second[i].split())
                assert b.mask1[row].sum() == n1 and b.mask2[row].sum() == n2
                assert b.tokens1[row, :n1].tolist() == vocab.encode(PAIRS.first[i])
                assert b.tokens2[row, :n2].tolist() == vocab.encode(PAIRS.second[i])
                assert torch.all(b.tokens1[row, n1:] == vocab.pad_id)
                assert b.labels[row] == PAIRS.labels[i]
            assert b.tokens1.shape[1] == b.mask1.sum(1).max()  # no all-pad column
            assert len(b) == b.tokens2.shape[0] == b.mask2.shape[0]
    # without bucketing the order is exactly the single-sentence loader's
    flat = PairBatches(first, first, PAIRS.labels, 2, shuffle=True, seed=3,
                       bucket=False)
    same = BucketBatches(first, PAIRS.labels, 2, shuffle=True, seed=3, bucket=False)
    assert [b.index.tolist() for b in flat] == [b.index.tolist() for b in same]
    with pytest.raises(ValueError, match="4 first sentences but 3 second"):
        PairBatches(first, first[:3], PAIRS.labels)


def _label_by_reading(premise: str, hypothesis: str) -> str:
    """Entailment, neutral or contradiction, read from the words alone."""
    p, h = set(premise.split()), set(hypothesis.split())
    if any(ANTONYM.get(w) in p for w in h):
        return "contradiction"
    return "entailment" if h <= p else "neutral"


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_synthetic_nli_labels_are_what_the_words_say(split):
    d = load_dataset("synthetic_nli", split, n=600)
    assert isinstance(d, PairDataset)
    assert d.label_names == ["entailment", "neutral", "contradiction"]
    for (premise, hypothesis, y), evidence in zip(d, d.extras["evidence"]):
        assert _label_by_reading(premise, hypothesis) == d.label_names[y]
        words = hypothesis.split()
        assert len(evidence) == (y != 0)  # the deciding word, if any
        for i in evidence:
            assert words[i] not in premise.split()
            assert (ANTONYM[words[i]] in premise.split()) == (y == 2)
    counts = [d.labels.count(c) for c in range(3)]
    assert min(counts) > 150  # about a third each
    # a premise states each attribute at most once
    poles = {w: k for k, pair in enumerate(ATTRIBUTES) for w in pair}
    for premise in d.first:
        stated = [poles[w] for w in premise.split() if w in poles]
        assert len(stated) == len(set(stated))


def test_synthetic_nli_is_reproducible_and_splits_differ():
    a, b = synthetic_nli("train", n=50), synthetic_nli("train", n=50)
    assert (a.first, a.second, a.labels) == (b.first, b.second, b.labels)
    assert synthetic_nli("test", n=50).first != a.first
    assert synthetic_nli("train", n=50, seed=1).first != a.first
    with pytest.raises(ValueError, match="max_adjectives must be 1 to 4"):
        synthetic_nli("train", n=5, max_adjectives=5)
