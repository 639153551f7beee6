"""Removing heads (lamalib.analysis.head_removal): removal is exact (the output with
a head removed equals the output computed without that head) and restored; the
curves start at the intact loss and end with every head removed."""

import pytest
import torch
from torch import nn

from lamalib.analysis.head_removal import (removal_curve, removal_effects, removed,
                                           spearman)
from lamalib.nn.self_attention import MultiHeadAttention


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.attn = nn.ModuleList([MultiHeadAttention(8, 2), MultiHeadAttention(8, 2)])

    def forward(self, x):
        for a in self.attn:
            x = x + a(x, x, x)[0]
        return x


def _loss(model, batch):
    return (model(batch) ** 2).mean()


def test_a_removed_head_contributes_nothing_and_comes_back():
    model = Tiny().eval()
    x = torch.randn(3, 5, 8)
    a = model.attn[0]
    before = model(x)
    with removed(model, [(0, 1)]):
        out, _ = a(x, x, x)
        # by hand: head 0 alone through its half of the output projection
        q, k, v = (p(x).view(3, 5, 2, 4).transpose(1, 2) for p in (a.q_proj, a.k_proj,
                                                                     a.v_proj))
        w = torch.softmax(q @ k.transpose(-1, -2) / 2.0, -1)  # (B, H, T, T)
        ctx = (w @ v)[:, 0]  # (B, T, 4): head 0
        want = ctx @ a.out_proj.weight[:, :4].T + a.out_proj.bias
        torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(model(x), before)  # restored


def test_effects_and_curves_start_and_end_where_they_must():
    model = Tiny()
    batches = [torch.randn(2, 4, 8) for _ in range(3)]
    effects = removal_effects(model, batches, _loss)
    assert effects.shape == (2, 2)
    order = [(0, 0), (1, 1), (0, 1), (1, 0)]
    curve = removal_curve(model, batches, _loss, order)
    other = removal_curve(model, batches, _loss, list(reversed(order)))
    assert len(curve) == 5 and curve[0] == pytest.approx(other[0])
    assert curve[-1] == pytest.approx(other[-1])  # every head removed either way
    assert curve[1] - curve[0] == pytest.approx(float(effects[0, 0]), abs=1e-6)
    assert model.training  # the mode is restored


def test_spearman_of_a_ranking_with_itself_and_its_reverse():
    a = torch.tensor([[0.1, 0.5], [0.3, 0.9]])
    assert spearman(a, a) == pytest.approx(1.0)
    assert spearman(a, -a) == pytest.approx(-1.0)
