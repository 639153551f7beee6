"""Attention rollout (Abnar and Zuidema, 2020) against a product computed by hand, and
the colour-scale rule shared by the heatmap and the attention view."""

import numpy as np
import pytest
import torch

from lamalib.nn.self_attention.rollout import attention_rollout, head_mean
from lamalib.viz.heatmap import robust_scale


def test_rollout_of_two_layers_equals_the_hand_computation():
    # layer 1: heads [[1, 0], [1, 0]] and [[0, 1], [0, 1]] -> mean [[.5, .5], [.5, .5]]
    # mixed with I half-and-half: [[.75, .25], [.25, .75]]
    # layer 2: one head looks back, [[1, 0], [1, 0]] twice -> mixed [[1, 0], [.5, .5]]
    w = torch.tensor([[[[1., 0.], [1., 0.]], [[0., 1.], [0., 1.]]],
                      [[[1., 0.], [1., 0.]], [[1., 0.], [1., 0.]]]])  # (L, H, T, T)
    r = attention_rollout(w)
    torch.testing.assert_close(r[0], torch.tensor([[0.75, 0.25], [0.25, 0.75]]))
    # [[1, 0], [.5, .5]] @ [[.75, .25], [.25, .75]] = [[.75, .25], [.5, .5]]
    torch.testing.assert_close(r[1], torch.tensor([[0.75, 0.25], [0.5, 0.5]]))
    # without the residual: the plain product of head means
    torch.testing.assert_close(attention_rollout(w, residual=0.0)[1],
                               head_mean(w)[1] @ head_mean(w)[0])


def test_rollout_rows_sum_to_one_and_the_order_is_from_the_input_up():
    torch.manual_seed(0)
    w = torch.softmax(torch.randn(3, 4, 5, 5), -1)  # (L, H, T, T)
    r = attention_rollout(w)
    torch.testing.assert_close(r.sum(-1), torch.ones(3, 5))
    a = [0.5 * w[l].mean(0) + 0.5 * torch.eye(5) for l in range(3)]
    torch.testing.assert_close(r[2], a[2] @ a[1] @ a[0])
    assert not torch.allclose(r[2], a[0] @ a[1] @ a[2])  # the order matters here
    with pytest.raises(ValueError, match=r"\(L, H, T, T\)"):
        attention_rollout(w[0])


def test_the_colour_scale_is_the_99th_percentile():
    values = np.r_[np.linspace(0, 0.1, 200), 1.0]  # one sink among small weights
    assert robust_scale(values) == pytest.approx(np.quantile(values, 0.99))
    assert robust_scale(values) < 0.11  # the outlier does not set the scale
    assert robust_scale(np.zeros(4)) == 1e-9
