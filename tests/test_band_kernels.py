"""Every band kernel of lamalib.nn.multiscale against a brute-force float64 reference
(full attention under a band mask built by loops): outputs and gradients of q, k and
v, with padding, radii per sequence and per head, lengths that are not whole blocks;
the compiled kernel and its fallback, FlexAttention's refusal to train on the CPU, the
cached masks, and the measured choice of "auto"."""

import warnings

import pytest
import torch

from lamalib.nn.multiscale import (KernelChoice, band_block_mask, flex_available,
                                   neighbour_band_attention, pick_kernel,
                                   scale_aware_attention)
from lamalib.nn.multiscale import neighbour_band
from lamalib.nn.self_attention.multihead import scaled_dot_product_attention


def brute_band(radii, T, key_mask):
    """(B, H, T, T) bool by loops: |i - j| <= radii[b][h] and key j real."""
    B, H = len(radii), len(radii[0])
    mask = torch.zeros(B, H, T, T, dtype=torch.bool)
    for b in range(B):
        for h in range(H):
            for i in range(T):
                for j in range(T):
                    mask[b, h, i, j] = (abs(i - j) <= radii[b][h]
                                        and bool(key_mask[b, j]))
    return mask


def inputs(T, seed=0, H=2, D=4):
    torch.manual_seed(seed)
    return [torch.randn(3, H, T, D, dtype=torch.float64, requires_grad=True)
            for _ in range(3)]


def padded(T):
    key_mask = torch.ones(3, T, dtype=torch.bool)
    key_mask[1, T - T // 3:] = False  # padding at the end
    key_mask[2, T // 2] = False  # and a hole, as any key mask may have
    return key_mask


def check(got, q, k, v, radii, key_mask):
    """Outputs and the gradients of q, k, v equal the reference (real query rows;
    a query with no real key is 0 in both; pad rows are finite)."""
    B, H, T, _ = q.shape
    rad = [[int(r)] * H if torch.as_tensor(r).dim() == 0 else [int(x) for x in r]
           for r in radii]
    full = torch.ones(B, T, dtype=torch.bool) if key_mask is None else key_mask
    want, _ = scaled_dot_product_attention(q, k, v, brute_band(rad, T, full))
    assert torch.isfinite(got).all()
    torch.testing.assert_close(got, want)
    g = torch.randn_like(got)
    for a, b in zip(torch.autograd.grad((got * g).sum(), (q, k, v),
                                        materialize_grads=True),  # radius 0: no q, k
                    torch.autograd.grad((want * g).sum(), (q, k, v))):
        torch.testing.assert_close(a, b)


CASES = [  # T, radii (per sequence, or per sequence and head), block
    (1, [0, 0, 0], None), (17, [3, 3, 3], None), (17, [3, 7, 1], None),
    (17, [3, 3, 3], 5), (23, [30, 4, 22], 8), (40, [2, 2, 2], 16),
    (40, [[1, 9], [0, 3], [5, 5]], None), (33, [[16, 2], [2, 16], [4, 4]], 8)]


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("T,radii,block", CASES)
def test_neighbour_equals_the_brute_force_band(T, radii, block, pad, fused):
    q, k, v = inputs(T, seed=T)
    key_mask = padded(T) if pad else None
    r = torch.tensor(radii).clamp(max=T - 1)
    got = neighbour_band_attention(q, k, v, r, key_mask, block=block, fused=fused)
    check(got, q, k, v, r, key_mask)


@pytest.mark.parametrize("kernel", ["auto", "window", "blocked", "neighbour", "dense"])
@pytest.mark.parametrize("pad", [False, True])
def test_every_kernel_through_scale_aware_attention(kernel, pad):
    T = 21  # not a multiple of any block
    q, k, v = inputs(T, seed=1)
    key_mask = padded(T) if pad else None
    radii = torch.tensor([2, 2, 2] if kernel == "window" else [2, 5, 1])
    got, _ = scale_aware_attention(q, k, v, radii, key_mask, kernel=kernel)
    check(got, q, k, v, radii, key_mask)


@pytest.mark.parametrize("kernel", ["auto", "neighbour", "dense"])
def test_per_head_radii(kernel):
    T = 19
    q, k, v = inputs(T, seed=2)
    radii = torch.tensor([[0, 3], [7, 1], [2, 2]])
    got, _ = scale_aware_attention(q, k, v, radii, padded(T), kernel=kernel)
    check(got, q, k, v, radii, padded(T))


def test_blocked_and_window_refuse_per_head_radii_and_name_the_fix():
    q = torch.randn(2, 2, 8, 4)
    radii = torch.tensor([[1, 2], [1, 2]])
    with pytest.raises(ValueError, match="neighbour"):
        scale_aware_attention(q, q, q, radii, kernel="blocked")
    with pytest.raises(ValueError, match="neighbour"):
        scale_aware_attention(q, q, q, radii, kernel="window")


def test_radius_zero_is_the_value_itself_and_pads_get_zero():
    q, k, v = inputs(9, seed=3)
    key_mask = padded(9)
    got, _ = scale_aware_attention(q, k, v, torch.zeros(3, dtype=torch.long),
                                   key_mask)
    check(got, q, k, v, torch.zeros(3, dtype=torch.long), key_mask)
    torch.testing.assert_close(got, v * key_mask[:, None, :, None])


def test_the_band_mask_is_built_once_per_shape_additive_in_the_kernels_dtype():
    a = band_block_mask(2, 100, 3, 8, torch.float32, torch.device("cpu"))
    b = band_block_mask(2, 100, 3, 8, torch.float32, torch.device("cpu"))
    assert a is b and a.dtype == torch.float32 and a.shape == (2 * 13, 1, 8, 24)
    assert set(a.unique().tolist()) == {0.0, torch.finfo(torch.float32).min}


def test_compiled_kernel_equals_the_eager_one():
    q, k, v = (torch.randn(2, 2, 24, 8, requires_grad=True) for _ in range(3))
    radii = torch.tensor([3, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # where compiling fails it warns and falls back
        got, _ = scale_aware_attention(q, k, v, radii, kernel="compiled", block=8)
    want, _ = scale_aware_attention(q, k, v, radii, kernel="neighbour", block=8)
    torch.testing.assert_close(got, want)
    g = torch.autograd.grad(got.sum(), q)[0]
    torch.testing.assert_close(g, torch.autograd.grad(want.sum(), q)[0])


def test_a_failing_compile_warns_once_and_runs_eagerly(monkeypatch):
    def broken(fn, *args, **kwargs):
        raise RuntimeError("no compiler here")

    monkeypatch.setattr(torch, "compile", broken)
    monkeypatch.setattr(neighbour_band, "_COMPILED", {})
    q, k, v = inputs(12, seed=4)
    radii = torch.tensor([2, 2, 2])
    with pytest.warns(RuntimeWarning, match="eagerly"):
        got, _ = scale_aware_attention(q, k, v, radii, kernel="compiled")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once only
        scale_aware_attention(q, k, v, radii, kernel="compiled")
    check(got, q, k, v, radii, None)


def test_flex_is_refused_where_it_has_no_backward_and_agrees_in_inference():
    q, k, v = (torch.randn(2, 2, 32, 8, requires_grad=True) for _ in range(3))
    radii = torch.tensor([3, 5])
    if flex_available("cpu", needs_grad=True) is not None:
        with pytest.raises(ValueError, match="backward"):
            scale_aware_attention(q, k, v, radii, kernel="flex")
    if flex_available("cpu", needs_grad=False) is None:
        key_mask = torch.ones(2, 32, dtype=torch.bool)
        key_mask[1, 20:] = False
        with torch.no_grad():
            got, _ = scale_aware_attention(q, k, v, radii, key_mask, kernel="flex")
            want, _ = scale_aware_attention(q, k, v, radii, key_mask,
                                            kernel="dense")
        real = key_mask[:, None, :, None]
        torch.testing.assert_close(got * real, want * real)
        # one radius and no key mask (its own cached block mask): the band's edge
        # |i - j| = ω is in, ω + 1 is out, as in a dense band mask built by hand
        with torch.no_grad():
            got, _ = scale_aware_attention(q, k, v, torch.tensor([3, 3]),
                                            kernel="flex")
            want, _ = scaled_dot_product_attention(
                q, k, v, brute_band([[3, 3]] * 2, 32, torch.ones(2, 32)))
        torch.testing.assert_close(got, want)


TABLE = {"devices": {"cpu": {"float32": [
    {"n": 256, "radius": 3, "seconds": {"window": 2.0, "neighbour b=8": 1.0,
                                        "dense": 3.0}},
    {"n": 256, "radius": 64, "seconds": {"window": 0.5, "blocked": 1.0,
                                         "neighbour b=64": 2.0}},
    {"n": 64, "radius": 3, "seconds": {"window": 0.5, "dense": 0.4}}]}}}


def test_auto_takes_the_fastest_runnable_kernel_of_the_nearest_cell():
    def pick(radii, T, **kw):
        return pick_kernel(torch.tensor(radii), T, table=TABLE, **kw)

    assert pick([3, 3], 300) == KernelChoice("neighbour", 8)
    assert pick([3, 3], 50) == KernelChoice("dense")
    assert pick([4, 3], 80) == KernelChoice("dense")
    assert pick([50, 50], 200) == KernelChoice("window")
    assert pick([60, 50], 200) == KernelChoice("blocked")  # mixed radii: no window
    assert pick([[60, 50]], 200) == KernelChoice("neighbour", 64)  # per head
    assert pick([3], 256, dtype=torch.float64) == KernelChoice("neighbour", 8)
    assert pick([3], 256, device="meta") == KernelChoice("neighbour")  # unmeasured
    assert pick_kernel(torch.tensor([3]), 256, table={}) == KernelChoice("neighbour")


@pytest.mark.parametrize("choice, runs", [
    (KernelChoice("window"), "window_attention"),
    (KernelChoice("blocked", 8), "blocked_band_attention"),
    (KernelChoice("neighbour", 8), "neighbour_band_attention"),
    (KernelChoice("dense"), "scaled_dot_product_attention")])
def test_auto_runs_the_kernel_it_picks(monkeypatch, choice, runs):
    # "auto" must call the picked kernel (a pick of "window" once fell through to
    # the dense T x T path), and give the same output as that kernel by name
    from lamalib.nn.multiscale import msmsa

    monkeypatch.setattr(msmsa, "pick_kernel", lambda *a, **k: choice)
    called = []
    real = getattr(msmsa, runs) if runs != "scaled_dot_product_attention" else \
        msmsa.F.scaled_dot_product_attention
    target = msmsa if runs != "scaled_dot_product_attention" else msmsa.F

    def spy(*a, **k):
        called.append(runs)
        return real(*a, **k)

    monkeypatch.setattr(target, runs, spy)
    q, k, v = inputs(12)
    radii = torch.tensor([2, 2, 2])
    out, _ = scale_aware_attention(q, k, v, radii, kernel="auto")
    assert called, f"auto picked {choice.kernel} but did not run {runs}"
    called.clear()
    named, _ = scale_aware_attention(q, k, v, radii, kernel=choice.kernel,
                                     block=choice.block)
    torch.testing.assert_close(out, named)
