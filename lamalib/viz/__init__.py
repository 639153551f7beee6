"""Plots and views: source code, training curves, attention heatmaps, token shading."""

from .curves import plot_history
from .heatmap import attention_heatmap
from .highlight import highlight_rows, highlight_tokens, tokens_html
from .interactive import interactive_figure
from .labels import label_points
from .source import show_source, source_of

__all__ = ["attention_heatmap", "highlight_rows", "highlight_tokens",
           "interactive_figure", "label_points", "plot_history", "show_source",
           "source_of", "tokens_html"]
