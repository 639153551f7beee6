"""The figures' one visual style: font, palette (``KINDS``: one fill and stroke per kind of
thing), the label markup (``$...$`` math, ``_{...}``, ``^{...}``), the ``Svg`` canvas with
its boxes, nodes and arrows, legends and tints."""

from __future__ import annotations

import unicodedata
from xml.sax.saxutils import escape

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


def tint(color: str, t: float) -> str:
    """``color`` mixed with white: t = 0 white, t = 1 the colour itself."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 + (c - 255) * t):02x}" for c in rgb)


def shades(values, color, lo=0.12, hi=0.8):
    flat = [v for row in values for v in row]
    vmin, vmax = min(flat), max(flat)
    span = (vmax - vmin) or 1.0
    return [[tint(color, lo + (hi - lo) * (v - vmin) / span) for v in row]
            for row in values]
