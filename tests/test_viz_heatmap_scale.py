"""attention_heatmap: a shared color scale and axis names for panels that are compared."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from lamalib.viz import attention_heatmap  # noqa: E402


def test_shared_scale_and_axis_names():
    w = torch.tensor([[0.2, 0.3], [0.1, 0.0]])  # rows need not sum to 1 (local attention)
    fig, (a, b) = plt.subplots(1, 2)
    own = attention_heatmap(w, ["x", "y"], ["p", "q"], ax=a)
    shared = attention_heatmap(w, ["x", "y"], ["p", "q"], ax=b, vmax=1.0,
                               xlabel="source", ylabel="target")
    # default: the one colour rule, the 99th percentile of the weights (linear
    # interpolation: 0.2 + 0.97 * (0.3 - 0.2)), not the largest weight
    assert own.images[0].get_clim() == pytest.approx((0.0, 0.297))
    assert shared.images[0].get_clim() == (0.0, 1.0)
    assert (shared.get_xlabel(), shared.get_ylabel()) == ("source", "target")
    assert (own.get_xlabel(), own.get_ylabel()) == ("key", "query")
    assert len(fig.axes) == 4  # each panel got its colorbar
    plt.close(fig)
