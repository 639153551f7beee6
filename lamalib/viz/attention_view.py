"""The course's attention view: one self-contained HTML fragment (every chapter with
attention; the ``attention --html`` command).

``attention_view(tokens, weights, kind)`` returns HTML with its script, style and data
inlined: no library, no CDN, no network and no kernel, so the same view works in the
built book, in Jupyter, on Colab (with either ipywidgets version: it uses no widgets)
and as a file opened in any browser. Tokens are coloured by weight; selectors choose the
layer and head (self- and cross-attention) or the head (pooling attention); hovering or
clicking a word shows where it looks (self-attention: its row; cross-attention: a target
word's row over the source) or its weight in every head (pooling). Without JavaScript the
fragment is a static table of the same weights.

Weights travel as integers in thousandths (rounded to 3 decimals); a large view packs
them with zlib, which the browser unpacks (``DecompressionStream``), so a 100-token
document with 3 layers of 8 heads stays under 200 kB.
"""

from __future__ import annotations

import base64
import html
import json
import uuid
import zlib
from pathlib import Path
from typing import Sequence

import numpy as np
from IPython.display import HTML, display

HERE = Path(__file__).resolve().parent
SCRIPT = (HERE / "attention_view.js").read_text(encoding="utf-8")
STYLE = (HERE / "attention_view.css").read_text(encoding="utf-8")
PLAIN_LIMIT = 20_000  # weights beyond this many travel packed (zlib + base64)
KINDS = ("self", "pooling", "cross")
# the choices the head menu offers after the heads of a self-attention view, computed
# by the script from the heads' weights: their mean, and the rollout up to the layer
# (lamalib.nn.self_attention.rollout, which the browser tests compare it with)
DERIVED = ("mean of heads", "rollout")
# the structural tokens a tokenizer adds (BERT's, RoBERTa's, XLNet's); not [UNK] or
# [MASK], which stand for words of the text
SPECIAL = frozenset({"[CLS]", "[SEP]", "[PAD]", "<s>", "</s>", "<pad>", "<cls>",
                     "<sep>"})


class StartOutOfRange(ValueError):
    """A view's ``start`` (layer, head) beyond the weights' layers or heads;
    ``layers`` and ``heads`` say how many there are."""

    def __init__(self, start: tuple, layers: int, heads: int) -> None:
        super().__init__(f"start={start}: give a 0-based (layer, head) within "
                         f"{layers} layers and {heads} heads")
        self.layers, self.heads = layers, heads


def special_positions(tokens: Sequence[str]) -> list[int]:
    """The positions of the structural tokens a tokenizer adds (``[CLS]``, ``[SEP]``,
    ``<s>``, ``</s>``, pads: :data:`SPECIAL`), which the view's "hide special tokens"
    box removes; ``[UNK]`` and ``[MASK]`` stand for words and stay."""
    return [i for i, t in enumerate(tokens) if t in SPECIAL]


def _milli(weights, kind: str, T: int, Tq: int | None = None) -> np.ndarray:
    """The weights as integers in thousandths: ``(L, H, T, T)`` (self),
    ``(L, H, Tq, T)`` (cross: Tq target tokens over T source tokens) or ``(H, T)``."""
    w = np.asarray(weights.detach().cpu().float() if hasattr(weights, "detach")
                   else weights, dtype=float)
    if kind == "pooling":
        want, ok = "(H, T)", w.ndim == 2 and w.shape[1] == T
    else:
        rows = T if kind == "self" else Tq
        want = "(L, H, T, T)" if kind == "self" else "(L, H, Tq, T)"
        ok = w.ndim == 4 and w.shape[2:] == (rows, T)
    if not ok or w.size == 0:
        sizes = f"T = {T} tokens" if kind != "cross" else (
            f"Tq = {Tq} target tokens and T = {T} source tokens")
        raise ValueError(f"{kind} attention weights must be {want} with {sizes}, got "
                         f"{tuple(w.shape)}")
    if not np.isfinite(w).all():
        raise ValueError("the attention weights hold NaN or infinite values")
    return np.rint(np.clip(w, 0.0, 1.0) * 1000).astype(np.int64)


def _json(value) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&``
    (a token ``</script>`` cannot end it)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026").replace("\u2028", "\\u2028")
            .replace("\u2029", "\\u2029"))


def _packed(milli: np.ndarray) -> str:
    """Low bytes then high bytes of each weight, zlib-compressed, in base64 (the
    planes compress better than interleaved 16-bit values)."""
    flat = milli.ravel()
    planes = (flat & 255).astype(np.uint8).tobytes() + (flat >> 8).astype(
        np.uint8).tobytes()
    return base64.b64encode(zlib.compress(planes, 9)).decode("ascii")


def _static_table(tokens: list[str], milli: np.ndarray, kind: str,
                  queries: list[str] | None = None) -> str:
    """The weights as a plain table, what a page without JavaScript shows."""
    def cell(x: float) -> str:
        return f"<td>{x / 1000:.3f}</td>"

    if kind == "cross":  # a target word's row over the source, mean over L and H
        L, H = milli.shape[:2]
        mean = milli.mean(axis=(0, 1))  # (Tq, T)
        caption = (f"Each target word's weights over the source words: the mean over "
                   f"{L} layer{'s' * (L != 1)} and {H} head{'s' * (H != 1)}.")
        head = ("<tr><th>target \\ source</th>"
                + "".join(f"<th>{html.escape(tok)}</th>" for tok in tokens) + "</tr>")
        rows = [f"<tr><td>{html.escape(q)}</td>" + "".join(cell(x) for x in mean[i])
                + "</tr>" for i, q in enumerate(queries)]
    elif kind == "self":
        L, H = milli.shape[:2]
        received = milli.mean(axis=(0, 1, 2))  # (T,)
        caption = (f"The attention each token receives: the mean over {L} layer"
                   f"{'s' * (L != 1)}, {H} head{'s' * (H != 1)} and every query.")
        head = "<tr><th>token</th><th>received</th></tr>"
        rows = [f"<tr><td>{html.escape(tok)}</td>{cell(received[t])}</tr>"
                for t, tok in enumerate(tokens)]
    else:
        H = milli.shape[0]
        caption = "Each head's weight on each token, and their mean."
        head = ("<tr><th>token</th><th>mean</th>"
                + "".join(f"<th>head {h + 1}</th>" for h in range(H)) + "</tr>")
        rows = [f"<tr><td>{html.escape(tok)}</td>{cell(milli[:, t].mean())}"
                + "".join(cell(milli[h, t]) for h in range(H)) + "</tr>"
                for t, tok in enumerate(tokens)]
    return (f'<div class="lv-static"><table><caption>{caption}</caption>'
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></div>")


def attention_view(tokens: Sequence[str], weights, kind: str,
                   prediction: str | None = None, probability: float | None = None,
                   title: str | None = None,
                   queries: Sequence[str] | None = None,
                   start: tuple[int, int] | None = None,
                   hide_special: bool = False) -> str:
    """One HTML fragment that shows ``weights`` over ``tokens``, with its script, style
    and data inlined; its DOM ids are new on every call, so views share a page.

    A self-attention view's head menu also offers the mean of the layer's heads and
    the attention rollout up to the layer (Abnar and Zuidema, 2020), which the script
    computes as :func:`lamalib.nn.self_attention.rollout.attention_rollout` does; where the tokens
    hold special tokens (``[CLS]``, ``[SEP]``...), a box hides them and renormalises
    each row over the rest. Two buttons save the map shown as PNG or SVG. Pages and
    views count layers and heads from 1; ``start`` is Python's 0-based index.

    Args:
        tokens: the T tokens shown.
        weights: ``(L, H, T, T)`` (layer, head, query, key) for ``kind="self"``,
            ``(L, H, Tq, T)`` (layer, head, target token, source token) for
            ``kind="cross"``, or ``(H, T)`` (a distribution per head or hop) for
            ``kind="pooling"``; a tensor or an array, rounded to 3 decimals.
        prediction, probability: the model's label for the text and its probability.
        title: a line above the view.
        queries: the Tq target tokens (the rows) of ``kind="cross"``, where
            ``tokens`` are the source tokens (the columns); only for that kind.
        start: ``(layer, head)`` (0-based, e.g. a finding's ``best``) the view opens
            on: the head the text discusses; default the first. A pooling view has
            one layer: ``(0, head)``. Beyond the weights: :class:`StartOutOfRange`.
        hide_special: open with special tokens hidden.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be 'self', 'pooling' or 'cross', not {kind!r}")
    if (queries is not None) != (kind == "cross"):
        raise ValueError("give queries (the target tokens) with kind 'cross', and only "
                         "with it")
    tokens = [str(t) for t in tokens]
    queries = None if queries is None else [str(q) for q in queries]
    if not tokens or queries == []:
        raise ValueError("give at least one token to show")
    milli = _milli(weights, kind, len(tokens), queries and len(queries))
    view_id = "lamalib-av-" + uuid.uuid4().hex[:12]
    spec = {"kind": kind, "tokens": tokens, "H": int(milli.shape[-3 if kind != "pooling"
                                                                    else 0])}
    if kind != "pooling":
        spec["L"] = int(milli.shape[0])
    if start is not None:
        # a pooling view has one layer: (0, head), or (head,)
        layer, head = (int(start[0]), int(start[-1])) if len(start) > 1 else (
            0, int(start[0]))
        if not (0 <= layer < spec.get("L", 1) and 0 <= head < spec["H"]):
            raise StartOutOfRange(tuple(start), spec.get("L", 1), spec["H"])
        spec["start"] = [layer, head]
    if kind == "self":  # the mean of heads and the rollout follow each layer's heads
        spec["derived"] = list(DERIVED)
        spec["special"] = special_positions(tokens)
        spec["hide"] = bool(hide_special and spec["special"])
    if kind == "cross":
        spec["queries"] = queries
    if milli.size > PLAIN_LIMIT:
        spec.update(encoding="zlib", w=_packed(milli))
    else:
        spec.update(encoding="plain", w=milli.ravel().tolist())
    top = ""
    if title:
        top += f'<span class="lv-title">{html.escape(title)}</span>'
    if prediction is not None:
        shown = html.escape(str(prediction))
        if probability is not None:
            shown += f" (probability {float(probability):.3f})"
        top += f'<span class="lv-pred">prediction: <b>{shown}</b></span>'
    return (f'<div class="lamalib-av" id="{view_id}"><style>{STYLE}</style>'
            + (f'<div class="lv-top">{top}</div>' if top else "")
            + _static_table(tokens, milli, kind, queries)
            + f'<script type="application/json" id="{view_id}-data">{_json(spec)}'
            f"</script><script>{SCRIPT.rstrip()}({_json(view_id)});</script></div>")


def model_view(model, text: str, title: str | None = None,
               max_len: int | None = None, start: tuple[int, int] | None = None,
               hide_special: bool = False) -> str:
    """The view of a model's attention over ``text``, with its prediction when it
    makes one; ``max_len``: read at most that many tokens, for the weights and the
    prediction alike.

    ``model`` is anything with ``attention(text, max_len)`` (tokens, weights, kind): a
    saved classifier (``lamalib.models.saved.load_model``; a sentence-pair model shows
    its sentence encoder's attention, without a prediction) or a pretrained Hugging
    Face encoder, every layer and head (``lamalib.models.hf_encoder.load_encoder(name
    or folder)``, e.g. ``"all-MiniLM-L6-v2"``), which predicts nothing.
    """
    att = model.attention(text, max_len=max_len)
    label = probability = None
    if hasattr(model, "predict") and not getattr(model, "pairs", False):
        best = model.predict([text], max_len=max_len)[0]
        label, probability = best.label, best.probability
    return attention_view(att.tokens, att.weights, att.kind, label, probability,
                          title, start=start, hide_special=hide_special)


def attention_page(fragment: str, title: str = "Attention") -> str:
    """A complete HTML page around a view (``fragment``) that works offline."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title></head>"
            "<body style=\"max-width:750px;margin:2em auto;padding:0 1em\">"
            f"{fragment}</body></html>\n")


def display_attention(tokens: Sequence[str], weights, kind: str,
                      prediction: str | None = None, probability: float | None = None,
                      title: str | None = None,
                      queries: Sequence[str] | None = None,
                      start: tuple[int, int] | None = None,
                      hide_special: bool = False) -> None:
    """Show :func:`attention_view` in a notebook (``IPython.display.HTML``)."""
    display(HTML(attention_view(tokens, weights, kind, prediction, probability, title,
                                queries, start, hide_special)))


def display_model(model, text: str, title: str | None = None,
                  start: tuple[int, int] | None = None,
                  hide_special: bool = False) -> None:
    """Show :func:`model_view` in a notebook, e.g. ``display_model(load_encoder(
    "all-MiniLM-L6-v2"), "The cat sat on the mat.", start=(0, 2))``: every layer and
    head, opening on layer 1, head 3 (``start`` counts from 0, the page from 1)."""
    display(HTML(model_view(model, text, title, start=start,
                            hide_special=hide_special)))
