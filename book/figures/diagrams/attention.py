"""Attention (chapters 4 and 5): encoder-decoder attention, scaled dot-product
attention step by step, multi-head attention."""

from __future__ import annotations

import math

from .style import SMALL, MUTED, KINDS, HEADS, HEAD_TEXT, Svg, tint, shades


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
    s.grid(qx, qy, 3, 4, c, shades(Q, blue))
    s.text(qx + 2 * c, qy + 3 * c + 22, "$Q$  (B, Tq, D)")
    s.text(qx + 4 * c + 22, qy + 1.5 * c + 6, "\u00d7", size=20)
    kx, ky = qx + 4 * c + 44, 58
    KT = [list(col) for col in zip(*K)]
    s.grid(kx, ky, 4, 5, c, shades(KT, blue))
    s.text(kx + 4.5 * c, ky - 6, "pad", size=SMALL, color=MUTED)
    s.text(kx + 2.5 * c, ky + 4 * c + 22, "$K^\u22a4$  (B, D, Tk)")
    s.text(kx + 5 * c + 22, qy + 1.5 * c + 6, "=", size=20)
    sx = kx + 5 * c + 44
    s.grid(sx, qy, 3, 5, c, shades(scores, pink))
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
    wfill = shades(weights, pink)
    for r in range(3):
        wfill[r][4] = "#ffffff"
    s.grid(qx, ay, 3, 5, c, wfill)
    for r in range(3):
        s.text(qx + 4.5 * c, ay + r * c + 16, "0", size=SMALL, color=MUTED)
    s.outline(qx, ay + hi * c, 5 * c, c, pink)
    s.text(qx + 2.5 * c, ay + 3 * c + 22, "weights $A$  (B, Tq, Tk)")
    s.text(qx + 5 * c + 22, ay + 1.5 * c + 6, "\u00d7", size=20)
    vx, vy = qx + 5 * c + 44, ay - 12
    s.grid(vx, vy, 5, 4, c, shades(V, KINDS["state"][1]))
    s.text(vx + 4 * c + 6, vy + 4.5 * c + 5, "pad", size=SMALL, color=MUTED,
           anchor="start")
    s.text(vx + 2 * c, vy + 5 * c + 22, "$V$  (B, Tk, D)")
    s.text(vx + 4 * c + 52, ay + 1.5 * c + 6, "=", size=20)
    ox = vx + 4 * c + 74
    s.grid(ox, ay, 3, 4, c, shades(out, KINDS["state"][1]))
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
