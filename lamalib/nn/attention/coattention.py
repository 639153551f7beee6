"""Co-attention between two sequences (chapter "Attention mechanisms").

One affinity matrix ``L = A W B^T`` scores every pair (a_i, b_j) (eq. (19));
a softmax over its rows lets every a_i attend over B, a softmax over its columns lets
every b_j attend over A. Both directions share the pairwise scores, as in the parallel
co-attention of Lu et al. (2016) and the coattention encoder of Xiong et al. (2017).
"""

from __future__ import annotations

from torch import nn

from lamalib.nn.masking import masked_softmax
from lamalib.nn.attention.scores import GeneralScore


class CoAttention(nn.Module):
    """Attend from A to B and from B to A with one bilinear affinity.

    Shapes: ``forward(a (B, Ta, Da), b (B, Tb, Db), mask_a (B, Ta), mask_b (B, Tb))``
    returns ``(a_context (B, Ta, Db), b_context (B, Tb, Da))`` and
    ``(a_to_b (B, Ta, Tb), b_to_a (B, Tb, Ta))`` weights.
    """

    def __init__(self, d_a: int, d_b: int) -> None:
        super().__init__()
        self.affinity = GeneralScore(d_a, d_b)  # L_ij = a_i^T W b_j

    def forward(self, a, b, mask_a=None, mask_b=None):
        L = self.affinity(a, b)  # (B, Ta, Tb)
        key_b = None if mask_b is None else mask_b[:, None, :]  # (B, 1, Tb)
        key_a = None if mask_a is None else mask_a[:, None, :]  # (B, 1, Ta)
        a_to_b = masked_softmax(L, key_b)  # rows: each a_i over B
        b_to_a = masked_softmax(L.transpose(1, 2), key_a)  # columns: each b_j over A
        return (a_to_b @ b, b_to_a @ a), (a_to_b, b_to_a)
