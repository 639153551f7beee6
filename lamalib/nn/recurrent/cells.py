"""RNN, LSTM and GRU cells from scratch, unrolled over a masked batch.

Chapter "Recurrent networks and the GRU" derives every line; equation numbers in the
comments are that chapter's, and the GRU follows eqs. (1)-(4) of the LAMA paper exactly
(chapter eqs. (7)-(10)). These are teaching versions:
:class:`lamalib.nn.recurrent.bigru.BiGRU` runs the same function on ``nn.GRU``, and
``torch_parameters()`` maps our weights to PyTorch's so a test can prove both compute
the same outputs and gradients.
"""

from __future__ import annotations

import math

import torch
from torch import nn

State = torch.Tensor | tuple[torch.Tensor, torch.Tensor]


class _Cell(nn.Module):
    """Shared parts: the input and recurrent projections of all gates at once.

    ``x_proj`` holds the input weights of every gate stacked (one matmul instead of one
    per gate) and the only bias; ``h_proj`` the recurrent weights. ``forward(x, state)``
    is one time step; ``step(xp, state)`` takes ``xp = x_proj(x)`` precomputed, so a
    layer can project all T inputs in one matmul before the sequential loop.
    """

    gates = 1

    def __init__(self, input_size: int, hidden_size: int) -> None:
        super().__init__()
        self.input_size, self.hidden_size = input_size, hidden_size
        self.x_proj = nn.Linear(input_size, self.gates * hidden_size)
        self.h_proj = nn.Linear(hidden_size, self.gates * hidden_size, bias=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        # PyTorch's RNN initialisation: both versions start from the same distribution.
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def initial_state(self, batch: int, like: torch.Tensor) -> State:
        """The zero state for ``batch`` rows, on the device and dtype of ``like``."""
        return like.new_zeros(batch, self.hidden_size)  # (B, D)

    @staticmethod
    def hidden(state: State) -> torch.Tensor:
        """The part of the state that is the output h_t (the LSTM also carries c_t)."""
        return state  # (B, D)

    def forward(self, x: torch.Tensor, state: State) -> State:
        return self.step(self.x_proj(x), state)  # x (B, E) -> (B, D)

    def step(self, xp: torch.Tensor, state: State) -> State:
        raise NotImplementedError

    def torch_parameters(self) -> dict[str, torch.Tensor]:
        """Our weights in ``nn.RNN``/``nn.LSTM``/``nn.GRU`` layout (differentiable).

        The RNN and LSTM stack their gates in PyTorch's order, so the weights map as
        they are; PyTorch has two biases where we have one, their sum is what matters,
        so ours goes into bias_ih and bias_hh is zero.
        """
        return {
            "weight_ih": self.x_proj.weight,
            "weight_hh": self.h_proj.weight,
            "bias_ih": self.x_proj.bias,
            "bias_hh": self._zero_bias(),
        }

    def _zero_bias(self) -> torch.Tensor:
        return self.x_proj.bias.new_zeros(self.gates * self.hidden_size)


class RNNCell(_Cell):
    """Elman RNN cell, eq. (1): ``h_t = tanh(W x_t + U h_{t-1} + b)``.

    Args: input_size E, hidden_size D. ``forward(x (B, E), h (B, D)) -> h (B, D)``.
    """

    gates = 1

    def step(self, xp: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return torch.tanh(xp + self.h_proj(h))  # (B, D), eq. (1)


class LSTMCell(_Cell):
    """LSTM cell, eq. (6): gates i, f, o, candidate g; cell c_t and output h_t.

    Args: input_size E, hidden_size D.
    ``forward(x (B, E), (h, c) each (B, D)) -> (h, c)``. Gates are stacked in PyTorch's
    order (i, f, g, o), so the mapping to ``nn.LSTM`` is the identity.
    """

    gates = 4

    def initial_state(self, batch: int, like: torch.Tensor) -> State:
        h = like.new_zeros(batch, self.hidden_size)  # (B, D)
        return h, h.clone()

    @staticmethod
    def hidden(state: State) -> torch.Tensor:
        return state[0]  # (B, D)

    def step(self, xp: torch.Tensor, state: State) -> State:
        h, c = state  # (B, D) each
        a = xp + self.h_proj(h)  # (B, 4D)
        i, f, g, o = a.chunk(4, dim=-1)  # (B, D) each
        # eq. (6): the cell state is updated additively; f decides how much survives.
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)  # (B, D)
        h = torch.sigmoid(o) * torch.tanh(c)  # (B, D)
        return h, c


class GRUCell(_Cell):
    """GRU cell exactly as eqs. (1)-(4) of the LAMA paper (chapter eqs. (7)-(10)).

    Args: input_size E, hidden_size D. ``forward(x (B, E), h (B, D)) -> h (B, D)``.
    Gates are stacked as (z, r, h~): ``x_proj`` holds ``[W_z; W_r; W_h]`` and
    ``[b_z; b_r; b_h]``, ``h_proj`` holds ``[U_z; U_r; U_h]``.
    """

    gates = 3

    def step(self, xp: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        xz, xr, xh = xp.chunk(3, dim=-1)  # (B, D) each
        hz, hr, hh = self.h_proj(h).chunk(3, dim=-1)  # (B, D) each
        z = torch.sigmoid(xz + hz)  # (B, D), eq. (7): update gate
        r = torch.sigmoid(xr + hr)  # (B, D), eq. (8): reset gate
        h_tilde = torch.tanh(xh + r * hh)  # (B, D), eq. (9): candidate state
        return (1 - z) * h + z * h_tilde  # (B, D), eq. (10): interpolation

    def torch_parameters(self) -> dict[str, torch.Tensor]:
        """Map to ``nn.GRU``: gate order (r, z, n), z swapped, r applied to a bias too.

        ``nn.GRU`` computes ``h_t = (1 - z') n + z' h_{t-1}``, so its z' is our 1 - z;
        as ``1 - sigmoid(a) = sigmoid(-a)``, z' takes our z weights negated. It also
        computes ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``: the paper has no
        bias inside the reset product, so b_hn = 0 and our b_h goes into b_in.
        """
        W_z, W_r, W_h = self.x_proj.weight.chunk(3, dim=0)  # (D, E) each
        b_z, b_r, b_h = self.x_proj.bias.chunk(3, dim=0)  # (D,) each
        U_z, U_r, U_h = self.h_proj.weight.chunk(3, dim=0)  # (D, D) each
        return {
            "weight_ih": torch.cat([W_r, -W_z, W_h]),
            "weight_hh": torch.cat([U_r, -U_z, U_h]),
            "bias_ih": torch.cat([b_r, -b_z, b_h]),
            "bias_hh": self._zero_bias(),
        }


CELLS: dict[str, type[_Cell]] = {"rnn": RNNCell, "lstm": LSTMCell, "gru": GRUCell}
_TORCH_MODULES = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}


def _keep_where(keep: torch.Tensor, new: State, old: State) -> State:
    """``new`` on rows where ``keep`` (B, 1) is True, else ``old``; also for (h, c)."""
    if isinstance(new, tuple):
        return tuple(torch.where(keep, n, o) for n, o in zip(new, old))
    return torch.where(keep, new, old)


class Recurrent(nn.Module):
    """A from-scratch recurrent layer: a cell unrolled over time, one or two directions.

    Args:
        cell: ``"rnn"``, ``"lstm"`` or ``"gru"`` (the keys of :data:`CELLS`).
        input_size: E.
        hidden_size: D per direction.
        bidirectional: also run a second cell from the last real token to the first
            and concatenate its states (forward first), as ``nn.GRU`` does.

    Shapes: ``forward(x (B, T, E), mask (B, T) bool or None)`` returns
    ``states (B, T, dirs * D)`` (0 at padding) and ``last (B, dirs * D)``: the forward
    state after the last real token and the backward state after the first one.
    The mask is respected exactly: a padded position leaves the state unchanged, so
    padding never changes a real token's state, whichever side it is on.
    """

    def __init__(
        self, cell: str, input_size: int, hidden_size: int, bidirectional: bool = False
    ) -> None:
        super().__init__()
        if cell not in CELLS:
            raise ValueError(f"unknown cell {cell!r}; choose one of {sorted(CELLS)}")
        self.kind, self.bidirectional = cell, bidirectional
        self.input_size, self.hidden_size = input_size, hidden_size
        n_dirs = 2 if bidirectional else 1
        self.cells = nn.ModuleList(
            CELLS[cell](input_size, hidden_size) for _ in range(n_dirs)
        )

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        B, T, _ = x.shape  # (B, T, E)
        if mask is None:
            mask = x.new_ones(B, T, dtype=torch.bool)
        keep = mask.to(torch.bool)[..., None]  # (B, T, 1)
        outputs, lasts = [], []
        for direction, cell in enumerate(self.cells):
            xp = cell.x_proj(x)  # (B, T, G*D): all inputs projected in one matmul
            state = cell.initial_state(B, x)
            steps = range(T) if direction == 0 else range(T - 1, -1, -1)
            hs = [None] * T
            for t in steps:  # the sequential part: step t needs step t - 1 (eq. (1))
                # A padded step keeps the old state, so the backward direction starts
                # from zeros at each row's own last token, like a packed nn.GRU.
                state = _keep_where(keep[:, t], cell.step(xp[:, t], state), state)
                hs[t] = cell.hidden(state)  # (B, D)
            outputs.append(torch.stack(hs, dim=1) * keep)  # (B, T, D)
            lasts.append(cell.hidden(state))  # (B, D)
        return torch.cat(outputs, dim=-1), torch.cat(lasts, dim=-1)

    def torch_parameters(self) -> dict[str, torch.Tensor]:
        """Our weights under the names of a one-layer ``nn.RNN``/``LSTM``/``GRU``."""
        params = {}
        for direction, cell in enumerate(self.cells):
            suffix = "_l0" + ("_reverse" if direction else "")
            for name, value in cell.torch_parameters().items():
                params[name + suffix] = value
        return params

    def to_torch(self) -> nn.Module:
        """An ``nn.RNN``/``LSTM``/``GRU`` (batch_first) computing the same function."""
        module = _TORCH_MODULES[self.kind](
            self.input_size,
            self.hidden_size,
            batch_first=True,
            bidirectional=self.bidirectional,
        )
        with torch.no_grad():
            module.load_state_dict(
                {k: v.detach().clone() for k, v in self.torch_parameters().items()}
            )
        return module.to(next(self.parameters()).device)


@torch.no_grad()
def init_memory_bias(layer: Recurrent, value: float) -> Recurrent:
    """Bias the gates of every cell towards keeping the old state, by ``value``.

    LSTM: the forget-gate bias becomes ``+value`` (f = sigmoid(value) near 1);
    Jozefowicz et al. (2015) recommend a forget-gate bias of 1, so ``value=1`` is
    their advice. GRU: the update-gate bias b_z becomes ``-value`` (z near 0 keeps
    h_{t-1}, eq. (10)); that is our counterpart, not their recommendation. A plain RNN
    has no gate, so it is refused.
    """
    if layer.kind == "rnn":
        raise ValueError("an RNN has no gate to bias; use 'lstm' or 'gru'")
    D = layer.hidden_size
    for cell in layer.cells:
        if layer.kind == "lstm":
            cell.x_proj.bias[D : 2 * D] = value  # (i, f, g, o): f is the second block
        else:
            cell.x_proj.bias[:D] = -value  # (z, r, h~): z is the first block
    return layer


def input_gradient_norms(layer: Recurrent, x: torch.Tensor) -> torch.Tensor:
    """How much of the loss at the last step reaches each earlier step (eq. (2)).

    Args:
        layer: a one-direction :class:`Recurrent` layer.
        x: inputs ``(B, T, E)``.

    Returns ``(T,)``: the norm of ``dL/dx_t`` averaged over the batch, for
    ``L = sum(h_T)``, a loss that only sees the final state.
    """
    x = x.detach().requires_grad_(True)
    _, last = layer(x)  # (B, D)
    (grad,) = torch.autograd.grad(last.sum(), x)  # (B, T, E)
    return grad.norm(dim=-1).mean(dim=0)  # (T,)
