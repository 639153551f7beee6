"""Attention weight summed by the role each token plays (chapter "Self-attention and
multi-head attention").

A synthetic task knows the role of every token (operator, the word it governs, ...; see
:func:`lamalib.data.datasets.synthetic.token_roles`), so instead of asking whether
attention looks "at the evidence" we can say where each hop or head puts its weight.
"""

from __future__ import annotations

from typing import Sequence

import torch


def weight_by_role(
    weights: torch.Tensor, roles: Sequence[str], names: Sequence[str]
) -> torch.Tensor:
    """Sum ``weights (..., T)`` over the tokens of each role in ``names``.

    Args:
        weights: attention weights whose last axis runs over the T tokens of one
            sentence, e.g. SAN's hops ``(r, T)`` or a layer's ``(H, T, T)``.
        roles: the role of each of the T tokens.
        names: the roles to report, in order; a role absent from the sentence gets 0.

    Returns ``(..., len(names))``; where ``names`` covers every role and each row of
    ``weights`` is a distribution, each output row sums to 1.
    """
    weights = torch.as_tensor(weights)
    if weights.shape[-1] != len(roles):
        raise ValueError(
            f"weights cover {weights.shape[-1]} tokens, roles {len(roles)}"
        )
    onehot = torch.tensor(
        [[float(role == name) for name in names] for role in roles],
        dtype=weights.dtype,
    )  # (T, K)
    return weights @ onehot  # (..., K)
