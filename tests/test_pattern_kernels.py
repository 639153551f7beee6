"""Sparse pattern kernels (lamalib.nn.patterns.kernels) against dense masked attention
(the from-scratch softmax(QK^T / sqrt(d)) under pattern_mask, and torch's fused
kernel): outputs and gradients at every position, on a padded batch."""

import pytest
import torch
import torch.nn.functional as F

from lamalib.nn.self_attention.multihead import scaled_dot_product_attention
from lamalib.nn.patterns.kernels import (KERNELS, offset_attention, pattern_attention,
                                         span_attention, span_layout)
from lamalib.nn.patterns import pattern_mask, sparsity

pytestmark = pytest.mark.usefixtures("one_thread")


def _batch(seed=0):
    g = torch.Generator().manual_seed(seed)
    B, T = 3, 11
    tokens = torch.randint(1, 5, (B, T), generator=g)
    mask = torch.ones(B, T, dtype=torch.bool)
    mask[1, 8:] = False
    mask[2, 5:] = False
    tokens[~mask] = 0
    spans = torch.tensor([[0, 0, 0, 1, 1, 1, 1, 2, 3, 3, 3],
                          [0, 0, 1, 1, 1, 1, 2, 2, -1, -1, -1],
                          [0, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1]])
    return tokens, mask, spans


def _qkv(B, T, H=2, Dh=4, seed=1):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(B, H, T, Dh, generator=g, dtype=torch.float64,
                        requires_grad=True) for _ in range(3)]


@pytest.mark.parametrize("name", ["matching", "same_span", "previous", "next"])
def test_kernel_equals_dense_masked_attention_outputs_and_gradients(name):
    tokens, mask, spans = _batch()
    q, k, v = _qkv(*tokens.shape)
    allowed = pattern_mask(name, tokens, mask, spans)[:, None]  # (B, 1, T, T)
    dense, _ = scaled_dot_product_attention(q, k, v, allowed)
    fused = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    sparse = pattern_attention(name, q, k, v, tokens, mask, spans)
    torch.testing.assert_close(sparse, dense)
    torch.testing.assert_close(fused, dense)
    w = torch.randn_like(dense)  # a loss that weighs every output differently
    g_dense = torch.autograd.grad((dense * w).sum(), [q, k, v])
    g_sparse = torch.autograd.grad((sparse * w).sum(), [q, k, v])
    for a, b in zip(g_sparse, g_dense):
        torch.testing.assert_close(a, b)


def test_every_structured_pattern_has_a_kernel_and_matching_falls_back():
    assert set(KERNELS) == {"same_span", "previous", "next"}


def test_span_kernel_builds_only_the_blocks():
    # 12 tokens in spans of 3 -> 4 blocks of 3 x 3: 36 of the 144 cells, rho = 0.75
    spans = torch.arange(12)[None] // 3
    mask = torch.ones(1, 12, dtype=torch.bool)
    slot, source, filled = span_layout(spans, mask)
    assert filled.shape == (4, 3) and filled.all()  # (B * S, L): no padding needed
    assert sorted(slot[0].tolist()) == list(range(12))  # a permutation of the slots
    rho = sparsity([pattern_mask("same_span", spans, mask, spans)[:, None]], mask)
    assert rho.item() == pytest.approx(1 - 4 * 9 / 144)


def test_span_kernel_rejects_spans_that_are_not_contiguous():
    spans = torch.tensor([[0, 1, 0]])
    q, k, v = _qkv(1, 3)
    with pytest.raises(ValueError, match="contiguous"):
        span_attention(q, k, v, spans, torch.ones(1, 3, dtype=torch.bool))


def test_offset_kernel_copies_the_neighbours_value():
    q, k, v = _qkv(1, 5)
    mask = torch.ones(1, 5, dtype=torch.bool)
    out = offset_attention(q, k, v, -1, mask)
    torch.testing.assert_close(out[:, :, 1:], v[:, :, :-1])  # out_i = v_{i-1}
    # the first token has no previous one: eq. (4) leaves its row free
    free, _ = scaled_dot_product_attention(q[:, :, :1], k, v)
    torch.testing.assert_close(out[:, :, :1], free)
