"""Tokens shaded by their attention weight, as plain inline-styled HTML.

No script and no CDN: it renders the same in Jupyter, Colab and the static book.
"""

from __future__ import annotations

import html
from typing import Sequence

from IPython.display import HTML


def _shade(weight: float, rgb: tuple[int, int, int]) -> str:
    return f"rgba({rgb[0]},{rgb[1]},{rgb[2]},{max(0.0, min(1.0, weight)):.3f})"


def tokens_html(
    tokens: Sequence[str],
    weights: Sequence[float],
    rgb: tuple[int, int, int] = (255, 140, 0),
    normalize: bool = True,
) -> str:
    """One line of ``<span>``s; weights are scaled so the largest is fully shaded."""
    if len(tokens) != len(weights):
        raise ValueError(f"{len(tokens)} tokens but {len(weights)} weights")
    w = [float(x) for x in weights]
    top = max(w) if normalize and w and max(w) > 0 else 1.0
    spans = [
        f'<span title="{x:.3f}" style="background:{_shade(x / top, rgb)};'
        f'padding:1px 2px;margin:1px;border-radius:3px">{html.escape(tok)}</span>'
        for tok, x in zip(tokens, w)
    ]
    return (
        '<div style="line-height:1.9;font-family:monospace">'
        + " ".join(spans)
        + "</div>"
    )


def highlight_tokens(
    tokens: Sequence[str], weights: Sequence[float], label: str | None = None
) -> HTML:
    """Display one sentence with each token shaded by its weight (hover shows the
    value)."""
    head = f"<b>{html.escape(label)}</b>" if label else ""
    return HTML(head + tokens_html(tokens, weights))


def highlight_rows(rows: Sequence[tuple[str, Sequence[str], Sequence[float]]]) -> HTML:
    """Several sentences, each ``(label, tokens, weights)``, one per line."""
    body = "".join(
        f'<div style="margin-bottom:6px"><b>{html.escape(label)}</b>'
        f"{tokens_html(tokens, weights)}</div>"
        for label, tokens, weights in rows
    )
    return HTML(body)
