"""XLNet's two-stream masks and layers against brute-force references."""

import pytest
import torch

from lamalib.nn.masking import causal_mask
from lamalib.nn.transformer import EncoderLayer
from lamalib.nn.transformer.stack import Encoder
from lamalib.nn.transformer.two_stream import (order_ranks, permutation_masks,
                                               two_stream_encode, two_stream_layer)

pytestmark = pytest.mark.usefixtures("one_thread")


def brute_force_masks(order, mask=None):
    """Loop over pairs: i may see j in the content stream when j comes no later than
    i in the order, in the query stream when strictly earlier; pads are never seen."""
    T = len(order)
    step_of = {pos: t for t, pos in enumerate(order)}
    content = torch.zeros(T, T, dtype=torch.bool)
    query = torch.zeros(T, T, dtype=torch.bool)
    for i in range(T):
        for j in range(T):
            real = mask is None or bool(mask[j])
            content[i, j] = step_of[j] <= step_of[i] and real
            query[i, j] = step_of[j] < step_of[i] and real
    return content, query


def test_masks_equal_the_brute_force_construction_for_random_orders():
    g = torch.Generator().manual_seed(0)
    for T in (1, 2, 5, 9):
        orders = torch.stack([torch.randperm(T, generator=g) for _ in range(6)])
        mask = torch.rand(6, T, generator=g) < 0.8
        content, query = permutation_masks(orders, mask)  # (B, T, T)
        unmasked_c, unmasked_q = permutation_masks(orders[0])  # (T, T)
        ref_c, ref_q = brute_force_masks(orders[0].tolist())
        assert torch.equal(unmasked_c, ref_c) and torch.equal(unmasked_q, ref_q)
        for b in range(6):
            ref_c, ref_q = brute_force_masks(orders[b].tolist(), mask[b])
            assert torch.equal(content[b], ref_c)
            assert torch.equal(query[b], ref_q)


def test_the_papers_example_order_and_the_identity_order():
    # Yang et al., Figure 1: order 3 -> 2 -> 4 -> 1 of x1..x4 (positions from 0).
    content, query = permutation_masks(torch.tensor([2, 1, 3, 0]))
    assert query[2].sum() == 0  # x3 comes first: its query stream sees nothing
    assert query[0].tolist() == [False, True, True, True]  # x1 sees x2, x3, x4
    assert content[0].tolist() == [True, True, True, True]
    assert query[3].tolist() == [False, True, True, False]  # x4 sees x3, x2
    # The identity order is the causal LM: content = causal, query = strictly causal.
    content, query = permutation_masks(torch.arange(6))
    assert torch.equal(content, causal_mask(6))
    assert torch.equal(query, causal_mask(6).tril(-1))


def test_ranks_invert_the_order_and_bad_orders_are_refused():
    order = torch.tensor([[3, 0, 2, 1], [0, 1, 2, 3]])
    rank = order_ranks(order)
    for b in range(2):
        for t in range(4):
            assert rank[b, order[b, t]] == t
    with pytest.raises(ValueError, match="exactly once"):
        order_ranks(torch.tensor([0, 0, 1]))


def _reference_streams(layer, h, g, content, query, residual):
    """The two streams written out with the layer's weights, eq. by eq."""
    attn = layer.self_attn
    n1, n2 = layer.attn_block.norm, layer.ff_block.norm
    if residual == "pre":
        kv = n1(h)
        h1 = h + attn(kv, kv, kv, mask=content)[0]
        g1 = g + attn(n1(g), kv, kv, mask=query)[0]
        return h1 + layer.ff(n2(h1)), g1 + layer.ff(n2(g1))
    h1 = n1(h + attn(h, h, h, mask=content)[0])
    g1 = n1(g + attn(g, h, h, mask=query)[0])
    return n2(h1 + layer.ff(h1)), n2(g1 + layer.ff(g1))


@pytest.mark.parametrize("residual", ["pre", "post"])
def test_two_stream_layer_equals_the_written_out_streams(residual):
    torch.manual_seed(0)
    layer = EncoderLayer(16, 4, 32, dropout=0.0, residual=residual).eval()
    h, g = torch.randn(3, 6, 16), torch.randn(3, 6, 16)
    orders = torch.stack([torch.randperm(6) for _ in range(3)])
    mask = torch.ones(3, 6, dtype=torch.bool)
    mask[1, 4:] = False
    content, query = permutation_masks(orders, mask)
    got_h, got_g = two_stream_layer(layer, h, g, content, query)
    ref_h, ref_g = _reference_streams(layer, h, g, content, query, residual)
    torch.testing.assert_close(got_h, ref_h)
    torch.testing.assert_close(got_g, ref_g)
    # The content stream is the plain layer under the content mask.
    torch.testing.assert_close(got_h, layer(h, content))


def test_kept_weights_follow_the_two_masks():
    torch.manual_seed(1)
    encoder = Encoder(2, 16, 2, 32, dropout=0.0, residual="pre").eval()
    encoder.keep_weights(True)
    order = torch.tensor([[4, 1, 0, 3, 2]])
    content, query = permutation_masks(order)
    two_stream_encode(encoder, torch.randn(1, 5, 16), torch.randn(1, 5, 16),
                      content, query)
    w = encoder.attention_weights()  # (L, B, H, 2T, T)
    assert w.shape == (2, 1, 2, 10, 5)
    assert torch.equal(w[:, 0, :, :5] > 0, content[0].expand(2, 2, 5, 5))
    assert torch.equal(w[:, 0, :, 5:] > 0, query[0].expand(2, 2, 5, 5))
    torch.testing.assert_close(w[:, 0, :, :5].sum(-1), torch.ones(2, 2, 5))
