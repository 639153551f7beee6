"""The Transformer (chapter 6): the encoder and decoder layers, post- and pre-LN
wiring, sinusoidal positions."""

from __future__ import annotations

import math

from .style import SMALL, INK, MUTED, KINDS, Svg, legend, tint


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
