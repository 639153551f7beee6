"""masked_softmax against a brute-force softmax over the allowed keys; never NaN."""

import pytest
import torch

from lamalib.nn.masking import causal_mask, lengths_to_mask, masked_softmax


def brute_masked_softmax(scores, mask):
    """Row by row: softmax over the allowed entries only, exact zeros elsewhere."""
    out = torch.zeros_like(scores, dtype=torch.float64)
    flat_s = scores.reshape(-1, scores.shape[-1])
    flat_m = mask.reshape(-1, mask.shape[-1])
    flat_o = out.view(-1, scores.shape[-1])
    for r in range(flat_s.shape[0]):
        keep = [j for j in range(flat_s.shape[1]) if flat_m[r, j]]
        if not keep:
            continue  # a row with nothing to attend to keeps all-zero weights
        e = [float(flat_s[r, j]) for j in keep]
        top = max(e)
        z = sum(torch.tensor(x - top, dtype=torch.float64).exp() for x in e)
        for j, x in zip(keep, e):
            flat_o[r, j] = torch.tensor(x - top, dtype=torch.float64).exp() / z
    return out


def test_matches_brute_force_with_a_fully_masked_row():
    torch.manual_seed(0)
    scores = torch.randn(3, 4, 6)
    mask = torch.rand(3, 4, 6) > 0.4
    mask[1, 2] = False  # one row with every key masked
    got = masked_softmax(scores, mask)
    torch.testing.assert_close(got.double(), brute_masked_softmax(scores, mask))
    assert not got.isnan().any()
    assert (got[1, 2] == 0).all()


def test_broadcast_key_mask_and_no_mask():
    torch.manual_seed(1)
    scores = torch.randn(2, 3, 5)
    key_mask = torch.tensor([[True, True, True, False, False], [True] * 5])
    got = masked_softmax(scores, key_mask[:, None, :])
    full = key_mask[:, None, :].expand_as(scores)
    torch.testing.assert_close(got.double(), brute_masked_softmax(scores, full))
    torch.testing.assert_close(masked_softmax(scores, None), torch.softmax(scores, -1))


def test_float16_large_scores_stay_finite():
    # Scores far beyond float16's exp range and an all-masked row: the float32
    # brute force is the reference, the float16 result must match it and stay finite.
    scores = torch.tensor([[60000.0, -60000.0, 30.0, 10.0], [1.0, 2.0, 3.0, 4.0]])
    mask = torch.tensor([[True, True, True, False], [False] * 4])
    got = masked_softmax(scores.half(), mask)
    assert got.dtype == torch.float16 and torch.isfinite(got).all()
    torch.testing.assert_close(got.double(), brute_masked_softmax(scores, mask),
                               atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_gradient_of_fully_masked_row_is_zero_not_nan(dtype):
    scores = torch.randn(2, 4).to(dtype).requires_grad_()
    mask = torch.tensor([[True, False, True, True], [False] * 4])
    (masked_softmax(scores, mask) * torch.arange(4.0).to(dtype)).sum().backward()
    assert torch.isfinite(scores.grad).all()
    assert (scores.grad[1] == 0).all() and (scores.grad[0, 1] == 0).all()


def test_lengths_and_causal_masks_match_loops():
    lengths = torch.tensor([3, 1, 4])
    mask = lengths_to_mask(lengths)
    assert mask.tolist() == [[t < n for t in range(4)] for n in lengths.tolist()]
    assert lengths_to_mask(lengths, max_len=6).shape == (3, 6)
    causal = causal_mask(5)
    assert causal.tolist() == [[j <= i for j in range(5)] for i in range(5)]


def test_float64_is_kept_and_passes_gradcheck():
    # A float64 input must be computed in float64 (not rounded through float32), so
    # its analytic gradient matches finite differences, also with a fully masked row.
    torch.manual_seed(3)
    scores = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    mask = torch.tensor([[True, False, True, True, True], [False] * 5,
                         [True] * 5])
    got = masked_softmax(scores, mask)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, brute_masked_softmax(scores.detach(), mask),
                               atol=1e-15, rtol=1e-12)
    assert torch.autograd.gradcheck(lambda s: masked_softmax(s, mask), (scores,))
    broadcast = mask[None, :, :]  # (1, 3, 5) against scores (2, 3, 5)
    batched = torch.randn(2, 3, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda s: masked_softmax(s, broadcast),
                                    (batched,))
