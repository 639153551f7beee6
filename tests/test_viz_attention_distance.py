"""The attention-distance figure and table (lamalib.viz.attention_distance) read a
record as AttentionDistances writes it."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from lamalib.viz.attention_distance import distance_table, show_distances  # noqa: E402


def _record(L=2, H=3, D=4):
    # histogram (L, H, D + 1): layer l's head h puts all its edges at distance l
    hist = [[[10 if d == l else 0 for d in range(D + 1)] for _ in range(H)]
            for l in range(L)]
    summary = [{"layer": l + 1, "per_head_mean_argmax": [float(l)] * H,
                "mean_argmax": float(l), "mean_expected": l + 0.5,
                "share_local": 1.0 if l <= 1 else 0.0, "chance": 2.0}
               for l in range(L)]
    return {"histogram": hist, "summary": summary, "max_distance": D}


def test_table_one_column_per_layer_and_untrained_rows_only_when_given():
    table = distance_table(_record(), None)
    assert list(table.columns) == ["layer 1", "layer 2"]
    assert table.loc["mean argmax distance", "layer 2"] == 1.0
    assert table.loc["mean expected distance", "layer 1"] == 0.5
    assert "mean argmax distance, untrained" not in table.index
    both = distance_table(_record(), _record())
    assert both.loc["share at distance <= 1, untrained", "layer 1"] == 1.0


@pytest.mark.parametrize("untrained", [None, _record()])
def test_figure_draws_each_layers_distribution(monkeypatch, untrained):
    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(plt.gcf()))
    show_distances(_record(), untrained, "a title")
    fig = shown[0]
    heads_ax, dist_ax = fig.axes[0], fig.axes[1]
    assert heads_ax.images[0].get_array().shape == (2, 3)  # (L, H)
    lines = dist_ax.get_lines()
    assert len(lines) == 2 + (untrained is not None)
    # layer 2 puts every edge at distance 1: its share there is 1
    assert list(lines[1].get_ydata()) == [0.0, 1.0, 0.0, 0.0, 0.0]
    plt.close(fig)


def test_the_untrained_line_is_the_untrained_models_share_at_each_distance(monkeypatch):
    """The dashed line reads the untrained record's histogram, summed over layers and
    heads, bin by bin from distance 0: an untrained model whose edges sit at distances 0
    and 3 (three quarters at 0) draws 0.75 at 0 and 0.25 at 3, not the other way round
    and not the trained model's shares."""
    untrained = _record()
    untrained["histogram"] = [[[10, 0, 0, 20, 0]] * 3, [[50, 0, 0, 0, 0]] * 3]
    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(plt.gcf()))
    show_distances(_record(), untrained, "a title")
    fig = shown[0]
    line = fig.axes[1].get_lines()[-1]
    assert line.get_label() == "untrained (all layers)" and line.get_linestyle() == "--"
    assert list(line.get_xdata()) == [0, 1, 2, 3, 4]
    assert list(line.get_ydata()) == pytest.approx([0.75, 0.0, 0.0, 0.25, 0.0])
    plt.close(fig)
