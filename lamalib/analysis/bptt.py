"""Backpropagation through time by hand, for the RNN language model (chapter
"Recurrent networks and the GRU", eqs. (4)-(5)).

For the plain RNN cell ``h_k = tanh(a_k)``, ``a_k = W x_k + U h_{k-1} + b`` (eq. (1))
under the language model's loss ``E = sum_t E_t`` (eq. (3)), the gradient of one step's
loss with respect to the recurrent matrix is a sum over every earlier step k that used
U (eq. (4)):

    dE_t/dU = sum_{k=1..t} (dE_t/dh_t) (dh_t/dh_k) (d+h_k/dU)

where ``dh_t/dh_k`` is the product of the Jacobians of eq. (2) and ``d+h_k/dU`` is the
immediate dependence of step k on U (h_{k-1} held fixed). This module computes every
term of that sum explicitly, without autograd, so a test and the chapter can compare
it with ``torch.autograd``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lamalib.models.rnn_lm import RNNLanguageModel


def _check(lm: RNNLanguageModel) -> None:
    if lm.rnn.kind != "rnn" or lm.rnn.bidirectional:
        raise ValueError("the hand derivation is for a one-direction plain RNN "
                         "(cell='rnn'); gated cells have other Jacobians")


@torch.no_grad()
def bptt_terms(lm: RNNLanguageModel, tokens: torch.Tensor, t: int
               ) -> dict[str, torch.Tensor]:
    """The terms of eq. (4), one per step k = 1..t, for the loss ``E_t`` alone.

    Args:
        lm: an :class:`RNNLanguageModel` with ``cell="rnn"``.
        tokens: ``(B, T)`` long, no padding; ``tokens[:, 0]`` is x_1.
        t: the step whose loss E_t (predicting x_{t+1} from h_t) is differentiated,
            ``1 <= t <= T - 1``.

    Returns ``{"U": (t, D, D), "W": (t, D, E), "b": (t, D)}``: row ``k - 1`` is the
    term of step k; each term is summed over the batch, as ``E_t`` is.
    """
    _check(lm)
    B, T = tokens.shape
    if not 1 <= t <= T - 1:
        raise ValueError(f"t must be in 1..{T - 1} for {T} tokens, got {t}")
    cell = lm.rnn.cells[0]
    x, h = lm.states(tokens)  # (B, T, E), (B, T, D): x_1..x_T, h_1..h_T
    h = torch.cat([h.new_zeros(B, 1, h.shape[-1]), h], dim=1)  # (B, T+1, D): h_0 = 0
    U = cell.h_proj.weight  # (D, D), eq. (1)
    V = lm.out.weight  # (V, D), eq. (3)
    y_hat = torch.softmax(lm.out(h[:, t]), dim=-1)  # (B, V): eq. (3)
    y = F.one_hot(tokens[:, t], V.shape[0]).to(h.dtype)  # (B, V): x_{t+1}
    grad_h = (y_hat - y) @ V  # (B, D): dE_t/dh_t = V^T (y_hat_t - y_t), eq. (5)
    terms: dict[str, list[torch.Tensor]] = {"U": [], "W": [], "b": []}
    for k in range(t, 0, -1):  # k = t, t-1, ..., 1
        # delta_k = dE_t/da_k: the chain down to step k, times tanh' at step k.
        delta = (1 - h[:, k] ** 2) * grad_h  # (B, D), eq. (5)
        terms["U"].append(delta.T @ h[:, k - 1])  # (D, D): delta_k h_{k-1}^T
        terms["W"].append(delta.T @ x[:, k - 1])  # (D, E): delta_k x_k^T
        terms["b"].append(delta.sum(0))  # (D,)
        # One more Jacobian of eq. (2): dE_t/dh_{k-1} = dE_t/dh_k diag(1 - h_k^2) U.
        grad_h = delta @ U  # (B, D)
    return {name: torch.stack(ts[::-1]) for name, ts in terms.items()}  # k = 1 first


def bptt_gradient(lm: RNNLanguageModel, tokens: torch.Tensor, t: int | None = None
                  ) -> dict[str, torch.Tensor]:
    """``dE_t/dU``, ``dE_t/dW`` and ``dE_t/db`` by eq. (4): the sum of the terms of
    :func:`bptt_terms`; with ``t=None`` the gradient of ``E = sum_t E_t`` (eq. (3)).

    Returns ``{"U": (D, D), "W": (D, E), "b": (D,)}``, in the layout of
    ``h_proj.weight``, ``x_proj.weight`` and ``x_proj.bias``.
    """
    steps = range(1, tokens.shape[1]) if t is None else [t]
    total: dict[str, torch.Tensor] = {}
    for step in steps:
        for name, term in bptt_terms(lm, tokens, step).items():
            total[name] = total.get(name, 0) + term.sum(0)
    return total
