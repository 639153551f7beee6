"""Recurrent cells (chapter 3): the unrolled RNN with backpropagation through time,
the LSTM and GRU cells."""

from __future__ import annotations

from .style import SMALL, MUTED, GRAD, KINDS, Svg, legend


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
