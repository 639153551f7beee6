"""Test helpers shared by every model's tests (and usable in chapters).

``assert_padding_invariant`` proves DESIGN rule 6: padding never changes a result.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from lamalib.data.batching import pad_sequences

Forward = Callable[[torch.nn.Module, torch.Tensor, torch.Tensor], torch.Tensor]


def _default_forward(
    model: torch.nn.Module, tokens: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    out = model(tokens, mask)
    return out[0] if isinstance(out, tuple) else out


@torch.no_grad()
def assert_padding_invariant(
    model: torch.nn.Module,
    sequences: Sequence[Sequence[int]],
    pad_id: int = 0,
    extra_pad: int = 3,
    forward: Forward = _default_forward,
    atol: float = 1e-5,
) -> None:
    """Assert that a padded batch gives each sequence the output it gets alone.

    Every sequence is run (a) alone, unpadded, (b) in one batch with the others, padded
    to the longest plus ``extra_pad`` positions. Outputs ``(B, ...)`` must agree; an
    output with a time axis ``(B, T, ...)`` is compared on the real positions only.
    """
    model.eval()
    tokens, mask = pad_sequences(sequences, pad_id)  # (B, T)
    B, T = tokens.shape
    tokens = torch.cat(
        [tokens, torch.full((B, extra_pad), pad_id)], 1
    )  # (B, T + extra)
    mask = torch.cat([mask, torch.zeros(B, extra_pad, dtype=torch.bool)], 1)
    batched = forward(model, tokens, mask)
    for b, seq in enumerate(sequences):
        alone_tokens, alone_mask = pad_sequences([seq], pad_id)  # (1, L)
        alone = forward(model, alone_tokens, alone_mask)[0]
        got = batched[b]
        if (
            got.dim() >= 1
            and got.shape[0] == tokens.shape[1]
            and alone.shape[0] == len(seq)
        ):
            got = got[: len(seq)]  # a per-token output: compare the real positions
        if got.shape != alone.shape:
            raise AssertionError(
                f"sequence {b}: shape {tuple(got.shape)} padded vs "
                f"{tuple(alone.shape)} alone"
            )
        err = (got - alone).abs().max().item()
        if not err <= atol:
            raise AssertionError(
                f"padding changed the output of sequence {b} (length {len(seq)}): "
                f"max abs difference {err:.3g} > {atol}"
            )
