"""Restricted self-attention: band_mask against a loop, and the windowed computation
(lamalib.nn.self_attention.window) against band-masked full attention, outputs and
gradients, at the edges and with padding; its memory grows with T, not T^2."""

import pytest
import torch

from lamalib.analysis.complexity import peak_memory_bytes
from lamalib.nn.self_attention.window import (LocalWindowAttention, band_to_full,
                                              window_attention, window_mask)
from lamalib.nn.masking import band_mask, lengths_to_mask
from lamalib.nn.self_attention.multihead import (MultiHeadAttention,
                                                 scaled_dot_product_attention)


@pytest.mark.parametrize("T,radius", [(1, 0), (5, 0), (6, 1), (7, 2), (4, 9)])
def test_band_mask_matches_a_loop(T, radius):
    want = torch.tensor([[abs(i - j) <= radius for j in range(T)] for i in range(T)])
    assert torch.equal(band_mask(T, radius), want)


def test_band_mask_refuses_a_negative_radius():
    with pytest.raises(ValueError, match="radius"):
        band_mask(4, -1)


def test_window_mask_marks_the_edges_and_the_pads():
    T, r = 5, 2
    key_mask = lengths_to_mask(torch.tensor([5, 3]))  # (B, T)
    got = window_mask(T, r, key_mask)  # (B, 1, T, W)
    for b in range(2):
        for i in range(T):
            for w in range(2 * r + 1):
                j = i - r + w
                assert got[b, 0, i, w] == (0 <= j < T and bool(key_mask[b, j]))


def test_band_to_full_places_every_slot_on_its_key():
    torch.manual_seed(0)
    T, r = 6, 2
    band = torch.rand(2, 3, T, 2 * r + 1) * window_mask(T, r)  # nothing off the edges
    full = band_to_full(band)
    want = torch.zeros(2, 3, T, T)
    for i in range(T):
        for w in range(2 * r + 1):
            if 0 <= i - r + w < T:
                want[:, :, i, i - r + w] = band[:, :, i, w]
    assert torch.equal(full, want)


@pytest.mark.parametrize("radius", [0, 1, 3, 6, 12])
def test_window_attention_equals_band_masked_full_attention(radius):
    # Lengths 9, 5, 1 and 0: edges, padding, a one-token row and a row of only pads.
    torch.manual_seed(radius)
    B, H, T, Dh = 4, 2, 9, 5
    q, k, v = (torch.randn(B, H, T, Dh, dtype=torch.float64, requires_grad=True)
               for _ in range(3))
    key_mask = lengths_to_mask(torch.tensor([9, 5, 1, 0]), T)  # (B, T)
    mask = band_mask(T, radius)[None, None] & key_mask[:, None, None, :]  # (B,1,T,T)
    want, want_w = scaled_dot_product_attention(q, k, v, mask)
    got, got_w = window_attention(q, k, v, radius, key_mask)
    assert got_w.shape == (B, H, T, 2 * radius + 1)
    assert torch.allclose(got, want, atol=1e-12)
    assert torch.allclose(band_to_full(got_w), want_w, atol=1e-12)
    assert torch.all(got[3] == 0)  # only pads: nothing to attend to, output 0
    probe = torch.randn_like(want)
    g_want = torch.autograd.grad((want * probe).sum(), (q, k, v))
    g_got = torch.autograd.grad((got * probe).sum(), (q, k, v))
    for a, b in zip(g_got, g_want):
        assert torch.allclose(a, b, atol=1e-12)


def test_window_attention_refuses_different_lengths():
    q = torch.randn(1, 1, 4, 2)
    with pytest.raises(ValueError, match="self-attention"):
        window_attention(q, torch.randn(1, 1, 5, 2), torch.randn(1, 1, 5, 2), 1)


@pytest.mark.parametrize("need_weights", [True, False])
def test_module_equals_multihead_attention_with_a_band_mask(need_weights):
    torch.manual_seed(1)
    D, H, T, r = 12, 3, 8, 2
    local = LocalWindowAttention(D, H, radius=r).double()
    full = MultiHeadAttention(D, H).double()
    full.load_state_dict(local.state_dict())  # the same parameters
    x = torch.randn(3, T, D, dtype=torch.float64, requires_grad=True)
    real = lengths_to_mask(torch.tensor([8, 6, 2]), T)
    got, got_w = local(x, x, x, key_padding_mask=real, need_weights=need_weights)
    want, want_w = full(x, x, x, mask=band_mask(T, r), key_padding_mask=real,
                        need_weights=need_weights)
    assert torch.allclose(got, want, atol=1e-10)
    if need_weights:
        assert torch.allclose(got_w, want_w, atol=1e-12)
        assert torch.equal(local.last_weights, got_w)
    else:
        assert got_w is None and local.last_weights is None
    params = [x, *local.parameters()]
    g_got = torch.autograd.grad(got.square().sum(), params)
    g_want = torch.autograd.grad(want.square().sum(), [x, *full.parameters()])
    for a, b in zip(g_got, g_want):
        assert torch.allclose(a, b, atol=1e-10)


def test_padding_never_changes_a_real_tokens_output():
    torch.manual_seed(2)
    local = LocalWindowAttention(8, 2, radius=2).eval()
    short = torch.randn(1, 4, 8)
    padded_short = torch.nn.functional.pad(short, (0, 0, 0, 3))  # (1, 7, 8)
    batch = torch.cat([torch.randn(1, 7, 8), padded_short])
    real = lengths_to_mask(torch.tensor([7, 4]), 7)
    with torch.no_grad():
        padded = local(batch, batch, batch, key_padding_mask=real)[0]
        alone = local(short, short, short)[0]
    assert torch.allclose(padded[1, :4], alone[0], atol=1e-6)


def test_memory_grows_with_T_not_T_squared():
    torch.manual_seed(3)
    B, H, D, r = 2, 4, 32, 4
    local = LocalWindowAttention(D, H, radius=r).eval()
    full = MultiHeadAttention(D, H).eval()
    cpu = torch.device("cpu")
    peaks = {}
    with torch.no_grad():
        for n in (256, 512):
            x = torch.randn(B, n, D)
            peaks["local", n] = peak_memory_bytes(lambda: local(x, x, x), cpu)
            mask = band_mask(n, r)
            peaks["band", n] = peak_memory_bytes(
                lambda: full(x, x, x, mask=mask, need_weights=True), cpu)
    matrix = B * H * 512 * 512 * 4  # one float32 (B, H, n, n) tensor at n = 512
    assert peaks["local", 512] < matrix / 4  # never builds the n x n scores
    assert peaks["band", 512] >= matrix  # the masked full path does
    assert peaks["local", 512] / peaks["local", 256] < 2.2  # ~linear in n
    assert peaks["band", 512] / peaks["band", 256] > 3.0  # ~quadratic in n


def test_the_sweeps_two_restricted_layers_compute_the_same_function():
    from lamalib.analysis.complexity import complexity_layers

    torch.manual_seed(4)
    layers = complexity_layers(d_model=16, n_heads=2, radius=3)
    x = torch.randn(2, 20, 16)
    with torch.no_grad():
        outs = {name: call(module.eval(), x) for name, (module, call) in layers.items()
                if name.startswith("restricted")}
    assert len(outs) == 2
    band, window = outs.values()
    assert torch.allclose(band, window, atol=1e-5)
