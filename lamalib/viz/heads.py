"""Layers x heads heatmaps: head importance, global relevance of a pattern (chapter
"Finding and injecting attention patterns")."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np


def head_heatmap(scores, ax=None, title: str | None = None,
                 label: str = "importance", cmap: str = "magma",
                 annotate: bool = True, outline: Sequence[tuple[int, int]] = (),
                 vmin: float | None = 0.0, vmax: float | None = None):
    """Draw ``scores (L, H)``: one row per layer, one column per head, labelled
    from 1 (layer 1 is the one nearest the input, as the book counts).

    Args:
        label: the colorbar's label. annotate: write each value in its cell.
        outline: ``(layer, head)`` cells to frame (e.g. heads kept by a rule).
        vmin / vmax: color range (default 0 .. the largest score).

    Returns the Axes.
    """
    s = np.asarray(scores.detach().cpu() if hasattr(scores, "detach") else scores,
                   dtype=float)
    if s.ndim != 2:
        raise ValueError(f"scores must be (layers, heads), got shape {s.shape}")
    L, H = s.shape
    if ax is None:
        size = (max(3.0, 0.6 * H + 1.8), max(1.8, 0.55 * L + 1.0))
        _, ax = plt.subplots(figsize=size)
    im = ax.imshow(s, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    # labelled from 1, as the view and the book count; ``outline`` takes 0-based cells
    ax.set_xticks(range(H), [str(h + 1) for h in range(H)])
    ax.set_yticks(range(L), [str(l + 1) for l in range(L)])
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    if title:
        ax.set_title(title)
    if annotate:
        lo, hi = im.get_clim()
        for l in range(L):
            for h in range(H):
                dark = (s[l, h] - lo) < 0.6 * (hi - lo)
                ax.text(h, l, f"{s[l, h]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if dark else "black")
    for l, h in outline:
        ax.add_patch(plt.Rectangle((h - 0.5, l - 0.5), 1, 1, fill=False,
                                   edgecolor="deepskyblue", linewidth=2.5))
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label=label)
    return ax
