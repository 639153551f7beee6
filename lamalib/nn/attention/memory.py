"""Key-value memory networks read as attention over an external memory (chapter
"Attention mechanisms"; Miller et al. 2016, eqs. (22) and (23)).

The memory is a set of slots, each with a key (what to match) and a value (what to
return). A read is attention with the keys as keys and the values as values; after
each of ``hops`` reads the query is updated with what was read, so the next read can
follow a chain of facts.
"""

from __future__ import annotations

import torch
from torch import nn

from lamalib.nn.attention.unified import Attention


class KeyValueMemory(nn.Module):
    """Multi-hop key-value memory reader.

    Shapes: ``forward(query (B, D), keys (B, M, D), values (B, M, D), mask (B, M))``
    returns ``answer (B, D)`` (the query after the last hop) and
    ``weights (B, hops, M)`` (the addressing of every hop).
    """

    def __init__(self, d: int, hops: int = 1, score: str = "dot", **score_kwargs
                 ) -> None:
        super().__init__()
        self.read = Attention(score, d, d, **score_kwargs)
        # R_h of the paper: one update matrix per hop.
        self.update = nn.ModuleList(nn.Linear(d, d, bias=False) for _ in range(hops))

    def forward(self, query, keys, values, mask=None):
        q, addressing = query, []  # (B, D)
        for R in self.update:
            read, weights = self.read(q, keys, values, mask)  # (B, D), (B, M)
            q = R(q + read)  # eq. (23)
            addressing.append(weights)
        return q, torch.stack(addressing, 1)  # (B, D), (B, hops, M)
