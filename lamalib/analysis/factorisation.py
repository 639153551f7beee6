"""How the masked LM and the permutation LM factorise the probability of several
tokens (chapter "Pretraining"; Yang et al., 2019, section 2.1).

For "New York is a city" with *New* and *York* to predict, BERT's objective is
``log p(New | is a city) + log p(York | is a city)``: both are masked at once, so
neither prediction knows the other token (the independence assumption). XLNet's, for
an order that puts New before York, is ``log p(New | is a city) + log p(York | New,
is a city)``. The two functions here compute those terms for trained models.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import nn


def _row(tokens: Sequence[int] | torch.Tensor, model: nn.Module) -> torch.Tensor:
    device = next(model.parameters()).device
    return torch.as_tensor(tokens, dtype=torch.long, device=device)[None]  # (1, T)


@torch.no_grad()
def mlm_log_probs(model: nn.Module, tokens: Sequence[int] | torch.Tensor,
                  targets: Sequence[int], mask_id: int) -> torch.Tensor:
    """``log p(x_i | unmasked tokens)`` for each target position i, all masked at once.

    Args:
        model: ``model(tokens (1, T), mask (1, T))`` gives logits ``(1, T, V)`` (or a
            tuple whose first item they are, as ``BertPretraining``).
        tokens: ``(T,)`` ids of the sentence; targets: positions to predict.
        mask_id: id of [MASK].

    Returns:
        ``(len(targets),)`` log-probabilities, in the order of ``targets``.
    """
    x = _row(tokens, model)  # (1, T)
    inputs = x.clone()
    inputs[0, list(targets)] = mask_id
    was_training = model.training
    model.eval()
    out = model(inputs, torch.ones_like(x, dtype=torch.bool))
    model.train(was_training)
    logits = out[0] if isinstance(out, tuple) else out  # (1, T, V)
    log_p = logits[0].float().log_softmax(-1)  # (T, V)
    idx = torch.as_tensor(list(targets), device=x.device)
    return log_p[idx, x[0, idx]]  # (n,)


def order_predicting_last(T: int, targets: Sequence[int]) -> torch.Tensor:
    """The factorisation order ``(T,)``: the other positions first (left to right),
    then ``targets`` in the order given, so target k is predicted from every other
    token and from the targets before it."""
    rest = [i for i in range(T) if i not in set(targets)]
    return torch.tensor(rest + list(targets), dtype=torch.long)


@torch.no_grad()
def permutation_log_probs(model: nn.Module, tokens: Sequence[int] | torch.Tensor,
                          targets: Sequence[int]) -> torch.Tensor:
    """``log p(x_{t_k} | other tokens, x_{t_<k})`` for each target ``t_k`` of a
    ``PermutationLM``, with the order of :func:`order_predicting_last`.

    Returns ``(len(targets),)`` log-probabilities, in the order of ``targets``.
    """
    x = _row(tokens, model)  # (1, T)
    order = order_predicting_last(x.shape[1], targets).to(x.device)[None]  # (1, T)
    was_training = model.training
    model.eval()
    logits = model(x, torch.ones_like(x, dtype=torch.bool), order)  # (1, T, V)
    model.train(was_training)
    log_p = logits[0].float().log_softmax(-1)  # (T, V)
    idx = torch.as_tensor(list(targets), device=x.device)
    return log_p[idx, x[0, idx]]  # (n,)
