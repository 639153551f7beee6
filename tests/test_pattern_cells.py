"""The explorer's pattern view (lamalib.viz.pattern_cells): one frame per cell where
a predicate holds (against a brute-force count), and the GR it prints is eq. (1)
computed by hand."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from lamalib.viz.pattern_cells import outline_cells, pattern_head_figure  # noqa: E402


def _frames(ax, color):
    return [p for p in ax.patches if isinstance(p, plt.Rectangle)
            and matplotlib.colors.to_hex(p.get_edgecolor()) == color]


def test_outline_frames_exactly_the_true_cells():
    cells = torch.tensor([[True, False], [True, True]])
    fig, ax = plt.subplots()
    assert outline_cells(ax, cells, "#123456") == 3
    corners = sorted((r.get_x(), r.get_y()) for r in _frames(ax, "#123456"))
    assert corners == [(-0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)]  # (j - .5, i - .5)
    plt.close(fig)


def test_view_frames_each_pattern_and_reports_its_relevance():
    words = "the cat saw the dog . the end".split()
    ids = {w: i + 1 for i, w in enumerate(dict.fromkeys(words))}
    tokens = torch.tensor([[ids[w] for w in words]])
    mask = torch.ones_like(tokens, dtype=torch.bool)
    spans = torch.tensor([[0, 0, 0, 0, 0, 0, 1, 1]])
    w = torch.softmax(torch.randn(8, 8, generator=torch.Generator().manual_seed(0)),
                      -1)
    fig, grs = pattern_head_figure(w, tokens, mask, spans, words,
                                   ["matching", "previous"], colors={
                                       "matching": "#aa0000", "previous": "#00aa00"})
    ax = fig.axes[0]
    # brute force: 'the' x 'the' = 9 matching cells; previous: 7 cells (i, i-1)
    assert len(_frames(ax, "#aa0000")) == 9
    assert len(_frames(ax, "#00aa00")) == 7
    the = [i for i, x in enumerate(words) if x == "the"]
    by_hand = sum(w[i, j].item() for i in the for j in the) / 8  # eq. (1), |x| = 8
    assert grs["matching"] == pytest.approx(by_hand)
    assert grs["previous"] == pytest.approx(sum(w[i, i - 1].item()
                                                for i in range(1, 8)) / 8)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [f"matching: GR {grs['matching']:.2f}",
                      f"previous: GR {grs['previous']:.2f}"]
    plt.close(fig)


def test_view_draws_only_the_first_tokens_but_scores_them_all():
    tokens = torch.tensor([[1, 2, 1, 2, 1, 2]])
    mask = torch.ones_like(tokens, dtype=torch.bool)
    w = torch.full((6, 6), 1 / 6)
    fig, grs = pattern_head_figure(w, tokens, mask, None, list("ababab"),
                                   ["matching"], max_tokens=3,
                                   colors={"matching": "#aa0000"})
    assert len(_frames(fig.axes[0], "#aa0000")) == 5  # a-a cells among 3 tokens
    assert grs["matching"] == pytest.approx(18 / 36)  # all 6 tokens: 18 cells / 6^2
    plt.close(fig)
