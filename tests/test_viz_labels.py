"""label_points: labels of crowded points end up next to their point, never on top of
another label."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.text import Text  # noqa: E402
import pytest  # noqa: E402

from lamalib.viz.labels import label_points  # noqa: E402


def boxes(texts, fig):
    renderer = fig.canvas.get_renderer()
    out = []
    for t in texts:  # the text's own box (an Annotation's extent includes its line)
        t.update_positions(renderer)
        out.append(Text.get_window_extent(t, renderer))
    return out


def overlaps(a, b):
    return min(a.x1, b.x1) > max(a.x0, b.x0) and min(a.y1, b.y1) > max(a.y0, b.y0)


def test_labels_of_a_crowded_cluster_do_not_overlap():
    rng = np.random.default_rng(0)
    xy = np.concatenate([rng.normal(0, 0.15, (12, 2)), rng.normal(3, 1.0, (12, 2))])
    words = [f"word{i}" for i in range(len(xy))]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter(*xy.T, s=8)
    ax.set(xlim=(-1.5, 6.5), ylim=(-1.5, 6.5))
    naive = [ax.annotate(w, p, fontsize=8) for w, p in zip(words, xy)]
    b = boxes(naive, fig)  # the plain annotate that the helper replaces does overlap
    assert any(overlaps(b[i], b[j]) for i in range(len(b)) for j in range(i))
    for t in naive:
        t.remove()
    texts = label_points(ax, xy, words)
    assert [t.get_text() for t in texts] == words
    b = boxes(texts, fig)
    clashes = [(i, j) for i in range(len(b)) for j in range(i) if overlaps(b[i], b[j])]
    assert not clashes, clashes
    centres = ax.transData.transform(xy)
    for box, (x, y) in zip(b, centres):  # each label stays near its own point
        dx = max(box.x0 - x, x - box.x1, 0)
        dy = max(box.y0 - y, y - box.y1, 0)
        assert np.hypot(dx, dy) <= 8 * 5.0 * fig.dpi / 72 + 1  # the outer ring
    plt.close(fig)


def test_label_count_must_match_points():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="2 points but 1 labels"):
        label_points(ax, [[0, 0], [1, 1]], ["a"])
    plt.close(fig)
