"""Residual patterns (what same_span and matching claim beyond the previous token and
the diagonal), per-document relevance and the bootstrap interval of GR / uniform."""

import pytest
import torch

from lamalib.nn.patterns import (document_relevance, global_relevance, pattern_cells,
                                 ratio_interval, relevance)


def _doc():
    # "the cat saw the dog . the end": sentences 0..5 and 6..7
    tokens = torch.tensor([[1, 2, 3, 1, 4, 5, 1, 6]])
    mask = torch.ones_like(tokens, dtype=torch.bool)
    spans = torch.tensor([[0, 0, 0, 0, 0, 0, 1, 1]])
    return tokens, mask, spans


def test_same_span_far_drops_the_neighbours_and_matching_other_the_diagonal():
    tokens, mask, spans = _doc()
    far = pattern_cells("same_span_far", tokens, mask, spans)[0]
    span = pattern_cells("same_span", tokens, mask, spans)[0]
    i = torch.arange(8)
    near = (i[:, None] - i[None, :]).abs() <= 1
    assert torch.equal(far, span & ~near)
    assert far[0].tolist() == [False, False, True, True, True, True, False, False]
    assert not far[6].any() and not far[7].any()  # a 2-token sentence has no far pair
    other = pattern_cells("matching_other", tokens, mask)[0]
    assert other[0].tolist() == [False, False, False, True, False, False, True, False]
    assert not other.diagonal().any() and not other[1].any()  # 'cat' occurs once


def test_a_perfect_previous_token_head_scores_high_on_same_span_and_zero_on_its_residual():
    tokens, mask, spans = _doc()
    w = torch.zeros(1, 1, 8, 8)  # (B, H, T, T)
    w[0, 0, 0, 0] = 1
    for q in range(1, 8):
        w[0, 0, q, q - 1] = 1
    same = relevance(w, pattern_cells("same_span", tokens, mask, spans), mask)
    far = relevance(w, pattern_cells("same_span_far", tokens, mask, spans), mask)
    assert same.item() == pytest.approx(7 / 8)  # all but the query that opens sentence 2
    assert far.item() == 0.0


class _Fixed(torch.nn.Module):
    """A 'model' whose attention is given: one layer, two heads."""

    def __init__(self, w):
        super().__init__()
        self.w = w

    def forward(self, tokens, mask):
        return None


def test_document_relevance_averages_to_global_relevance():
    torch.manual_seed(0)
    tokens = torch.randint(1, 5, (3, 6))
    mask = torch.ones_like(tokens, dtype=torch.bool)
    mask[2, 4:] = False
    w = torch.softmax(torch.randn(1, 3, 2, 6, 6), -1) * mask[None, :, None, None, :]
    w = w / w.sum(-1, keepdim=True)  # (L, B, H, T, T)
    batch = type("B", (), {"tokens": tokens, "mask": mask})()
    model = _Fixed(w)
    per, even = document_relevance(model, [batch], ["matching", "previous"],
                                   attention=lambda m, b: m.w)
    mean = global_relevance(model, [batch], ["matching", "previous"],
                            attention=lambda m, b: m.w)
    for name in per:
        assert per[name].shape == (3, 1, 2) and even[name].shape == (3,)
        torch.testing.assert_close(per[name].mean(0), mean[name])
    # uniform attention over 6 (or 4) real tokens: 5 (3) previous cells / N^2
    torch.testing.assert_close(even["previous"], torch.tensor([5 / 36, 5 / 36, 3 / 16]))


def test_ratio_interval_brackets_the_ratio_and_shrinks_with_documents():
    torch.manual_seed(1)
    gr = 0.5 + 0.1 * torch.randn(400)
    uni = torch.full((400,), 0.05)
    ratio, lo, hi = ratio_interval(gr, uni)
    assert ratio == pytest.approx(float(gr.mean()) / 0.05)
    assert lo < ratio < hi and hi - lo < 0.1 * ratio
    _, lo4, hi4 = ratio_interval(gr[:40], uni[:40])
    assert hi4 - lo4 > hi - lo  # fewer documents, a wider interval
    # the standard error of the mean of 400 draws of sd 0.1 is 0.005: +- 1.96 se / 0.05
    assert (hi - lo) == pytest.approx(2 * 1.96 * 0.1 / 20 / 0.05, rel=0.25)
