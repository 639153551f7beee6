"""Attention heatmaps: which key each query looked at (every attention chapter)."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np


def robust_scale(values) -> float:
    """The top of the colour scale, one rule for every attention map of the course
    (:func:`attention_heatmap` and the shading of :mod:`lamalib.viz.attention_view`): the 99th
    percentile of the values drawn (linear interpolation), so one outlier cannot pale
    all the rest; larger values take the darkest colour."""
    v = np.asarray(values, dtype=float).ravel()
    return max(float(np.quantile(v, 0.99)), 1e-9) if v.size else 1.0


def attention_heatmap(
    weights,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    ax=None,
    title: str | None = None,
    cmap: str = "viridis",
    colorbar: bool = True,
    vmax: float | None = None,
    xlabel: str = "key",
    ylabel: str = "query",
):
    """Draw ``weights (Tq, Tk)``: rows are queries (``y_labels``), columns keys.

    Returns the Axes. Accepts a tensor or array; values are shown as they are (no
    renormalisation), so masked keys stay at 0. The color scale runs from 0 to
    ``vmax`` (default: :func:`robust_scale`, the 99th percentile of the weights;
    larger ones take the top colour, and the colour bar's arrow says so); give panels
    that are compared the same ``vmax``. ``xlabel``/``ylabel`` name the axes (e.g. source/target for a decoder).
    """
    w = np.asarray(
        weights.detach().cpu() if hasattr(weights, "detach") else weights, dtype=float
    )
    if w.ndim != 2 or w.shape != (len(y_labels), len(x_labels)):
        raise ValueError(
            f"weights of shape {w.shape} do not match "
            f"{len(y_labels)} query and {len(x_labels)} key labels"
        )
    if ax is None:
        size = (
            max(3.0, 0.35 * len(x_labels) + 1.5),
            max(2.5, 0.35 * len(y_labels) + 1.0),
        )
        _, ax = plt.subplots(figsize=size)
    if vmax is None:
        vmax = robust_scale(w)
    im = ax.imshow(w, cmap=cmap, vmin=0.0, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(x_labels)), x_labels, rotation=90)
    ax.set_yticks(range(len(y_labels)), y_labels)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04,
                           extend="max" if float(w.max()) > vmax else "neither")
    return ax
