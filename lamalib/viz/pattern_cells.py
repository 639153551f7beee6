"""One head's attention with the cells where each pattern holds framed, and the
head's global relevance for each pattern beside it (chapter "Finding and injecting
attention patterns", step 2: the explorer of Li et al., 2022)."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import torch

from lamalib.nn.patterns import pattern_cells, relevance
from lamalib.viz.heatmap import attention_heatmap

# Okabe-Ito colours, one per pattern (readable by colour-blind readers).
PATTERN_COLORS = {"matching": "#e69f00", "same_span": "#56b4e9",
                  "previous": "#009e73", "next": "#cc79a7"}
_SPARE = ["#d55e00", "#0072b2", "#f0e442", "#000000"]


def outline_cells(ax, cells, color: str, linewidth: float = 1.1) -> int:
    """Frame every True cell of ``cells (n, n)`` on a heatmap drawn with ``imshow``
    (cell (i, j) centred at x = j, y = i). Returns how many frames were drawn."""
    pairs = torch.as_tensor(cells).nonzero().tolist()
    for i, j in pairs:
        ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                   lw=linewidth, edgecolor=color))
    return len(pairs)


def pattern_head_figure(weights: torch.Tensor, tokens: torch.Tensor,
                        mask: torch.Tensor, spans: torch.Tensor | None,
                        words: Sequence[str], patterns: Sequence[str],
                        title: str = "", max_tokens: int = 40,
                        colors: dict | None = None):
    """Draw one head on one document with each pattern's cells framed.

    Args:
        weights: ``(T, T)`` the head's attention on the document (a row of
            ``collect_attention``'s ``(L, B, H, T, T)``).
        tokens, mask, spans: ``(1, T)`` the document (spans may be None when no
            pattern needs them). words: its T words, for the axes.
        patterns: pattern names (or predicates); each is framed in its colour and
            its GR on this document, eq. (1), is written in the legend.
        max_tokens: draw the first ``max_tokens`` tokens only (GR uses them all).

    Returns ``(figure, {pattern name: GR})``.
    """
    colors = {**PATTERN_COLORS, **(colors or {})}
    n = min(len(words), max_tokens)
    fig, ax = plt.subplots(figsize=(9.5, 7.5))
    attention_heatmap(weights[:n, :n], list(words[:n]), list(words[:n]), ax=ax,
                      title=f"{title} (first {n} tokens)" if title else None)
    grs, handles = {}, []
    for k, p in enumerate(patterns):
        name = p if isinstance(p, str) else p.__name__
        color = colors.get(name, _SPARE[k % len(_SPARE)])
        cells = pattern_cells(p, tokens, mask, spans)  # (1, T, T)
        w = weights[None, None].to(torch.float32)  # (1, 1, T, T): B = H = 1
        grs[name] = relevance(w, cells, mask)[0, 0].item()
        outline_cells(ax, cells[0, :n, :n], color)
        handles.append(plt.Line2D([], [], color=color, lw=2,
                                  label=f"{name}: GR {grs[name]:.2f}"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.25, 1.0),
              title="pattern cells (framed)", fontsize=9)
    fig.tight_layout()
    return fig, grs
