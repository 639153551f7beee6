"""Draw the book's diagrams of mechanisms as plain SVG files in this folder.

Run ``python book/figures/make_figures.py`` from the repository root (or anywhere:
the output folder defaults to this file's folder). The script needs only the standard
library, and its output is deterministic (no dates, no random ids), so
``tests/test_figures.py`` can check that the committed SVGs are exactly what it writes.

One visual style for every figure: the font (``FONT``), the palette (``KINDS``: one fill
and stroke per kind of thing, e.g. inputs blue, states green, gates orange), rounded
boxes, round operator nodes and one arrowhead. Math in labels uses a small markup:
``$...$`` is math (Latin and Greek letters italic), ``_{...}`` a subscript, ``^{...}`` a
superscript. The shape letters (B, T, D, H, Dh, ...) are those of
``lamalib/__init__.py``. Each figure's equations follow the chapter and the library
code that it pictures; the function's docstring names them.
"""

from __future__ import annotations

import math
import sys
import unicodedata
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------- style
FONT = "'DejaVu Sans', Verdana, 'Helvetica Neue', Arial, sans-serif"
MONO = "'DejaVu Sans Mono', Menlo, Consolas, monospace"
SIZE = 14  # body text; nothing is smaller than SMALL (the test checks it at book width)
SMALL = 13
INK = "#222222"
MUTED = "#555555"
GRAD = "#c0392b"  # gradients (backpropagation)
KINDS = {  # kind: (fill, stroke)
    "input": ("#e3eefb", "#2c6cb0"),  # tokens, embeddings, x_t
    "state": ("#e2f3e7", "#2f8a4e"),  # hidden states, residual stream
    "gate": ("#fdebd3", "#c4661f"),  # sigmoid gates
    "op": ("#efe8f9", "#6a4bb5"),  # linear maps, tanh, feed-forward
    "attn": ("#fbe4ee", "#b8336a"),  # scores, softmax, attention, context
    "norm": ("#fff4c4", "#a67c00"),  # layer normalization
    "out": ("#eceff3", "#4a5568"),  # outputs, logits, losses
    "plain": ("#ffffff", "#444444"),
}
HEADS = ["#e69f00", "#56b4e9", "#009e73", "#cc79a7"]  # Okabe-Ito, one per head
HEAD_TEXT = ["#9a6a00", "#2a78ab", "#007556", "#a34c83"]  # the same, dark enough
UPRIGHT = {"tanh", "softmax", "LN", "GRU", "Attn", "diag", "exp", "FFN", "sin", "cos",
           "PE", "max", "relu", "MHA"}


def _math_runs(src: str, level: int = 0) -> list[tuple[str, bool, int]]:
    """Split math markup into runs ``(text, italic, level)``; level -1 = subscript."""
    runs: list[tuple[str, bool, int]] = []
    i = 0
    while i < len(src):
        ch = src[i]
        if ch in "_^" and i + 1 < len(src):
            sub = -1 if ch == "_" else 1
            if src[i + 1] == "{":
                depth, j = 1, i + 2
                while depth:
                    depth += {"{": 1, "}": -1}.get(src[j], 0)
                    j += 1
                runs += _math_runs(src[i + 2 : j - 1], sub)
                i = j
            else:
                runs += _math_runs(src[i + 1], sub)
                i += 2
            continue
        if ch.isalpha() and ch.isascii():
            j = i
            while j < len(src) and src[j].isalpha() and src[j].isascii():
                j += 1
            word = src[i:j]
            runs.append((word, word not in UPRIGHT, level))
            i = j
            continue
        if unicodedata.combining(ch) and runs:  # e.g. a tilde: stays on its letter
            text, italic, lev = runs[-1]
            runs[-1] = (text + ch, italic, lev)
            i += 1
            continue
        greek = "\u03b1" <= ch <= "\u03c9"
        runs.append(("\u2212" if ch == "-" else ch, greek, level))
        i += 1
    return runs


def _runs(text: str) -> list[tuple[str, bool, int]]:
    """Runs of a label: text outside ``$...$`` is upright, inside it is math."""
    runs: list[tuple[str, bool, int]] = []
    for n, part in enumerate(text.split("$")):
        for run in _math_runs(part) if n % 2 else [(part, False, 0)] if part else []:
            if runs and runs[-1][1:] == run[1:]:  # same style: one run
                runs[-1] = (runs[-1][0] + run[0], *run[1:])
            else:
                runs.append(run)
    return runs


def _tspans(text: str, size: float) -> str:
    """SVG tspans for a label; sub- and superscripts are shifted with ``dy``."""
    out, shift = [], 0.0
    for chunk, italic, level in _runs(text):
        target = {0: 0.0, -1: 0.3 * size, 1: -0.4 * size}[level]
        attrs = []
        if target != shift:
            attrs.append(f'dy="{target - shift:.1f}"')
            shift = target
        if level:
            attrs.append(f'font-size="{0.72 * size:.1f}"')
        if italic:
            attrs.append('font-style="italic"')
        body = escape(chunk)
        out.append(f"<tspan {' '.join(attrs)}>{body}</tspan>" if attrs else body)
    return "".join(out)


def text_width(text: str, size: float) -> float:
    """Approximate rendered width (DejaVu Sans / Verdana metrics), for layout."""
    total = 0.0
    for chunk, _, level in _runs(text):
        scale = size * (0.72 if level else 1.0)
        for ch in chunk:
            if ch in "il.,:;|!'`":
                w = 0.3
            elif ch in " ()[]{}tfrj":
                w = 0.4
            elif ch in "mwMW\u2299\u2295":
                w = 0.95
            elif ch.isupper() or ch in "\u00d7+=\u2212<>":
                w = 0.72
            else:
                w = 0.62
            total += w * scale
    return total


class Svg:
    """A drawing: collects elements, writes one deterministic SVG file."""

    def __init__(self, name: str, width: int, height: int, title: str, desc: str):
        self.name, self.width, self.height = name, width, height
        self.title, self.desc = title, desc
        self.body: list[str] = []
        self.markers: set[str] = set()

    # -- text
    def text(self, x, y, label, size=SIZE, anchor="middle", color=INK, bold=False,
             mono=False, italic=False):
        attrs = [f'x="{x:g}"', f'y="{y:g}"', f'font-size="{size:g}"']
        if anchor != "start":
            attrs.append(f'text-anchor="{anchor}"')
        if color != INK:
            attrs.append(f'fill="{color}"')
        if bold:
            attrs.append('font-weight="bold"')
        if mono:
            attrs.append(f'font-family="{MONO}"')
        if italic:
            attrs.append('font-style="italic"')
        body = escape(label) if mono else _tspans(label, size)
        self.body.append(f"<text {' '.join(attrs)}>{body}</text>")

    def lines(self, x, y, labels, size=SIZE, gap=None, **kw):
        """Several lines of text, the first baseline at ``y``."""
        gap = gap or size * 1.3
        for n, label in enumerate(labels):
            self.text(x, y + n * gap, label, size=size, **kw)

    # -- shapes
    def rect(self, x, y, w, h, kind="plain", rx=6, dash=False, width=1.5, fill=None,
             stroke=None):
        f, s = KINDS[kind]
        extra = ' stroke-dasharray="6 4"' if dash else ""
        self.body.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" '
            f'fill="{fill or f}" stroke="{stroke or s}" stroke-width="{width:g}"'
            f"{extra}/>"
        )

    def box(self, cx, cy, w, h, label, kind="plain", size=SIZE, sub=None, **kw):
        """A rounded box centred at (cx, cy): a label, and maybe a smaller 2nd line."""
        self.rect(cx - w / 2, cy - h / 2, w, h, kind, **kw)
        if sub is None:
            self.text(cx, cy + size * 0.35, label, size=size)
        else:
            self.text(cx, cy - 2, label, size=size)
            self.text(cx, cy + SMALL + 1, sub, size=SMALL, color=MUTED)

    def node(self, cx, cy, symbol, kind="plain", r=11):
        """A round operator node: ``"*"`` elementwise product, ``"+"`` sum, or text."""
        f, s = KINDS[kind]
        self.body.append(
            f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{f}" stroke="{s}" '
            'stroke-width="1.5"/>'
        )
        d = r * 0.5
        if symbol == "*":  # a dot in a circle: the elementwise (Hadamard) product
            self.body.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="2.6" fill="{s}"/>')
        elif symbol == "+":
            self.body.append(
                f'<path d="M{cx - d:g} {cy:g}H{cx + d:g}M{cx:g} {cy - d:g}V{cy + d:g}" '
                f'stroke="{s}" stroke-width="1.8"/>'
            )
        else:
            self.text(cx, cy + 4.5, symbol, size=SMALL)

    def dot(self, cx, cy, color=INK, r=3.2):
        self.body.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{color}"/>')

    def grid(self, x, y, rows, cols, cell, fills, stroke="#666666"):
        """A matrix drawn as a grid of cells; ``fills[r][c]`` is each cell's colour."""
        for r in range(rows):
            for c in range(cols):
                self.body.append(
                    f'<rect x="{x + c * cell:g}" y="{y + r * cell:g}" width="{cell:g}" '
                    f'height="{cell:g}" fill="{fills[r][c]}" stroke="{stroke}" '
                    'stroke-width="0.8"/>'
                )

    def outline(self, x, y, w, h, color, width=2.2):
        self.body.append(
            f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="none" '
            f'stroke="{color}" stroke-width="{width:g}"/>'
        )

    # -- lines and arrows
    def _marker(self, color):
        mid = f"{self.name}-arrow-{color.lstrip('#')}"
        self.markers.add(color)
        return mid

    def path(self, d, color=INK, width=1.6, arrow=True, dash=False, halo=False):
        """A path (SVG ``d``); ``arrow`` puts the arrowhead at its end; ``halo`` draws a
        white band under it, so it reads as passing over the lines it crosses."""
        if halo:
            self.body.append(
                f'<path d="{d}" fill="none" stroke="#ffffff" '
                f'stroke-width="{width + 6:g}"/>'
            )
        extra = f' marker-end="url(#{self._marker(color)})"' if arrow else ""
        if dash:
            extra += ' stroke-dasharray="6 4"'
        self.body.append(
            f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width:g}" '
            f'stroke-linejoin="round"{extra}/>'
        )

    def arrow(self, *points, **kw):
        """A polyline through ``points`` ((x, y) pairs) ending in an arrowhead."""
        d = "M" + " L".join(f"{x:g} {y:g}" for x, y in points)
        self.path(d, **kw)

    def hop(self, x, y1, y2, y_cross, r=6, **kw):
        """A vertical arrow from y1 up or down to y2 that jumps over a horizontal line
        at ``y_cross`` with a small half circle (a crossing, not a junction)."""
        s = 1 if y2 > y1 else -1
        d = (f"M{x:g} {y1:g} V{y_cross - s * r:g} "
             f"A{r:g} {r:g} 0 0 {1 if s > 0 else 0} {x:g} {y_cross + s * r:g} V{y2:g}")
        self.path(d, **kw)

    # -- output
    def svg(self) -> str:
        defs = "".join(
            f'<marker id="{self.name}-arrow-{c.lstrip("#")}" viewBox="0 0 10 10" '
            'refX="9" refY="5" markerWidth="9" markerHeight="9" '
            'markerUnits="userSpaceOnUse" orient="auto">'
            f'<path d="M0 0.5 L10 5 L0 9.5 z" fill="{c}"/></marker>'
            for c in sorted(self.markers)
        )
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} '
            f'{self.height}" width="{self.width}" height="{self.height}" role="img" '
            f'aria-labelledby="{self.name}-title {self.name}-desc" '
            f'font-family="{escape(FONT, {chr(39): "&apos;"})}" fill="{INK}">'
        )
        return "\n".join([
            head,
            f'<title id="{self.name}-title">{escape(self.title)}</title>',
            f'<desc id="{self.name}-desc">{escape(self.desc)}</desc>',
            f"<defs>{defs}</defs>",
            f'<rect width="{self.width}" height="{self.height}" fill="#ffffff"/>',
            *self.body,
            "</svg>",
            "",
        ])


def legend(svg: Svg, x, y, items, size=SMALL):
    """A row of legend entries ``(kind_or_style, label)``; returns the end x."""
    for style, label in items:
        if style in KINDS:
            svg.rect(x, y - 11, 22, 14, style, rx=3)
            x += 28
        elif style == "grad":
            svg.path(f"M{x} {y - 4} H{x + 30}", color=GRAD, dash=True)
            x += 38
        elif style == "line":
            svg.path(f"M{x} {y - 4} H{x + 30}")
            x += 38
        elif style in ("*", "+"):
            svg.node(x + 10, y - 4, style, r=9)
            x += 26
        svg.text(x, y, label, size=size, anchor="start")
        x += text_width(label, size) + 22
    return x


# ------------------------------------------------------------------- chapter 3: RNNs
def rnn_unrolled() -> Svg:
    """Eq. (1) of chapter 3 unrolled over T steps, with the path of eq. (2) (BPTT)."""
    s = Svg("rnn-unrolled", 780, 370,
            "An RNN folded and unrolled over time, with backpropagation through time",
            "Left: one RNN cell reads x_t and its own previous state through U. "
            "Right: the "
            "same cell unrolled over T steps, starting from h_0 = 0; every step uses "
            "the "
            "same weights W, U and b. The loss L reads the last state h_T; dashed red "
            "arrows show its gradient travelling back from step T to step 1, one "
            "Jacobian diag(1 - h_k^2) U per step.")
    s.text(20, 28, "$h_t$ = tanh($W x_t$ + $U h_{t-1}$ + $b$)", anchor="start")
    cy, hy, xy, cw, ch = 175, 80, 278, 66, 50
    # folded
    s.box(80, cy, cw, ch, "tanh", "op")
    s.box(80, xy, 44, 30, "$x_t$", "input")
    s.box(80, hy, 44, 30, "$h_t$", "state")
    s.arrow((80, xy - 15), (80, cy + ch / 2))
    s.text(70, 236, "$W$", anchor="end")
    s.arrow((80, cy - ch / 2), (80, hy + 15))
    s.path(f"M113 {cy - 12} C 162 {cy - 30}, 162 {cy + 30}, 114 {cy + 12}")
    s.text(160, cy + 5, "$U$", anchor="start")
    s.text(194, cy - 14, "unroll", size=SMALL, color=MUTED)
    s.arrow((178, cy), (206, cy), width=2.4)
    # unrolled
    s.box(245, cy, 66, 32, "$h_0$ = 0", "state")
    xs = [340, 450, 560, 705]
    names = ["1", "2", "3", "T"]
    for x, n in zip(xs, names):
        s.box(x, cy, cw, ch, "tanh", "op")
        s.box(x, xy, 44, 30, f"$x_{n}$", "input")
        s.box(x, hy, 44, 30, f"$h_{n}$", "state")
        s.arrow((x, xy - 15), (x, cy + ch / 2))
        s.text(x - 8, 236, "$W$", anchor="end")
        s.arrow((x, cy - ch / 2), (x, hy + 15))
    s.text(633, cy + 5, "\u22ef", size=20)
    fwd, back = cy - 9, cy + 11
    spans = [(278, xs[0] - cw / 2), (xs[0] + cw / 2, xs[1] - cw / 2),
             (xs[1] + cw / 2, xs[2] - cw / 2), (xs[2] + cw / 2, 618),
             (648, xs[3] - cw / 2)]
    for a, b in spans:
        s.arrow((a, fwd), (b, fwd))
        if b - a >= 28:
            s.text((a + b) / 2, fwd - 7, "$U$")
    for a, b in spans[1:]:
        s.arrow((b, back), (a, back), color=GRAD, dash=True)
    # the loss and its gradient
    s.box(705, 30, 66, 28, "loss $L$", "out", size=SMALL + 0.5)
    s.arrow((705, hy - 15), (705, 44))
    s.arrow((738, 30), (758, 30), (758, back), (xs[3] + cw / 2, back), color=GRAD,
            dash=True)
    legend(s, 20, 332, [("line", "forward: the same $W$, $U$, $b$ at every step")])
    legend(s, 20, 356, [("grad", "backpropagation through time: from step $T$ back "
                                 "to step 1, one factor diag(1 \u2212 $h_k^2$) $U$ "
                                 "per step")])
    return s


def _cell_frame(s: Svg, x0, y0, x1, y1):
    s.rect(x0, y0, x1 - x0, y1 - y0, rx=16, fill="#f7f7f8", stroke="#9a9aa3", width=1.2)


def lstm_cell() -> Svg:
    """Eq. (6) of chapter 3 and ``LSTMCell.step``: gates i, f, o, candidate g."""
    s = Svg("lstm-cell", 780, 450, "The LSTM cell and its gates",
            "One LSTM step. The previous hidden state h_{t-1} and the input x_t feed "
            "four "
            "blocks: the forget gate f_t, the input gate i_t (both sigmoids), the "
            "candidate g_t (tanh) and the output gate o_t (sigmoid). Along the top, "
            "the "
            "cell state c_{t-1} is multiplied elementwise by f_t and then i_t times "
            "g_t "
            "is added, giving c_t. The output h_t is o_t times tanh(c_t).")
    cy_c, cy_h, gy = 85, 310, 225
    th = KINDS["state"][1]
    _cell_frame(s, 118, 40, 652, 345)
    s.box(58, cy_c, 64, 32, "$c_{t-1}$", "state")
    s.box(58, cy_h, 64, 32, "$h_{t-1}$", "state")
    s.box(165, 375, 48, 30, "$x_t$", "input")
    s.box(718, cy_c, 56, 32, "$c_t$", "state")
    s.box(718, cy_h, 56, 32, "$h_t$", "state")
    # the cell state: only an elementwise product and a sum on its way
    s.arrow((90, cy_c), (229, cy_c), color=th, width=3)
    s.arrow((251, cy_c), (409, cy_c), color=th, width=3)
    s.arrow((431, cy_c), (690, cy_c), color=th, width=3)
    s.text(330, cy_c - 10, "cell state", size=SMALL, color=MUTED)
    s.node(240, cy_c, "*")
    s.node(420, cy_c, "+")
    # the inputs of every gate
    s.path(f"M90 {cy_h} H510", arrow=False)
    s.arrow((165, 360), (165, cy_h))
    s.dot(165, cy_h)
    gates = [(240, "\u03c3", "forget", "gate", "$f_t$"),
             (330, "\u03c3", "input", "gate", "$i_t$"),
             (420, "tanh", "candidate", "op", "$g_t$"),
             (510, "\u03c3", "output", "gate", "$o_t$")]
    for x, sym, name, kind, _ in gates:
        s.box(x, gy, 82, 46, sym, kind, sub=name)
        s.arrow((x, cy_h), (x, gy + 23))
        if x != 510:
            s.dot(x, cy_h)
    s.arrow((240, gy - 23), (240, cy_c + 11))
    s.text(248, 160, "$f_t$", anchor="start")
    s.arrow((330, gy - 23), (330, 150), (409, 150))
    s.text(338, 180, "$i_t$", anchor="start")
    s.node(420, 150, "*")
    s.arrow((420, gy - 23), (420, 161))
    s.text(428, 186, "$g_t$", anchor="start")
    s.arrow((420, 139), (420, cy_c + 11))
    # the output
    s.dot(590, cy_c)
    s.box(590, 150, 56, 28, "tanh", "op")
    s.arrow((590, cy_c), (590, 136))
    s.node(590, gy, "*")
    s.arrow((590, 164), (590, gy - 11))
    s.arrow((551, gy), (579, gy))
    s.text(563, gy - 8, "$o_t$")
    s.arrow((590, gy + 11), (590, cy_h), (690, cy_h))
    legend(s, 20, 418, [("*", "elementwise product"), ("+", "sum"),
                        ("gate", "gate: \u03c3($W x_t$ + $U h_{t-1}$ + $b$)"),
                        ("op", "tanh")])
    s.text(20, 442, "lamalib's LSTMCell computes all four blocks with one x_proj and "
           "one h_proj, stacked (i, f, g, o) as in nn.LSTM", size=SMALL, anchor="start",
           color=MUTED)
    return s


def gru_cell() -> Svg:
    """Eqs. (7)-(10) of chapter 3 (the LAMA paper's GRU) and ``GRUCell.step``.

    The reset gate multiplies ``U_h h_{t-1}`` (after the matrix product, as nn.GRU
    does), and ``z_t`` weighs the *new* candidate: z = 0 copies the state.
    """
    s = Svg("gru-cell", 780, 470, "The GRU cell of the course and its gates",
            "One GRU step as the course computes it. The update gate z_t and the reset "
            "gate r_t are sigmoids of W x_t + U h_{t-1} + b. The candidate is "
            "tanh(W_h x_t + r_t times (U_h h_{t-1}) + b_h): the reset gate multiplies "
            "U_h h_{t-1}, after the matrix product. The new state is "
            "(1 - z_t) times h_{t-1} plus z_t times the candidate, so z_t = 0 copies "
            "the old state.")
    top, cand, gy, hbus, xbus = 80, 180, 285, 352, 392
    th = KINDS["state"][1]
    _cell_frame(s, 90, 36, 708, 410)
    s.box(45, top, 60, 32, "$h_{t-1}$", "state")
    s.box(45, xbus, 60, 32, "$x_t$", "input")
    s.box(742, top, 52, 32, "$h_t$", "state")
    # the state line: (1 - z) * h_{t-1} + z * h~
    s.arrow((75, top), (459, top), color=th, width=3)
    s.arrow((481, top), (654, top), color=th, width=3)
    s.arrow((676, top), (716, top), color=th, width=3)
    s.node(470, top, "*")
    s.node(665, top, "+")
    # buses: h_{t-1} and x_t
    s.dot(112, top)
    s.path(f"M112 {top} V{hbus} H365", arrow=False)
    s.path(f"M75 {xbus} H460", arrow=False)
    # gates
    zx, rx_, uhx, whx = 190, 375, 270, 460
    s.box(zx, gy, 86, 46, "\u03c3", "gate", sub="update")
    s.box(rx_, gy, 86, 46, "\u03c3", "gate", sub="reset")
    s.arrow((zx - 14, hbus), (zx - 14, gy + 23))
    s.dot(zx - 14, hbus)
    s.hop(zx + 14, xbus, gy + 23, hbus)
    s.dot(zx + 14, xbus)
    s.arrow((rx_ - 10, hbus), (rx_ - 10, gy + 23))
    s.arrow((rx_ + 14, xbus), (rx_ + 14, gy + 23))
    s.dot(rx_ + 14, xbus)
    # candidate: tanh(W_h x + r * (U_h h) + b_h)
    s.box(uhx, cand, 92, 34, "$U_h h_{t-1}$", "op")
    s.arrow((uhx, hbus), (uhx, cand + 17))
    s.dot(uhx, hbus)
    s.node(rx_ - 10, cand, "*")
    s.arrow((uhx + 46, cand), (rx_ - 21, cand))
    s.arrow((rx_ - 10, gy - 23), (rx_ - 10, cand + 11))
    s.text(rx_ - 2, 236, "$r_t$", anchor="start")
    s.node(whx, cand, "+")
    s.arrow((rx_ + 1, cand), (whx - 11, cand))
    s.box(whx + 45, 262, 104, 32, "$W_h x_t$ + $b_h$", "op", size=13)
    s.arrow((whx, xbus), (whx, 278))
    s.arrow((whx, 246), (whx, cand + 11))
    s.box(540, cand, 58, 30, "tanh", "op")
    s.arrow((whx + 11, cand), (511, cand))
    s.node(610, cand, "*")
    s.arrow((569, cand), (599, cand))
    s.text(584, cand - 9, "$h\u0303_t$")
    s.arrow((621, cand), (665, cand), (665, top + 11))
    # z_t: into both products, as 1 - z_t on the state line
    s.path(f"M{zx} {gy - 23} V142 H610", arrow=False)
    s.arrow((610, 142), (610, cand - 11))
    s.dot(470, 142)
    s.node(470, 118, "1\u2212", r=12)
    s.path("M470 142 V130", arrow=False)
    s.arrow((470, 106), (470, top + 11))
    s.text(zx + 8, 200, "$z_t$", anchor="start")
    s.text(486, 112, "1 \u2212 $z_t$", anchor="start", size=SMALL)
    s.text(618, 152, "$z_t$", anchor="start")
    legend(s, 20, 438, [("*", "elementwise product"), ("+", "sum"),
                        ("gate", "gate: \u03c3($W x_t$ + $U h_{t-1}$ + $b$)"),
                        ("op", "linear map or tanh")])
    s.text(20, 462, "thick line: \u2202$h_t$/\u2202$h_{t-1}$ contains "
           "diag(1 \u2212 $z_t$); a line that jumps over another does not connect "
           "to it",
           size=SMALL, anchor="start", color=MUTED)
    return s


# -------------------------------------------------------- chapter 4: encoder-decoder
def seq2seq_attention() -> Svg:
    """``BahdanauDecoder`` and ``LuongDecoder`` of ``lamalib.models.seq2seq``
    (chapter 4): one decoder step each, over the BiGRU encoder's states H."""
    s = Svg("seq2seq-attention", 780, 470,
            "One decoder step with Bahdanau attention and with Luong attention",
            "Two panels, each one step t of a GRU decoder reading the encoder states "
            "H = h_1 ... h_S of a BiGRU. Left, Bahdanau: the previous state s_{t-1} is "
            "the query; the context c_t enters the GRU together with y_{t-1}, and the "
            "output layer W_o reads s_t, c_t and y_{t-1}. Right, Luong: the GRU steps "
            "first on y_{t-1}; the new state s_t is the query; the context only enters "
            "the output, through h~_t = tanh(W_c [c_t; s_t]), then softmax(W_s h~_t).")
    pink = KINDS["attn"][1]
    for ox, name in ((8, "bahdanau"), (397, "luong")):
        s.rect(ox, 8, 375, 452, rx=12, fill="#fafafb", stroke="#c8c8d0", width=1.2)
        cx = ox + 190
        if name == "bahdanau":
            s.text(cx, 32, "Bahdanau", bold=True)
            s.text(cx, 52, "attend with $s_{t-1}$, context into the GRU", size=SMALL,
                   color=MUTED)
            s.box(cx, 90, 172, 30, "$p(y_t)$ = softmax(\u00b7)", "out", size=13)
            s.box(cx, 146, 194, 32, "$W_o$ [$s_t$; $c_t$; $y_{t-1}$]", "op", size=13)
            s.arrow((cx, 130), (cx, 105))
            gru, att, yb, st = cx, cx, (ox + 325, 325), ox + 325
            s.box(att, 325, 150, 36, "Attn($s_{t-1}$, $H$)", "attn", size=13)
            keys = [ox + 130, ox + 175, ox + 220, ox + 265]
        else:
            s.text(cx, 32, "Luong", bold=True)
            s.text(cx, 52, "step the GRU, attend with $s_t$, context into the output",
                   size=SMALL, color=MUTED)
            s.box(cx, 90, 212, 30, "$p(y_t)$ = softmax($W_s$ $h\u0303_t$)", "out",
                  size=13)
            s.box(cx, 146, 236, 32, "$h\u0303_t$ = tanh($W_c$ [$c_t$; $s_t$])", "op",
                  size=13)
            s.arrow((cx, 130), (cx, 105))
            gru, att, yb, st = ox + 160, ox + 265, (ox + 160, 325), ox + 280
            s.box(att, 325, 140, 36, "Attn($s_t$, $H$)", "attn", size=13)
            keys = [ox + 205, ox + 250, ox + 295, ox + 340]
        s.box(ox + 45, 230, 62, 32, "$s_{t-1}$", "state")
        s.box(gru, 230, 80, 40, "GRU", "op")
        s.box(st, 230, 52, 32, "$s_t$", "state")
        s.box(*yb, 56, 30, "$y_{t-1}$", "input")
        s.arrow((ox + 76, 230), (gru - 40, 230))
        s.arrow((gru + 40, 230), (st - 26, 230))
        for n, kx in enumerate(keys):
            label = "\u22ef" if n == 2 else f"$h_{'S' if n == 3 else n + 1}$"
            if n == 2:
                s.text(kx, 410, label, size=18)
            else:
                s.box(kx, 405, 38, 28, label, "state")
            s.arrow((kx, 391), (att + (kx - att) * 0.45, 343), color=MUTED, width=1.2)
        s.text(cx, 446, "encoder states $H$ (BiGRU): keys and values", size=SMALL,
               color=MUTED)
        if name == "bahdanau":
            s.dot(ox + 100, 230, color=pink)
            s.arrow((ox + 100, 230), (ox + 100, 325), (att - 75, 325), color=pink,
                    width=2.6)
            s.text(ox + 94, 288, "query", color=pink, anchor="end", size=SMALL)
            s.arrow((att, 307), (att, 250), color=pink, width=2.6)
            s.text(att + 7, 289, "$c_t$", color=pink, anchor="start")
            s.arrow((yb[0], 310), (yb[0], 280), (gru + 22, 280), (gru + 22, 250))
            s.arrow((st, 214), (st, 182), (cx + 60, 182), (cx + 60, 162))
            s.dot(att, 272, color=pink)
            s.path(f"M{att} 272 H{ox + 130}", color=pink, width=2.6, arrow=False)
            s.hop(ox + 130, 272, 162, 230, color=pink, width=2.6)
            s.arrow((yb[0] + 28, 325), (ox + 366, 325), (ox + 366, 146), (cx + 97, 146))
        else:
            s.arrow((yb[0], 310), (yb[0], 250))
            s.arrow((st, 246), (st, 307), color=pink, width=2.6)
            s.text(st + 8, 285, "query", color=pink, anchor="start", size=SMALL)
            s.arrow((att + 70, 325), (ox + 360, 325), (ox + 360, 146), (cx + 118, 146),
                    color=pink, width=2.6)
            s.text(ox + 352, 212, "$c_t$", color=pink, anchor="end")
            s.arrow((st, 214), (st, 162))
    return s


# ------------------------------------------------------- chapter 5: self-attention
def tint(color: str, t: float) -> str:
    """``color`` mixed with white: t = 0 white, t = 1 the colour itself."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 + (c - 255) * t):02x}" for c in rgb)


def _shades(values, color, lo=0.12, hi=0.8):
    flat = [v for row in values for v in row]
    vmin, vmax = min(flat), max(flat)
    span = (vmax - vmin) or 1.0
    return [[tint(color, lo + (hi - lo) * (v - vmin) / span) for v in row]
            for row in values]


def sdpa() -> Svg:
    """Eq. (1) of chapter 5 and ``scaled_dot_product_attention``: shapes of every step.

    The grids hold a small fixed example (Tq = 3 queries, Tk = 5 keys, the last one
    padding, D = 4); their shades are the example's real values.
    """
    Q = [[1, 0, 1, 0], [0, 2, 0, 1], [1, 1, 0, 0]]
    K = [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]]
    V = [[0.9, 0.1, 0.3, 0.5], [0.2, 0.8, 0.6, 0.1], [0.5, 0.4, 0.9, 0.7],
         [0.1, 0.6, 0.2, 0.9], [0.0, 0.0, 0.0, 0.0]]
    keep = [True, True, True, True, False]  # key 5 is padding
    scores = [[sum(q * k for q, k in zip(qr, kr)) / 2 for kr in K] for qr in Q]
    weights = []
    for row in scores:
        e = [math.exp(v) if m else 0.0 for v, m in zip(row, keep)]
        weights.append([x / sum(e) for x in e])
    out = [[sum(w * V[j][c] for j, w in enumerate(row)) for c in range(4)]
           for row in weights]
    s = Svg("sdpa", 780, 440,
            "Scaled dot-product attention with the shapes of each step",
            "Q (B, Tq, D) times K transposed (B, D, Tk) gives the scores (B, Tq, Tk). "
            "They are divided by the square root of D, padding keys are masked, and a "
            "softmax over each row gives the weights A (B, Tq, Tk), each row summing "
            "to 1, with weight 0 on the padding key. A times V (B, Tk, D) is the "
            "output (B, Tq, D): row i of the output is the weighted mean of the value "
            "rows. One query row is outlined in Q, the scores, the weights and the "
            "output.")
    blue, pink = KINDS["input"][1], KINDS["attn"][1]
    c = 24
    hi = 1  # the outlined query row
    # row 1: Q K^T = scores
    qx, qy = 40, 70
    s.grid(qx, qy, 3, 4, c, _shades(Q, blue))
    s.text(qx + 2 * c, qy + 3 * c + 22, "$Q$  (B, Tq, D)")
    s.text(qx + 4 * c + 22, qy + 1.5 * c + 6, "\u00d7", size=20)
    kx, ky = qx + 4 * c + 44, 58
    KT = [list(col) for col in zip(*K)]
    s.grid(kx, ky, 4, 5, c, _shades(KT, blue))
    s.text(kx + 4.5 * c, ky - 6, "pad", size=SMALL, color=MUTED)
    s.text(kx + 2.5 * c, ky + 4 * c + 22, "$K^\u22a4$  (B, D, Tk)")
    s.text(kx + 5 * c + 22, qy + 1.5 * c + 6, "=", size=20)
    sx = kx + 5 * c + 44
    s.grid(sx, qy, 3, 5, c, _shades(scores, pink))
    s.text(sx + 2.5 * c, qy + 3 * c + 22, "scores $Q K^\u22a4$  (B, Tq, Tk)")
    for x, cols in ((qx, 4), (sx, 5)):
        s.outline(x, qy + hi * c, cols * c, c, pink)
    s.lines(sx + 5 * c + 24, qy + 12, ["one score per query-key",
                                       "pair: $n^2$ of them for",
                                       "a sentence of $n$ tokens"],
            size=SMALL, anchor="start", color=MUTED)
    # the step between the rows
    y_mid = 222
    s.arrow((sx + 2.5 * c, qy + 3 * c + 30), (sx + 2.5 * c, y_mid - 15))
    s.box(sx + 2.5 * c, y_mid, 330, 30, "\u00f7 \u221aD,  mask,  softmax over each row",
          "attn", size=13)
    s.arrow((sx + 2.5 * c - 165, y_mid), (qx + 2.5 * c, y_mid), (qx + 2.5 * c, 268))
    # row 2: A V = out
    ay = 270
    wfill = _shades(weights, pink)
    for r in range(3):
        wfill[r][4] = "#ffffff"
    s.grid(qx, ay, 3, 5, c, wfill)
    for r in range(3):
        s.text(qx + 4.5 * c, ay + r * c + 16, "0", size=SMALL, color=MUTED)
    s.outline(qx, ay + hi * c, 5 * c, c, pink)
    s.text(qx + 2.5 * c, ay + 3 * c + 22, "weights $A$  (B, Tq, Tk)")
    s.text(qx + 5 * c + 22, ay + 1.5 * c + 6, "\u00d7", size=20)
    vx, vy = qx + 5 * c + 44, ay - 12
    s.grid(vx, vy, 5, 4, c, _shades(V, KINDS["state"][1]))
    s.text(vx + 4 * c + 6, vy + 4.5 * c + 5, "pad", size=SMALL, color=MUTED,
           anchor="start")
    s.text(vx + 2 * c, vy + 5 * c + 22, "$V$  (B, Tk, D)")
    s.text(vx + 4 * c + 52, ay + 1.5 * c + 6, "=", size=20)
    ox = vx + 4 * c + 74
    s.grid(ox, ay, 3, 4, c, _shades(out, KINDS["state"][1]))
    s.outline(ox, ay + hi * c, 4 * c, c, pink)
    s.text(ox + 2 * c, ay + 3 * c + 22, "output $A V$  (B, Tq, D)")
    s.lines(ox + 4 * c + 22, ay + 10,
            ["each row of $A$ sums to 1,", "the padding key gets 0;",
             "output row $i$ = \u03a3$_j$ $a_{ij}$ $v_j$"],
            size=SMALL, anchor="start", color=MUTED, gap=19)
    s.lines(20, 412, ["Multi-head attention does this in every head, on Dh = D / H "
                      "columns;", "every tensor then gets an H axis, e.g. the weights "
                      "(B, H, Tq, Tk)."], size=SMALL, anchor="start", color=MUTED)
    return s


def multihead() -> Svg:
    """Eq. (2) of chapter 5 and ``MultiHeadAttention``: project, split, attend,
    concatenate, project (D = 8, H = 4, Dh = 2, T = 3 tokens)."""
    s = Svg("multihead", 780, 470,
            "Multi-head attention: split into heads and concatenate",
            "X (B, T, D) is projected by W^Q (one D by D linear layer) into Q (B, T, "
            "D), "
            "whose D columns fall into H groups of Dh = D / H, one colour per head. "
            "A view and a transpose give (B, H, T, Dh): H heads. K and V are projected "
            "and split the same way. Each head runs scaled dot-product attention on "
            "its "
            "own Dh columns. The head outputs (B, H, T, Dh) are transposed back and "
            "reshaped into (B, T, H times Dh = D), which is the concatenation, and "
            "W^O projects it to the output (B, T, D).")
    c, T, D, H = 16, 3, 8, 4
    grey = [[tint("#4a5568", 0.1 + 0.07 * ((3 * r + 5 * k) % 7)) for k in range(D)]
            for r in range(T)]

    def by_head(r0=0.0):
        return [[tint(HEADS[k // 2], 0.35 + 0.12 * ((r + k) % 3) + r0)
                 for k in range(D)] for r in range(T)]

    # row 1: X -> Q
    s.grid(40, 50, T, D, c, grey)
    s.text(104, 122, "$X$  (B, T, D)")
    s.arrow((180, 74), (318, 74))
    s.text(249, 66, "q_proj: $W^Q$", size=13)
    s.text(249, 92, "D \u00d7 D", size=SMALL, color=MUTED)
    s.grid(324, 50, T, D, c, by_head())
    s.text(318, 44, "head", size=SMALL, anchor="end", color=MUTED)
    for h in range(H):
        s.text(324 + (2 * h + 1) * c, 44, f"{h + 1}", size=SMALL, color=HEAD_TEXT[h],
               bold=True)
    s.text(388, 122, "$Q$  (B, T, D)")
    s.lines(480, 62, ["$K$ and $V$: the same, with", "k_proj $W^K$ and v_proj $W^V$"],
            size=SMALL, anchor="start", color=MUTED)
    # split
    s.arrow((388, 132), (388, 152), (96, 152), (96, 178))
    s.text(242, 170, "_split: view (B, T, H, Dh), transpose", size=13)
    hx, hy0, step = 80, 184, 62
    for h in range(H):
        y = hy0 + h * step
        fill = [[tint(HEADS[h], 0.35 + 0.12 * ((r + k + 2 * h) % 3)) for k in range(2)]
                for r in range(T)]
        s.grid(hx, y, T, 2, c, fill)
        s.text(hx - 8, y + 29, f"head {h + 1}", size=SMALL, color=HEAD_TEXT[h],
               anchor="end")
        s.arrow((hx + 2 * c + 4, y + 24), (168, y + 24), color=HEADS[h])
        fill_out = [[tint(HEADS[h], 0.3 + 0.15 * ((2 * r + k + h) % 3))
                     for k in range(2)] for r in range(T)]
        s.grid(394, y, T, 2, c, fill_out)
        s.arrow((330, y + 24), (390, y + 24), color=HEADS[h])
    s.text(hx + c, hy0 + 4 * step + 2, "(B, H, T, Dh)", size=SMALL, color=MUTED)
    s.box(250, hy0 + 1.5 * step + 24, 160, 4 * step - 14, "", "attn")
    s.lines(250, hy0 + 1.5 * step - 8,
            ["attention", "in every head:", "softmax($Q_h K_h^\u22a4$/\u221aDh) $V_h$",
             "weights (B, H, T, T)"], size=13)
    s.text(394 + c, hy0 + 4 * step + 2, "(B, H, T, Dh)", size=SMALL, color=MUTED)
    # concat and output projection
    s.arrow((436, hy0 + 1.5 * step + 24), (540, hy0 + 1.5 * step + 24))
    s.lines(488, hy0 + 1.5 * step - 18, ["transpose,", "reshape"], size=SMALL,
            color=MUTED)
    cx0, cy0 = 548, hy0 + 1.5 * step
    s.grid(cx0, cy0, T, D, c, by_head())
    s.text(cx0 + 4 * c, cy0 - 10, "concat (B, T, H\u00b7Dh = D)", size=13)
    s.arrow((cx0 + 4 * c, cy0 + 3 * c + 6), (cx0 + 4 * c, cy0 + 3 * c + 66))
    s.text(cx0 + 4 * c + 10, cy0 + 3 * c + 40, "out_proj: $W^O$", size=13,
           anchor="start")
    s.grid(cx0, cy0 + 3 * c + 72, T, D, c, grey)
    s.text(cx0 + 4 * c, cy0 + 6 * c + 94, "output  (B, T, D)")
    return s


# -------------------------------------------------------- chapter 6: the Transformer
def _sublayers(s: Svg, cx, bottom, blocks, side, memory=None):
    """Post-LN sublayers stacked upwards from ``bottom``: box, residual sum, LayerNorm.

    ``blocks``: (label, sub, kind) per sublayer; ``side``: x of the residual lines;
    ``memory``: (x, y) where the encoder output arrives, for the cross-attention.
    Returns the y of the top of the last LayerNorm.
    """
    green = KINDS["state"][1]
    base = bottom
    for label, sub, kind in blocks:
        box_y, add_y, ln_y = base - 46, base - 88, base - 124
        half = 20 if sub else 17  # two lines need a taller box
        s.arrow((cx, base), (cx, box_y + half))
        s.dot(cx, base - 10)
        s.arrow((cx, base - 10), (side, base - 10), (side, add_y),
                (cx + (10 if side > cx else -10), add_y), color=green, width=2)
        s.box(cx, box_y, 176, 2 * half, label, kind, size=13, sub=sub)
        s.arrow((cx, box_y - half), (cx, add_y + 10))
        s.node(cx, add_y, "+", r=10)
        s.arrow((cx, add_y - 10), (cx, ln_y + 13))
        s.box(cx, ln_y, 120, 26, "LayerNorm", "norm", size=13)
        if memory is not None and label == "cross-attention":
            mx, my = memory
            s.arrow((mx, my), (mx, box_y), (cx - 88, box_y), color=green, width=2)
        base -= 132
    return base + 132 - 137


def transformer_layers() -> Svg:
    """``lamalib.nn``'s ``EncoderDecoder`` with post-LN blocks (the
    default ``residual="post"``), eqs. (4), (7)-(9) of chapter 6."""
    s = Svg("transformer-layers", 780, 720,
            "The Transformer's encoder and decoder layers",
            "Left, the encoder: source tokens (B, S) are embedded, scaled by the "
            "square "
            "root of D, and the positional encoding is added; then N encoder layers, "
            "each self-attention (with the padding mask) and a feed-forward net, each "
            "followed by a residual sum and LayerNorm (post-LN). Its output is the "
            "memory (B, S, D). Right, the decoder: target tokens shifted right (B, T) "
            "are embedded the same way; N decoder layers, each causal self-attention, "
            "cross-attention whose keys and values are the memory, and a feed-forward "
            "net, each followed by a residual sum and LayerNorm; then a linear layer "
            "gives logits (B, T, V).")
    green = KINDS["state"][1]
    bottom = 548
    for cx, name in ((200, "Encoder"), (560, "Decoder")):
        tokens = "source tokens (B, S)" if name == "Encoder" else \
            "target, shifted right (B, T)"
        s.box(cx, 670, 230, 28, tokens, "input", size=13)
        s.text(cx, 708, name, bold=True)
        s.arrow((cx, 656), (cx, 635))
        s.box(cx, 620, 176, 30, "embedding \u00d7 \u221aD", "input", size=13)
        s.arrow((cx, 605), (cx, 584))
        s.node(cx, 574, "+", r=10)
        s.box(cx - 110, 574, 60, 26, "PE", "input", size=13)
        s.arrow((cx - 80, 574), (cx - 11, 574))
        s.path(f"M{cx} 564 V{bottom}", arrow=False)
    # encoder: two sublayers, residual lines on the left
    s.rect(85, 262, 230, 294, rx=12, fill="#fafafb", stroke="#9a9aa3", width=1.2)
    s.text(75, 414, "N\u00d7", anchor="end", bold=True)
    top = _sublayers(s, 200, bottom, [("self-attention", "padding mask", "attn"),
                                      ("feed-forward", None, "op")], side=100)
    s.path(f"M200 {top} V236 H430", color=green, width=2, arrow=False)
    s.text(300, 228, "memory  (B, S, D)", size=13)
    # decoder: three sublayers, residual lines on the right
    s.rect(445, 130, 230, 426, rx=12, fill="#fafafb", stroke="#9a9aa3", width=1.2)
    s.text(685, 348, "\u00d7N", anchor="start", bold=True)
    top = _sublayers(s, 560, bottom, [("self-attention", "causal mask", "attn"),
                                      ("cross-attention", "K = V = memory", "attn"),
                                      ("feed-forward", None, "op")], side=660,
                     memory=(430, 236))
    s.arrow((560, top), (560, 116))
    s.box(560, 101, 176, 30, "linear (generator)", "op", size=13)
    s.arrow((560, 86), (560, 64))
    s.box(560, 49, 150, 28, "logits  (B, T, V)", "out", size=13)
    legend(s, 20, 40, [("state", "residual path")])
    s.lines(20, 66, ["post-LN, as in the", "original paper: each",
                     "sublayer is followed", "by + and LayerNorm"],
            size=SMALL, anchor="start", color=MUTED)
    return s


def post_pre_ln() -> Svg:
    """Eqs. (4) and (5) of chapter 6: ``PostNormResidual`` vs ``PreNormResidual``."""
    s = Svg("post-pre-ln", 780, 560, "Post-LN and pre-LN residual blocks",
            "One layer with two sublayers (self-attention, then feed-forward) in both "
            "placements. Post-LN, left: each sublayer's output is added to its input "
            "and "
            "the sum is normalized, x_{l+1} = LN(x_l + F(x_l)); the residual path "
            "passes "
            "through a LayerNorm after every sublayer. Pre-LN, right: each sublayer "
            "reads a normalized copy of the stream and its output is added back, "
            "x_{l+1} = x_l + F(LN(x_l)); the residual stream from the layer's input to "
            "its output has only additions on it, and one final LayerNorm follows the "
            "last layer of the stack.")
    green = KINDS["state"][1]
    for cx, title, eq in ((195, "post-LN", "$x_{l+1}$ = LN($x_l$ + F($x_l$))"),
                          (585, "pre-LN", "$x_{l+1}$ = $x_l$ + F(LN($x_l$))")):
        s.rect(cx - 185, 8, 370, 544, rx=12, fill="#fafafb", stroke="#c8c8d0",
               width=1.2)
        s.text(cx, 34, title, bold=True)
        s.text(cx, 58, eq)
    # post-LN: the stream runs through F, +, LayerNorm; the skip line goes round F
    cx, side = 195, 70
    s.box(cx, 512, 60, 30, "$x_l$", "state")
    s.arrow((cx, 497), (cx, 474))
    s.dot(cx, 480)
    for base, (label, kind) in ((480, ("self-attention", "attn")),
                                (300, ("feed-forward", "op"))):
        s.box(cx, base - 44, 170, 34, label, kind, size=13)
        s.path(f"M{cx} {base} H{side} V{base - 96} H{cx - 10}", color=green, width=3,
               arrow=False)
        s.arrow((cx - 30, base - 96), (cx - 10, base - 96), color=green, width=3)
        s.arrow((cx, base - 61), (cx, base - 86))
        s.node(cx, base - 96, "+", r=10)
        s.arrow((cx, base - 106), (cx, base - 126))
        s.box(cx, base - 139, 120, 26, "LayerNorm", "norm", size=13)
        nxt = base - 152
        if base == 480:
            s.arrow((cx, nxt), (cx, 306))
            s.dot(cx, 300)
        else:
            s.arrow((cx, nxt), (cx, 130))
    s.box(cx, 114, 74, 30, "$x_{l+1}$", "state")
    s.lines(cx + 50, 106, ["a LayerNorm sits", "on the residual path"], size=SMALL,
            anchor="start", color=MUTED)
    # pre-LN: a straight residual stream; the sublayers branch off it
    cx, br = 525, 670
    s.box(cx, 512, 60, 30, "$x_l$", "state")
    for base, (label, kind) in ((480, ("self-attention", "attn")),
                                (300, ("feed-forward", "op"))):
        s.dot(cx, base)
        s.arrow((cx, base), (br, base), (br, base - 12))
        s.box(br, base - 25, 120, 26, "LayerNorm", "norm", size=13)
        s.arrow((br, base - 38), (br, base - 56))
        s.box(br, base - 73, 150, 34, label, kind, size=13)
        s.arrow((br, base - 90), (br, base - 120), (cx + 10, base - 120))
        s.node(cx, base - 120, "+", r=10)
    s.path(f"M{cx} 497 V491", color=green, width=4, arrow=False)
    s.path(f"M{cx} 480 V370", color=green, width=4, arrow=False)
    s.path(f"M{cx} 350 V190", color=green, width=4, arrow=False)
    s.arrow((cx, 170), (cx, 130), color=green, width=4)
    s.path(f"M{cx} 491 V480", color=green, width=4, arrow=False)
    s.box(cx, 114, 74, 30, "$x_{l+1}$", "state")
    s.box(br, 114, 150, 50, "", "plain", dash=True)
    s.lines(br, 106, ["after the last layer:", "final LayerNorm"], size=SMALL)
    s.lines(cx - 10, 250, ["only additions", "on the", "residual stream"], size=SMALL,
            anchor="end", color=KINDS["state"][1])
    legend(s, 430, 540, [("state", "residual path")])
    return s


def positional_encoding() -> Svg:
    """Eq. (1) of chapter 6 (``sinusoidal_table``) with D = 8: four sin/cos pairs."""
    D, pos0 = 8, 7
    omega = [10000 ** (-2 * i / D) for i in range(D // 2)]
    s = Svg("positional-encoding", 780, 380, "Sinusoidal positional encoding",
            "Four strips, one per pair of dimensions of an 8-dimensional positional "
            "encoding, show sin(omega pos) as a solid line and cos(omega pos) as a "
            "dashed line over positions 0 to 50, with omega = 1, 0.1, 0.01 and 0.001: "
            "the first pair turns fast, the last hardly moves. A vertical line at "
            "position 7 reads the eight values that make PE(7), listed on the right; "
            "PE(7) is added to the token's embedding (scaled by the square root of D) "
            "to give the input of the first layer.")
    x0, x1, n = 110, 470, 50
    blue, orange, pink = KINDS["input"][1], KINDS["gate"][1], KINDS["attn"][1]
    X = lambda p: x0 + (x1 - x0) * p / n  # noqa: E731
    legend_y = 28
    s.path(f"M{x0} {legend_y - 4} H{x0 + 30}", color=blue, width=2, arrow=False)
    s.text(x0 + 38, legend_y, "sin(\u03c9 pos)", size=SMALL, anchor="start")
    s.path(f"M{x0 + 150} {legend_y - 4} H{x0 + 180}", color=orange, width=2,
           arrow=False, dash=True)
    s.text(x0 + 188, legend_y, "cos(\u03c9 pos)", size=SMALL, anchor="start")
    for i, w in enumerate(omega):
        cy = 86 + 63 * i
        s.path(f"M{x0} {cy} H{x1}", color="#d0d0d6", width=1, arrow=False)
        for fn, color, dash in ((math.sin, blue, False), (math.cos, orange, True)):
            pts = [(X(p / 4), cy - 22 * fn(w * p / 4)) for p in range(4 * n + 1)]
            s.path("M" + " L".join(f"{x:.1f} {y:.1f}" for x, y in pts), color=color,
                   width=2, arrow=False, dash=dash)
            s.dot(X(pos0), cy - 22 * fn(w * pos0), color=pink, r=3.6)
        s.text(x0 - 10, cy - 4, f"dims {2 * i}, {2 * i + 1}", size=SMALL, anchor="end")
        label = "1" if i == 0 else f"{w:g}"
        s.text(x0 - 10, cy + 14, f"\u03c9 = {label}", size=SMALL, anchor="end",
               color=MUTED)
    s.path(f"M{X(pos0):.1f} 40 V322", color=pink, width=1.5, arrow=False, dash=True)
    for p in range(0, n + 1, 10):
        s.path(f"M{X(p):.1f} 322 V328", color=MUTED, width=1, arrow=False)
        s.text(X(p), 344, str(p), size=SMALL, color=MUTED)
    s.text((x0 + x1) / 2, 368, "position pos", size=SMALL)
    s.text(X(pos0) + 5, 50, "pos = 7", size=SMALL, color=pink, anchor="start")
    # the column PE(7) + token vector = input
    pe = []
    for w in omega:
        pe += [math.sin(w * pos0), math.cos(w * pos0)]
    token = [0.42, -0.81, 0.35, 0.12, -0.56, 0.93, -0.27, 0.64]
    cols = [(520, pe, ["PE(7)", "exact values"]),
            (620, token, ["\u221aD \u00b7 E[$x$]", "token vector"]),
            (720, [a + b for a, b in zip(pe, token)], ["sum: input", "of layer 1"])]
    cell_h, top = 32, 64
    for x, values, header in cols:
        s.lines(x, 28, header, size=SMALL, color=pink if x == 520 else INK)
        for k, v in enumerate(values):
            color = blue if v >= 0 else orange
            t = min(abs(v) / 1.6, 1.0) * 0.75 + 0.05
            s.rect(x - 30, top + k * cell_h, 60, cell_h, fill=tint(color, t),
                   stroke="#666666", width=0.8, rx=0)
            if x == 520:
                s.text(x, top + k * cell_h + 21, f"{v:.2f}", size=SMALL)
    for k in range(D):
        s.text(482, top + k * cell_h + 21, str(k), size=SMALL, color=MUTED,
               anchor="end")
    s.text(570, top + 4 * cell_h + 6, "+", size=20)
    s.text(670, top + 4 * cell_h + 6, "=", size=20)
    return s


# --------------------------------------------------------------------- the roadmap
def roadmap() -> Svg:
    """The nine chapters of ``_toc.yml``, in reading order (intro page)."""
    chapters = [
        ("Foundations", [
            ("1", ["Setup and", "a first model"],
             ["text \u2192 ids \u2192 padded batches", "one training loop: fit",
              "the AVG baseline"]),
            ("2", ["Word vectors"],
             ["skip-gram and CBOW with", "negative sampling, vs. gensim",
              "similarity and analogies"]),
            ("3", ["Recurrent networks", "and the GRU"],
             ["RNN, LSTM and GRU cells", "gradients that vanish",
              "BiGRU classifier"]),
        ]),
        ("Attention", [
            ("4", ["Attention mechanisms"],
             ["score functions, masking", "soft/hard, global/local",
              "Bahdanau and Luong seq2seq"]),
            ("5", ["Self-attention and", "multi-head attention"],
             ["scaled dot-product, heads", "SAN's attention hops",
              "cost as sentences grow"]),
            ("6", ["The Transformer"],
             ["positions, LayerNorm", "encoder and decoder layers",
              "TE classifier, BERT's MLM"]),
        ]),
        ("Research models", [
            ("7", ["LAMA"],
             ["low-rank multi-head attention", "a global context vector",
              "parameters vs. heads"]),
            ("8", ["Attention patterns"],
             ["head importance", "global relevance of patterns",
              "injecting patterns"]),
            ("9", ["Multi-scale", "self-attention"],
             ["heads with window sizes", "the scale controller",
              "banded attention's cost"]),
        ]),
    ]
    s = Svg("roadmap", 780, 552, "Roadmap of the course",
            "Nine chapters in three parts, read in order. Foundations: 1 Setup and a "
            "first model (text to ids to padded batches, one training loop, the AVG "
            "baseline); 2 Word vectors (skip-gram and CBOW with negative sampling, "
            "compared with gensim; similarity and analogies); 3 Recurrent networks and "
            "the GRU (RNN, LSTM and GRU cells, vanishing gradients, a BiGRU "
            "classifier). Attention: 4 Attention mechanisms (score functions, masking, "
            "soft and hard, global and local attention, Bahdanau and Luong "
            "sequence-to-sequence models); 5 Self-attention and multi-head attention "
            "(scaled dot-product and multi-head attention, SAN's attention hops, the "
            "cost as sentences grow); 6 The Transformer (positions, layer "
            "normalization, encoder and decoder layers, the TE classifier, BERT's "
            "masked language model). Research models: 7 LAMA (low-rank multi-head "
            "attention with a global context vector, parameters against heads); 8 "
            "Attention patterns (head importance, global relevance of patterns, "
            "injecting them); 9 Multi-scale self-attention (heads with windows of "
            "different sizes, the scale controller, the cost of banded attention).")
    w, h, gap = 232, 132, 28
    kinds = ["state", "attn", "op"]
    for row, (part, items) in enumerate(chapters):
        y = 40 + row * 180
        kind = kinds[row]
        s.text(14, y - 12, part, bold=True, anchor="start", color=KINDS[kind][1])
        for col, (num, title, points) in enumerate(items):
            x = 14 + col * (w + gap)
            s.rect(x, y, w, h, kind, rx=10)
            s.node(x + 22, y + 22, num, kind, r=13)
            s.lines(x + 42, y + 27, title, size=SIZE, anchor="start", bold=True,
                    gap=18)
            s.lines(x + 14, y + 74 - (0 if len(title) > 1 else 18), points, size=SMALL,
                    anchor="start", gap=18)
            if col < 2:
                s.arrow((x + w + 2, y + h / 2), (x + w + gap - 2, y + h / 2))
        if row < len(chapters) - 1:  # from the row's last chapter to the next row
            s.arrow((14 + 2 * (w + gap) + w / 2, y + h + 2),
                    (14 + 2 * (w + gap) + w / 2, y + 156), (14 + w / 2, y + 156),
                    (14 + w / 2, y + 178))
    return s

# ------------------------------------------------ chapter 9: multi-scale attention
def multiscale_bands() -> Svg:
    """Eqs. (1)-(4) of chapter 9 and ``MultiScaleSelfAttention``: the band mask of
    each head, T = 16 tokens, scales 1, 3, N/4 and N/2 (radii 1, 3, 5, 9 by the rule
    of ``lamalib.nn.multiscale.resolve_radius``: floor(N/k), raised to odd)."""
    T, c = 16, 9
    heads = [("1", 1), ("3", 3), ("N/4", 5), ("N/2", 9)]
    s = Svg("multiscale_bands", 780, 274,
            "Band masks of four heads with different scales",
            "Four 16 by 16 grids, one per head of multi-scale self-attention; rows "
            "are queries i, columns keys j. A cell is coloured where |i - j| is at "
            "most the head's scale omega, so query i sees keys i - omega to i + "
            "omega. Head 1 has omega = 1 (a band three cells wide), head 2 omega = "
            "3, head 3 scale N/4 = 5 for N = 16, head 4 scale N/2 = 9, almost the "
            "whole matrix. The heads' outputs are concatenated and projected by "
            "W^O.")
    x0, y0, gap = 72, 64, 38
    for h, (label, r) in enumerate(heads):
        x = x0 + h * (T * c + gap)
        fills = [[tint(HEADS[h], 0.75) if abs(i - j) <= r else "#ffffff"
                  for j in range(T)] for i in range(T)]
        s.grid(x, y0, T, T, c, fills, stroke="#bbbbbb")
        s.text(x + T * c / 2, y0 - 30, f"head {h + 1}", size=SIZE, bold=True,
               color=HEAD_TEXT[h])
        scale = f"scale $\u03c9$ = {label}" if label.isdigit() else (
            f"scale {label} = {r}")
        s.text(x + T * c / 2, y0 - 10, scale, size=SMALL)
        s.text(x + T * c / 2, y0 + T * c + 20, "key $j$ \u2192", size=SMALL,
               color=MUTED)
    s.lines(x0 - 10, y0 + 40, ["query", "$i$", "\u2193"], size=SMALL,
            anchor="end", color=MUTED)
    s.text(x0 + 2 * T * c + 1.5 * gap, y0 + T * c + 52,
           "coloured: $|i - j|$ \u2264 $\u03c9$ (eq. 2); the heads are "
           "concatenated and projected by $W^O$ (eq. 4)", size=SMALL)
    return s


def pair_classifier() -> Svg:
    """Chapter 9's section "Sentence pairs: SNLI" and ``PairClassifier``: one shared
    encoder gives r1 and r2, a two-layer MLP reads [r1, r2, |r1 - r2|, r1 - r2]
    (Bowman et al. 2016, as Guo et al. use it for SNLI)."""
    s = Svg("pair_classifier", 780, 470,
            "The sentence-pair classifier: one shared encoder, four features, an MLP",
            "A premise, the old farmer sees the dog, and a hypothesis, the young "
            "farmer sees the dog, each go through the same sentence encoder (one set "
            "of weights, e.g. the Multi-Scale Transformer with its CLS state and "
            "max-pool). The encoder gives one vector per sentence, r1 and r2, each "
            "(B, R). They are concatenated with their absolute difference and their "
            "difference into [r1, r2, |r1 - r2|, r1 - r2], of shape (B, 4R), which a "
            "two-layer MLP (linear, ReLU, linear) maps to the logits (B, C) of "
            "entailment, neutral and contradiction.")
    left, right, mid = 200, 580, 390
    for cx, name, words, r in ((left, "premise", "the old farmer sees the dog", "1"),
                               (right, "hypothesis", "the young farmer sees the dog",
                                "2")):
        s.box(cx, 428, 260, 48, name, "input", sub=words)
        s.arrow((cx, 403), (cx, 362))
        s.box(cx, 334, 220, 52, "sentence encoder", "state", sub="represent(tokens, "
              "mask)")
        s.arrow((cx, 307), (cx, 272))
        s.box(cx, 252, 96, 36, f"$r_{r}$  (B, R)", "state")
    s.path(f"M{left + 112} 334 H{right - 112}", color=KINDS["state"][1], width=1.6,
           arrow=False, dash=True)
    s.text(mid, 326, "the same", size=SMALL, color=KINDS["state"][1])
    s.text(mid, 352, "weights", size=SMALL, color=KINDS["state"][1])
    labels = ["$r_1$", "$r_2$", "|$r_1$ \u2212 $r_2$|", "$r_1$ \u2212 $r_2$"]
    widths = [70, 70, 110, 100]
    x = mid - (sum(widths) + 3 * 6) / 2
    s.path(f"M{left} 233 V204 H{right} V233", arrow=False)  # r1 and r2 reach all four
    for label, w in zip(labels, widths):
        s.box(x + w / 2, 168, w, 34, label, "op", rx=3)
        s.dot(x + w / 2, 204, r=2.6)
        s.arrow((x + w / 2, 204), (x + w / 2, 187))
        x += w + 6
    s.text(mid, 226, "concatenate: (B, 4R)", size=SMALL, color=MUTED)
    s.arrow((mid, 150), (mid, 124))
    s.box(mid, 98, 300, 48, "two-layer MLP", "op",
          sub="Linear(4R, hidden), ReLU, Linear(hidden, C)")
    s.arrow((mid, 73), (mid, 52))
    s.box(mid, 32, 380, 36, "logits (B, C): entailment, neutral, contradiction",
          "out", size=13)
    return s


# ------------------------------------------------------------------ chapter 7: LAMA
def lama() -> Svg:
    """Eqs. (7), (11), (13) and (15) of chapter 7 and ``LowRankMultiHeadAttention``:
    one context vector, two low-rank projections, m heads (m = 3, T = 5, D = 4)."""
    s = Svg("lama", 780, 470,
            "LAMA: low-rank multi-head attention against a global context",
            "Words go through an embedding and a BiGRU into the annotations H (T, D). "
            "Two branches leave H: the global context c (D), the mean of H over the "
            "real words (LAMA+ctx) or one learned vector (LAMA), projected by P tilde "
            "transposed to m numbers; and every word's u_t = tanh(W_w h_t + b_w), "
            "projected by Q tilde transposed to m numbers per word. Their elementwise "
            "product f_t has one score per head. tanh, an l2 normalisation across the "
            "m heads of each word, and a softmax along the words of each head, with "
            "padding masked, give the attention matrix A (m, T). A times H is the "
            "document matrix S (m, D), flattened into the MLP classifier. The m heads "
            "cost the 2 D m numbers of P tilde and Q tilde.")
    ptil, qtil = "P\u0303", "Q\u0303"
    green = KINDS["state"][1]
    # row 1: words -> BiGRU -> H
    s.box(66, 150, 104, 44, "words", "input", sub="$w_1$ \u2026 $w_T$")
    s.arrow((118, 150), (150, 150))
    s.box(205, 150, 106, 44, "BiGRU", "op", sub="eqs. (5)-(6)")
    s.arrow((258, 150), (284, 150))
    H = [[0.9, 0.2, 0.4, 0.6], [0.3, 0.8, 0.5, 0.2], [0.6, 0.5, 0.9, 0.4],
         [0.2, 0.3, 0.1, 0.7], [0.0, 0.0, 0.0, 0.0]]
    c = 18
    hx, hy = 286, 105
    hfill = _shades(H, green)
    hfill[4] = ["#ffffff"] * 4  # the pad row is zero
    s.grid(hx, hy, 5, 4, c, hfill)
    s.text(hx + 2 * c, hy + 5 * c + 20, "$H$  (T, D)")
    s.text(hx + 4 * c + 6, hy + 4.5 * c + 5, "pad", size=SMALL, color=MUTED,
           anchor="start")
    # two branches: the context and the words
    s.arrow((hx + 4 * c + 4, hy + 20), (400, 70))
    s.box(490, 62, 176, 46, "context $c$  (D)", "attn", sub="mean of $H$, or learned")
    s.arrow((hx + 4 * c + 4, hy + 60), (400, 180))
    s.box(490, 188, 176, 46, "$u_t$ = tanh($W_w h_t$ + $b_w$)", "op", size=13,
          sub="eq. (7), every word")
    s.arrow((578, 62), (612, 62))
    s.box(664, 62, 100, 46, f"${ptil}^\u22a4 c$", "attn", sub="(m)")
    s.arrow((578, 188), (612, 188))
    s.box(664, 188, 100, 46, f"${qtil}^\u22a4 u_t$", "op", sub="(T, m)")
    s.arrow((714, 62), (740, 62), (740, 112))
    s.arrow((714, 188), (740, 188), (740, 137))
    s.node(740, 125, "*", "attn")
    s.text(724, 129, "$f_t$", anchor="end")
    s.text(724, 150, "(11)", size=SMALL, color=MUTED, anchor="end")
    # row 2, right to left: tanh and l2 across heads, softmax along words, A
    s.arrow((751, 125), (766, 125), (766, 290), (706, 290))
    s.box(612, 290, 188, 46, "tanh, l2 across heads", "attn", sub="per word, eq. (13)")
    s.arrow((518, 290), (486, 290))
    s.box(392, 290, 188, 46, "softmax along words", "attn", sub="per head, pads 0")
    s.arrow((298, 290), (266, 290))
    A = [[0.10, 0.55, 0.20, 0.15, 0.0], [0.40, 0.10, 0.15, 0.35, 0.0],
         [0.20, 0.20, 0.45, 0.15, 0.0]]
    ax, ay = 170, 263
    for r, row in enumerate(A):
        for col, v in enumerate(row):
            fill = "#ffffff" if col == 4 else tint(HEADS[r], 0.15 + 1.3 * v)
            s.grid(ax + col * c, ay + r * c, 1, 1, c, [[fill]])
    for r in range(3):
        s.text(ax - 6, ay + r * c + 13, f"head {r + 1}", size=SMALL, anchor="end",
               color=HEAD_TEXT[r])
    s.text(ax + 2.5 * c, ay + 3 * c + 20, "$A$  (m, T)")
    # row 3: S = A H, flatten, classify
    s.arrow((ax + 2.5 * c, ay + 3 * c + 28), (ax + 2.5 * c, 372), (330, 372))
    s.text(250, 364, "\u00d7 $H$", size=SIZE)
    S = [[0.45, 0.55, 0.35, 0.40], [0.50, 0.40, 0.35, 0.55], [0.50, 0.45, 0.60, 0.40]]
    sx, sy = 334, 345
    s.grid(sx, sy, 3, 4, c, _shades(S, green))
    s.text(sx + 2 * c, sy + 3 * c + 20, "$S = A H$  (m, D)")
    s.text(sx + 2 * c, sy - 8, "(15)", size=SMALL, color=MUTED)
    s.arrow((sx + 4 * c + 4, 372), (440, 372))
    s.box(530, 372, 176, 46, "flatten, MLP", "out", sub="eqs. (16)-(17)")
    s.arrow((618, 372), (650, 372))
    s.box(690, 372, 72, 40, "$\u0177$", "out")
    s.lines(20, 436, [f"m heads cost the 2 D m numbers of ${ptil}$ and ${qtil}$ (rank "
                      "k = 1); m full bilinear maps $W_i$ (eq. 8) would cost m D\u00b2.",
                      "Every head scores a word against the same c, so the work is "
                      "linear in T."], size=SMALL, anchor="start", color=MUTED, gap=18)
    return s


# ------------------------------------------------------- chapter 8: attention patterns
def patterns_pipeline() -> Svg:
    """The three steps of chapter 8 (Li et al., 2022): head importance (eqs. (7)-(8),
    ``lamalib.analysis.heads``), exploration and global relevance (eq. (1), the
    3-sigma rule, ``lamalib.nn.patterns``), injection (eqs. (2)-(3))."""
    s = Svg("patterns_pipeline", 780, 318,
            "The pipeline of chapter 8: importance, exploration, injection",
            "Three boxes from left to right joined by arrows. Step 1, importance: a "
            "trained Transformer's heads as a grid of layers by heads, shaded by "
            "importance (Taylor or head-mask gradient), the most important heads "
            "framed. Step 2, exploration: a person looks at an important head's "
            "attention with the cells of a pattern framed, names the pattern as a "
            "predicate, and its global relevance GR(P, h) is measured on validation "
            "documents; a pattern is kept when some head's GR is more than 3 "
            "standard deviations above the mean over heads. Step 3, injection: a new "
            "model in which some heads carry a kept pattern, fixed (the weights are "
            "the pattern) or masked (scores only on the pattern's cells), and the "
            "other heads stay free; it is trained and compared with the vanilla "
            "Transformer on the task metric, the sparsity rho and time.")
    steps = [("1", "Importance", "state", ["which heads matter:", "Taylor (eq. 7) or",
                                          "head-mask gradient (eq. 8)"]),
             ("2", "Exploration", "attn", ["look at important heads,",
                                          "name a pattern $P$, measure",
                                          "GR($P$, $h$) (eq. 1); 3\u03c3 rule"]),
             ("3", "Injection", "op", ["a new model, one kept",
                                      "pattern per head: fixed (eq. 2)",
                                      "or masked (eq. 3); compare",
                                      "F1, Pk, \u03c1 and time"])]
    w, h, gap, y = 228, 280, 34, 20
    c, cell = 16, 20
    for k, (num, title, kind, text) in enumerate(steps):
        x = 14 + k * (w + gap)
        s.rect(x, y, w, h, kind, rx=10)
        s.node(x + 22, y + 24, num, kind, r=13)
        s.text(x + 44, y + 29, title, anchor="start", bold=True)
        s.lines(x + 14, y + 62, text, size=SMALL, anchor="start", gap=18)
        if k < 2:
            s.arrow((x + w + 2, y + h / 2), (x + w + gap - 2, y + h / 2))
        gx, gy = x + 58, y + 146
        if k != 1:  # a layers x heads grid, with its axis labels
            for l in range(2):
                s.text(gx - 6, gy + l * cell + 15, f"layer {l + 1}", size=SMALL,
                       color=MUTED, anchor="end")
            s.text(gx + 4 * cell, gy + 2 * cell + 20, "head $h$ \u2192", size=SMALL,
                   color=MUTED)
        if k == 0:  # importance: layers x heads, top heads framed
            imp = [[0.2, 0.9, 0.1, 0.3, 0.2, 0.1, 0.4, 0.8],
                   [0.3, 0.7, 0.2, 0.1, 0.9, 0.2, 0.1, 0.3]]
            s.grid(gx, gy, 2, 8, cell, _shades(imp, KINDS["state"][1]))
            for l, hh in [(0, 1), (0, 7), (1, 1), (1, 4)]:
                s.outline(gx + hh * cell, gy + l * cell, cell, cell, HEADS[1])
            s.lines(x + 14, y + 236, ["framed: the most important",
                                      "heads of each layer"],
                    size=SMALL, anchor="start", color=MUTED, gap=18)
        elif k == 1:  # one head's attention, previous-token cells framed
            n = 7
            att = [[0.5 if j == i - 1 else (0.7 if i == 0 and j == 0 else 0.08)
                    for j in range(n)] for i in range(n)]
            ax = x + (w - n * c) / 2
            s.grid(ax, y + 106, n, n, c, _shades(att, KINDS["attn"][1]))
            for i in range(1, n):
                s.outline(ax + (i - 1) * c, y + 106 + i * c, c, c, HEADS[2])
            s.lines(x + 14, y + 236, ["framed: the cells where",
                                      "$P$ holds ($j$ = $i$ \u2212 1)"],
                    size=SMALL, anchor="start", color=MUTED, gap=18)
            s.text(x + w - 14, y + 29, "human", size=SMALL, anchor="end",
                   color=KINDS["attn"][1], bold=True)
        else:  # the new model's heads: pattern heads coloured, the rest free
            fills = [tint(HEADS[hh], 0.7) if hh < 4 else "#ffffff" for hh in range(8)]
            s.grid(gx, gy, 2, 8, cell, [fills, fills])
            s.lines(x + 14, y + 236, ["coloured: a pattern per head,",
                                      "the same in every layer;", "white: free heads"],
                    size=SMALL, anchor="start", color=MUTED, gap=18)
    return s


FIGURES = {  # file name (without .svg): drawing function, in the book's order
    "rnn_unrolled": rnn_unrolled,
    "lstm_cell": lstm_cell,
    "gru_cell": gru_cell,
    "seq2seq_attention": seq2seq_attention,
    "sdpa": sdpa,
    "multihead": multihead,
    "positional_encoding": positional_encoding,
    "post_pre_ln": post_pre_ln,
    "transformer_layers": transformer_layers,
    "lama": lama,
    "roadmap": roadmap,
    "multiscale_bands": multiscale_bands,
    "pair_classifier": pair_classifier,
    "patterns_pipeline": patterns_pipeline,
}


def main(out_dir: Path = HERE) -> list[Path]:
    """Write every figure as ``out_dir / <name>.svg``; returns the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in FIGURES.items():
        path = out_dir / f"{name}.svg"
        path.write_text(draw().svg(), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(p)
