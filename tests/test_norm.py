"""Our LayerNorm against torch.nn.LayerNorm (outputs and gradients)."""

import pytest
import torch
from torch import nn

from lamalib.nn.transformer.norm import LayerNorm


@pytest.mark.parametrize("affine", [True, False])
def test_layernorm_matches_torch_outputs_and_gradients(affine):
    torch.manual_seed(0)
    D = 16
    ours = LayerNorm(D, affine=affine).double()
    ref = nn.LayerNorm(D, elementwise_affine=affine).double()
    if affine:  # non-trivial gain and bias so their gradients are exercised
        with torch.no_grad():
            ours.weight.normal_()
            ours.bias.normal_()
            ref.weight.copy_(ours.weight)
            ref.bias.copy_(ours.bias)
    x1 = (torch.randn(3, 5, D, dtype=torch.float64) * 4 + 2).requires_grad_()
    x2 = x1.detach().clone().requires_grad_()
    y1, y2 = ours(x1), ref(x2)
    torch.testing.assert_close(y1, y2)
    g = torch.randn_like(y1)
    (y1 * g).sum().backward()
    (y2 * g).sum().backward()
    torch.testing.assert_close(x1.grad, x2.grad)
    if affine:
        torch.testing.assert_close(ours.weight.grad, ref.weight.grad)
        torch.testing.assert_close(ours.bias.grad, ref.bias.grad)


def test_layernorm_statistics_are_per_example_and_independent_of_batch():
    torch.manual_seed(1)
    ln = LayerNorm(8, affine=False)
    x = torch.randn(4, 8) * 3 + 1
    y = ln(x)
    torch.testing.assert_close(y.mean(-1), torch.zeros(4), atol=1e-6, rtol=0)
    var = y.var(-1, unbiased=False)
    torch.testing.assert_close(var, torch.ones(4), atol=1e-4, rtol=0)
    # One example alone gives the same output as inside the batch.
    torch.testing.assert_close(ln(x[2:3]), y[2:3])
