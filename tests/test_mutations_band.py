"""The band kernels of lamalib.nn.multiscale, cases that mutation testing found
unguarded: "auto" takes the dense path when the band is the whole matrix, radii are
clamped to T - 1, the measured table's window limit and its nearest cell (the flex
kernel's band edge is checked in tests/test_band_kernels.py)."""

import pytest
import torch
import torch.nn.functional as F

from lamalib.nn.multiscale import KernelChoice, pick_kernel, scale_aware_attention
from lamalib.nn.multiscale import msmsa
from lamalib.nn.multiscale.kernel_table import WINDOW_MAX_RADIUS


def _qkv(B=2, H=2, T=7, D=4, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(B, H, T, D, generator=g, dtype=dtype) for _ in range(3)]


def _band(T, r):
    """(T, T) bool by hand: |i - j| <= r."""
    return torch.tensor([[abs(i - j) <= r for j in range(T)] for i in range(T)])


def _reference(q, k, v, allowed):
    """Softmax attention in float64 under the bool mask ``allowed``."""
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    weights = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    return weights @ v


@pytest.mark.parametrize("radius", [6, 7, 50])  # T - 1, T, far beyond
def test_auto_runs_full_attention_when_the_band_is_the_whole_matrix(monkeypatch,
                                                                    radius):
    def no_table(*args, **kwargs):
        raise AssertionError("auto consulted the kernel table for a full band")

    calls = []
    sdpa = F.scaled_dot_product_attention

    def spy(*args, **kwargs):
        calls.append(kwargs.get("attn_mask"))
        return sdpa(*args, **kwargs)

    monkeypatch.setattr(msmsa, "pick_kernel", no_table)
    monkeypatch.setattr(msmsa.F, "scaled_dot_product_attention", spy)
    q, k, v = _qkv(T=7)
    out, _ = scale_aware_attention(q, k, v, torch.tensor([radius, radius]),
                                   kernel="auto")
    assert calls == [None]  # one fused call, no mask: plain full attention
    torch.testing.assert_close(out, _reference(q, k, v, _band(7, 7)))


@pytest.mark.parametrize("kernel", ["window", "auto", "blocked", "neighbour"])
def test_radii_beyond_the_sequence_are_clamped_to_full_attention(kernel):
    # radii 6 and 1000 over T = 7 are the same band (every key): one radius for the
    # batch, so even the window kernel (one radius only) takes them
    q, k, v = _qkv(T=7)
    out, _ = scale_aware_attention(q, k, v, torch.tensor([6, 1000]), kernel=kernel)
    torch.testing.assert_close(out, _reference(q, k, v, _band(7, 7)))


def _one_cell_table(radius, n=256):
    return {"devices": {"cpu": {"float32": [
        {"n": n, "radius": radius,
         "seconds": {"window": 0.5, "blocked": 1.0, "neighbour b=64": 2.0}}]}}}


def test_the_window_kernel_is_picked_up_to_its_radius_limit_and_not_beyond():
    r = WINDOW_MAX_RADIUS
    for radius, want in [(r, "window"), (r + 1, "blocked")]:
        got = pick_kernel(torch.tensor([radius, radius]), 256,
                          table=_one_cell_table(radius))
        assert got == KernelChoice(want), (radius, got)


def test_the_nearest_cell_is_nearest_in_log_length():
    # T = 400 is nearer 1024 than 64 in log2 (1.36 against 2.64), nearer 64 in T
    table = {"devices": {"cpu": {"float32": [
        {"n": 64, "radius": 3, "seconds": {"dense": 1.0}},
        {"n": 1024, "radius": 3, "seconds": {"neighbour b=8": 1.0}}]}}}
    assert pick_kernel(torch.tensor([3]), 400, table=table) == KernelChoice(
        "neighbour", 8)
    assert pick_kernel(torch.tensor([3]), 200, table=table) == KernelChoice("dense")

