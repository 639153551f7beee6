"""Interactive attention explorer (chapter "Self-attention and multi-head attention").

Pick an example, a layer, a head (and optionally one query token): see the attention
heatmap and the sentence shaded by the weight each token receives. The default view is
drawn first as a plain PNG plus inline-styled HTML, so the static book shows it with no
script; the ipywidgets controls below it then redraw the same two outputs in place
(Jupyter and Colab). Long inputs are cut to ``max_tokens`` with a visible note, so a
browser never has to draw a huge matrix.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import HTML, Image, display

from lamalib.data.tokenize import tokenize
from lamalib.nn.self_attention.collect import collect_attention
from lamalib.viz.heatmap import attention_heatmap
from lamalib.viz.highlight import tokens_html

MAX_TOKENS = 64  # a 64 x 64 heatmap is still readable and cheap to redraw
ALL_QUERIES = -1  # the query choice that shades tokens by the mean over every query


@dataclass
class AttentionExample:
    """One sentence: its ``tokens`` and its weights ``(L, H, T, T)`` (layer, head,
    query, key)."""

    name: str
    tokens: list[str]
    weights: np.ndarray


def _as_example(item, index: int) -> AttentionExample:
    if isinstance(item, AttentionExample):
        ex = item
    elif isinstance(item, dict):
        ex = AttentionExample(item.get("name", f"example {index}"), item["tokens"],
                              item["weights"])
    else:
        name, tokens, weights = item
        ex = AttentionExample(name, tokens, weights)
    w = ex.weights
    w = np.asarray(w.detach().cpu() if hasattr(w, "detach") else w, dtype=float)
    if w.ndim != 4 or w.shape[2:] != (len(ex.tokens), len(ex.tokens)):
        raise ValueError(
            f"{ex.name!r}: weights must be (L, H, T, T) with T = {len(ex.tokens)} "
            f"tokens, got {w.shape}"
        )
    return AttentionExample(ex.name, list(ex.tokens), w)


class AttentionExplorer:
    """Browse attention weights by example, layer, head and query.

    Args:
        examples: ``(name, tokens, weights (L, H, T, T))`` tuples, dicts with those
            keys, or :class:`AttentionExample` s (see :func:`examples_from_model`).
        max_tokens: inputs longer than this are cut to their first ``max_tokens``.
    """

    def __init__(self, examples: Sequence, max_tokens: int = MAX_TOKENS) -> None:
        self.examples = [_as_example(item, i) for i, item in enumerate(examples)]
        if not self.examples:
            raise ValueError("give at least one example to explore")
        self.max_tokens = max_tokens

    def _cut(self, example: int) -> tuple[list[str], np.ndarray, str]:
        ex = self.examples[example]
        T = len(ex.tokens)
        if T <= self.max_tokens:
            return ex.tokens, ex.weights, ""
        n = self.max_tokens
        note = (f"Showing the first {n} of {T} tokens; rows no longer sum to 1 because "
                "the weights on the hidden keys are not drawn.")
        return ex.tokens[:n], ex.weights[:, :, :n, :n], note

    def heads(self, example: int = 0) -> tuple[int, int]:
        """``(layers, heads)`` of an example."""
        return self.examples[example].weights.shape[:2]

    def matrix(self, example: int = 0, layer: int = 0, head: int = 0) -> np.ndarray:
        """The (possibly cut) ``(T, T)`` weights that the view draws."""
        return self._cut(example)[1][layer, head]

    def token_weights(self, example: int = 0, layer: int = 0, head: int = 0,
                      query: int = ALL_QUERIES) -> np.ndarray:
        """Weight per key token: one query's row, or the mean over all queries."""
        w = self.matrix(example, layer, head)  # (T, T)
        return w.mean(axis=0) if query == ALL_QUERIES else w[query]  # (T,)

    def figure(self, example: int = 0, layer: int = 0, head: int = 0):
        """The heatmap of one head as a matplotlib Figure."""
        tokens, _, note = self._cut(example)
        ax = attention_heatmap(self.matrix(example, layer, head), tokens, tokens,
                               title=f"{self.examples[example].name}: "
                                     f"layer {layer + 1}, head {head + 1}")
        if note:
            ax.figure.text(0.01, 0.005, note, fontsize=7, color="firebrick")
        ax.figure.tight_layout()
        return ax.figure

    def html(self, example: int = 0, layer: int = 0, head: int = 0,
             query: int = ALL_QUERIES) -> str:
        """The sentence shaded by :meth:`token_weights`, with the cut note if any."""
        tokens, _, note = self._cut(example)
        which = ("mean over all queries" if query == ALL_QUERIES
                 else f"query {query} ({tokens[query]!r})")
        head_line = (f"<div style='font-size:90%'>weight each token receives, "
                     f"layer {layer + 1}, head {head + 1}, {html.escape(which)}</div>")
        shaded = tokens_html(tokens, self.token_weights(example, layer, head, query))
        warn = (f"<div style='color:#b22222;font-size:85%'>{html.escape(note)}</div>"
                if note else "")
        return head_line + shaded + warn

    def png(self, example: int = 0, layer: int = 0, head: int = 0) -> bytes:
        """The heatmap rendered to PNG bytes (a plain image: no script to load)."""
        fig = self.figure(example, layer, head)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=90)
        plt.close(fig)  # shown through the display handle only, never twice
        return buffer.getvalue()

    def show(self, example: int = 0, layer: int = 0, head: int = 0) -> None:
        """Display the default view, then the controls that redraw it in place."""
        image = display(Image(self.png(example, layer, head)), display_id=True)
        text = display(HTML(self.html(example, layer, head)), display_id=True)
        controls = self.controls(image, text, example, layer, head)
        if controls is not None:
            display(controls)

    def controls(self, image, text, example: int = 0, layer: int = 0, head: int = 0):
        """ipywidgets that update the ``image`` and ``text`` display handles."""
        try:
            import ipywidgets as widgets
        except ImportError:  # the static view above is then all there is
            return None
        L, H = self.heads(example)
        pick = widgets.Dropdown(options=[(ex.name, i) for i, ex in
                                         enumerate(self.examples)],
                                value=example, description="example")
        # the sliders count from 1, as every page and view does (the methods from 0)
        layer_w = widgets.IntSlider(value=layer + 1, min=1, max=L, description="layer")
        head_w = widgets.IntSlider(value=head + 1, min=1, max=H, description="head")
        query_w = widgets.Dropdown(description="query")

        def query_options(i: int) -> list:
            tokens = self._cut(i)[0]
            return [("all (mean)", ALL_QUERIES)] + [
                (f"{t}: {tok}", t) for t, tok in enumerate(tokens)]

        query_w.options, query_w.value = query_options(example), ALL_QUERIES

        def redraw(change=None) -> None:
            i = pick.value
            if change is not None and change["owner"] is pick:
                L_i, H_i = self.heads(i)
                layer_w.max, head_w.max = L_i, H_i
                query_w.options, query_w.value = query_options(i), ALL_QUERIES
            layer, head = layer_w.value - 1, head_w.value - 1
            image.update(Image(self.png(i, layer, head)))
            text.update(HTML(self.html(i, layer, head, query_w.value)))

        for w in (pick, layer_w, head_w, query_w):
            w.observe(redraw, names="value")
        return widgets.HBox([pick, layer_w, head_w, query_w])


def explore(examples: Sequence, max_tokens: int = MAX_TOKENS,
            **view) -> AttentionExplorer:
    """Build an :class:`AttentionExplorer`, show it (``view``: example, layer, head)."""
    explorer = AttentionExplorer(examples, max_tokens)
    explorer.show(**view)
    return explorer


def examples_from_model(model: torch.nn.Module, vocab, texts: Sequence[str],
                        names: Sequence[str] | None = None) -> list[AttentionExample]:
    """Run a classifier on each text alone and collect its weights for the explorer.

    One text at a time, so that no padding enters the matrices.
    """
    model.eval()
    device = next(model.parameters()).device
    examples = []
    for i, text in enumerate(texts):
        words = tokenize(text)  # the reader's words, not <unk>, label the view
        tokens = torch.tensor([vocab.encode(words)], device=device)  # (1, T)
        mask = torch.ones_like(tokens, dtype=torch.bool)  # (1, T)
        weights = collect_attention(model, lambda: model(tokens, mask))  # (L,1,H,T,T)
        name = names[i] if names is not None else f"{i}: {text[:30]}"
        examples.append(AttentionExample(name, words, weights[:, 0].cpu().numpy()))
    return examples
