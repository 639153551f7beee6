"""BERT's masking rule and next-sentence pairs, checked against the paper's numbers."""

import math

import pytest
import torch

from lamalib.data.datasets.mlm import (IGNORE_INDEX, chunk, make_nsp_pairs, mask_tokens,
                                       pack_pair)

PAD, MASK, V = 0, 1, 50


def _within(observed: float, p: float, n: int, sigmas: float = 5.0) -> bool:
    """A binomial proportion lies within ``sigmas`` standard errors of ``p``."""
    return abs(observed - p) <= sigmas * math.sqrt(p * (1 - p) / n)


def test_80_10_10_proportions_on_a_large_sample():
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(2, V, (400, 500), generator=g)  # no specials inside
    mask = torch.ones_like(tokens, dtype=torch.bool)
    inputs, labels = mask_tokens(tokens, mask, MASK, V, special_ids=[PAD], generator=g)
    selected = labels != IGNORE_INDEX
    n_all, n_sel = tokens.numel(), int(selected.sum())
    assert _within(n_sel / n_all, 0.15, n_all)
    # The labels are the original tokens at the selected positions.
    assert torch.equal(labels[selected], tokens[selected])
    # Unselected positions are never changed.
    assert torch.equal(inputs[~selected], tokens[~selected])
    masked = inputs[selected] == MASK
    kept = inputs[selected] == tokens[selected]
    changed = ~masked & ~kept
    # A random draw among the V-2 candidates can hit the original token by chance.
    n_cand = V - 2
    p_keep = 0.1 + 0.1 / n_cand
    assert _within(masked.float().mean().item(), 0.8, n_sel)
    assert _within(kept.float().mean().item(), p_keep, n_sel)
    assert _within(changed.float().mean().item(), 0.1 - 0.1 / n_cand, n_sel)
    # Random replacements are never special tokens.
    assert not torch.isin(inputs[selected][changed], torch.tensor([PAD, MASK])).any()


def test_padding_and_special_tokens_are_never_selected():
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(2, V, (64, 40), generator=g)
    tokens[:, 30:] = PAD
    tokens[:, 0] = 5  # treat id 5 as a special token such as [CLS]
    mask = tokens != PAD
    _, labels = mask_tokens(
        tokens, mask, MASK, V, special_ids=[PAD, 5], select_prob=0.9, generator=g
    )
    assert torch.all(labels[:, 30:] == IGNORE_INDEX)
    assert torch.all(labels[tokens == 5] == IGNORE_INDEX)
    assert (labels != IGNORE_INDEX).any()


def test_same_generator_seed_gives_same_masks():
    tokens = torch.randint(2, V, (8, 16), generator=torch.Generator().manual_seed(2))
    mask = torch.ones_like(tokens, dtype=torch.bool)
    a = mask_tokens(tokens, mask, MASK, V, generator=torch.Generator().manual_seed(3))
    b = mask_tokens(tokens, mask, MASK, V, generator=torch.Generator().manual_seed(3))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_nsp_pairs_are_half_true_successors_and_half_other_documents():
    # 11,800 pairs: 5 standard errors are 0.023, so a 57/43 split (0.07 off) fails
    docs = [chunk([f"d{d}w{i}" for i in range(120)], 2) for d in range(200)]
    pairs = make_nsp_pairs(docs, seed=0)
    assert len(pairs) == sum(len(doc) - 1 for doc in docs) == 11_800
    assert _within(sum(p.is_next for p in pairs) / len(pairs), 0.5, len(pairs))
    for p in pairs:
        doc_a = p.first[0].split("w")[0]
        doc_b = p.second[0].split("w")[0]
        if p.is_next:  # the true successor: same document, next 2 words
            assert doc_a == doc_b
            assert int(p.second[0].split("w")[1]) == int(p.first[-1].split("w")[1]) + 1
        else:
            assert doc_a != doc_b


def test_nsp_needs_two_documents_and_pack_pair_layout():
    with pytest.raises(ValueError, match="two"):
        make_nsp_pairs([[["a"], ["b"]]])
    ids, segments = pack_pair([7, 8], [9], cls_id=2, sep_id=3)
    assert ids == [2, 7, 8, 3, 9, 3]
    assert segments == [0, 0, 0, 0, 1, 1]
    assert chunk(list("abcde"), 2) == [["a", "b"], ["c", "d"], ["e"]]


def test_with_mask_token_inserts_mask_after_pad_and_unk():
    from lamalib.data import Vocab
    from lamalib.data.datasets.mlm import MASK, with_mask_token

    vocab = Vocab.build(["the cat sat", "the dog"])
    masked = with_mask_token(vocab)
    assert masked.itos[:3] == ["<pad>", "<unk>", MASK]
    assert masked.itos[3:] == vocab.itos[2:]
    assert masked.decode(masked.encode("the dog")) == ["the", "dog"]
    assert with_mask_token(masked) is masked
