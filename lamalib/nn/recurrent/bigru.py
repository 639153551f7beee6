"""Bidirectional GRU encoder on ``nn.GRU`` (chapter "Recurrent networks and the GRU").

The fast counterpart of the from-scratch :class:`lamalib.nn.recurrent.cells.Recurrent`
layer: the same function (a test proves it), but one fused kernel per direction (cuDNN
on a GPU). The attention chapters (SAN, LAMA) reuse it as their encoder.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from lamalib.nn.masking import lengths_to_mask


class BiGRU(nn.Module):
    """Encode a padded batch into concatenated forward and backward GRU states.

    Args:
        input_size: E, the width of the input vectors.
        hidden_size: D, the width of each direction; the output is 2D wide.
        num_layers: stacked bidirectional layers.
        dropout: dropout between stacked layers (ignored for one layer).

    Shapes: ``forward(x (B, T, E), mask (B, T) bool) -> states (B, T, 2D)``; the first D
    features are the forward state, the last D the backward state, padding rows are 0.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.hidden_size = hidden_size
        self.output_size = 2 * hidden_size
        self.gru = nn.GRU(
            input_size,
            hidden_size,
            num_layers=num_layers,
            batch_first=True,
            bidirectional=True,
            # nn.GRU warns about dropout on a single layer, where it does nothing.
            dropout=dropout if num_layers > 1 else 0.0,
        )

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> torch.Tensor:
        B, T, _ = x.shape  # (B, T, E)
        if mask is None:
            return self.gru(x)[0]  # (B, T, 2D)
        mask = mask.to(torch.bool)
        if bool(mask.all()):
            # No padding: the same function without packing. On the CPU, autograd
            # through a packed sequence zero-fills a full-size gradient for every time
            # step (SliceBackward), so its backward grows as T^2: at T = 250, batch 32,
            # 4.5 times the unpacked backward.
            return self.gru(x)[0]  # (B, T, 2D)
        lengths = mask.sum(dim=1)  # (B,)
        if not torch.equal(mask, lengths_to_mask(lengths, T)):
            raise ValueError(
                "BiGRU expects right-padded batches (mask True for the first tokens, "
                "then False); pad at the end, e.g. with lamalib.data.pad_sequences"
            )
        if x.device.type == "cpu":
            return self._reversed_rows(x, mask, lengths)  # (B, T, 2D)
        # Packing makes the backward direction start at each row's last real token,
        # not at the padding: pads never reach a real state (and cost no time).
        # pack_padded_sequence rejects length 0; such rows are zeroed below instead.
        packed = pack_padded_sequence(
            x, lengths.clamp(min=1).cpu(), batch_first=True, enforce_sorted=False
        )
        out, _ = self.gru(packed)
        states, _ = pad_packed_sequence(out, batch_first=True, total_length=T)
        return states * mask[..., None]  # (B, T, 2D)

    def _direction(self, x: torch.Tensor, layer: int, reverse: bool) -> torch.Tensor:
        """One direction of one layer of ``self.gru``, read left to right over ``x``
        ``(B, T, In)``: ``(B, T, D)``, with that direction's own weights."""
        suffix = f"_l{layer}" + ("_reverse" if reverse else "")
        weights = [getattr(self.gru, f"{name}{suffix}")
                   for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        h0 = x.new_zeros(1, x.shape[0], self.hidden_size)  # (1, B, D)
        return torch._VF.gru(x, h0, weights, True, 1, 0.0, self.training, False,
                             True)[0]  # (B, T, D)

    def _reversed_rows(self, x: torch.Tensor, mask: torch.Tensor,
                       lengths: torch.Tensor) -> torch.Tensor:
        """The packed result without packing (the CPU path for padded batches).

        Pads sit after every real token, so the forward direction run over the padded
        batch gives each real position exactly its packed state. The backward
        direction reads each row reversed *within its length* (``flip``: position
        ``t < n`` takes ``n - 1 - t``, pads stay at the end), so it too starts at the
        last real token; its states are put back with the same permutation. On the
        CPU, autograd through a packed sequence zero-fills a full-size gradient at
        every time step, so its backward grows as T^2; this path stays linear in T
        (``benchmarks/bigru_padding.py``: 4.6 times faster than packing at T = 400).
        """
        B, T, _ = x.shape
        pos = torch.arange(T, device=x.device).expand(B, T)  # (B, T)
        n = lengths[:, None]  # (B, 1)
        flip = torch.where(pos < n, n - 1 - pos, pos)  # (B, T), its own inverse
        h = x  # (B, T, In)
        for layer in range(self.gru.num_layers):
            if layer > 0 and self.training and self.gru.dropout > 0:
                h = nn.functional.dropout(h, self.gru.dropout, training=True)
            forward = self._direction(h, layer, reverse=False)  # (B, T, D)
            h_rev = h.gather(1, flip[..., None].expand_as(h))  # rows reversed
            backward = self._direction(h_rev, layer, reverse=True)  # (B, T, D)
            backward = backward.gather(1, flip[..., None].expand_as(backward))
            h = torch.cat([forward, backward], dim=-1) * mask[..., None]  # (B, T, 2D)
        return h  # (B, T, 2D), pads 0
