"""The blocked band kernel (lamalib.nn.multiscale.blocked_band) against full attention
under a band mask built by brute force: outputs and gradients, one radius per sequence,
the edges, padding, lengths that are not whole blocks, radii >= T; the slab mask against
a loop; memory linear in T."""

import pytest
import torch

from lamalib.analysis.complexity import peak_memory_bytes
from lamalib.nn.multiscale.blocked_band import (blocked_band_attention,
                                                blocked_band_mask, default_block)
from lamalib.nn.self_attention.multihead import scaled_dot_product_attention
from lamalib.nn.multiscale import band_masks, scale_aware_attention


def brute_band(radii, T, key_mask):
    """(B, 1, T, T) bool by loops: |i - j| <= radii[b] and key j real."""
    B = len(radii)
    mask = torch.zeros(B, 1, T, T, dtype=torch.bool)
    for b in range(B):
        for i in range(T):
            for j in range(T):
                mask[b, 0, i, j] = abs(i - j) <= radii[b] and bool(key_mask[b, j])
    return mask


@pytest.mark.parametrize("T,radii,block", [
    (1, [0, 0, 0], None), (5, [1, 0, 2], None), (16, [3, 3, 3], 16),
    (17, [3, 7, 1], None), (17, [3, 7, 1], 3), (23, [30, 4, 22], 5),
    (40, [15, 8, 2], 1), (40, [0, 39, 12], 64)])
def test_blocked_equals_band_masked_full_attention(T, radii, block):
    torch.manual_seed(T)
    B, H, Dh = 3, 2, 4
    q, k, v = (torch.randn(B, H, T, Dh, dtype=torch.float64, requires_grad=True)
               for _ in range(3))
    key_mask = torch.ones(B, T, dtype=torch.bool)
    key_mask[1, T - T // 3:] = False  # padding at the end
    key_mask[2, T // 2] = False  # and a hole, as any key mask may have
    key_mask[:, 0] = True
    r = torch.tensor(radii)
    got = blocked_band_attention(q, k, v, r, key_mask, block=block)
    want, _ = scaled_dot_product_attention(q, k, v, brute_band(radii, T, key_mask))
    torch.testing.assert_close(got, want)  # every row: empty rows are 0 in both
    g = torch.randn_like(got)
    for a, b in zip(torch.autograd.grad((got * g).sum(), (q, k, v)),
                    torch.autograd.grad((want * g).sum(), (q, k, v))):
        torch.testing.assert_close(a, b)


def test_slab_mask_matches_a_loop_over_blocks_and_slots():
    T, block, radius = 10, 4, 2
    radii = torch.tensor([2, 1])
    key_mask = torch.tensor([[True] * 10, [True] * 7 + [False] * 3])
    mask = blocked_band_mask(T, block, radius, radii, key_mask)  # (B, 1, nb, b, S)
    assert mask.shape == (2, 1, 3, 4, 8)
    for b in range(2):
        for n in range(3):
            for a in range(block):
                for c in range(block + 2 * radius):
                    i, j = n * block + a, n * block + c - radius
                    want = (abs(i - j) <= radii[b] and 0 <= j < T
                            and bool(key_mask[b, j]))
                    assert bool(mask[b, 0, n, a, c]) == want


def test_blocked_memory_grows_linearly_with_T_dense_quadratically():
    cpu = torch.device("cpu")

    def peak(kernel, T):
        q = torch.randn(1, 1, T, 8)
        radii = torch.tensor([3])
        if kernel == "blocked":
            return peak_memory_bytes(
                lambda: blocked_band_attention(q, q, q, radii), cpu)
        return peak_memory_bytes(lambda: band_masks(radii, T).float(), cpu)

    assert peak("blocked", 2048) / peak("blocked", 1024) < 2.2  # ~2: linear
    assert peak("dense", 2048) / peak("dense", 1024) > 3.5  # ~4: its T x T mask


def test_default_block_is_the_radius_within_bounds():
    got = [default_block(r) for r in (0, 3, 16, 40, 64, 500)]
    assert got == [16, 16, 16, 40, 64, 64]


def test_blocked_kernel_with_weights_runs_the_dense_path_and_agrees():
    torch.manual_seed(5)
    q, k, v = (torch.randn(2, 2, 9, 4) for _ in range(3))
    radii = torch.tensor([2, 4])
    out, w = scale_aware_attention(q, k, v, radii, kernel="blocked",
                                   need_weights=True)
    fast, none = scale_aware_attention(q, k, v, radii, kernel="blocked")
    assert none is None and w.shape == (2, 2, 9, 9)
    torch.testing.assert_close(out, fast)


def test_values_may_be_wider_than_queries_and_keys():
    torch.manual_seed(6)
    q, k = torch.randn(2, 3, 20, 4), torch.randn(2, 3, 20, 4)
    v = torch.randn(2, 3, 20, 7)  # Dv = 7, Dh = 4
    radii = torch.tensor([3, 5])
    got = blocked_band_attention(q, k, v, radii, block=6)
    mask = band_masks(radii, 20)  # (2, 1, 20, 20)
    want, _ = scaled_dot_product_attention(q, k, v, mask)
    assert got.shape == (2, 3, 20, 7)
    torch.testing.assert_close(got, want)
