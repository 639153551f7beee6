"""Training curves label whole epochs only (chapter 6's 3-epoch curves showed 1.5)."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from lamalib.train.history import History  # noqa: E402
from lamalib.viz import plot_history  # noqa: E402


@pytest.mark.parametrize("n_epochs", [2, 3, 5])
def test_epoch_ticks_are_whole_numbers(n_epochs):
    history = History(
        [{"epoch": e, "train_loss": 1 / e, "train_accuracy": e / 10}
         for e in range(1, n_epochs + 1)],
        best_epoch=n_epochs,
    )
    fig = plot_history(history)
    fig.canvas.draw()
    for ax in fig.axes:
        lo, hi = ax.get_xlim()
        shown = [t for t in ax.get_xticks() if lo <= t <= hi]
        assert shown and all(float(t).is_integer() for t in shown), shown
