"""Point labels that do not overlap (scatter maps of word vectors, chapter "Word
vectors").

``ax.annotate`` at every point piles the words of a dense cluster on top of each other.
:func:`label_points` tries a ring of positions around each point, nearest first, and
keeps the first one whose text box overlaps no label already placed and no other
point. A label placed beyond the nearest ring, or one that found no free place (it then
takes its least crowded candidate), gets a thin line to its point.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from matplotlib.transforms import Bbox

# Directions of the candidate offsets: right, left, up, down, the diagonals, then the
# eight directions between them.
_ANGLES = np.deg2rad([0, 180, 90, 270, 45, 135, 315, 225,
                      22.5, 157.5, 337.5, 202.5, 67.5, 112.5, 292.5, 247.5])


def _candidates(rings: int, step: float) -> list[tuple[float, float]]:
    """Offsets in points, nearest ring first."""
    return [(round(step * r * np.cos(a), 6), round(step * r * np.sin(a), 6))
            for r in range(1, rings + 1) for a in _ANGLES]


def _overlap(box: Bbox, others: list[Bbox]) -> float:
    """Total overlapping area of ``box`` with ``others`` (display units)."""
    total = 0.0
    for o in others:
        w = min(box.x1, o.x1) - max(box.x0, o.x0)
        h = min(box.y1, o.y1) - max(box.y0, o.y0)
        if w > 0 and h > 0:
            total += w * h
    return total


def label_points(ax, xy, labels: Sequence[str], colors: Sequence | None = None,
                 fontsize: float = 8, rings: int = 8, step: float = 5.0,
                 point_size: float = 3.0) -> list:
    """Label the points ``xy (n, 2)`` (data coordinates) with ``labels``.

    Args:
        ax: the Axes that holds the scatter; set its limits before calling.
        colors: a text color per label (default black).
        rings, step: candidate offsets at ``step, 2 step, ...`` points from the point.
        point_size: half-width in points of the box kept free around every point.

    Returns the ``matplotlib.text.Annotation`` of each label, in order.
    """
    xy = np.asarray(xy, dtype=float)
    if len(xy) != len(labels):
        raise ValueError(f"{len(xy)} points but {len(labels)} labels")
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    to_pixels = fig.dpi / 72.0
    points_px = ax.transData.transform(xy)  # (n, 2) display coordinates
    pad = point_size * to_pixels
    taken = [Bbox.from_extents(x - pad, y - pad, x + pad, y + pad) for x, y in points_px]
    texts = []
    for i, label in enumerate(labels):
        best = None
        own = [b for j, b in enumerate(taken) if j != i]  # a label may touch its point
        for dx, dy in _candidates(rings, step):
            ha = "left" if dx > 0 else "right" if dx < 0 else "center"
            va = "bottom" if dy > 0 else "top" if dy < 0 else "center"
            text = ax.annotate(label, xy[i], xytext=(dx, dy), textcoords="offset points",
                               ha=ha, va=va, fontsize=fontsize,
                               color=None if colors is None else colors[i])
            box = text.get_window_extent(renderer)
            cost = _overlap(box, own)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, text, box)
            else:
                text.remove()
            if cost == 0:
                break
        cost, text, box = best
        if cost > 0 or np.hypot(*text.xyann) > 1.01 * step:
            # beyond the first ring, or still crowded: a thin line says whose label it is
            text.remove()
            text = ax.annotate(label, xy[i], xytext=text.xyann,
                               textcoords="offset points", ha=text.get_ha(),
                               va=text.get_va(), fontsize=fontsize,
                               color=None if colors is None else colors[i],
                               arrowprops=dict(arrowstyle="-", lw=0.5, color="0.6",
                                               shrinkA=0, shrinkB=2))
        taken.append(box)
        texts.append(text)
    return texts
