"""Plots and views: source code, training curves, attention heatmaps, token shading,
and the self-contained attention view (HTML that needs no kernel)."""

from lamalib.viz.attention_view import (attention_view, display_attention,
                                        display_model, model_view)
from lamalib.viz.claims_table import claims_table
from lamalib.viz.curves import plot_history
from lamalib.viz.glue import glue
from lamalib.viz.heatmap import attention_heatmap
from lamalib.viz.highlight import highlight_rows, highlight_tokens, tokens_html
from lamalib.viz.interactive import interactive_figure
from lamalib.viz.labels import label_points
from lamalib.viz.source import show_source, source_of

__all__ = ["attention_heatmap", "attention_view", "claims_table", "display_attention",
           "display_model", "glue",
           "highlight_rows", "highlight_tokens", "interactive_figure", "label_points",
           "model_view", "plot_history", "show_source", "source_of", "tokens_html"]
