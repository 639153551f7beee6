"""Multi-scale self-attention (lamalib.nn.multiscale) against a reference built from
full attention with one band mask per head (Guo et al. 2020, eqs. 6-10): outputs and
gradients, every kernel, the edges, padding, scales that are fractions of the length
and radii >= T."""

from fractions import Fraction

import pytest
import torch

from lamalib.nn.masking import lengths_to_mask
from lamalib.nn.self_attention.multihead import scaled_dot_product_attention
from lamalib.nn.multiscale import (MultiScaleLayer, MultiScaleSelfAttention,
                                   parse_scale, resolve_radius, scale_aware_attention)


def reference_msmsa(m: MultiScaleSelfAttention, x, lengths, scales_radii):
    """eq. (9) by brute force: each head is full attention under its own band mask
    built by a Python loop (|i - j| <= ω and j a real token)."""
    B, T, D = x.shape
    H, Dh = m.n_heads, m.d_head
    q = m.q_proj(x).view(B, T, H, Dh).transpose(1, 2)
    k = m.k_proj(x).view(B, T, H, Dh).transpose(1, 2)
    v = m.v_proj(x).view(B, T, H, Dh).transpose(1, 2)
    mask = torch.zeros(B, H, T, T, dtype=torch.bool)
    for b in range(B):
        for h in range(H):
            w = scales_radii[b][h]
            for i in range(T):
                for j in range(T):
                    mask[b, h, i, j] = abs(i - j) <= w and j < lengths[b]
    heads, _ = scaled_dot_product_attention(q, k, v, mask)
    return m.out_proj(heads.transpose(1, 2).reshape(B, T, D))


def python_radius(scale, n, window="width"):
    """The documented rules, written independently. Width: the odd width nearest
    N/k (ties upward) by search, radius (width - 1) / 2. Radius: floor(N/k), odd."""
    if window == "width":
        if isinstance(scale, int):
            return (scale - 1) // 2
        target = Fraction(n, int(scale[2:]))
        width = min(range(1, 2 * n + 4, 2), key=lambda w: (abs(w - target), -w))
        return (width - 1) // 2
    if isinstance(scale, int):
        return scale
    w = n // int(scale[2:])
    return w + 1 if w % 2 == 0 else w


SCALES = {"width": [[1, 3, 5, 41], [1, 3, "N/4", "N/2"]],
          "radius": [[0, 1, 3, 20], [1, 3, "N/4", "N/2"]]}


@pytest.mark.parametrize("kernel", ["auto", "window", "blocked", "neighbour", "dense"])
@pytest.mark.parametrize("window,scales", [(w, s) for w in SCALES for s in SCALES[w]])
def test_msmsa_equals_band_masked_full_attention(kernel, window, scales):
    torch.manual_seed(0)
    B, T, D = 4, 11, 8
    lengths = [11, 7, 1, 11] if kernel != "window" or all(
        isinstance(s, int) for s in scales) else [11, 11, 11, 11]
    m = MultiScaleSelfAttention(D, scales, kernel=kernel, window=window).double()
    x = torch.randn(B, T, D, dtype=torch.float64, requires_grad=True)
    mask = lengths_to_mask(torch.tensor(lengths), T)
    out, _ = m(x, mask)
    radii = [[min(python_radius(s, n, window), T - 1) for s in scales]
             for n in lengths]
    want = reference_msmsa(m, x, lengths, radii)
    real = mask[..., None]  # compare real positions (pads' outputs are unused)
    torch.testing.assert_close(out * real, want * real)
    # gradients w.r.t. the input and every parameter
    g = torch.randn_like(out) * real
    got_grads = torch.autograd.grad((out * g).sum(), [x, *m.parameters()])
    want_grads = torch.autograd.grad((want * g).sum(), [x, *m.parameters()])
    for a, b in zip(got_grads, want_grads):
        torch.testing.assert_close(a, b)


def test_weights_are_zero_outside_each_heads_band_and_sum_to_one():
    torch.manual_seed(1)
    T = 9
    m = MultiScaleSelfAttention(8, [1, 2, "N/4", 50], window="radius").eval()
    _, w = m(torch.randn(1, T, 8), None, need_weights=True)  # (1, H, T, T)
    i = torch.arange(T)
    dist = (i[:, None] - i[None, :]).abs()
    for h, r in enumerate([1, 2, 3, 8]):  # N/4 of 9 -> 2 -> odd 3; 50 -> T-1
        assert torch.all(w[0, h][dist > r] == 0)
        assert torch.all(w[0, h][dist <= r] > 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(1, 4, T))
    assert torch.equal(m.last_weights, w)


def test_a_radius_at_least_T_is_full_attention():
    torch.manual_seed(2)
    x = torch.randn(2, 6, 8)
    mask = lengths_to_mask(torch.tensor([6, 4]), 6)
    big = MultiScaleSelfAttention(8, [5, 6, 99, "N/1"], window="radius")
    full = MultiScaleSelfAttention(8, [5, 5, 5, 5], window="radius")
    full.load_state_dict(big.state_dict())
    torch.testing.assert_close(big(x, mask)[0], full(x, mask)[0])
    # and equals plain multi-head attention with only the padding masked
    from lamalib.nn.self_attention.multihead import MultiHeadAttention
    mha = MultiHeadAttention(8, 4)
    mha.load_state_dict(big.state_dict())
    want = mha(x, x, x, key_padding_mask=mask)[0]
    torch.testing.assert_close(big(x, mask)[0], want)


@pytest.mark.parametrize("scale,n,want", [
    (3, 100, 3), ("N/16", 100, 7), ("N/8", 100, 13), ("N/4", 100, 25),
    ("N/2", 100, 51), ("N/16", 10, 1), ("N/8", 22, 3), ("N/2", 1, 1)])
def test_radius_reading_rounds_down_then_up_to_odd(scale, n, want):
    assert (int(resolve_radius(scale, n, "radius")) == want
            == python_radius(scale, n, "radius"))


@pytest.mark.parametrize("scale,n,width", [
    (1, 100, 1), (3, 100, 3), ("N/16", 100, 7), ("N/8", 100, 13), ("N/4", 100, 25),
    ("N/2", 100, 51), ("N/16", 10, 1), ("N/8", 22, 3), ("N/2", 1, 1), ("N/4", 12, 3),
    ("N/4", 8, 3), ("N/4", 7, 1)])
def test_width_reading_takes_the_nearest_odd_width(scale, n, width):
    # N/4 of 8 is exactly 2: a tie between widths 1 and 3, resolved upward
    assert int(resolve_radius(scale, n)) == (width - 1) // 2 == python_radius(scale, n)


def test_width_one_is_the_word_itself_and_three_its_neighbours():
    # the paper: a feed-forward layer "is attention with ω = 1"
    torch.manual_seed(5)
    T = 7
    m = MultiScaleSelfAttention(8, [1, 3]).eval()
    _, w = m(torch.randn(1, T, 8), None, need_weights=True)  # (1, 2, T, T)
    torch.testing.assert_close(w[0, 0], torch.eye(T))
    i = torch.arange(T)
    dist = (i[:, None] - i[None, :]).abs()
    assert torch.all((w[0, 1] > 0) == (dist <= 1))


@pytest.mark.parametrize("bad", [2, 0, "4"])
def test_even_widths_are_refused_and_the_radius_reading_named(bad):
    with pytest.raises(ValueError, match="odd.*radius"):
        MultiScaleSelfAttention(8, [1, bad])
    MultiScaleSelfAttention(8, [1, bad], window="radius")  # a radius may be even
    with pytest.raises(ValueError, match="window"):
        MultiScaleSelfAttention(8, [1, 3], window="diameter")


@pytest.mark.parametrize("bad", ["N/0", "T/4", -1, "3.5", True])
def test_bad_scales_are_refused_with_a_clear_message(bad):
    with pytest.raises(ValueError, match="scale"):
        parse_scale(bad)


def test_window_kernel_refuses_mixed_radii_and_names_the_fix():
    q = torch.randn(2, 1, 8, 4)
    with pytest.raises(ValueError, match="dense"):
        scale_aware_attention(q, q, q, torch.tensor([1, 3]), kernel="window")


@pytest.mark.parametrize("kernel", ["auto", "blocked", "neighbour", "dense"])
def test_padding_never_changes_a_sequence_result(kernel):
    # N/k scales depend on each sequence's own length, not the padded width.
    torch.manual_seed(3)
    layer = MultiScaleLayer(8, [1, 3, "N/4", "N/2"], kernel=kernel).eval()
    seqs = [torch.randn(L, 8) for L in (9, 4, 1)]
    T = 12
    x = torch.zeros(3, T, 8)
    for b, s in enumerate(seqs):
        x[b, :len(s)] = s
    mask = lengths_to_mask(torch.tensor([9, 4, 1]), T)
    batched = layer(x, mask)
    for b, s in enumerate(seqs):
        alone = layer(s[None], torch.ones(1, len(s), dtype=torch.bool))
        torch.testing.assert_close(batched[b, :len(s)], alone[0])


def test_layer_is_layernorm_of_residual_plus_relu_of_msmsa():
    torch.manual_seed(4)
    layer = MultiScaleLayer(8, [1, 3]).eval()
    h = torch.randn(2, 5, 8)
    a, _ = layer.attention(h)
    want = torch.nn.functional.layer_norm(h + torch.relu(a), (8,))
    torch.testing.assert_close(layer(h), want)
    # no feed-forward sublayer: the only parameters are MSMSA's and the norm's
    names = {n.split(".")[0] for n, _ in layer.named_parameters()}
    assert names == {"attention", "norm"}
