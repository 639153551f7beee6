"""What each position may see under the three pretraining objectives, as ``(T, T)``
matrices for mask diagrams (chapter "Pretraining").

Two kinds of matrix, row i and column j:

* **attention masks**, exactly those the models use: ``"mlm"`` (every position
  attends to every position), ``"causal"`` (``j <= i``, ``CausalLM``), ``"content"``
  and ``"query"`` (XLNet's two streams for an order, ``PermutationLM``);
* **conditioning sets**: which tokens' identities the prediction of token i uses,
  ``p(x_i | ...)``. ``"mlm_context"``: the unmasked tokens (a masked token is
  predicted without knowing the other masked ones: BERT's independence assumption);
  ``"causal_context"``: ``j < i``; ``"permutation_context"``: tokens earlier in the
  order, which is the query mask.
"""

from __future__ import annotations

from typing import Sequence

import torch

from lamalib.nn.masking import causal_mask
from lamalib.nn.transformer.two_stream import permutation_masks


def visibility(T: int, order: Sequence[int] | torch.Tensor | None = None,
               masked: Sequence[int] = ()) -> dict[str, torch.Tensor]:
    """The objectives' ``(T, T)`` bool matrices (row i, column j; see the module).

    Args:
        T: sentence length.
        order: a factorisation order, positions from 0 (``[2, 1, 3, 0]`` is the
            paper's 3 -> 2 -> 4 -> 1); None leaves out the permutation entries.
        masked: positions replaced by [MASK] in the masked LM's input.
    """
    hidden = torch.zeros(T, dtype=torch.bool)
    hidden[list(masked)] = True  # (T,)
    out = {
        "mlm": torch.ones(T, T, dtype=torch.bool),
        "mlm_context": (~hidden)[None, :].expand(T, T).clone(),  # (T, T)
        "causal": causal_mask(T),
        "causal_context": causal_mask(T).tril(-1),  # x_i from x_<i
    }
    if order is not None:
        content, query = permutation_masks(torch.as_tensor(order, dtype=torch.long))
        out.update(content=content, query=query, permutation_context=query)
    return out
