import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import torch

from lamalib.models.avg import AvgClassifier
from lamalib.train.history import History
from lamalib.viz import (
    attention_heatmap,
    highlight_rows,
    highlight_tokens,
    plot_history,
    show_source,
    source_of,
)


def test_show_source_renders_the_library_code():
    code = show_source(AvgClassifier)
    assert "class AvgClassifier" in code.data and "lamalib.models.avg" in code.data
    assert "<span" in code._repr_html_()  # highlighted HTML for the static book
    assert source_of(AvgClassifier.forward).startswith("def forward")
    with pytest.raises(TypeError, match="no source"):
        source_of(3)


def test_highlight_shades_by_weight_and_escapes_tokens():
    view = highlight_tokens(["<b>", "good"], [0.2, 0.8]).data
    assert "&lt;b&gt;" in view and "<b>" not in view.replace("<b>", "", 0)
    assert "rgba(255,140,0,0.250)" in view and "rgba(255,140,0,1.000)" in view
    assert "script" not in view
    rows = highlight_rows([("pos", ["a", "b"], [1, 0]), ("neg", ["c"], [1])]).data
    assert rows.count("<span") == 3 and "<b>pos</b>" in rows
    with pytest.raises(ValueError, match="2 tokens but 1 weights"):
        highlight_tokens(["a", "b"], [1.0])


def test_heatmap_draws_the_weights_it_is_given():
    w = torch.softmax(torch.randn(3, 4), -1)
    ax = attention_heatmap(w, list("abcd"), list("xyz"))
    assert ax.images[0].get_array().shape == (3, 4)
    assert np.allclose(ax.images[0].get_array().data, w.numpy())
    with pytest.raises(ValueError, match="do not match"):
        attention_heatmap(w, list("abc"), list("xyz"))


def test_plot_history_draws_every_recorded_curve():
    history = History(
        [
            {
                "epoch": e,
                "train_loss": 1 / e,
                "valid_loss": 1.2 / e,
                "train_accuracy": 0.5 + e / 10,
                "valid_accuracy": 0.5 + e / 20,
            }
            for e in (1, 2, 3)
        ],
        best_epoch=3,
    )
    fig = plot_history(history)
    loss_ax, acc_ax = fig.axes
    assert [list(line.get_ydata()) for line in loss_ax.lines[:2]] == [
        history.column("train_loss"),
        history.column("valid_loss"),
    ]
    assert len(acc_ax.lines) == 3  # train, valid, and the kept-epoch marker
