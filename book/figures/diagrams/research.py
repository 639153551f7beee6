"""The research models (chapters 7-9): LAMA, multi-scale windows, the pair
classifier, the pattern pipeline."""

from __future__ import annotations

from .style import SIZE, SMALL, MUTED, KINDS, HEADS, HEAD_TEXT, Svg, tint, shades


# ------------------------------------------------ chapter 9: multi-scale attention
def multiscale_bands() -> Svg:
    """Eqs. (1)-(4) of chapter 9 and ``MultiScaleSelfAttention``: the band mask of
    each head, T = 16 tokens, scales 1, 3, N/4 and N/2 read as odd widths (1, 3, 5,
    9 keys; radii 0, 1, 2, 4 by ``lamalib.nn.multiscale.resolve_radius``: the odd
    width nearest N/k, ties upward)."""
    T, c = 16, 9
    heads = [("1", 1), ("3", 3), ("N/4", 5), ("N/2", 9)]  # (scale, width)
    s = Svg("multiscale_bands", 780, 274,
            "Band masks of four heads with different scales",
            "Four 16 by 16 grids, one per head of multi-scale self-attention; rows "
            "are queries i, columns keys j. A cell is coloured where key j lies in "
            "the window of width omega centred on query i, that is |i - j| at most "
            "(omega - 1) / 2. Head 1 has omega = 1 (only the diagonal: each word "
            "sees itself), head 2 omega = 3 (a band three cells wide), head 3 scale "
            "N/4, width 5 for N = 16, head 4 scale N/2, width 9. The heads' outputs "
            "are concatenated and projected by W^O.")
    x0, y0, gap = 72, 64, 38
    for h, (label, width) in enumerate(heads):
        x = x0 + h * (T * c + gap)
        r = (width - 1) // 2  # the radius of an odd width
        fills = [[tint(HEADS[h], 0.75) if abs(i - j) <= r else "#ffffff"
                  for j in range(T)] for i in range(T)]
        s.grid(x, y0, T, T, c, fills, stroke="#bbbbbb")
        s.text(x + T * c / 2, y0 - 30, f"head {h + 1}", size=SIZE, bold=True,
               color=HEAD_TEXT[h])
        scale = f"scale $\u03c9$ = {label}" if label.isdigit() else (
            f"scale {label}: width {width}")
        s.text(x + T * c / 2, y0 - 10, scale, size=SMALL)
        s.text(x + T * c / 2, y0 + T * c + 20, "key $j$ \u2192", size=SMALL,
               color=MUTED)
    s.lines(x0 - 10, y0 + 40, ["query", "$i$", "\u2193"], size=SMALL,
            anchor="end", color=MUTED)
    s.text(x0 + 2 * T * c + 1.5 * gap, y0 + T * c + 52,
           "coloured: $|i - j|$ \u2264 $(\u03c9 - 1)/2$ (eq. 2); the heads are "
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
    """Eqs. (1), (5), (6) and (7) of chapter 7 (the paper's eqs. 7, 11, 13 and 15; the
    figure gives both numbers, as the chapter and ``lamalib.nn.lama`` do) and
    ``LowRankMultiHeadAttention``: one context vector, two low-rank projections, m heads
    (m = 3, T = 5, D = 4)."""
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
    s.arrow((118, 150), (147, 150))
    s.box(205, 150, 114, 44, "BiGRU", "op", sub="paper eqs. 5-6")
    s.arrow((262, 150), (284, 150))
    H = [[0.9, 0.2, 0.4, 0.6], [0.3, 0.8, 0.5, 0.2], [0.6, 0.5, 0.9, 0.4],
         [0.2, 0.3, 0.1, 0.7], [0.0, 0.0, 0.0, 0.0]]
    c = 18
    hx, hy = 286, 105
    hfill = shades(H, green)
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
          sub="eq. (1) (paper eq. 7)")
    s.arrow((578, 62), (612, 62))
    s.box(664, 62, 100, 46, f"${ptil}^\u22a4 c$", "attn", sub="(m)")
    s.arrow((578, 188), (612, 188))
    s.box(664, 188, 100, 46, f"${qtil}^\u22a4 u_t$", "op", sub="(T, m)")
    s.arrow((714, 62), (740, 62), (740, 112))
    s.arrow((714, 188), (740, 188), (740, 137))
    s.node(740, 125, "*", "attn")
    s.text(724, 129, "$f_t$", anchor="end")
    s.text(724, 150, "eq. (5) (paper eq. 11)", size=SMALL, color=MUTED, anchor="end")
    # row 2, right to left: tanh and l2 across heads, softmax along words, A
    s.arrow((751, 125), (766, 125), (766, 290), (706, 290))
    s.box(612, 290, 188, 46, "tanh, l2 across heads", "attn", sub="eq. (6) (paper eq. 13)")
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
    s.grid(sx, sy, 3, 4, c, shades(S, green))
    s.text(sx + 2 * c, sy + 3 * c + 20, "$S = A H$  (m, D)")
    s.text(sx + 2 * c, sy - 8, "eq. (7) (paper eq. 15)", size=SMALL, color=MUTED)
    s.arrow((sx + 4 * c + 4, 372), (440, 372))
    s.box(530, 372, 176, 46, "flatten, MLP", "out", sub="paper eqs. 16-17")
    s.arrow((618, 372), (650, 372))
    s.box(690, 372, 72, 40, "$\u0177$", "out")
    s.lines(20, 436, [f"m heads cost the 2 D m numbers of ${ptil}$ and ${qtil}$ (k = 1); "
                      "m full maps $W_i$ of eq. (2) (paper eq. 8) cost m D\u00b2.",
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
            s.grid(gx, gy, 2, 8, cell, shades(imp, KINDS["state"][1]))
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
            s.grid(ax, y + 106, n, n, c, shades(att, KINDS["attn"][1]))
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
