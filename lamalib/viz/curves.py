"""Training curves from a ``History`` (chapter "Setup and a first model")."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator


def plot_history(history, title: str | None = None):
    """Loss (left) and accuracy (right) per epoch, train vs valid; the kept epoch
    marked.

    Returns the matplotlib Figure.
    """
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(9, 3.2))
    epochs = history.column("epoch")
    for key, ax, style in [
        ("train_loss", ax_loss, "-o"),
        ("valid_loss", ax_loss, "-s"),
        ("train_accuracy", ax_acc, "-o"),
        ("valid_accuracy", ax_acc, "-s"),
    ]:
        values = history.column(key)
        if values:
            ax.plot(epochs[: len(values)], values, style, ms=3, label=key.split("_")[0])
    for ax, name in [(ax_loss, "loss"), (ax_acc, "accuracy")]:
        if history.best_epoch is not None:
            ax.axvline(history.best_epoch, color="grey", ls=":", lw=1, label="kept")
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # no epoch 1.5
        ax.set_ylabel(name)
        ax.legend(frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
